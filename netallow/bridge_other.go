//go:build !unix

package netallow

import (
	"fmt"
	"os"
)

// RunBridge is Linux's (and other Unix systems') in-sandbox bridge; there
// is nothing for it to do elsewhere, where sandboxes reach the proxy's
// TCP ports directly.
func RunBridge(args []string) int {
	fmt.Fprintln(os.Stderr, "safeexec: network bridge: not supported on this system")
	return 125
}
