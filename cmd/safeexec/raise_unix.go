//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// raiseSignal ends safeexec by sig, as the signal's default action would
// have, so that a shell sees how it ended. If that does not end it (the
// signal is ignored), the caller exits with 128+N.
func raiseSignal(sig os.Signal) {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return
	}
	signal.Reset(s)
	syscall.Kill(syscall.Getpid(), s)
	time.Sleep(100 * time.Millisecond)
}
