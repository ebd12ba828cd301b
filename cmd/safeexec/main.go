// Command safeexec runs a command after classifying it, with secrets
// stripped from its environment, the network limited to an allowlist, and
// the operating system's sandbox around it. See the README.
package main

import (
	"os"
	"runtime"
)

func main() {
	// One command's work is sequential: its waits are on the sandbox,
	// the proxy's connections and pipes, which need no second processor.
	// With one, the runtime starts fewer threads and wakes fewer idle
	// ones, each of which costs fresh pages and a switch (serve, which
	// runs many commands at once, asks for every processor again).
	runtime.GOMAXPROCS(1)
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
