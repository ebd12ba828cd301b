package main

import (
	"io"
	"os"
	"time"
)

var termSignals = []os.Signal{os.Interrupt}

// waitKey waits for input on in (the console in raw mode), a signal on
// sigc, or timeout (0: no timeout). A read still pending when it returns
// is left behind.
func waitKey(in *os.File, timeout time.Duration, sigc <-chan os.Signal) ([]byte, os.Signal, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		buf := make([]byte, 32)
		n, err := in.Read(buf)
		if n == 0 && err == nil {
			err = io.EOF
		}
		done <- result{buf[:n], err}
	}()
	var timer <-chan time.Time
	if timeout > 0 {
		timer = time.After(timeout)
	}
	select {
	case r := <-done:
		if len(r.b) > 0 {
			return r.b, nil, nil
		}
		return nil, nil, r.err
	case s := <-sigc:
		return nil, s, nil
	case <-timer:
		return nil, nil, errTimeout
	}
}

// flushInput: the console keeps its input.
func flushInput(*os.File) {}
