// Package early starts a plain run's sandbox while safeexec's packages
// are still being initialised. Imported by the command's main package
// (after package startup), it is initialised before nearly all of them:
// it imports nothing above the standard library's lowest layers (see
// package prelaunch). A run of safeexec spends several milliseconds
// initialising the rest and reaching the point where it would start the
// sandbox ahead itself; bwrap builds the sandbox meanwhile.
//
// The sandbox is the one the last run of the same kind started, as
// remembered (prelaunch), and it waits before the command: the run takes
// it (safeexec.StartAhead) only if it finds that it is that run, and uses
// it only if the launch it then computes is, byte for byte, the one it
// was started with; it is killed otherwise (prelaunch.CancelEarly, which
// the command's run calls before it ends). Nothing it was started with
// can make a command run that the run itself would not have started in
// exactly that sandbox.
package early

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/safeexec/safeexec/cmd/safeexec/internal/cmdline"
	"github.com/safeexec/safeexec/internal/prelaunch"
	_ "github.com/safeexec/safeexec/internal/startup"
)

// Plan says which plain run args (os.Args) start, if it is one whose
// sandbox safeexec's run would start ahead, with getenv the environment
// and euid the effective user; onTerminal says stdin and stdout are both
// terminals. It decides as cmd/safeexec's main does (app.go: the
// conditions around StartAhead, and aheadSpec): a test holds the two
// together.
func Plan(args []string, getenv func(string) string, euid int, onTerminal bool) (prelaunch.EarlySpec, bool) {
	var none prelaunch.EarlySpec
	if len(args) < 2 || cmdline.ShimName(args[0]) != "" || onTerminal || getenv("SAFEEXEC_NESTED") != "" ||
		strings.HasPrefix(args[1], "__") { // safeexec's own helpers (__bridge, __gocache, ...)
		return none, false
	}
	inv, err := cmdline.Parse(args[1:])
	if err != nil || inv.Sub != "" || !inv.HasArgv && !inv.HasScript || cmdline.WantsJSON(inv.Flags) {
		return none, false
	}
	cwd, err := os.Getwd()
	if err != nil {
		return none, false
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return none, false
	}
	return prelaunch.EarlySpec{
		File:    prelaunch.FileName(StateDir(getenv, home), euid, cwd, inv.HasScript, inv.Flags),
		Tail:    inv.Tail(),
		Environ: os.Environ(),
	}, true
}

// StateDir is safeexec's state directory: $XDG_STATE_HOME/safeexec when
// that is absolute, else home/.local/state/safeexec.
func StateDir(getenv func(string) string, home string) string {
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "safeexec")
	}
	return filepath.Join(home, ".local", "state", "safeexec")
}
