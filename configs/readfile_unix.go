//go:build unix

package configs

import (
	"errors"
	"io/fs"
	"syscall"
)

// readSmall reads a whole regular file of at most limit bytes with the
// fewest system calls (open, fstat, read, close): Load runs on every
// command, and os.Open's poller registration costs more than the read.
// It refuses what is not a regular file without blocking on it (a FIFO).
func readSmall(path string, limit int64) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, errNotRegular
	}
	if st.Size > limit {
		return nil, errTooLarge
	}
	// One byte more than the size so that a file that grew is noticed;
	// a read that fills exactly the size is taken as complete.
	buf := make([]byte, st.Size+1)
	n := 0
	for n < len(buf) && (n == 0 || int64(n) != st.Size) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR || err == syscall.EAGAIN {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
		if int64(n) > limit {
			return nil, errTooLarge
		}
	}
	return buf[:n], nil
}

var (
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = errors.New("file too large")
)
