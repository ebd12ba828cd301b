//go:build !unix

package safeexec

import "github.com/safeexec/safeexec/sandbox"

// agentOutput has nothing to pass through where agents' wrappers write no
// file the sandbox would hide.
func (p *pipeline) agentOutput(*sandbox.Policy) {}
