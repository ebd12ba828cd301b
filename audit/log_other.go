//go:build !unix && !windows

package audit

import (
	"fmt"
	"io"
	"os"
)

func openAppend(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("open audit log %s: %w", path, ErrSymlink)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	return f, nil
}

// writeLocked has no advisory lock on this platform; the Log's mutex
// serialises goroutines of one process only.
func writeLocked(f *os.File, line []byte, sync bool) error {
	n, err := f.Write(line)
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if n != len(line) {
		return fmt.Errorf("write: %w", io.ErrShortWrite)
	}
	if sync {
		return f.Sync()
	}
	return nil
}
