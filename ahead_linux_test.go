package safeexec

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/safeexec/safeexec/configs"
	"github.com/safeexec/safeexec/internal/prelaunch"
	"github.com/safeexec/safeexec/sandbox"
)

// aheadEnv makes a home, state and project of the test's own and returns
// the project and the environment of a run there.
func aheadEnv(t *testing.T) (project string, environ []string) {
	t.Helper()
	if _, _, err := sandbox.Detect("bwrap"); err != nil {
		if os.Getenv("SAFEEXEC_REQUIRE_SANDBOX") == "1" {
			t.Fatalf("bwrap required: %v", err)
		}
		t.Skipf("bwrap unavailable: %v", err)
	}
	base := t.TempDir()
	home := filepath.Join(base, "home")
	project = filepath.Join(base, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_STATE_HOME": filepath.Join(home, ".state"), "XDG_CACHE_HOME": filepath.Join(home, ".cache"),
	} {
		t.Setenv(k, v)
	}
	t.Setenv("AHEAD_TEST_VALUE", "value-of-the-user-7a1c")
	return project, os.Environ()
}

// aheadRun runs argv in project as a plain run of safeexec --no-network
// would, with a sandbox started ahead, and returns how it went.
func aheadRun(t *testing.T, project string, environ []string, argv ...string) (*Outcome, *Ahead) {
	t.Helper()
	home := os.Getenv("HOME")
	pol, err := configs.Load(configs.Options{Cwd: project, Home: home, Getenv: os.Getenv, LookupEnv: os.LookupEnv,
		Flags: configs.Flags{NoNetwork: true}})
	if err != nil {
		t.Fatal(err)
	}
	a := StartAhead(AheadSpec{StateDir: filepath.Join(os.Getenv("XDG_STATE_HOME"), "safeexec"), Cwd: project,
		Flags: []string{"--no-network"}, Tail: argv, Environ: environ, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
	defer a.Close()
	res, err := Run(context.Background(), &Request{Argv: argv, Cwd: project, Environ: environ, Policy: pol,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Ahead: a})
	if err != nil && res.ExitCode != ExitCodeRefused {
		t.Fatalf("run %q: %v", argv, err)
	}
	return res, a
}

func TestAheadThroughThePipeline(t *testing.T) {
	project, environ := aheadEnv(t)
	marker := filepath.Join(project, "marker")
	script := `echo "$AHEAD_TEST_VALUE" > ` + marker + `; test -S "$SAFEEXEC_NESTED" && echo nested >> ` + marker

	// The first run has nothing to start ahead; it remembers its launch.
	res, a := aheadRun(t, project, environ, "/bin/sh", "-c", script)
	if res.ExitCode != 0 || a.sb.Hit {
		t.Fatalf("first run: exit %d, hit %v", res.ExitCode, a.sb.Hit)
	}
	files, _ := filepath.Glob(filepath.Join(os.Getenv("XDG_STATE_HOME"), "safeexec", "ahead", "*"))
	if len(files) != 1 {
		t.Fatalf("remembered launches: %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"value-of-the-user-7a1c", "echo", "/tmp/safeexec-nested-"} {
		if bytes.Contains(b, []byte(leak)) {
			t.Errorf("the remembered launch holds %q", leak)
		}
	}

	// The second uses the sandbox started ahead: the command sees the
	// environment and the nested channel as ever.
	os.Remove(marker)
	res, a = aheadRun(t, project, environ, "/bin/sh", "-c", script)
	if res.ExitCode != 0 || !a.sb.Hit {
		t.Fatalf("second run: exit %d, hit %v", res.ExitCode, a.sb.Hit)
	}
	if got, _ := os.ReadFile(marker); string(got) != "value-of-the-user-7a1c\nnested\n" {
		t.Errorf("command's view: %q", got)
	}

	// A refused command never runs, although a sandbox was started
	// ahead for it (the same flags, here).
	os.Remove(marker)
	refused := "echo ran > " + marker + "; sudo true"
	res, a = aheadRun(t, project, environ, "/bin/sh", "-c", refused)
	if res.ExitCode != ExitCodeRefused {
		t.Fatalf("sudo: exit %d", res.ExitCode)
	}
	if a.sb == nil || a.sb.Hit {
		t.Fatalf("sudo: nothing started ahead, or it was used")
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a refused command ran in the sandbox started ahead")
	}

	// A value shaped like a credential that an earlier run passed on is
	// not put in a sandbox started before the policy is read.
	t.Setenv("AHEAD_TEST_KEPT", "ghp_"+strings.Repeat("a1B2", 9))
	withCred := os.Environ()
	a0 := &Ahead{file: files[0], tail: []string{"true"}, ready: make(chan struct{})}
	close(a0.ready)
	l0 := &sandbox.Launch{Path: "/usr/bin/bwrap", Args: slices.Concat([]string{"--die-with-parent"},
		[]string{"--json-status-fd", "3", "--block-fd", "5", "--seccomp", "4", "--", "true"}),
		Env: []string{"AHEAD_TEST_KEPT=ghp_" + strings.Repeat("a1B2", 9)}}
	if err := writeAheadFile(files[0]+"-cred", a0.encode(l0, withCred, "")); err != nil {
		t.Fatal(err)
	}
	a0.file = files[0] + "-cred"
	if _, err := a0.load(withCred); err == nil {
		t.Error("a credential-shaped value went into a sandbox started ahead")
	}
	os.Remove(files[0] + "-cred")

	// A damaged memory is not used, and the run remembers anew.
	if err := os.WriteFile(files[0], []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, a = aheadRun(t, project, environ, "/bin/sh", "-c", script)
	if res.ExitCode != 0 || a.sb.Hit {
		t.Fatalf("after damage: exit %d, hit %v", res.ExitCode, a.sb.Hit)
	}
	if b, _ := os.ReadFile(files[0]); !decodes(b) {
		t.Errorf("not remembered anew: %q", b)
	}
	// One others may write is not used either.
	if err := os.Chmod(files[0], 0o622); err != nil {
		t.Fatal(err)
	}
	if _, err := prelaunch.Read(files[0]); err == nil {
		t.Error("a memory others may write was read")
	}
}

func decodes(b []byte) bool {
	_, _, _, _, err := prelaunch.Decode(b)
	return err == nil
}

func TestAheadEncoding(t *testing.T) {
	opts := []string{"--die-with-parent", "--ro-bind", "/", "/", "--chdir", "/p"}
	// What is remembered of a launch: variables passed on unchanged by
	// name, the nested directory as a placeholder, never the command.
	a := &Ahead{tail: []string{"sh", "-c", "echo secret-arg"}}
	l := &sandbox.Launch{Path: "/usr/bin/bwrap",
		Args: slices.Concat(opts, []string{"--ro-bind", "/run/n-1", "/run/n-1", "--json-status-fd", "3", "--block-fd", "5", "--seccomp", "4", "--", "sh", "-c", "echo secret-arg"}),
		Env:  []string{"TOKEN=user-value", "SAFEEXEC_NESTED=/run/n-1/outer.sock", "TMPDIR=/tmp"}}
	enc := a.encode(l, []string{"TOKEN=user-value", "TMPDIR=/elsewhere"}, "/run/n-1")
	if enc == nil {
		t.Fatal("not remembered")
	}
	for _, leak := range []string{"user-value", "secret-arg", "/run/n-1"} {
		if bytes.Contains(enc, []byte(leak)) {
			t.Errorf("remembered %q", leak)
		}
	}
	_, o, h, e, err := prelaunch.Decode(enc)
	if err != nil || len(h) != 0 || !slices.Equal(e, []string{"=TOKEN", "SAFEEXEC_NESTED=" + prelaunch.Nested + "/outer.sock", "TMPDIR=/tmp"}) ||
		!slices.Contains(o, prelaunch.Nested) {
		t.Fatalf("decoded: %q %q %q %v", o, h, e, err)
	}
	// A launch whose command is not the run's own is not remembered.
	a.tail = []string{"other"}
	if a.encode(l, nil, "") != nil {
		t.Error("a launch for another command was remembered")
	}
}

// A sandbox started while the packages were initialised (prelaunch,
// cmd/safeexec's early package) is the run's sandbox ahead when it was
// started for the same run; one started from a launch that is not the
// run's never runs the command.
func TestAheadStartedEarly(t *testing.T) {
	project, environ := aheadEnv(t)
	marker := filepath.Join(project, "marker")
	script := `echo "$AHEAD_TEST_VALUE" > ` + marker
	argv := []string{"/bin/sh", "-c", script}
	if res, _ := aheadRun(t, project, environ, argv...); res.ExitCode != 0 {
		t.Fatalf("first run: exit %d", res.ExitCode)
	}
	spec := AheadSpec{StateDir: filepath.Join(os.Getenv("XDG_STATE_HOME"), "safeexec"), Cwd: project,
		Flags: []string{"--no-network"}, Tail: argv, Environ: environ}
	early := prelaunch.EarlySpec{File: aheadFile(spec), Tail: argv, Environ: environ}

	prelaunch.StartEarly(early)
	os.Remove(marker)
	res, a := aheadRun(t, project, environ, argv...)
	if res.ExitCode != 0 || !a.sb.Hit {
		t.Fatalf("started early: exit %d, hit %v", res.ExitCode, a.sb.Hit)
	}
	if got, _ := os.ReadFile(marker); string(got) != "value-of-the-user-7a1c\n" {
		t.Errorf("command's view: %q", got)
	}
	if prelaunch.TakeEarly(early, os.Stdin, os.Stdout, os.Stderr) != nil {
		t.Fatal("the early sandbox was left for another run")
	}

	// A refused command started early never runs.
	refused := []string{"/bin/sh", "-c", "echo ran > " + marker + "; sudo true"}
	os.Remove(marker)
	prelaunch.StartEarly(prelaunch.EarlySpec{File: early.File, Tail: refused, Environ: environ})
	res, a = aheadRun(t, project, environ, refused...)
	if res.ExitCode != ExitCodeRefused || a.sb == nil || a.sb.Hit {
		t.Fatalf("sudo started early: exit %d, used %v", res.ExitCode, a.sb != nil && a.sb.Hit)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a refused command ran in the sandbox started early")
	}

	// The memory changed (by whoever could write it) so that the early
	// sandbox differs from the run's: the run does not use it, and the
	// command sees the run's own environment.
	b, err := os.ReadFile(early.File)
	if err != nil {
		t.Fatal(err)
	}
	path, opts, head, env, err := prelaunch.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(env, "=AHEAD_TEST_VALUE")
	if i < 0 {
		t.Fatalf("the variable is not remembered by name: %q", env)
	}
	env[i] = "AHEAD_TEST_VALUE=planted"
	if err := os.WriteFile(early.File, prelaunch.Encode(path, opts, head, env), 0o600); err != nil {
		t.Fatal(err)
	}
	prelaunch.StartEarly(early)
	os.Remove(marker)
	res, a = aheadRun(t, project, environ, argv...)
	if res.ExitCode != 0 || a.sb.Hit {
		t.Fatalf("planted: exit %d, hit %v", res.ExitCode, a.sb.Hit)
	}
	time.Sleep(200 * time.Millisecond)
	if got, _ := os.ReadFile(marker); string(got) != "value-of-the-user-7a1c\n" {
		t.Errorf("command's view: %q", got)
	}
}
