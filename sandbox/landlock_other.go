//go:build !linux

package sandbox

import (
	"fmt"
	"os"
)

// RunLandlockChild is the re-executed child of the Landlock backend, which
// exists only on Linux.
func RunLandlockChild(args []string) int {
	fmt.Fprintln(os.Stderr, "safeexec: __landlock: the Landlock sandbox exists only on Linux")
	return 125
}
