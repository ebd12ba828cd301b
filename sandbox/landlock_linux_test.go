//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary stands in for safeexec when run with "__llparent".
func init() {
	if len(os.Args) > 3 && os.Args[1] == "__llparent" {
		// A stand-in for safeexec: start a confined command that writes
		// its pid to os.Args[3] (in root os.Args[2]), then wait.
		exe, _ := os.Executable()
		p := &Policy{Mode: Compat, Cwd: os.Args[2], WritableRoots: []string{os.Args[2]}, SafeexecPath: exe}
		proc, err := Landlock().Start(p, &Command{Argv: []string{"/bin/sh", "-c", "echo $$ > " + os.Args[3] + "; exec sleep 60"}, Env: []string{"PATH=/usr/bin:/bin"}})
		if err != nil {
			os.Exit(3)
		}
		proc.Wait()
		os.Exit(0)
	}
}

// needLandlock skips the test when the kernel cannot run the backend, or
// fails it when SAFEEXEC_REQUIRE_SANDBOX=1.
func needLandlock(t testing.TB) {
	t.Helper()
	if abi := landlockABIVersion(); abi < llABINet {
		msg := fmt.Sprintf("landlock ABI %d: the backend needs ABI %d", abi, llABINet)
		if os.Getenv("SAFEEXEC_REQUIRE_SANDBOX") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

func testExecutable(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// llPolicy is a compat policy with one writable root, dir.
func llPolicy(t testing.TB, dir string) *Policy {
	return &Policy{
		Mode:          Compat,
		Cwd:           dir,
		WritableRoots: []string{dir},
		SafeexecPath:  testExecutable(t),
	}
}

type llResult struct {
	stdout, stderr string
	status         Status
}

func runLandlock(t testing.TB, p *Policy, argv ...string) llResult {
	t.Helper()
	var out, errb bytes.Buffer
	proc, err := Landlock().Start(p, &Command{
		Argv:   argv,
		Env:    []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + p.Cwd, "LC_ALL=C"},
		Stdout: &out,
		Stderr: &errb,
	})
	if err != nil {
		t.Fatalf("Start %q: %v", argv, err)
	}
	st, err := proc.Wait()
	if err != nil {
		t.Fatalf("Wait %q: %v", argv, err)
	}
	return llResult{out.String(), errb.String(), st}
}

func sh(t testing.TB, p *Policy, script string) llResult {
	t.Helper()
	return runLandlock(t, p, "/bin/sh", "-c", script)
}

func TestLandlockExitStatus(t *testing.T) {
	needLandlock(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "noexec"), []byte("#!/bin/sh\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "noshebang"), []byte("echo from-sh\n"), 0o755)
	p := llPolicy(t, dir)
	for _, tc := range []struct {
		argv []string
		code int
		sig  int
		out  string
	}{
		{argv: []string{"true"}},
		{argv: []string{"false"}, code: 1},
		{argv: []string{"sh", "-c", "exit 7"}, code: 7},
		{argv: []string{"echo", "hello"}, out: "hello\n"},
		{argv: []string{"no-such-command-xyz"}, code: 127},
		{argv: []string{"./missing"}, code: 127},
		{argv: []string{"./noexec"}, code: 126},
		{argv: []string{"./noshebang"}, out: "from-sh\n"},
		{argv: []string{"sh", "-c", "kill -9 $$"}, code: 137, sig: 9},
	} {
		r := runLandlock(t, p, tc.argv...)
		if r.status.ExitCode != tc.code || r.status.Signal != tc.sig || r.stdout != tc.out {
			t.Errorf("%q: status %+v stdout %q stderr %q; want exit %d signal %d stdout %q",
				tc.argv, r.status, r.stdout, r.stderr, tc.code, tc.sig, tc.out)
		}
	}
}

func TestLandlockWrites(t *testing.T) {
	needLandlock(t)
	root, outside := t.TempDir(), t.TempDir()
	p := llPolicy(t, root)
	r := sh(t, p, "echo in > in.txt && mkdir -p sub/deeper && echo x > sub/deeper/f && mv sub/deeper/f sub/g && ln sub/g h && ln -s g sub/s && rm sub/g")
	if r.status.ExitCode != 0 {
		t.Fatalf("writing inside the root failed: %+v %s", r.status, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "in.txt")); string(b) != "in\n" {
		t.Errorf("in.txt = %q", b)
	}
	os.WriteFile(filepath.Join(outside, "existing"), []byte("keep"), 0o644)
	for _, script := range []string{
		"echo x > " + outside + "/new",
		"echo x >> " + outside + "/existing",
		": > " + outside + "/existing",
		"truncate -s 0 " + outside + "/existing",
		"rm -f " + outside + "/existing",
		"mkdir " + outside + "/d",
		"ln -s /etc/passwd " + outside + "/link",
		"ln " + root + "/in.txt " + outside + "/hard",
		"mv " + root + "/in.txt " + outside + "/moved",
		"echo x > /tmp/safeexec-landlock-test-" + strconv.Itoa(os.Getpid()),
	} {
		r := sh(t, p, script)
		if r.status.ExitCode == 0 {
			t.Errorf("%q succeeded outside the root", script)
		}
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 1 {
		t.Errorf("outside dir has %d entries, want only 'existing'", len(ents))
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "existing")); string(b) != "keep" {
		t.Errorf("existing = %q, want keep", b)
	}
	if _, err := os.Stat("/tmp/safeexec-landlock-test-" + strconv.Itoa(os.Getpid())); err == nil {
		t.Error("a file appeared in /tmp")
	}
	if _, err := os.Stat(filepath.Join(root, "in.txt")); err != nil {
		t.Errorf("in.txt was moved out: %v", err)
	}
}

func TestLandlockCredentialReads(t *testing.T) {
	needLandlock(t)
	home, root := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("SECRET-KEY"), 0o600)
	os.WriteFile(filepath.Join(home, ".npmrc"), []byte("SECRET-NPM"), 0o600)
	os.WriteFile(filepath.Join(home, "notes.txt"), []byte("public"), 0o644)
	os.MkdirAll(filepath.Join(home, "keys"), 0o700)
	os.WriteFile(filepath.Join(home, "keys", "k"), []byte("SECRET-LINKED"), 0o600)
	os.Symlink(filepath.Join(home, "keys"), filepath.Join(home, ".aws"))
	p := llPolicy(t, root)
	p.DenyRead = []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".npmrc"), filepath.Join(home, ".aws"), filepath.Join(home, ".gnupg")}
	for _, path := range []string{
		home + "/.ssh/id_ed25519",
		home + "/notes.txt/../.ssh/id_ed25519",
		home + "/.ssh/../.ssh/id_ed25519",
		"/proc/self/root" + home + "/.ssh/id_ed25519",
		home + "/.npmrc",
		home + "/.aws/k",
		home + "/keys/k",
	} {
		r := sh(t, p, "cat "+path)
		if strings.Contains(r.stdout, "SECRET") || r.status.ExitCode == 0 {
			t.Errorf("cat %s: read it (%+v %q)", path, r.status, r.stdout)
		}
	}
	// A link planted in the root does not help either.
	r := sh(t, p, "ln -s "+home+"/.ssh/id_ed25519 k && cat k; cp "+home+"/.ssh/id_ed25519 c; cat c")
	if strings.Contains(r.stdout, "SECRET") {
		t.Errorf("read the key through a link or copy: %q", r.stdout)
	}
	// Everything else in the home stays readable, and listable.
	r = sh(t, p, "cat "+home+"/notes.txt && ls -a "+home)
	if r.status.ExitCode != 0 || !strings.Contains(r.stdout, "public") || !strings.Contains(r.stdout, "notes.txt") {
		t.Errorf("ordinary home file unreadable: %+v %q %q", r.status, r.stdout, r.stderr)
	}
	// A denied path that does not exist yet is denied once it does.
	os.MkdirAll(filepath.Join(home, ".gnupg"), 0o700)
	os.WriteFile(filepath.Join(home, ".gnupg", "secring"), []byte("SECRET-GPG"), 0o600)
	if r := sh(t, p, "cat "+home+"/.gnupg/secring"); strings.Contains(r.stdout, "SECRET") {
		t.Errorf("read a denied path created before the run: %q", r.stdout)
	}
}

