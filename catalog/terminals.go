package catalog

import (
	"slices"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Terminals and sessions: tmux and screen start commands (in sessions
// that may outlive the sandbox), script records one, wsl runs one in a
// Linux distribution.

var scriptArgs = &shell.ArgSpec{Short: "cETIOBm", Long: []string{"command", "echo", "log-timing", "log-in", "log-out", "log-io", "logging-format"}}

var terminalTools = map[string]*Tool{
	"tmux":   {Tool: shell.Tool{Follow: tmuxRun}},
	"screen": {Tool: shell.Tool{Unwrap: unwrapScreen}},
	"wsl":    {Tool: shell.Tool{Follow: wslRun}},
	"script": {Tool: shell.Tool{Args: scriptArgs, Runs: []shell.CodeArg{{Short: "c", Long: "command"}}, Writes: scriptWrites}},
}

// scriptWrites: script [FILE] writes its typescript to FILE.
func scriptWrites(c *shell.Command) shell.Writes {
	if ops := scriptArgs.Operands(c.Args); len(ops) > 0 {
		return shell.Writes{Files: ops[:1]}
	}
	return shell.Writes{}
}

// unwrapScreen handles screen [opts] CMD ARG… (a new session running
// CMD); -r, -x, -X, -ls, … talk to existing sessions and run nothing.
func unwrapScreen(cmd *shell.Command) (int, bool) {
	for _, a := range cmd.Args[1:] {
		v := a.Value
		if a.Dynamic || !strings.HasPrefix(v, "-") {
			break
		}
		if slices.Contains([]string{"-r", "-x", "-ls", "-list", "-wipe", "-v", "-q", "-help"}, strings.ToLower(v)) || strings.HasPrefix(v, "-r") {
			return 0, false
		}
	}
	i := screenArgs.Skip(cmd.Args)
	return i, i > 0
}

var screenArgs = &shell.ArgSpec{Short: "cehpSsT"}

// tmuxSubs are the tmux commands that run a shell command, with their
// options that take a value.
var tmuxSubs = map[string]string{
	"new-session": "cefFnstxyX", "new": "cefFnstxyX",
	"new-window": "cefFnt", "neww": "cefFnt",
	"split-window": "celFt", "splitw": "celFt",
	"respawn-pane": "cet", "respawnp": "cet",
	"respawn-window": "cet", "respawnw": "cet",
	"run-shell": "cdt", "run": "cdt",
	"if-shell": "t", "if": "t",
	"display-popup": "bcdehsStTwxy", "popup": "bcdehsStTwxy",
	"pipe-pane": "t", "pipep": "t",
}

// tmuxRun follows the shell commands tmux runs: tmux -c CMD, and the
// shell-command of new-session, new-window, split-window, run-shell,
// if-shell, display-popup, pipe-pane, … (several tmux commands may be
// given, separated by ";").
func tmuxRun(f *shell.Follower) {
	cmd := f.Cmd()
	args := cmd.Args
	i := 1
	for i < len(args) {
		v := args[i].Value
		if args[i].Dynamic || !strings.HasPrefix(v, "-") {
			break
		}
		if v == "--" {
			i++
			break
		}
		if k := strings.IndexAny(v, "cfLST"); k > 0 {
			val := shell.Word{}
			if k < len(v)-1 {
				val = word(v[k+1:], false, args[i].Taint)
			} else if i+1 < len(args) {
				val = args[i+1]
				i++
			}
			if v[k] == 'c' {
				f.Script(val)
			}
		}
		i++
	}
	for i < len(args) {
		end := i
		for end < len(args) && !(args[end].Value == ";" || args[end].Value == `\;`) {
			end++
		}
		tmuxCommand(f, args[i:end])
		i = end + 1
	}
}

func tmuxCommand(f *shell.Follower, words []shell.Word) {
	if len(words) == 0 || words[0].Dynamic {
		return
	}
	withVal, ok := tmuxSubs[words[0].Value]
	if !ok {
		return
	}
	i := (&shell.ArgSpec{Short: withVal}).Skip(words)
	if i <= 0 {
		return
	}
	rest := words[i:]
	if v := words[0].Value; (v == "if-shell" || v == "if") && len(rest) > 0 {
		rest = rest[:1]
	}
	f.Joined(rest)
}

// wslRun follows the Linux command wsl runs: wsl [opts] -e CMD ARG… runs
// it directly, wsl [opts] [--] CMD… through the distribution's shell.
func wslRun(f *shell.Follower) {
	cmd := f.Cmd()
	args := cmd.Args
	for i := 1; i < len(args); i++ {
		a := args[i]
		v := strings.ToLower(a.Value)
		switch {
		case a.Dynamic:
			cmd.Script = &shell.ScriptRun{Kind: shell.ScriptString, Why: "the command is only known at run time", Taint: a.Taint}
			return
		case v == "-e" || v == "--exec":
			if i+1 < len(args) {
				f.Run(&shell.Command{Args: append([]shell.Word(nil), args[i+1:]...), Stdin: cmd.Stdin}, shell.Wrapped)
			}
			return
		case v == "--":
			f.Joined(args[i+1:])
			return
		case v == "-d" || v == "--distribution" || v == "-u" || v == "--user" || v == "--cd" || v == "--shell-type" || v == "--distribution-id":
			i++
		case strings.HasPrefix(v, "-"):
			// --shutdown, --list, --install, …: no command to follow.
			if v != "--system" {
				return
			}
		default:
			f.Joined(args[i:])
			return
		}
	}
}
