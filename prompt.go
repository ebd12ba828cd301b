package safeexec

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/safeexec/safeexec/risk"
)

// Prompter asks a human whether a needs_confirmation command may run.
type Prompter interface {
	// Confirm shows the question and returns the human's answer. It returns
	// an error wrapping ErrNoHuman when nobody can be asked (no terminal,
	// CI), ErrNoAnswer when the question timed out, and an
	// *InterruptedError when a signal ended it: the pipeline then denies,
	// which is the safe answer.
	Confirm(q Question) (Answer, error)
}

// Answer is what a human answered.
type Answer int

const (
	// Deny: do not run it.
	Deny Answer = iota
	// AllowOnce: run it this time.
	AllowOnce
	// AllowAlways: run it, and add Question.Always to the user's own
	// config so that it runs without asking from now on.
	AllowAlways
	// AllowSession: run it, and allow the same command in the same
	// directory for the rest of the agent's session (Question.Session).
	AllowSession
)

// Question is what a prompt shows.
type Question struct {
	// Command is the command or script, quoted so that it can be pasted
	// into a shell.
	Command string
	// Verdict says why it needs confirmation.
	Verdict risk.Verdict
	// Sandbox is the backend that will confine it ("none": unconfined),
	// Mode the sandbox mode.
	Sandbox string
	Mode    string
	// Always are the exact allow rules that AllowAlways adds to
	// AlwaysFile, the user's own config. Empty: "always" is not offered
	// (no exact rule would approve this command).
	Always     []string
	AlwaysFile string
	// Session is the agent's session id (SAFEEXEC_SESSION); "" means
	// AllowSession is not offered.
	Session string
	// Timeout, when positive, is how long to wait for an answer before
	// denying.
	Timeout time.Duration
}

// ErrNoHuman means no human channel is available to ask.
var ErrNoHuman = errors.New("no terminal to ask")

// ErrNoAnswer means the question timed out.
var ErrNoAnswer = errors.New("no answer")

// InterruptedError is returned by a Prompter when a signal (SIGTERM,
// SIGHUP, SIGINT from outside) arrived while the question was shown. The
// command is denied and recorded; the caller should then end as the
// signal says (RaiseSignal).
type InterruptedError struct {
	Signal os.Signal
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted by %v while asking for confirmation", e.Signal)
}
