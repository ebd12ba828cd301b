package sandbox

import (
	"sync"

	"github.com/safeexec/safeexec/internal/prelaunch"
)

// Launch is how the bwrap backend started a sandbox: bwrap's path, its
// arguments (after argv[0]) and its environment (prelaunch.Launch).
type Launch = prelaunch.Launch

// Ahead links a run to a sandbox started before the run's plan was made
// (StartAhead), from how an earlier run of the same kind started its own.
// bwrap builds the sandbox while safeexec loads its policy and judges the
// command, and then waits, as always, on its block descriptor: the
// command starts only once Start has found that the arguments,
// environment and seccomp filter it computed for this run are, byte for
// byte, the ones the early bwrap was given, and the command's stdio the
// same, and has lifted the block. On
// any difference, or when the run does not start a command at all, the
// early bwrap is killed before it could run anything.
//
// The zero Ahead (or nil) starts nothing ahead; Start still reports the
// launch a later run could start ahead.
type Ahead struct {
	mu   sync.Mutex
	pre  *prestart
	used bool

	// Hit says the sandbox started ahead was the one the command ran in.
	Hit bool
	// Launch is how Start started bwrap when that start could have been
	// made ahead (nothing but stdio handed in, no terminal, no network
	// namespace of safeexec's making) and was not; nil otherwise.
	Launch *Launch
}

// take hands the early bwrap to Start once (nil if there is none).
func (a *Ahead) take() *prestart {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used {
		return nil
	}
	a.used = true
	return a.pre
}

// Cancel kills the early bwrap unless Start has taken it. It is safe to
// call more than once, and after Start.
func (a *Ahead) Cancel() {
	if pre := a.take(); pre != nil {
		pre.cancel()
	}
}

// aheadArity is the number of values bwrap option opt takes in a launch
// started ahead (prelaunch.Arity).
func aheadArity(opt string) int {
	n, _ := prelaunch.Arity(opt)
	return n
}
