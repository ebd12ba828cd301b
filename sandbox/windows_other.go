//go:build !windows

package sandbox

import (
	"fmt"
	"os"
)

// RunWindowsHelper is the built-in Windows helper (safeexec __winhelper
// run …), which exists only on Windows.
func RunWindowsHelper(args []string) int {
	fmt.Fprintln(os.Stderr, "safeexec: __winhelper: the Windows helper exists only on Windows")
	return 125
}
