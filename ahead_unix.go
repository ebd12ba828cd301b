//go:build unix

package safeexec

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// readAheadFile reads a remembered launch the user alone could have
// written.
func readAheadFile(name string) ([]byte, error) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() || st.Mode&0o022 != 0 || st.Size > aheadMaxFile {
		return nil, errors.New("ahead: not a file of the user's")
	}
	b := make([]byte, st.Size)
	if _, err := readFull(f, b); err != nil {
		return nil, err
	}
	return b, nil
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := f.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