func TestLandlockStrictMode(t *testing.T) {
	needLandlock(t)
	root, second, other := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(other, "data"), []byte("outside"), 0o644)
	p := llPolicy(t, root)
	p.Mode = Strict
	p.WritableRoots = []string{root, second}
	if r := sh(t, p, "ls /usr/bin >/dev/null && echo ok > f && cat f"); r.stdout != "ok\n" {
		t.Errorf("strict: system read or root write failed: %+v %q %q", r.status, r.stdout, r.stderr)
	}
	if r := sh(t, p, "cat "+other+"/data"); r.status.ExitCode == 0 {
		t.Errorf("strict: read a file outside the system dirs: %q", r.stdout)
	}
	if r := sh(t, p, "echo x > "+second+"/f"); r.status.ExitCode == 0 {
		t.Error("strict: wrote to the second root")
	}
	p.Mode = Compat
	if r := sh(t, p, "cat "+other+"/data && echo x > "+second+"/f"); r.status.ExitCode != 0 {
		t.Errorf("compat: %+v %q", r.status, r.stderr)
	}
}

func TestLandlockNetwork(t *testing.T) {
	needLandlock(t)
	allowed, other := listen(t), listen(t)
	root := t.TempDir()
	p := llPolicy(t, root)
	connect := func(port int) string {
		return fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash needed for /dev/tcp")
	}
	for _, tc := range []struct {
		enabled bool
		port    int
		want    bool
	}{
		{false, allowed, false},
		{true, allowed, true},
		{true, other, false},
	} {
		p.Network = Network{Enabled: tc.enabled}
		if tc.enabled {
			p.Network.ProxyHTTPPort = allowed
		}
		r := runLandlock(t, p, "bash", "-c", connect(tc.port))
		if got := strings.Contains(r.stdout, "connected"); got != tc.want {
			t.Errorf("network %v, connect to %d: connected=%v, want %v (%q)", tc.enabled, tc.port, got, tc.want, r.stderr)
		}
	}
	// No listening either.
	p.Network = Network{}
	if r := runLandlock(t, p, "python3", "-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); print('listening')"); strings.Contains(r.stdout, "listening") {
		t.Error("bound and listened on a TCP port")
	}
}

