package sandbox

import (
	"bytes"
	"encoding/binary"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/safeexec/safeexec/internal/prelaunch"
)

// startWarm starts a warm sandbox for compat runs in dir, with out as its
// command's stdout and stderr, and waits until it is built.
func startWarm(t *testing.T, dir string, out io.Writer) *Ahead {
	t.Helper()
	if warmExecFile() == nil {
		t.Fatalf("no warm sandbox program on %s", runtime.GOARCH)
	}
	a := StartWarm(aheadLaunch(t, dir, warmCommand...), out, out)
	if a.pre == nil || a.pre.warm == nil {
		t.Fatal("no warm sandbox started")
	}
	t.Cleanup(func() { a.Cancel(); aheadKillLeft(dir) })
	<-a.pre.warm.settled
	if a.pre.warm.err != nil {
		t.Fatalf("warm sandbox not built: %v", a.pre.warm.err)
	}
	return a
}

// warmRun runs argv in dir with the warm sandbox a (if the backend finds it
// is still the right one).
func warmRun(t *testing.T, dir string, a *Ahead, out io.Writer, argv ...string) Status {
	t.Helper()
	proc, err := bwBackend(t).Start(bwPolicy(t, dir), &Command{Argv: argv, Env: bwEnv, Stdout: out, Stderr: out, Ahead: a})
	if err != nil {
		t.Fatal(err)
	}
	st, err := proc.Wait()
	if err != nil {
		t.Fatalf("%q: %v", argv, err)
	}
	return st
}

