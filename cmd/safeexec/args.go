package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/safeexec/safeexec/cmd/safeexec/internal/cmdline"
)

// invocation is the command line split (package cmdline).
type invocation = cmdline.Invocation

// parseInvocation splits args (without the program name).
func parseInvocation(args []string) (*invocation, error) { return cmdline.Parse(args) }

// hoistGlobals moves the global flags written after the subcommand
// (safeexec check --config F -- …) in front of it, where urfave/cli looks
// for them. A flag the subcommand (or a nested subcommand) defines itself
// stays where it is, and so do the values of the subcommand's own flags.
func hoistGlobals(inv *invocation, cmds []*cli.Command) {
	if inv.Sub == "" {
		return
	}
	path := findCommand(cmds, inv.Sub)
	if path == nil {
		return
	}
	chain := []*cli.Command{path}
	var rest []string
	args := inv.SubArgs
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
		case cmdline.ValueFlags[global]:
			inv.Flags = append(inv.Flags, tok)
			if !hasValue && i+1 < len(args) {
				i++
				inv.Flags = append(inv.Flags, args[i])
			}
		case cmdline.BoolFlags[global] && global != "--help" && global != "-h":
			inv.Flags = append(inv.Flags, tok)
		default:
			rest = append(rest, tok)
		}
	}
	inv.SubArgs = rest
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