// listen starts a loopback TCP server that accepts and closes; it returns
// its port.
func listen(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestLandlockSignalAndKill(t *testing.T) {
	needLandlock(t)
	root := t.TempDir()
	p := llPolicy(t, root)
	start := func(script string) Process {
		proc, err := Landlock().Start(p, &Command{Argv: []string{"/bin/sh", "-c", script}, Env: []string{"PATH=/usr/bin:/bin"}})
		if err != nil {
			t.Fatal(err)
		}
		return proc
	}
	// The signal reaches the command, which is the process Wait reports.
	proc := start("sleep 60")
	if err := proc.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if st, _ := proc.Wait(); st.Signal != int(syscall.SIGTERM) || st.ExitCode != 128+15 {
		t.Errorf("after SIGTERM: %+v", st)
	}
	// A trap runs its handler.
	proc = start("trap 'echo trapped > trap.txt; exit 3' TERM; sleep 60 & wait")
	time.Sleep(200 * time.Millisecond)
	proc.Signal(syscall.SIGTERM)
	if st, _ := proc.Wait(); st.ExitCode != 3 {
		t.Errorf("trap: %+v", st)
	}
	// Nothing survives: a background job, a job in its own process group.
	proc = start("sleep 61 & echo $! > bg.pid; set -m; sleep 62 & echo $! > pg.pid; wait")
	waitFor(t, func() bool {
		b, _ := os.ReadFile(filepath.Join(root, "pg.pid"))
		return strings.HasSuffix(string(b), "\n")
	})
	proc.Kill()
	proc.Wait()
	for _, f := range []string{"bg.pid", "pg.pid"} {
		b, _ := os.ReadFile(filepath.Join(root, f))
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("%s: %q", f, b)
		}
		if !gone(pid) {
			t.Errorf("%s: process %d still running after Kill and Wait", f, pid)
		}
	}
	// Wait after a normal exit also ends what was left behind.
	proc = start("sleep 63 & echo $! > left.pid")
	proc.Wait()
	b, _ := os.ReadFile(filepath.Join(root, "left.pid"))
	if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid == 0 || !gone(pid) {
		t.Errorf("background process %q outlived the command", b)
	}
}

