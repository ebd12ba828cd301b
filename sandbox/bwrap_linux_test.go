package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a "safeexec" that starts a sandbox and can be
// killed with SIGKILL: argv[1] == bwTestParentArg.
const bwTestParentArg = "__bwrap_test_parent"

func init() {
	if len(os.Args) > 3 && os.Args[1] == bwTestParentArg {
		os.Exit(bwTestParent(os.Args[2], os.Args[3] == "limits", os.Args[4:]))
	}
	if len(os.Args) > 1 && os.Args[1] == seccompChildArg {
		os.Exit(seccompChild())
	}
}

// bwTestParent runs argv in a compat sandbox rooted at dir, prints the
// sandbox init's pid, and waits.
func bwTestParent(dir string, limits bool, argv []string) int {
	b, _, err := Detect("bwrap")
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	p := &Policy{Mode: Compat, Cwd: dir, WritableRoots: []string{dir},
		DenyWrite: []string{".envrc", ".git/hooks"}}
	if limits {
		p.Limits.Processes = 50
	}
	proc, err := b.Start(p, &Command{Argv: argv, Env: []string{"PATH=/usr/bin:/bin"}, Stderr: os.Stderr})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("started", proc.(*bwrapProcess).childPID)
	st, _ := proc.Wait()
	return st.ExitCode
}

// bwBackend returns the bwrap backend, skipping the test when bwrap cannot
// run here (failing instead under SAFEEXEC_REQUIRE_SANDBOX=1).
func bwBackend(t testing.TB) Backend {
	t.Helper()
	b, _, err := Detect("bwrap")
	if err != nil {
		if os.Getenv("SAFEEXEC_REQUIRE_SANDBOX") == "1" {
			t.Fatalf("bwrap required: %v", err)
		}
		t.Skipf("bwrap unavailable: %v", err)
	}
	return b
}

// bwPolicy is a compat policy with dir as the working directory and only
// writable root.
func bwPolicy(t testing.TB, dir string) *Policy {
	t.Helper()
	return &Policy{Mode: Compat, Cwd: dir, WritableRoots: []string{dir}}
}

var bwEnv = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C"}

type bwResult struct {
	Status
	stdout, stderr string
}

func bwRun(t testing.TB, p *Policy, argv ...string) bwResult {
	t.Helper()
	return bwRunEnv(t, p, bwEnv, argv...)
}

func bwRunEnv(t testing.TB, p *Policy, env []string, argv ...string) bwResult {
	t.Helper()
	b := bwBackend(t)
	var out, errb bytes.Buffer
	proc, err := b.Start(p, &Command{Argv: argv, Env: env, Stdout: &out, Stderr: &errb})
	if err != nil {
		t.Fatalf("start %q: %v", argv, err)
	}
	st, err := proc.Wait()
	if err != nil && st.ExitCode != 127 {
		t.Fatalf("wait %q: %v", argv, err)
	}
	return bwResult{st, out.String(), errb.String()}
}

func bwSh(t testing.TB, p *Policy, script string) bwResult {
	t.Helper()
	return bwRun(t, p, "/bin/sh", "-c", script)
}

// bwStart starts argv and returns the process and a reader of its stdout.
func bwStart(t testing.TB, p *Policy, argv ...string) (Process, *bufio.Reader) {
	t.Helper()
	b := bwBackend(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	proc, err := b.Start(p, &Command{Argv: argv, Env: bwEnv, Stdout: w, Stderr: os.Stderr})
	w.Close()
	if err != nil {
		r.Close()
		t.Fatalf("start %q: %v", argv, err)
	}
	t.Cleanup(func() { proc.Kill(); proc.Wait(); r.Close() })
	return proc, bufio.NewReader(r)
}

func bwReadLine(t testing.TB, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("read from command: %v (got %q)", err, line)
	}
	return strings.TrimSpace(line)
}

// bwEventually polls cond for up to d.
func bwEventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}

// bwPidNSMembers counts live (not zombie) host processes in the pid
// namespace ns.
func bwPidNSMembers(ns string) int {
	n := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if l, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err != nil || l != ns {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
			continue
		}
		n++
	}
	return n
}