// TestWarmRunsTheCommand: a warm sandbox, built before its command was
// known, runs exactly the argument vector it is then given (no shell
// reads it), found on PATH, with its exit status.
func TestWarmRunsTheCommand(t *testing.T) {
	dir := t.TempDir()
	var out bwLockedBuffer
	a := startWarm(t, dir, &out)
	args := []string{"printf", `[%s]\n`, "a b", "it's", "", "x\ny", "$HOME", "*", `\`, "-n", "`id`", "; exit 3"}
	st := warmRun(t, dir, a, &out, args...)
	if !a.Hit {
		t.Fatal("the warm sandbox was not used")
	}
	want := "[a b]\n[it's]\n[]\n[x\ny]\n[$HOME]\n[*]\n[\\]\n[-n]\n[`id`]\n[; exit 3]\n"
	if st.ExitCode != 0 || out.String() != want {
		t.Errorf("exit %d, output %q, want %q", st.ExitCode, out.String(), want)
	}

	// The exit status, a command by path, and nothing left open.
	var out2 bwLockedBuffer
	a = startWarm(t, dir, &out2)
	st = warmRun(t, dir, a, &out2, "/bin/sh", "-c", "ls /proc/self/fd; exit 7")
	if !a.Hit || st.ExitCode != 7 {
		t.Fatalf("hit %v, exit %d (%q)", a.Hit, st.ExitCode, out2.String())
	}
	// 0-2, and the directory ls lists.
	if fds := strings.Fields(out2.String()); len(fds) != 4 {
		t.Errorf("descriptors open in the command: %q", fds)
	}
}

// TestWarmNotUsedAfterHostChange: a warm sandbox is used only while it is
// still the sandbox a fresh run would build. The host changes below each
// leave the run's plan the same; each would leave the warm sandbox
// showing something else (a protected git file writable, a directory
// that is gone, no longer a mount that is there): it is not used, and
// the run's own sandbox protects what it must.
func TestWarmNotUsedAfterHostChange(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, dir string)
		// cmd tries what the change would allow in the warm sandbox;
		// check says it did not happen.
		cmd   string
		check func(t *testing.T, dir string)
	}{
		{"git config replaced by rename", func(t *testing.T, dir string) {
			cfg := filepath.Join(dir, ".git", "config")
			b, _ := os.ReadFile(cfg)
			os.WriteFile(cfg+".lock", b, 0o644)
			if err := os.Rename(cfg+".lock", cfg); err != nil {
				t.Fatal(err)
			}
		}, "echo '[core]fsmonitor=evil' >> .git/config", func(t *testing.T, dir string) {
			if b, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); bytes.Contains(b, []byte("evil")) {
				t.Errorf("the command wrote .git/config: %q", b)
			}
		}},
		{"git hooks directory replaced", func(t *testing.T, dir string) {
			hooks := filepath.Join(dir, ".git", "hooks")
			if err := os.Rename(hooks, hooks+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(hooks, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "echo evil > .git/hooks/pre-commit", func(t *testing.T, dir string) {
			if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", "pre-commit")); err == nil {
				t.Error("the command wrote a git hook")
			}
		}},
	}
	if os.Geteuid() == 0 {
		cases = append(cases, struct {
			name   string
			change func(t *testing.T, dir string)
			cmd    string
			check  func(t *testing.T, dir string)
		}{"a mount on the host", func(t *testing.T, dir string) {
			m := filepath.Join(dir, "mnt")
			if err := unix.Mount("tmpfs", m, "tmpfs", 0, "size=1m"); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { unix.Unmount(m, unix.MNT_DETACH) })
			os.WriteFile(filepath.Join(m, "seen"), nil, 0o644)
		}, "test -e mnt/seen", nil})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			os.Mkdir(filepath.Join(dir, "mnt"), 0o755)
			var out bwLockedBuffer
			a := startWarm(t, dir, &out)
			tc.change(t, dir)
			st := warmRun(t, dir, a, &out, "/bin/sh", "-c", tc.cmd)
			if a.Hit {
				t.Error("the warm sandbox was used after the host changed")
			}
			if tc.check != nil {
				tc.check(t, dir)
			} else if st.ExitCode != 0 {
				t.Errorf("the run does not see the host as it is: exit %d %q", st.ExitCode, out.String())
			}
		})
	}
}

// TestWarmUnchangedHostUsed: the same checks pass when nothing changed
// but the project's content (what a command normally leaves).
func TestWarmUnchangedHostUsed(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	var out bwLockedBuffer
	a := startWarm(t, dir, &out)
	os.WriteFile(filepath.Join(dir, "new"), []byte("x"), 0o644)
	st := warmRun(t, dir, a, &out, "/bin/sh", "-c", "cat new; echo y > .git/config")
	if !a.Hit {
		t.Fatal("the warm sandbox was not used")
	}
	if st.ExitCode == 0 || !strings.HasPrefix(out.String(), "x") {
		t.Errorf("exit %d, output %q: .git/config must stay read-only in a warm sandbox", st.ExitCode, out.String())
	}
}

// TestWarmCancelLeavesNothing: a warm sandbox no run takes is killed with
// everything in it, and its command never runs.
func TestWarmCancelLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	a := startWarm(t, dir, io.Discard)
	pgid := a.pre.child.Pid
	a.Cancel()
	aheadGroupGone(t, pgid)
}

// warmProgram runs the warm sandbox's program outside any sandbox, data on
// its descriptor 6, the program itself on 7.
func warmProgram(t *testing.T, data []byte, env []string) (int, string) {
	t.Helper()
	exe := warmExecFile()
	if exe == nil {
		t.Fatalf("no warm sandbox program on %s", runtime.GOARCH)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.Write(data) // more than a pipe holds, for one case
		w.Close()
	}()
	defer r.Close()
	var out bytes.Buffer
	cmd := &exec.Cmd{Path: "/proc/self/fd/7", Args: []string{"warm"}, Env: env, Stdout: &out, Stderr: &out,
		ExtraFiles: []*os.File{nil, nil, nil, r, exe}}
	err = cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

// TestWarmProgram: the program runs exactly the arguments it reads, trying
// the paths in order; it exits 127 when none is there, 126 when one was
// not executable, and 127 without running anything on malformed input.
func TestWarmProgram(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "notexec")
	os.WriteFile(notExec, []byte("#!/bin/sh\necho ran\n"), 0o644)
	env := []string{"PATH=/usr/bin:/bin", "WARM_TEST=1"}
	code, out := warmProgram(t, mustWarmData(t, []string{"printf", `[%s]`, "a b", "", "$WARM_TEST"}, []string{"PATH=" + dir + ":/nowhere:/usr/bin:/bin"}), env)
	if code != 0 || out != "[a b][][$WARM_TEST]" {
		t.Errorf("printf: %d %q", code, out)
	}
	code, out = warmProgram(t, mustWarmData(t, []string{"sh", "-c", "echo $WARM_TEST"}, env), env)
	if code != 0 || out != "1\n" {
		t.Errorf("environment: %d %q", code, out)
	}
	if code, out = warmProgram(t, mustWarmData(t, []string{"no-such-command-here"}, env), env); code != 127 {
		t.Errorf("missing: %d %q", code, out)
	}
	if code, out = warmProgram(t, mustWarmData(t, []string{notExec}, env), env); code != 126 {
		t.Errorf("not executable: %d %q", code, out)
	}
	marker := filepath.Join(dir, "marker")
	good := mustWarmData(t, []string{"/bin/sh", "-c", "echo ran > " + marker}, env)
	bad := map[string][]byte{
		"empty":           nil,
		"short header":    good[:5],
		"no arguments":    append(binary.LittleEndian.AppendUint32(nil, 0), good[4:]...),
		"too many":        append(binary.LittleEndian.AppendUint32(nil, 1<<20), good[4:]...),
		"cut":             good[:len(good)-1],
		"trailing bytes":  append(bytes.Clone(good), 'x'),
		"more than 64KiB": append(bytes.Clone(good), make([]byte, 70<<10)...),
	}
	for name, data := range bad {
		if code, out := warmProgram(t, data, env); code != 127 || !strings.Contains(out, "no command given") {
			t.Errorf("%s: %d %q", name, code, out)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("malformed input ran a command")
	}
	if code, _ := warmProgram(t, good, env); code != 0 {
		t.Errorf("well-formed: %d", code)
	} else if _, err := os.Stat(marker); err != nil {
		t.Error("the well-formed command did not run")
	}
}

// mustWarmData is warmData that must succeed.
func mustWarmData(t *testing.T, argv, env []string) []byte {
	t.Helper()
	b, err := warmData(argv, env)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWarmProgramStops: as execvp(3), the search goes on past a path that
// is not there or not executable, and ends at any other failure: a file
// the kernel will not run does not make a later one run.
func TestWarmProgramStops(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a", "b", "c"} {
		os.Mkdir(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "a", "tool"), []byte("\x7fELFgarbage"), 0o755)
	os.WriteFile(filepath.Join(dir, "b", "tool"), []byte("#!/bin/sh\necho b-ran\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "c", "tool"), []byte("#!/bin/sh\necho c-ran\n"), 0o644)
	path := "PATH=" + filepath.Join(dir, "a") + ":" + filepath.Join(dir, "b")
	if code, out := warmProgram(t, mustWarmData(t, []string{"tool"}, []string{path}), nil); code != 126 || strings.Contains(out, "ran") {
		t.Errorf("after a file the kernel refused: exit %d, %q", code, out)
	}
	// Not executable (c), then missing (nowhere): on to b.
	path = "PATH=" + filepath.Join(dir, "c") + ":/nowhere:" + filepath.Join(dir, "b")
	if code, out := warmProgram(t, mustWarmData(t, []string{"tool"}, []string{path}), nil); code != 0 || out != "b-ran\n" {
		t.Errorf("past a file without x and a missing directory: exit %d, %q", code, out)
	}
	// The first PATH, as getenv(3) finds it.
	data := mustWarmData(t, []string{"tool"}, []string{"PATH=" + filepath.Join(dir, "b"), "PATH=" + filepath.Join(dir, "c")})
	if code, out := warmProgram(t, data, nil); code != 0 || out != "b-ran\n" {
		t.Errorf("two PATHs: exit %d, %q", code, out)
	}
	if _, err := warmData([]string{"tool", "a\x00b"}, nil); err == nil {
		t.Error("an argument with a NUL byte was accepted")
	}
}

// TestWarmNotForAFIFO: the command's file is looked at without blocking:
// a FIFO (which a command can leave in the project) is no program, and
// the run does not wait for a writer.
func TestWarmNotForAFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tool")
	if err := unix.Mkfifo(p, 0o755); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() { done <- directlyExecutable(p) }()
	select {
	case ok := <-done:
		if ok {
			t.Error("a FIFO counted as a program")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("looking at a FIFO blocked")
	}
}

// TestWarmSmallPipe: a command longer than the pipe to the warm sandbox
// holds (a user over fs.pipe-user-pages-soft gets 8 KiB pipes) runs in a
// fresh sandbox instead of blocking.
func TestWarmSmallPipe(t *testing.T) {
	dir := t.TempDir()
	var out bwLockedBuffer
	a := startWarm(t, dir, &out)
	if _, err := unix.FcntlInt(a.pre.warm.argvW.Fd(), unix.F_SETPIPE_SZ, 4096); err != nil {
		t.Fatal(err)
	}
	a.pre.warm.argvCap, _ = unix.FcntlInt(a.pre.warm.argvW.Fd(), unix.F_GETPIPE_SZ, 0)
	long := strings.Repeat("x", 10<<10)
	done := make(chan Status)
	go func() { done <- warmRun(t, dir, a, &out, "/bin/echo", long) }()
	select {
	case st := <-done:
		if a.Hit || st.ExitCode != 0 || out.String() != long+"\n" {
			t.Errorf("hit %v, exit %d, %d bytes out", a.Hit, st.ExitCode, len(out.String()))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run blocked writing its command")
	}
}

// TestWarmExecGenerated: the program checked in is what gen.sh builds
// from its source.
func TestWarmExecGenerated(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the program is amd64's")
	}
	for _, tool := range []string{"as", "ld", "strip", "od"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (binutils): cannot rebuild the program", tool)
		}
	}
	out := filepath.Join(t.TempDir(), "warmexec.go")
	if b, err := exec.Command("sh", "warmexec/gen.sh", out).CombinedOutput(); err != nil {
		t.Fatalf("gen.sh: %v\n%s", err, b)
	}
	got, _ := os.ReadFile(out)
	want, _ := os.ReadFile("warmexec_linux_amd64.go")
	if !bytes.Equal(got, want) {
		t.Error("warmexec_linux_amd64.go is not what warmexec/gen.sh builds from warmexec/amd64.S: run it")
	}
}

// TestAheadKilledWhenNoCommandStarts: when Start runs no command (it is
// not there), the sandbox started ahead, warm or not, is gone before
// Start returns, so nothing it prints reaches the command's output while
// the run cleans up.
func TestAheadKilledWhenNoCommandStarts(t *testing.T) {
	dir := t.TempDir()
	var out bwLockedBuffer
	for _, warm := range []bool{false, true} {
		var a *Ahead
		if warm {
			a = startWarm(t, dir, &out)
		} else {
			a = StartAhead(aheadLaunch(t, dir, "no-such-command-here"), nil, &out, &out)
		}
		if a.pre == nil {
			t.Fatal("nothing started ahead")
		}
		pgid := a.pre.child.Pid
		proc, err := bwBackend(t).Start(bwPolicy(t, dir), &Command{Argv: []string{"no-such-command-here"}, Env: bwEnv,
			Stdout: &out, Stderr: &out, Ahead: a})
		if err != nil {
			t.Fatal(err)
		}
		if st, _ := proc.Wait(); st.ExitCode != 127 {
			t.Errorf("exit %d", st.ExitCode)
		}
		aheadGroupGone(t, pgid)
	}
}

// TestBeforeReleaseHoldsTheCommand: the command starts only once
// BeforeRelease has returned (safeexec's signal catching waits there), in
// a fresh sandbox as in one started ahead.
func TestBeforeReleaseHoldsTheCommand(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	script := "test -e " + marker + ".held && echo after > " + marker
	for _, ahead := range []bool{false, true} {
		os.Remove(marker)
		os.Remove(marker + ".held")
		c := &Command{Argv: []string{"/bin/sh", "-c", script}, Env: bwEnv}
		if ahead {
			c.Ahead = StartAhead(aheadLaunch(t, dir, c.Argv...), nil, nil, nil)
		}
		called := false
		c.BeforeRelease = func() {
			called = true
			time.Sleep(100 * time.Millisecond)
			if _, err := os.Stat(marker); err == nil {
				t.Error("the command ran before BeforeRelease returned")
			}
			os.WriteFile(marker+".held", nil, 0o644)
		}
		proc, err := bwBackend(t).Start(bwPolicy(t, dir), c)
		if err != nil {
			t.Fatal(err)
		}
		if st, err := proc.Wait(); err != nil || st.ExitCode != 0 || !called {
			t.Fatalf("ahead %v: exit %v %v, BeforeRelease called %v", ahead, st, err, called)
		}
		if c.Ahead != nil && !c.Ahead.Hit {
			t.Error("the sandbox started ahead was not used")
		}
	}
}

// TestWarmHostMountWhileBuilt: a mount the host makes while bwrap copies
// its mount table (the copy may or may not have it) leaves the warm
// sandbox unused; the run's own sandbox has the mount, read-only as the
// host made it.
func TestWarmHostMountWhileBuilt(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting on the host needs root")
	}
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	var out bwLockedBuffer
	a := StartWarm(aheadLaunch(t, dir, warmCommand...), &out, &out)
	if a.pre == nil {
		t.Fatal("no warm sandbox started")
	}
	t.Cleanup(func() { a.Cancel(); aheadKillLeft(dir) })
	if err := unix.Mount("tmpfs", sub, "tmpfs", unix.MS_RDONLY, "size=1m"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(sub, unix.MNT_DETACH) })
	st := warmRun(t, dir, a, &out, "/bin/sh", "-c", "echo escaped > sub/f")
	if a.Hit {
		t.Error("the warm sandbox was used though the host mounted something while it was built")
	}
	if st.ExitCode == 0 {
		t.Error("the command wrote below a read-only mount of the host")
	}
}

// TestEnvOneValuePerName: a name given twice reaches the command once,
// with its last value, the one safeexec looked the command up with.
func TestEnvOneValuePerName(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"first", "last"} {
		os.Mkdir(filepath.Join(dir, d), 0o755)
		os.WriteFile(filepath.Join(dir, d, "tool"), []byte("#!/bin/sh\necho "+d+" $(env | grep -c ^FOO=) $FOO\n"), 0o755)
	}
	env := []string{"PATH=" + filepath.Join(dir, "first") + ":/usr/bin:/bin", "FOO=1",
		"PATH=" + filepath.Join(dir, "last") + ":/usr/bin:/bin", "FOO=2", "LC_ALL=C"}
	r := bwRunEnv(t, bwPolicy(t, dir), env, "tool")
	if r.ExitCode != 0 || r.stdout != "last 1 2\n" {
		t.Errorf("exit %d, %q (stderr %q)", r.ExitCode, r.stdout, r.stderr)
	}
}

// TestWarmCopiedMountGoneFromHost: a host mount copied into a warm
// sandbox (bwrap binds recursively) that the host no longer has makes the
// sandbox unusable, even where the host's mount table reads the same
// before and after (a mount made while bwrap copied it, removed since).
// Checked on the tables of a real sandbox.
func TestWarmCopiedMountGoneFromHost(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting on the host needs root")
	}
	dir, secret := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(secret, "s"), []byte("SECRET\n"), 0o600)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	if err := unix.Mount(secret, sub, "", unix.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	mounted := true
	t.Cleanup(func() {
		if mounted {
			unix.Unmount(sub, unix.MNT_DETACH)
		}
	})
	a := startWarm(t, dir, io.Discard)
	w := a.pre.warm
	opts, _, _ := prelaunch.SplitLaunchArgs(a.pre.launch.Args)
	table := parseMountinfo(w.mounts)
	if !slices.ContainsFunc(slices.Collect(maps.Values(table)), func(e mountEntry) bool { return e.point == sub }) {
		t.Fatalf("the host's mount on %s is not in the sandbox", sub)
	}
	if err := checkCopiedMounts(opts, table, parseMountinfo(w.hostMounts)); err != nil {
		t.Fatalf("with the host as it was: %v", err)
	}
	unix.Unmount(sub, unix.MNT_DETACH)
	mounted = false
	now, _ := os.ReadFile("/proc/self/mountinfo")
	if err := checkCopiedMounts(opts, table, parseMountinfo(now)); err == nil {
		t.Error("a mount the host removed still counts as a copy of the host's")
	}
}