// alive reports whether pid runs (a zombie does not count).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// gone reports whether pid has stopped running within a second (SIGKILL
// is delivered asynchronously).
func gone(pid int) bool {
	for i := 0; i < 100; i++ {
		if !alive(pid) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition not met within 5s")
}

func TestLandlockProtectedPathsRestored(t *testing.T) {
	needLandlock(t)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(root, ".git", "hooks", "pre-commit.sample"), []byte("sample"), 0o755)
	os.WriteFile(filepath.Join(root, ".git", "config"), []byte("[core]\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".envrc"), []byte("export A=1\n"), 0o644)
	p := llPolicy(t, root)
	p.DenyWrite = []string{".git/hooks", ".git/config", ".envrc", ".bashrc", filepath.Join(root, ".mcp.json")}
	var errb bytes.Buffer
	proc, err := Landlock().Start(p, &Command{
		Argv: []string{"/bin/sh", "-c", `
			echo evil > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit
			echo evil > .git/hooks/pre-commit.sample
			echo '[core] hooksPath=/tmp' >> .git/config
			rm .envrc; ln -s /etc/passwd .envrc
			echo evil > .bashrc
			echo '{}' > .mcp.json
			echo fine > ordinary.txt`},
		Env:    []string{"PATH=/usr/bin:/bin"},
		Stderr: &errb,
	})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := proc.Wait(); err != nil || st.ExitCode != 0 {
		t.Fatalf("%+v %v %s", st, err, errb.String())
	}
	check := func(rel, want string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, rel))
		if want == "" {
			if _, err := os.Lstat(filepath.Join(root, rel)); err == nil {
				t.Errorf("%s exists after the run", rel)
			}
			return
		}
		if err != nil || string(b) != want {
			t.Errorf("%s = %q (%v), want %q", rel, b, err, want)
		}
	}
	check(".git/hooks/pre-commit", "")
	check(".git/hooks/pre-commit.sample", "sample")
	check(".git/config", "[core]\n")
	check(".envrc", "export A=1\n")
	check(".bashrc", "")
	check(".mcp.json", "")
	check("ordinary.txt", "fine\n")
	if fi, err := os.Lstat(filepath.Join(root, ".envrc")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf(".envrc is not a regular file again: %v %v", fi, err)
	}
	if !strings.Contains(errb.String(), "restored") {
		t.Errorf("no note on stderr: %q", errb.String())
	}
}

func TestLandlockNoCapabilities(t *testing.T) {
	needLandlock(t)
	root := t.TempDir()
	r := runLandlock(t, llPolicy(t, root), "grep", "-E", "^(CapEff|CapBnd|CapPrm|NoNewPrivs)", "/proc/self/status")
	for _, want := range []string{"CapEff:\t0000000000000000", "CapPrm:\t0000000000000000", "CapBnd:\t0000000000000000", "NoNewPrivs:\t1"} {
		if os.Geteuid() != 0 && strings.HasPrefix(want, "CapBnd") {
			continue // an unprivileged user cannot shrink it, and needs not
		}
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in:\n%s", want, r.stdout)
		}
	}
}

func TestLandlockSetupFailureStartsNothing(t *testing.T) {
	needLandlock(t)
	root := t.TempDir()
	p := llPolicy(t, root)
	p.Network = Network{Enabled: true} // no port: cannot be met
	if _, err := Landlock().Start(p, &Command{Argv: []string{"touch", "x"}}); err == nil {
		t.Error("Start with network on and no proxy port succeeded")
	}
	p = llPolicy(t, root)
	p.Mode = "lax"
	if _, err := Landlock().Start(p, &Command{Argv: []string{"touch", "x"}}); err == nil {
		t.Error("Start with an unknown mode succeeded")
	}
	if fileExists(filepath.Join(root, "x")) {
		t.Error("the command ran")
	}
}