func bwEntries(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestBwrapExitStatus(t *testing.T) {
	dir := t.TempDir()
	p := bwPolicy(t, dir)
	for _, c := range []struct {
		script       string
		code, signal int
	}{
		{"exit 0", 0, 0},
		{"exit 3", 3, 0},
		{"exit 255", 255, 0},
		{"kill -TERM $$", 128 + 15, 15},
		{"kill -KILL $$", 128 + 9, 9},
		{"kill -SEGV $$", 128 + 11, 11},
	} {
		r := bwSh(t, p, c.script)
		if r.ExitCode != c.code || r.Signal != c.signal {
			t.Errorf("%s: got exit %d signal %d, want %d %d (stderr %q)", c.script, r.ExitCode, r.Signal, c.code, c.signal, r.stderr)
		}
	}
}

func TestBwrapNotFoundNotExecutable(t *testing.T) {
	dir := t.TempDir()
	p := bwPolicy(t, dir)
	if r := bwRun(t, p, "no-such-command-xyz"); r.ExitCode != 127 {
		t.Errorf("missing command: exit %d, want 127", r.ExitCode)
	}
	if r := bwRun(t, p, "./missing.sh"); r.ExitCode != 127 {
		t.Errorf("missing ./script: exit %d, want 127", r.ExitCode)
	}
	if err := os.WriteFile(filepath.Join(dir, "noexec.sh"), []byte("#!/bin/sh\necho hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := bwRun(t, p, "./noexec.sh"); r.ExitCode != 126 {
		t.Errorf("not executable: exit %d, want 126", r.ExitCode)
	}
	if r := bwRun(t, p, dir); r.ExitCode != 126 {
		t.Errorf("a directory: exit %d, want 126", r.ExitCode)
	}
	// Found on the host but hidden inside (strict mode does not show
	// the temporary directory): 127, and no setup error.
	hidden := t.TempDir()
	tool := filepath.Join(hidden, "tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\necho ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sp := bwPolicy(t, dir)
	sp.Mode = Strict
	if r := bwRun(t, sp, tool); r.ExitCode != 127 || strings.Contains(r.stdout, "ran") {
		t.Errorf("hidden in strict mode: exit %d, stdout %q, want 127", r.ExitCode, r.stdout)
	}
}

func TestBwrapStdio(t *testing.T) {
	b := bwBackend(t)
	dir := t.TempDir()
	var out bytes.Buffer
	proc, err := b.Start(bwPolicy(t, dir), &Command{
		Argv: []string{"/bin/sh", "-c", "tr a-z A-Z; echo err >&2; echo three >&3"},
		Env:  bwEnv, Stdin: strings.NewReader("hello\n"), Stdout: &out, Stderr: &out,
		ExtraFiles: []*os.File{bwPipeWriter(t, "three")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := proc.Wait(); err != nil || st.ExitCode != 0 {
		t.Fatalf("exit %v %v", st, err)
	}
	if got := out.String(); got != "HELLO\nerr\n" {
		t.Errorf("stdout+stderr %q", got)
	}
}

// bwPipeWriter returns the write end of a pipe whose reader expects want.
func bwPipeWriter(t *testing.T, want string) *os.File {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() { b, _ := io.ReadAll(r); r.Close(); done <- string(b) }()
	t.Cleanup(func() {
		w.Close()
		if got := <-done; strings.TrimSpace(got) != want {
			t.Errorf("extra file got %q, want %q", got, want)
		}
	})
	return w
}

func TestBwrapSignalReachesHandler(t *testing.T) {
	dir := t.TempDir()
	proc, out := bwStart(t, bwPolicy(t, dir), "/bin/sh", "-c",
		`trap 'echo handled; exit 42' INT; echo ready; while :; do sleep 0.05; done`)
	if got := bwReadLine(t, out); got != "ready" {
		t.Fatalf("got %q", got)
	}
	if err := proc.Signal(syscall.SIGINT); err != nil {
		t.Fatalf("signal: %v", err)
	}
	if got := bwReadLine(t, out); got != "handled" {
		t.Fatalf("handler output %q", got)
	}
	st, err := proc.Wait()
	if err != nil || st.ExitCode != 42 {
		t.Fatalf("exit %+v %v, want 42", st, err)
	}
	if err := proc.Signal(syscall.SIGINT); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("signal after wait: %v", err)
	}
}

func TestBwrapSignalTerminates(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGINT} {
		proc, out := bwStart(t, bwPolicy(t, t.TempDir()), "/bin/sh", "-c", "echo ready; exec sleep 100")
		bwReadLine(t, out)
		if err := proc.Signal(sig); err != nil {
			t.Fatal(err)
		}
		st, err := proc.Wait()
		if err != nil || st.Signal != int(sig) || st.ExitCode != 128+int(sig) {
			t.Errorf("%v: got %+v %v", sig, st, err)
		}
	}
}

func TestBwrapKillEndsTree(t *testing.T) {
	dir := t.TempDir()
	proc, out := bwStart(t, bwPolicy(t, dir), "/bin/sh", "-c", "sleep 100 & sleep 100 & echo ready; wait")
	bwReadLine(t, out)
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", proc.(*bwrapProcess).childPID))
	if err != nil {
		t.Fatal(err)
	}
	if n := bwPidNSMembers(ns); n < 3 {
		t.Fatalf("expected the sandbox's processes, found %d", n)
	}
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	st, _ := proc.Wait()
	if st.ExitCode != 128+9 {
		t.Errorf("exit %+v", st)
	}
	if n := bwPidNSMembers(ns); n != 0 {
		t.Errorf("%d processes left after Kill+Wait", n)
	}
}

func TestBwrapWaitMeansTreeGone(t *testing.T) {
	dir := t.TempDir()
	proc, out := bwStart(t, bwPolicy(t, dir), "/bin/sh", "-c", "setsid sleep 100 & nohup sleep 100 >/dev/null 2>&1 & echo ready; exit 5")
	bwReadLine(t, out)
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", proc.(*bwrapProcess).childPID))
	if err != nil {
		t.Skip("sandbox already gone before its namespace could be read")
	}
	st, _ := proc.Wait()
	if st.ExitCode != 5 {
		t.Errorf("exit %+v", st)
	}
	if n := bwPidNSMembers(ns); n != 0 {
		t.Errorf("%d background processes survived the command", n)
	}
}

// TestBwrapParentSIGKILL kills the process that started the sandbox with
// SIGKILL and checks that the whole tree, every placeholder and the run's
// cgroup are gone within two seconds.
func TestBwrapParentSIGKILL(t *testing.T) {
	t.Run("plain", func(t *testing.T) { testParentSIGKILL(t, false) })
	t.Run("limits", func(t *testing.T) { testParentSIGKILL(t, true) })
}

func testParentSIGKILL(t *testing.T, limits bool) {
	bwBackend(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mode := "nolimits"
	if limits {
		mode = "limits"
	}
	cmd := exec.Command(exe, bwTestParentArg, dir, mode, "/bin/sh", "-c", "sleep 100 & sleep 100")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := bwReadLine(t, bufio.NewReader(stdout))
	pid, err := strconv.Atoi(strings.TrimPrefix(line, "started "))
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper: %q", line)
	}
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The placeholders exist while the sandbox runs.
	if !bwEventually(2*time.Second, func() bool { return bwPidNSMembers(ns) >= 3 }) {
		t.Fatalf("sandbox did not start its processes")
	}
	if _, err := os.Lstat(filepath.Join(dir, ".envrc")); err != nil {
		t.Errorf("placeholder .envrc missing during the run: %v", err)
	}
	// The watchdog starts once a run has lasted watchdogDelay.
	time.Sleep(2*watchdogDelay + 100*time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if !bwEventually(2*time.Second, func() bool { return bwPidNSMembers(ns) == 0 }) {
		t.Errorf("%d sandboxed processes still alive 2s after SIGKILL", bwPidNSMembers(ns))
	}
	if !bwEventually(2*time.Second, func() bool {
		_, e1 := os.Lstat(filepath.Join(dir, ".envrc"))
		_, e2 := os.Lstat(filepath.Join(dir, ".git", "hooks"))
		return e1 != nil && e2 != nil
	}) {
		t.Errorf("placeholders left after SIGKILL: %v %v", bwEntries(t, dir), bwEntries(t, filepath.Join(dir, ".git")))
	}
	if !bwEventually(2*time.Second, func() bool {
		left, _ := filepath.Glob(fmt.Sprintf("/sys/fs/cgroup/pids/safeexec-%d-*", cmd.Process.Pid))
		return len(left) == 0
	}) {
		t.Errorf("the run's cgroup was left after SIGKILL")
	}
}

func TestBwrapNoPlaceholdersLeft(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := bwPolicy(t, dir)
	p.DenyWrite = []string{".envrc", ".env", ".bashrc", ".mcp.json", ".git/hooks", ".git/config", ".husky"}
	p.DenyRead = []string{filepath.Join(home, ".aws"), filepath.Join(home, ".npmrc"), filepath.Join(home, ".config", "gh")}
	beforeDir, beforeHome := bwEntries(t, dir), bwEntries(t, home)
	r := bwSh(t, p, "ls -a; ls -a "+home)
	if r.ExitCode != 0 {
		t.Fatalf("run: %+v", r)
	}
	for _, name := range []string{".envrc", ".mcp.json", ".husky"} {
		if !strings.Contains(r.stdout, name) {
			t.Errorf("placeholder %s not visible inside: %q", name, r.stdout)
		}
	}
	if got := bwEntries(t, dir); strings.Join(got, " ") != strings.Join(beforeDir, " ") {
		t.Errorf("working directory after the run: %v, before %v", got, beforeDir)
	}
	if got := bwEntries(t, home); strings.Join(got, " ") != strings.Join(beforeHome, " ") {
		t.Errorf("home after the run: %v, before %v", got, beforeHome)
	}
	if got := bwEntries(t, filepath.Join(dir, ".git")); strings.Join(got, " ") != "hooks" {
		t.Errorf(".git after the run: %v", got)
	}
}

// TestBwrapPlaceholderSharedByConcurrentRuns checks that a run ending does
// not remove a placeholder another sandbox still relies on (unlinking a
// mount point on the host detaches it inside).
func TestBwrapPlaceholderSharedByConcurrentRuns(t *testing.T) {
	dir := t.TempDir()
	p := bwPolicy(t, dir)
	p.DenyWrite = []string{".envrc"}
	long, out := bwStart(t, p, "/bin/sh", "-c",
		`trap 'echo planted > .envrc; echo rc=$?' USR1; echo ready; while :; do sleep 0.05; done`)
	bwReadLine(t, out)
	// A second, short run ends while the first still runs.
	if r := bwSh(t, p, "true"); r.ExitCode != 0 {
		t.Fatalf("short run: %+v", r)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".envrc")); err != nil {
		t.Fatalf("placeholder removed while another sandbox uses it: %v", err)
	}
	if err := long.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	if got := bwReadLine(t, out); got == "rc=0" {
		t.Errorf("the first sandbox could write .envrc after the second ended")
	}
	long.Kill()
	long.Wait()
	if _, err := os.Lstat(filepath.Join(dir, ".envrc")); err == nil {
		t.Errorf("placeholder left after both runs: %v", bwEntries(t, dir))
	}
}

func TestBwrapModes(t *testing.T) {
	bwBackend(t)
	top, err := os.MkdirTemp(bwFixtureBase(t), ".safeexec-modes-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(top)
	root, other := filepath.Join(top, "root"), filepath.Join(top, "other")
	os.MkdirAll(root, 0o755)
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "f"), []byte("x"), 0o644)

	strict := &Policy{Mode: Strict, Cwd: root, WritableRoots: []string{root, other}}
	r := bwSh(t, strict, `echo ok > here; echo $TMPDIR; echo t > "$TMPDIR/t" && cat "$TMPDIR/t"; ls /usr/bin/env; cat `+other+`/f; ls /home /root 2>&1; echo x > `+other+`/g`)
	if r.ExitCode == 127 {
		t.Fatalf("strict: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "here")); string(b) != "ok\n" {
		t.Errorf("strict: first root not writable: %q", r.stderr)
	}
	if !strings.Contains(r.stdout, "/tmp\nt\n/usr/bin/env") {
		t.Errorf("strict: tmp or /usr missing: %q %q", r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, "x") && !strings.Contains(r.stderr, other) {
		t.Errorf("strict: second root visible: %q", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(other, "g")); err == nil {
		t.Errorf("strict: second root writable")
	}

	perm := &Policy{Mode: Permissive, Cwd: root, WritableRoots: []string{root},
		DenyRead: []string{filepath.Join(other, "f")}, DenyWrite: []string{".envrc"}}
	r = bwSh(t, perm, `echo y > `+other+`/h; cat `+other+`/f; echo z > .envrc`)
	if b, _ := os.ReadFile(filepath.Join(other, "h")); string(b) != "y\n" {
		t.Errorf("permissive: outside not writable: %q", r.stderr)
	}
	if strings.Contains(r.stdout, "x") {
		t.Errorf("permissive: deny_read not applied")
	}
	if _, err := os.Lstat(filepath.Join(root, ".envrc")); err == nil {
		t.Errorf("permissive: deny_write not applied")
	}
}

func TestBwrapCacheDir(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	p := bwPolicy(t, dir)
	p.CacheDir = filepath.Join(cache, "safeexec")
	env := CacheEnv(p.CacheDir, append([]string{"HOME=/nonexistent"}, bwEnv...))
	r := bwRunEnv(t, p, env, "/bin/sh", "-c", `mkdir -p "$GOCACHE" && echo c > "$GOCACHE/x" && echo "$XDG_CACHE_HOME"`)
	if r.ExitCode != 0 {
		t.Fatalf("%+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(p.CacheDir, "go-build", "x")); string(b) != "c\n" {
		t.Errorf("cache not writable: %q", r.stderr)
	}
	if strings.TrimSpace(r.stdout) != filepath.Join(p.CacheDir, "xdg") {
		t.Errorf("XDG_CACHE_HOME = %q", r.stdout)
	}
}

func TestBwrapPrivateTmp(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(os.TempDir(), fmt.Sprintf("safeexec-tmp-%d", os.Getpid()))
	os.WriteFile(marker, []byte("host"), 0o644)
	defer os.Remove(marker)
	p := bwPolicy(t, dir)
	p.WritableRoots = append(p.WritableRoots, os.TempDir())
	r := bwSh(t, p, `echo "$TMPDIR"; cat `+marker+` 2>&1; echo sandbox > `+marker+`.new; ls /tmp | wc -l`)
	if strings.Contains(r.stdout, "host") {
		t.Errorf("the host's /tmp is visible: %q", r.stdout)
	}
	if _, err := os.Stat(marker + ".new"); err == nil {
		os.Remove(marker + ".new")
		t.Errorf("a write to the private /tmp reached the host")
	}
}

func TestDoctorBwrap(t *testing.T) {
	bwBackend(t)
	_, r, err := Doctor("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	if r.Version == "" {
		t.Errorf("no version: %+v", r)
	}
	ok := false
	for _, c := range r.Checks {
		if c.Name == "sandbox starts" {
			ok = c.OK
		}
	}
	if !ok {
		t.Errorf("sandbox start check: %+v", r.Checks)
	}
}

// TestBwrapEarlySIGKILLLeftovers kills the starting process before its
// watchdog exists: the next run in the same directory removes what was
// left.
func TestBwrapEarlySIGKILLLeftovers(t *testing.T) {
	bwBackend(t)
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, bwTestParentArg, dir, "nolimits", "/bin/sh", "-c", "sleep 100")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	bwReadLine(t, bufio.NewReader(stdout))
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	time.Sleep(100 * time.Millisecond)
	p := bwPolicy(t, dir)
	p.DenyWrite = []string{".envrc"}
	if r := bwSh(t, p, "true"); r.ExitCode != 0 {
		t.Fatalf("next run: %+v", r)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".envrc")); err == nil {
		t.Errorf("placeholder still there after the next run")
	}
}

// bwFixtureBase is a directory outside /tmp and /var/tmp for fixtures the
// sandbox must see as the host has them (it has a private /tmp).
func bwFixtureBase(t *testing.T) string {
	t.Helper()
	base, err := os.UserHomeDir()
	if err != nil || base == "" {
		t.Skip("no home directory for the fixture")
	}
	for _, tmp := range []string{os.TempDir(), "/tmp", "/var/tmp"} {
		if pathWithin(tmp, base) {
			t.Skipf("home directory %s is under %s, which the sandbox replaces", base, tmp)
		}
	}
	return base
}

// TestBwrapFileRoot: Claude Code's wrapper ends with `pwd -P >| /tmp/…-cwd`
// and reads that file afterwards; naming it as a writable root lets the
// write reach the host although /tmp is private.
func TestBwrapFileRoot(t *testing.T) {
	dir := t.TempDir()
	f, err := os.CreateTemp("", "claude-test-*-cwd")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	defer os.Remove(f.Name())
	p := bwPolicy(t, dir)
	p.WritableRoots = append(p.WritableRoots, f.Name())
	if r := bwSh(t, p, "pwd -P >| "+f.Name()+"; echo other > "+f.Name()+".x"); r.ExitCode != 0 {
		t.Fatalf("%+v", r)
	}
	if b, _ := os.ReadFile(f.Name()); strings.TrimSpace(string(b)) != dir {
		t.Errorf("cwd file holds %q, want %q", b, dir)
	}
	if _, err := os.Stat(f.Name() + ".x"); err == nil {
		os.Remove(f.Name() + ".x")
		t.Errorf("a sibling in the host's /tmp was written")
	}
}
