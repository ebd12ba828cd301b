// Package cmdline splits safeexec's command line the way safeexec needs
// it, before urfave/cli sees anything: the library would otherwise
// dispatch "safeexec -- help" to its help command (DESIGN §7). It imports
// nothing above the standard library's lowest layers, so that the early
// start of a plain run's sandbox (package early) can use it during
// package initialisation.
package cmdline

import (
	"path/filepath"
	"strings"
)

// Invocation is the command line split.
type Invocation struct {
	// Flags are the global flags, in urfave/cli syntax.
	Flags []string
	// Sub is the subcommand name ("check", "audit", ...) or "".
	Sub string
	// SubArgs are the subcommand's own arguments, before any "--".
	SubArgs []string

	// Argv is the command after the first "--" (run mode, or check).
	Argv    []string
	HasArgv bool
	// Script is set by -c (and -lc, -l -c, -ic) or the one-argument form.
	Script     string
	HasScript  bool
	ScriptArgs []string
}

// Tail is the command of a run as given: argv, or the script and its
// arguments.
func (inv *Invocation) Tail() []string {
	if inv.HasScript {
		return append([]string{inv.Script}, inv.ScriptArgs...)
	}
	return inv.Argv
}

// subcommands are dispatched by name; any other single argument is a
// script (the form Claude Code's shell prefix uses).
var subcommands = map[string]bool{
	"check": true, "audit": true, "doctor": true, "config": true,
	"hook": true, "help": true, "version": true, "helper": true, "serve": true, "cache": true,
}

// ValueFlags are the global flags that take a value.
var ValueFlags = map[string]bool{
	"--config": true, "--mode": true, "--sandbox": true, "--allow-write": true,
	"--allow-domain": true, "--timeout": true, "--output-limit": true, "--shell": true,
}

// BoolFlags are the global flags that take none.
var BoolFlags = map[string]bool{
	"--yes": true, "-y": true, "--no-network": true, "--help": true, "-h": true,
	"--version": true, "--json": true, "--ci": true,
}

// UsageError is a command line safeexec cannot make sense of.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

func usage(msg string) error { return &UsageError{msg} }

// shellFlag reports whether tok is a group of sh-compatible one-letter
// flags (-c, -lc, -l, -i, -ic, ...), and whether it includes c.
func shellFlag(tok string) (ok, hasC bool) {
	if len(tok) < 2 || tok[0] != '-' || tok[1] == '-' {
		return false, false
	}
	for _, r := range tok[1:] {
		switch r {
		case 'c':
			hasC = true
		case 'l', 'i':
		default:
			return false, false
		}
	}
	return true, hasC
}

// Parse splits args (without the program name).
func Parse(args []string) (*Invocation, error) {
	inv := &Invocation{}
	for i := 0; i < len(args); i++ {
		tok := args[i]
		switch {
		case tok == "--":
			inv.Argv, inv.HasArgv = args[i+1:], true
			if len(inv.Argv) == 0 {
				return nil, usage("nothing to run after --")
			}
			return inv, nil
		case tok == "--login" || tok == "--noprofile" || tok == "--norc":
			// bash's own flags, passed by some agents; like sh -c, ignore.
		case strings.HasPrefix(tok, "-") && len(tok) > 1:
			if ok, hasC := shellFlag(tok); ok {
				if !hasC {
					continue
				}
				if i+1 >= len(args) {
					return nil, usage(tok + " needs a script")
				}
				inv.Script, inv.HasScript = args[i+1], true
				inv.ScriptArgs = args[i+2:]
				return inv, nil
			}
			name, _, hasValue := strings.Cut(tok, "=")
			switch {
			case ValueFlags[name]:
				inv.Flags = append(inv.Flags, tok)
				if !hasValue {
					if i+1 >= len(args) {
						return nil, usage("flag " + name + " needs a value")
					}
					i++
					inv.Flags = append(inv.Flags, args[i])
				}
			case BoolFlags[name]:
				inv.Flags = append(inv.Flags, tok)
			default:
				return nil, usage("unknown flag " + tok + " (see safeexec --help)")
			}
		default:
			if subcommands[tok] {
				inv.Sub = tok
				rest := args[i+1:]
				for j, a := range rest {
					if a == "--" {
						inv.Argv, inv.HasArgv = rest[j+1:], true
						rest = rest[:j]
						break
					}
				}
				inv.SubArgs = rest
				return inv, nil
			}
			if i != len(args)-1 {
				return nil, usage("to run a command put it after --, as in: safeexec -- " + strings.Join(args[i:], " "))
			}
			inv.Script, inv.HasScript = tok, true
			return inv, nil
		}
	}
	return inv, nil
}

// WantsJSON reports whether global flags (before any "--") ask for --json.
func WantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// shellNames are the names under which safeexec stands in for a shell:
// installed as bash in a directory early in PATH, a script's
// #!/usr/bin/env bash finds it. It then runs the real shell with the same
// arguments, classified, confined and audited like `safeexec -- bash ARGS`.
var shellNames = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true}

// ShimName is the shell safeexec was started as, or "".
func ShimName(argv0 string) string {
	name := strings.TrimPrefix(filepath.Base(argv0), "-") // a login shell's -bash
	if shellNames[name] {
		return name
	}
	return ""
}
