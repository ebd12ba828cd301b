//go:build windows

package audit

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/windows"
)

// openAppend opens path for appending, refusing a symbolic link (checked
// before opening; Windows has no O_NOFOLLOW).
func openAppend(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("open audit log %s: %w", path, ErrSymlink)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("open audit log %s: not a regular file", path)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	return f, nil
}

// writeLocked appends line with one WriteFile under LockFileEx.
func writeLocked(f *os.File, line []byte, sync bool) error {
	h := windows.Handle(f.Fd())
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(h, windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, ol); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer windows.UnlockFileEx(h, 0, 1, 0, ol)
	var n uint32
	if err := windows.WriteFile(h, line, &n, nil); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if int(n) != len(line) {
		return fmt.Errorf("write: %w (%d of %d bytes)", io.ErrShortWrite, n, len(line))
	}
	if sync {
		if err := windows.FlushFileBuffers(h); err != nil {
			return fmt.Errorf("flush: %w", err)
		}
	}
	return nil
}
