package safeexec

import (
	"github.com/safeexec/safeexec/internal/prelaunch"
	"github.com/safeexec/safeexec/sandbox"
)

// adoptEarly makes the sandbox started early the run's sandbox ahead,
// with its nested channel's directory.
func adoptEarly(e *prelaunch.Early, spec AheadSpec) (*sandbox.Ahead, string) {
	return sandbox.AdoptAhead(e.Held, spec.Stdin, spec.Stdout, spec.Stderr), e.Nested
}
