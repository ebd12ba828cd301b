//go:build unix

package audit

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestOpenRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() {
		l, err := Open(fifo, false)
		if err == nil {
			l.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a FIFO was accepted as the audit log")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open blocked on a FIFO")
	}
}
