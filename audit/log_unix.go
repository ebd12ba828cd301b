//go:build unix

package audit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openAppend opens path for appending without following a final symlink
// and without blocking on a FIFO.
func openAppend(path string) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(path, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0o600)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, fmt.Errorf("open audit log %s: %w", path, ErrSymlink)
		}
		return nil, fmt.Errorf("open audit log: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("open audit log %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, fmt.Errorf("open audit log %s: not a regular file", path)
	}
	if st.Mode&0o077 != 0 && int(st.Uid) == os.Geteuid() {
		if err := unix.Fchmod(fd, 0o600); err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("open audit log %s: narrow permissions: %w", path, err)
		}
	}
	reserve(fd, st.Size)
	// Back to blocking mode: writes to a regular file never block anyway,
	// and the flag only served to refuse a FIFO.
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("open audit log %s: %w", path, err)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// writeLocked appends line with exactly one write(2) under flock(LOCK_EX).
func writeLocked(f *os.File, line []byte, sync bool) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	err = rc.Control(func(fd uintptr) {
		opErr = writeFD(int(fd), line, sync)
	})
	if err != nil {
		return err
	}
	return opErr
}

func writeFD(fd int, line []byte, sync bool) error {
	if err := retry(func() error { return unix.Flock(fd, unix.LOCK_EX) }); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer unix.Flock(fd, unix.LOCK_UN)
	var n int
	err := retry(func() error {
		var err error
		n, err = unix.Write(fd, line)
		return err
	})
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if n != len(line) {
		// A short write to a regular file means the disk or a size limit
		// is full; the torn line is skipped by readers.
		return fmt.Errorf("write: %w (%d of %d bytes)", io.ErrShortWrite, n, len(line))
	}
	if sync {
		if err := retry(func() error { return unix.Fsync(fd) }); err != nil {
			return fmt.Errorf("fsync: %w", err)
		}
	}
	return nil
}

func retry(f func() error) error {
	for {
		err := f()
		if err != syscall.EINTR {
			return err
		}
	}
}
