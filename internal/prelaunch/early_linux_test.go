package prelaunch

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// remembered writes a launch of bwrap's for the command tail (with a
// nested directory) where StartEarly looks for it, and returns its spec.
func remembered(t *testing.T, tail []string) EarlySpec {
	t.Helper()
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		if os.Getenv("SAFEEXEC_REQUIRE_SANDBOX") == "1" {
			t.Fatal("bwrap required")
		}
		t.Skip("no bwrap")
	}
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	opts := []string{"--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		"--bind", Nested, Nested}
	file := filepath.Join(t.TempDir(), "launch")
	if err := os.WriteFile(file, Encode(bwrap, opts, nil, []string{"=PATH"}), 0o600); err != nil {
		t.Fatal(err)
	}
	return EarlySpec{File: file, Tail: tail, Environ: os.Environ()}
}

// gone reports whether pid is no process (it was reaped).
func gone(pid int) bool { return syscall.Kill(pid, 0) == syscall.ESRCH }

func started(t *testing.T) *Early {
	t.Helper()
	early.Lock()
	defer early.Unlock()
	if early.e == nil {
		t.Fatal("nothing started early")
	}
	return early.e
}

func TestEarlyTaken(t *testing.T) {
	spec := remembered(t, []string{"true"})
	StartEarly(spec)
	e := started(t)
	if e.Nested == "" || !slices.Contains(e.Held.Launch.Args, e.Nested) {
		t.Fatalf("nested %q in %q", e.Nested, e.Held.Launch.Args)
	}
	// A second start keeps the first.
	StartEarly(spec)
	if started(t) != e {
		t.Fatal("started twice")
	}
	got := TakeEarly(spec, os.Stdin, os.Stdout, os.Stderr)
	if got != e {
		t.Fatal("the same run did not get its sandbox")
	}
	if TakeEarly(spec, os.Stdin, os.Stdout, os.Stderr) != nil {
		t.Fatal("taken twice")
	}
	// The taker owns it: CancelEarly leaves it alone.
	CancelEarly()
	if gone(e.Held.Child.Pid) {
		t.Fatal("killed after it was taken")
	}
	e.cancel()
	if !gone(e.Held.Child.Pid) {
		t.Fatal("not killed")
	}
	if _, err := os.Stat(e.Nested); err == nil {
		t.Fatal("nested directory left")
	}
}

// Any other run's sandbox, or one with other stdio, is killed, never
// handed over.
func TestEarlyNotTaken(t *testing.T) {
	spec := remembered(t, []string{"true"})
	other := func(s EarlySpec) EarlySpec {
		s.Tail, s.Environ = slices.Clone(s.Tail), slices.Clone(s.Environ)
		return s
	}
	cases := map[string]func(s *EarlySpec) (stdin, stdout any){
		"file":    func(s *EarlySpec) (any, any) { s.File += "x"; return os.Stdin, os.Stdout },
		"command": func(s *EarlySpec) (any, any) { s.Tail[0] = "false"; return os.Stdin, os.Stdout },
		"environ": func(s *EarlySpec) (any, any) { s.Environ = append(s.Environ, "X=1"); return os.Stdin, os.Stdout },
		"stdin":   func(s *EarlySpec) (any, any) { return nil, os.Stdout },
		"stdout":  func(s *EarlySpec) (any, any) { return os.Stdin, os.Stderr },
	}
	for name, change := range cases {
		StartEarly(spec)
		e := started(t)
		s := other(spec)
		stdin, stdout := change(&s)
		if TakeEarly(s, stdin, stdout, os.Stderr) != nil {
			t.Fatalf("%s: handed over", name)
		}
		if !gone(e.Held.Child.Pid) {
			t.Fatalf("%s: not killed", name)
		}
		if _, err := os.Stat(e.Nested); err == nil {
			t.Fatalf("%s: nested directory left", name)
		}
	}
	// Not taken at all: CancelEarly kills it.
	StartEarly(spec)
	e := started(t)
	CancelEarly()
	if !gone(e.Held.Child.Pid) {
		t.Fatal("not killed by CancelEarly")
	}
}

// Nothing usable remembered: nothing starts.
func TestEarlyNothing(t *testing.T) {
	spec := remembered(t, []string{"true"})
	for name, s := range map[string]EarlySpec{
		"no file":   {File: spec.File + "-none", Tail: spec.Tail, Environ: spec.Environ},
		"no PATH":   {File: spec.File, Tail: spec.Tail, Environ: []string{"HOME=/"}},
		"no source": {File: spec.File, Tail: spec.Tail, Environ: spec.Environ},
	} {
		if name == "no source" {
			bad := Encode("/usr/bin/bwrap", []string{"--die-with-parent", "--ro-bind", "/nonexistent-src", "/mnt"}, nil, nil)
			if err := os.WriteFile(s.File, bad, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		StartEarly(s)
		early.Lock()
		e := early.e
		early.Unlock()
		if e != nil {
			CancelEarly()
			t.Errorf("%s: started", name)
		}
	}
}