// BenchmarkLandlockTrue alternates `true` under the Landlock backend
// (default policy shape: credential paths denied, protected paths guarded)
// with a bare fork and exec of `true`, and reports both medians, so that
// a loaded machine slows both alike.
func BenchmarkLandlockTrue(b *testing.B) {
	needLandlock(b)
	root := b.TempDir()
	p := llPolicy(b, root)
	p.DenyRead = []string{"/root/.ssh", "/root/.aws", "/root/.gnupg", "/root/.config/gh", "/root/.npmrc", "/root/.netrc",
		"/root/.config/safeexec", "/root/.local/state/safeexec"}
	p.DenyWrite = []string{".git/hooks", ".git/config", ".env", ".envrc", ".bashrc", ".mcp.json", ".safeexec.toml"}
	var ll, bare []time.Duration
	for b.Loop() {
		t0 := time.Now()
		proc, err := Landlock().Start(p, &Command{Argv: []string{"true"}, Env: []string{"PATH=/usr/bin:/bin"}})
		if err != nil {
			b.Fatal(err)
		}
		if st, err := proc.Wait(); err != nil || st.ExitCode != 0 {
			b.Fatal(st, err)
		}
		ll = append(ll, time.Since(t0))
		t0 = time.Now()
		if err := exec.Command("/usr/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
		bare = append(bare, time.Since(t0))
	}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.ReportMetric(med(ll), "landlock-ms")
	b.ReportMetric(med(bare), "bare-ms")
}

// BenchmarkLandlockPlan is the child's work before the exec: the plan (a
// walk of the denied paths' ancestors) and the ruleset (one rule each).
func BenchmarkLandlockPlan(b *testing.B) {
	needLandlock(b)
	root := b.TempDir()
	s := &llRequest{Mode: Compat, Roots: []string{root},
		DenyRead: []string{"/root/.ssh", "/root/.aws", "/root/.gnupg", "/root/.config/gh", "/root/.npmrc", "/root/.netrc"}}
	abi := landlockABIVersion()
	for b.Loop() {
		p, err := planLandlock(s, abi, os.Geteuid() == 0)
		if err != nil {
			b.Fatal(err)
		}
		fd, err := landlockRuleset(p)
		if err != nil {
			b.Fatal(err)
		}
		syscall.Close(fd)
	}
}

// TestLandlockOrdinaryWork: what commands do every day still works under
// the socket filter: pipes and socket pairs between their own processes,
// a git repository in the root.
func TestLandlockOrdinaryWork(t *testing.T) {
	needLandlock(t)
	root := t.TempDir()
	p := llPolicy(t, root)
	p.DenyWrite = []string{".git/hooks", ".git/config"}
	script := "git init -q . && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m first && git log --oneline | wc -l"
	if _, err := exec.LookPath("git"); err == nil {
		if r := runLandlock(t, p, "/bin/sh", "-c", script); r.status.ExitCode != 0 || strings.TrimSpace(r.stdout) != "1" {
			t.Errorf("git: %+v %q %q", r.status, r.stdout, r.stderr)
		}
	}
	if fileExists("/usr/bin/python3") {
		r := runLandlock(t, p, "/usr/bin/python3", "-c", "import multiprocessing as m\nif __name__ == '__main__':\n  a, b = m.Pipe()\n  a.send('pair'); print(b.recv())")
		if strings.TrimSpace(r.stdout) != "pair" {
			t.Errorf("socketpair: %+v %q %q", r.status, r.stdout, r.stderr)
		}
	}
}

func TestLandlockLimits(t *testing.T) {
	needLandlock(t)
	root := t.TempDir()
	p := llPolicy(t, root)
	p.Limits = Limits{OpenFiles: 37, FileSize: 4096}
	r := sh(t, p, "ulimit -n; head -c 10000 /dev/zero > big; wc -c < big")
	lines := strings.Fields(r.stdout)
	if len(lines) != 2 || lines[0] != "37" || lines[1] != "4096" {
		t.Errorf("limits: %q %q", r.stdout, r.stderr)
	}
}

func TestLandlockDetectReport(t *testing.T) {
	needLandlock(t)
	b, r, err := detectLandlock()
	if err != nil || b == nil || b.Name() != "landlock" {
		t.Fatalf("detect: %v %v", b, err)
	}
	if !strings.HasPrefix(r.Level, "ABI ") || len(r.Checks) < 5 {
		t.Errorf("report: %+v", r)
	}
	for _, c := range r.Checks {
		if !c.OK && c.Fix == "" {
			t.Errorf("check %q fails without saying what to do", c.Name)
		}
	}
}

// TestLandlockDiesWithSafeexec: SIGKILL of safeexec kills the command (the
// parent-death signal; there is no pid namespace to take grandchildren).
func TestLandlockDiesWithSafeexec(t *testing.T) {
	needLandlock(t)
	root := t.TempDir()
	pidFile := filepath.Join(root, "cmd.pid")
	parent := exec.Command(testExecutable(t), "__llparent", root, pidFile)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { b, _ := os.ReadFile(pidFile); return len(b) > 1 })
	b, _ := os.ReadFile(pidFile)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	parent.Process.Signal(syscall.SIGKILL)
	parent.Wait()
	if !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("command %d outlived a SIGKILLed safeexec", pid)
	}
}

