//go:build windows

package sandbox

import (
	"fmt"
	"os"
)

// RunWindowsHelper is the built-in Windows helper (safeexec __winhelper
// run …). It refuses until the restricted-token runner is built in.
func RunWindowsHelper(args []string) int {
	fmt.Fprintln(os.Stderr, "safeexec: __winhelper: the built-in Windows helper is not available in this build")
	return 125
}
