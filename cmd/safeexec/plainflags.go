package main

import (
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// flagReader is what the run action reads of the global flags: a
// *cli.Context, or plainFlags for a plain run.
type flagReader interface {
	Bool(name string) bool
	String(name string) string
	StringSlice(name string) []string
	Duration(name string) time.Duration
	IsSet(name string) bool
}

// plainFlags are the global flags of a plain run (safeexec [flags] -- CMD,
// -c SCRIPT), read without urfave/cli, whose command tree costs a plain
// run about a millisecond to build and parse. Only what reads the same
// both ways is read here (parsePlainFlags); anything else goes to
// urfave/cli.
type plainFlags struct {
	bools  map[string]bool
	values map[string]string
	slices map[string][]string
}

// plainFlagNames maps each global flag's spellings to its name.
var plainFlagNames = map[string]string{
	"--config": "config", "--mode": "mode", "--sandbox": "sandbox", "--allow-write": "allow-write",
	"--allow-domain": "allow-domain", "--no-network": "no-network", "--yes": "yes", "-y": "yes",
	"--timeout": "timeout", "--shell": "shell", "--output-limit": "output-limit", "--ci": "ci",
}

// parsePlainFlags reads the global flags of a plain run as urfave/cli
// would. ok is false when that takes urfave/cli itself: help, version,
// --json, a bool flag with a value, a list value it would split or trim,
// a duration that does not parse (for its message).
func parsePlainFlags(flags []string) (pf *plainFlags, ok bool) {
	pf = &plainFlags{bools: map[string]bool{}, values: map[string]string{}, slices: map[string][]string{}}
	for i := 0; i < len(flags); i++ {
		tok := flags[i]
		spelling, value, hasValue := strings.Cut(tok, "=")
		name, known := plainFlagNames[spelling]
		if !known {
			return nil, false
		}
		switch name {
		case "no-network", "yes", "ci":
			if hasValue {
				return nil, false
			}
			pf.bools[name] = true
			continue
		}
		if !hasValue {
			if i+1 >= len(flags) {
				return nil, false
			}
			i++
			value = flags[i]
		}
		switch name {
		case "allow-write", "allow-domain":
			if value == "" || strings.Contains(value, ",") || strings.TrimSpace(value) != value || strings.HasPrefix(value, "sl:::") {
				return nil, false
			}
			pf.slices[name] = append(pf.slices[name], value)
		case "timeout":
			if _, err := time.ParseDuration(value); err != nil {
				return nil, false
			}
			pf.values[name] = value
		default:
			pf.values[name] = value
		}
	}
	return pf, true
}

func (pf *plainFlags) Bool(name string) bool { return pf.bools[name] }

func (pf *plainFlags) String(name string) string { return pf.values[name] }

func (pf *plainFlags) StringSlice(name string) []string { return pf.slices[name] }

func (pf *plainFlags) Duration(name string) time.Duration {
	d, _ := time.ParseDuration(pf.values[name])
	return d
}

func (pf *plainFlags) IsSet(name string) bool {
	_, v := pf.values[name]
	_, s := pf.slices[name]
	return pf.bools[name] || v || s
}

var _ flagReader = (*cli.Context)(nil)
