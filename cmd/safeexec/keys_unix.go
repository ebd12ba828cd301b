//go:build unix

package main

import (
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var termSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// waitKey waits for input on in (a terminal in raw mode), a signal on
// sigc, or timeout (0: no timeout), and returns the bytes available: one
// key, or one escape sequence.
func waitKey(in *os.File, timeout time.Duration, sigc <-chan os.Signal) ([]byte, os.Signal, error) {
	fd := int(in.Fd())
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for {
		select {
		case s := <-sigc:
			return nil, s, nil
		default:
		}
		// Wake up now and then to look at the signals.
		wait := 100 * time.Millisecond
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return nil, nil, errTimeout
			}
			wait = min(wait, left)
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(wait.Milliseconds())+1)
		if err == unix.EINTR || (err == nil && n == 0) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		buf := make([]byte, 32)
		k, err := unix.Read(fd, buf)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if k == 0 {
			return nil, nil, io.EOF
		}
		return buf[:k], nil, nil
	}
}
