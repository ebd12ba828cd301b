package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/safeexec/safeexec/cmd/safeexec/internal/early"
	"github.com/safeexec/safeexec/internal/prelaunch"
)

// The sandbox started early (on Linux) is the one the run looks for: package early
// decides which run starts and names its memory as the run itself does
// (main's conditions around StartAhead, and aheadSpec).
func TestEarlyPlanIsTheRunsOwn(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	cwd, _ = os.Getwd()
	t.Setenv("HOME", home)
	t.Setenv("SAFEEXEC_NESTED", "")
	for _, state := range []string{"", filepath.Join(home, "state"), "relative"} {
		t.Setenv("XDG_STATE_HOME", state)
		for _, args := range [][]string{
			{"safeexec", "--", "true"},
			{"safeexec", "--no-network", "--", "sh", "-c", "x"},
			{"/usr/local/bin/safeexec", "-c", "echo hi", "a0", "a1"},
			{"safeexec", "-lc", "ls"},
			{"safeexec", "--login", "-c", "ls"},
			{"safeexec", "echo hi"},
			{"safeexec", "--mode", "strict", "--allow-domain=example.com", "-y", "--", "npm", "test"},
		} {
			spec, ok := early.Plan(args, os.Getenv, os.Geteuid(), false)
			if !ok {
				t.Errorf("%q: not started early", args)
				continue
			}
			inv, err := parseInvocation(args[1:])
			if err != nil {
				t.Fatal(err)
			}
			e := &env{getenv: os.Getenv, environ: os.Environ(), cwd: cwd, home: home, inv: inv,
				stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
			as := e.aheadSpec()
			if want := prelaunch.FileName(as.StateDir, os.Geteuid(), as.Cwd, as.Script, as.Flags); spec.File != want {
				t.Errorf("%q (state %q): early file %s, the run's %s", args, state, spec.File, want)
			}
			if !slices.Equal(spec.Tail, as.Tail) || !slices.Equal(spec.Environ, as.Environ) {
				t.Errorf("%q: early command %q, the run's %q", args, spec.Tail, as.Tail)
			}
		}
	}

	// Runs that start nothing ahead start nothing early.
	for _, args := range [][]string{
		{"safeexec"},
		{"safeexec", "--json", "--", "true"},
		{"safeexec", "check", "--", "true"},
		{"safeexec", "serve"},
		{"safeexec", "--bogus", "--", "true"},
		{"safeexec", "--"},
		{"/bin/bash", "-c", "true"},
		{"-sh", "-c", "true"},
		{"safeexec", "__gocache"},
	} {
		if _, ok := early.Plan(args, os.Getenv, os.Geteuid(), false); ok {
			t.Errorf("%q: started early", args)
		}
	}
	if _, ok := early.Plan([]string{"safeexec", "--", "true"}, os.Getenv, os.Geteuid(), true); ok {
		t.Error("started early on a terminal")
	}
	t.Setenv("SAFEEXEC_NESTED", "/run/x/outer.sock")
	if _, ok := early.Plan([]string{"safeexec", "--", "true"}, os.Getenv, os.Geteuid(), false); ok {
		t.Error("started early inside safeexec's sandbox")
	}
}
