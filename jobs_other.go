//go:build unix && !linux

package safeexec

import "os"

// Elsewhere the process state is not read: ^Z reaches the command, which
// may stop, and safeexec waits for it as before.

func suspendChar(*os.File) (byte, bool, bool) { return 0, false, false }
func foregroundGroup(*os.File) (int, error)   { return 0, os.ErrInvalid }
func stoppedGroup(*os.File) (int, bool)       { return 0, false }
