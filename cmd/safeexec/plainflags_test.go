package main

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestPlainFlagsReadAsUrfave: the plain run's own flag reader gives what
// urfave/cli gives for every flag, or leaves the command line to it.
func TestPlainFlagsReadAsUrfave(t *testing.T) {
	same := [][]string{
		{},
		{"--no-network"},
		{"-y", "--ci"},
		{"--yes", "--no-network", "--timeout=5s", "--mode", "strict"},
		{"--mode=compat", "--mode", "permissive"},
		{"--allow-write=/a", "--allow-write", "/b", "--allow-domain", "example.com"},
		{"--config", "/x.toml", "--sandbox=none", "--shell", "bash", "--output-limit=10K"},
		{"--timeout", "1h2m"},
	}
	fallback := [][]string{
		{"--yes=false"},
		{"--no-network=true"},
		{"--allow-write=/a,/b"},
		{"--allow-write", " /a"},
		{"--allow-domain="},
		{"--timeout=soon"},
		{"--json"},
		{"--version"},
		{"-h"},
		{"--mode"},
	}
	bools := []string{"no-network", "yes", "ci", "json", "version"}
	strs := []string{"config", "mode", "sandbox", "shell", "output-limit"}
	lists := []string{"allow-write", "allow-domain"}
	for _, flags := range same {
		pf, ok := parsePlainFlags(flags)
		if !ok {
			t.Errorf("%q: left to urfave/cli", flags)
			continue
		}
		var got *cli.Context
		e := &env{stdout: io.Discard, stderr: io.Discard}
		app := e.app()
		app.Action = func(c *cli.Context) error { got = c; return nil }
		if err := app.Run(append([]string{"safeexec"}, flags...)); err != nil || got == nil {
			t.Fatalf("%q: urfave/cli: %v", flags, err)
		}
		differ := func(n string, p, u any) {
			t.Errorf("%q: --%s: plain %v, urfave/cli %v", flags, n, p, u)
		}
		for _, n := range bools {
			if pf.Bool(n) != got.Bool(n) {
				differ(n, pf.Bool(n), got.Bool(n))
			}
		}
		for _, n := range strs {
			if pf.String(n) != got.String(n) {
				differ(n, pf.String(n), got.String(n))
			}
		}
		for _, n := range lists {
			if !slices.Equal(pf.StringSlice(n), got.StringSlice(n)) {
				differ(n, pf.StringSlice(n), got.StringSlice(n))
			}
		}
		if pf.Duration("timeout") != got.Duration("timeout") {
			differ("timeout", pf.Duration("timeout"), got.Duration("timeout"))
		}
		for _, n := range slices.Concat(bools, strs, lists, []string{"timeout"}) {
			if pf.IsSet(n) != got.IsSet(n) {
				differ(n+" set", pf.IsSet(n), got.IsSet(n))
			}
		}
	}
	for _, flags := range fallback {
		if _, ok := parsePlainFlags(flags); ok {
			t.Errorf("%q: read without urfave/cli", strings.Join(flags, " "))
		}
	}
}
