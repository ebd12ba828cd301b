package workspace

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

func lockShared(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), 0, 0, 1, 0, &ol)
}

// tryLockExclusive takes the lock only if no run holds it.
func tryLockExclusive(f *os.File) (bool, error) {
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION):
		return false, nil
	}
	return false, err
}

func allocated(fi fs.FileInfo) int64 { return fi.Size() }
