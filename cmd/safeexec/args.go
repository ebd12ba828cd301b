package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// invocation is the command line split the way safeexec needs it, before
// urfave/cli sees anything: the library would otherwise dispatch
// "safeexec -- help" to its help command (DESIGN §7).
type invocation struct {
	// flags are the global flags, in urfave/cli syntax.
	flags []string
	// sub is the subcommand name ("check", "audit", ...) or "".
	sub string
	// subArgs are the subcommand's own arguments, before any "--".
	subArgs []string

	// argv is the command after the first "--" (run mode, or check).
	argv    []string
	hasArgv bool
	// script is set by -c (and -lc, -l -c, -ic) or the one-argument form.
	script     string
	hasScript  bool
	scriptArgs []string
}

// subcommands are dispatched by name; any other single argument is a
// script (the form Claude Code's shell prefix uses).
var subcommands = map[string]bool{
	"check": true, "audit": true, "doctor": true, "config": true,
	"hook": true, "help": true, "version": true, "helper": true, "serve": true, "cache": true,
}

// valueFlags are the global flags that take a value.
var valueFlags = map[string]bool{
	"--config": true, "--mode": true, "--sandbox": true, "--allow-write": true,
	"--allow-domain": true, "--timeout": true, "--output-limit": true, "--shell": true,
}

// boolFlags are the global flags that take none.
var boolFlags = map[string]bool{
	"--yes": true, "-y": true, "--no-network": true, "--help": true, "-h": true,
	"--version": true, "--json": true, "--ci": true,
}

// usageError is a command line safeexec cannot make sense of.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

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

// parseInvocation splits args (without the program name).
func parseInvocation(args []string) (*invocation, error) {
	inv := &invocation{}
	for i := 0; i < len(args); i++ {
		tok := args[i]
		switch {
		case tok == "--":
			inv.argv, inv.hasArgv = args[i+1:], true
			if len(inv.argv) == 0 {
				return nil, usagef("nothing to run after --")
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
					return nil, usagef("%s needs a script", tok)
				}
				inv.script, inv.hasScript = args[i+1], true
				inv.scriptArgs = args[i+2:]
				return inv, nil
			}
			name, _, hasValue := strings.Cut(tok, "=")
			switch {
			case valueFlags[name]:
				inv.flags = append(inv.flags, tok)
				if !hasValue {
					if i+1 >= len(args) {
						return nil, usagef("flag %s needs a value", name)
					}
					i++
					inv.flags = append(inv.flags, args[i])
				}
			case boolFlags[name]:
				inv.flags = append(inv.flags, tok)
			default:
				return nil, usagef("unknown flag %s (see safeexec --help)", tok)
			}
		default:
			if subcommands[tok] {
				inv.sub = tok
				rest := args[i+1:]
				for j, a := range rest {
					if a == "--" {
						inv.argv, inv.hasArgv = rest[j+1:], true
						rest = rest[:j]
						break
					}
				}
				inv.subArgs = rest
				return inv, nil
			}
			if i != len(args)-1 {
				return nil, usagef("to run a command put it after --, as in: safeexec -- %s", strings.Join(args[i:], " "))
			}
			inv.script, inv.hasScript = tok, true
			return inv, nil
		}
	}
	return inv, nil
}

// hoistGlobals moves the global flags written after the subcommand
// (safeexec check --config F -- …) in front of it, where urfave/cli looks
// for them. A flag the subcommand (or a nested subcommand) defines itself
// stays where it is, and so do the values of the subcommand's own flags.
func (inv *invocation) hoistGlobals(cmds []*cli.Command) {
	if inv.sub == "" {
		return
	}
	path := findCommand(cmds, inv.sub)
	if path == nil {
		return
	}
	chain := []*cli.Command{path}
	var rest []string
	args := inv.subArgs
	for i := 0; i < len(args); i++ {
		tok := args[i]
		if !strings.HasPrefix(tok, "-") || tok == "-" {
			if sub := findCommand(chain[len(chain)-1].Subcommands, tok); sub != nil {
				chain = append(chain, sub)
			}
			rest = append(rest, tok)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(tok, "-"), "=")
		if f, ok := ownFlag(chain, name); ok {
			rest = append(rest, tok)
			if _, isBool := f.(*cli.BoolFlag); !isBool && !hasValue && i+1 < len(args) {
				i++
				rest = append(rest, args[i])
			}
			continue
		}
		global := "--" + name
		if len(name) == 1 {
			global = "-" + name
		}
		switch {
		case valueFlags[global]:
			inv.flags = append(inv.flags, tok)
			if !hasValue && i+1 < len(args) {
				i++
				inv.flags = append(inv.flags, args[i])
			}
		case boolFlags[global] && global != "--help" && global != "-h":
			inv.flags = append(inv.flags, tok)
		default:
			rest = append(rest, tok)
		}
	}
	inv.subArgs = rest
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name {
			return c
		}
		for _, a := range c.Aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

// ownFlag finds a flag named name among the flags of a command chain.
func ownFlag(chain []*cli.Command, name string) (cli.Flag, bool) {
	for _, c := range chain {
		for _, f := range c.Flags {
			for _, n := range f.Names() {
				if n == name {
					return f, true
				}
			}
		}
	}
	return nil, false
}
