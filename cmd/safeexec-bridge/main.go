// Command safeexec-bridge is safeexec's network bridge on its own: the
// small program that runs first inside a bwrap sandbox when the network is
// on and safeexec is not root. It listens on the sandbox's loopback,
// forwards each connection to the proxy's unix socket on the host, and
// runs the command. safeexec uses it when it lies next to the safeexec
// binary (it starts much faster than safeexec itself); otherwise safeexec
// runs its own copy, `safeexec __bridge`. Install both from the same
// build: the arguments between them are not a public interface.
package main

import (
	"os"

	"github.com/safeexec/safeexec/netallow"
)

func main() {
	os.Exit(netallow.RunBridge(os.Args[1:]))
}
