package safeexec

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// suspendChar returns the suspend key of the terminal behind master and
// whether the terminal turns it into SIGTSTP (ISIG).
func suspendChar(master *os.File) (susp byte, isig, ok bool) {
	t, err := unix.IoctlGetTermios(int(master.Fd()), unix.TCGETS)
	if err != nil {
		return 0, false, false
	}
	return t.Cc[unix.VSUSP], t.Lflag&unix.ISIG != 0, true
}

// foregroundGroup is the foreground process group of the terminal behind
// master, as a process id of safeexec's own pid namespace.
func foregroundGroup(master *os.File) (int, error) {
	return unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPGRP)
}

// stoppedGroup reports the foreground process group of the terminal
// behind master when its leader is stopped by a signal.
func stoppedGroup(master *os.File) (int, bool) {
	pgid, err := foregroundGroup(master)
	if err != nil || pgid <= 1 {
		return 0, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pgid) + "/stat")
	if err != nil {
		return 0, false
	}
	// pid (comm) state ...: comm may hold anything, so look after the
	// last parenthesis.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, false
	}
	return pgid, b[i+2] == 'T'
}
