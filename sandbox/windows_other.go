//go:build !windows

package sandbox

import (
	"fmt"
	"io"
	"os"
)

// RunWindowsHelper is the built-in Windows helper (safeexec __winhelper
// run …), which exists only on Windows.
func RunWindowsHelper(args []string) int {
	fmt.Fprintln(os.Stderr, "safeexec: __winhelper: the Windows helper exists only on Windows")
	return 125
}

// RecoverWindowsACL undoes the ACL changes of interrupted Windows runs;
// there are none on other systems.
func RecoverWindowsACL(w io.Writer) {}
