//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// flushInput discards what was typed and not yet read (tcflush TCIFLUSH:
// TIOCFLUSH with FREAD).
func flushInput(in *os.File) {
	unix.IoctlSetPointerInt(int(in.Fd()), unix.TIOCFLUSH, 1)
}
