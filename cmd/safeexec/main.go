// Command safeexec runs a command after classifying it, with secrets
// stripped from its environment, the network limited to an allowlist, and
// the operating system's sandbox around it. See the README.
package main

import (
	"os"

	// First: a run starts with one processor (see the package).
	_ "github.com/safeexec/safeexec/internal/startup"
	// Then: a plain run's sandbox starts (see the package).
	_ "github.com/safeexec/safeexec/cmd/safeexec/internal/early"
)

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
