//go:build unix

package prelaunch

import (
	"errors"
	"syscall"
)

// Read reads a remembered launch the user alone could have written: a
// regular file (not followed through a symbolic link) owned by the
// effective user, writable by no one else, at most MaxFile bytes.
func Read(name string) ([]byte, error) {
	fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG || int(st.Uid) != syscall.Geteuid() || st.Mode&0o022 != 0 || st.Size > MaxFile {
		return nil, errors.New("ahead: not a file of the user's")
	}
	b := make([]byte, st.Size)
	for n := 0; n < len(b); {
		m, err := syscall.Read(fd, b[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m == 0 {
			return nil, errors.New("ahead: cut short")
		}
		n += m
	}
	return b, nil
}
