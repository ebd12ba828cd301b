//go:build linux

package main

import (
	"github.com/AlecAivazis/survey/v2/terminal"
	"golang.org/x/sys/unix"
)

// flushInput drops what was typed after the answer ("y" then Enter), so
// it does not reach whatever reads the terminal next.
func flushInput(in terminal.FileReader) {
	unix.IoctlSetInt(int(in.Fd()), unix.TCFLSH, unix.TCIFLUSH)
}
