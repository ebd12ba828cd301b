//go:build unix

package configs

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockDir holds an exclusive lock on dir until the returned function is
// called, so that two edits of a file in it do not lose one another.
func lockDir(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
