package safeexec

import (
	"errors"

	"github.com/safeexec/safeexec/risk"
)

// Prompter asks a human whether a needs_confirmation command may run.
type Prompter interface {
	// Confirm shows the question and returns the human's answer. It returns
	// an error wrapping ErrNoHuman when nobody can be asked (no terminal):
	// the pipeline then denies, which is the safe answer.
	Confirm(q Question) (bool, error)
}

// Question is what a prompt shows.
type Question struct {
	// Command is the command or script, quoted for display.
	Command string
	// Verdict says why it needs confirmation.
	Verdict risk.Verdict
	// Sandbox is the backend that will confine it ("none": unconfined).
	Sandbox string
}

// ErrNoHuman means no human channel is available to ask.
var ErrNoHuman = errors.New("no terminal to ask")