// TestLandlockRefusesOldKernels: a kernel that cannot enforce the policy
// gets a refusal wrapping ErrUnavailable, from Detect and from Start, and
// nothing runs.
func TestLandlockRefusesOldKernels(t *testing.T) {
	needLandlock(t)
	defer func() { landlockABIForTest = 0 }()
	root := t.TempDir()
	for _, abi := range []int{-1, 1, 2, 3} {
		landlockABIForTest = abi
		if _, r, err := detectLandlock(); !errors.Is(err, ErrUnavailable) || r.Reason == "" {
			t.Errorf("ABI %d: detect: %v (reason %q)", abi, err, r.Reason)
		}
		for _, mode := range []Mode{Strict, Compat, Permissive} {
			p := llPolicy(t, root)
			p.Mode = mode
			_, err := Landlock().Start(p, &Command{Argv: []string{"touch", "ran"}})
			if !errors.Is(err, ErrUnavailable) {
				t.Errorf("ABI %d %s: Start: %v", abi, mode, err)
			}
		}
	}
	if fileExists(filepath.Join(root, "ran")) {
		t.Error("the command ran")
	}
}

func TestLandlockCacheDir(t *testing.T) {
	needLandlock(t)
	root, base := t.TempDir(), t.TempDir()
	cache := filepath.Join(base, "cache")
	for _, mode := range []Mode{Strict, Compat, Permissive} {
		p := llPolicy(t, root)
		p.Mode = mode
		p.CacheDir = cache
		r := sh(t, p, "mkdir -p "+cache+"/go && echo ok > "+cache+"/go/x && cat "+cache+"/go/x")
		if r.stdout != "ok\n" {
			t.Errorf("%s: cache not writable: %+v %q", mode, r.status, r.stderr)
		}
	}
	// Strict refuses a working directory it would hide.
	p := llPolicy(t, root)
	p.Mode = Strict
	p.Cwd = base
	if _, err := Landlock().Start(p, &Command{Argv: []string{"true"}}); err == nil {
		t.Error("strict started in a hidden working directory")
	}
}

// TestLandlockPrivateTmp: a writable root naming the host's /tmp means the
// command's own temporary directory, as under bwrap; it is gone after the
// run, and the host's /tmp is not written.
func TestLandlockPrivateTmp(t *testing.T) {
	needLandlock(t)
	root := t.TempDir()
	for _, mode := range []Mode{Strict, Compat, Permissive} {
		p := llPolicy(t, root)
		p.Mode = mode
		p.WritableRoots = []string{root, "/tmp"}
		marker := "/tmp/safeexec-private-tmp-test-" + strconv.Itoa(os.Getpid())
		var out bytes.Buffer
		proc, err := Landlock().Start(p, &Command{
			Argv:   []string{"/bin/sh", "-c", `echo "$TMPDIR"; echo t > "$TMPDIR/f" && cat "$TMPDIR/f"; echo x > ` + marker},
			Env:    []string{"PATH=/usr/bin:/bin", "TMPDIR=/tmp", "SSH_AUTH_SOCK=/tmp/ssh-x/agent.1"},
			Stdout: &out,
		})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		proc.Wait()
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2 || lines[1] != "t" || lines[0] == "/tmp" || !strings.Contains(lines[0], "safeexec-tmp-") {
			t.Errorf("%s: output %q", mode, out.String())
		}
		if fileExists(lines[0]) {
			t.Errorf("%s: private %s left behind", mode, lines[0])
		}
		if fileExists(marker) {
			os.Remove(marker)
			t.Errorf("%s: wrote the host's /tmp", mode)
		}
	}
	var out bytes.Buffer
	proc, err := Landlock().Start(llPolicy(t, root), &Command{
		Argv:   []string{"env"},
		Env:    []string{"PATH=/usr/bin:/bin", "SSH_AUTH_SOCK=/tmp/ssh-x/agent.1", "DOCKER_HOST=unix://" + root + "/d.sock"},
		Stdout: &out,
	})
	if err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	if strings.Contains(out.String(), "SSH_AUTH_SOCK") || !strings.Contains(out.String(), "DOCKER_HOST=") {
		t.Errorf("agent socket variables: want SSH_AUTH_SOCK (outside the roots) dropped, DOCKER_HOST (inside) kept:\n%s", out.String())
	}
}
