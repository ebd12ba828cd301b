package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// flushInput discards what was typed and not yet read.
func flushInput(in *os.File) {
	unix.IoctlSetInt(int(in.Fd()), unix.TCFLSH, unix.TCIFLUSH)
}
