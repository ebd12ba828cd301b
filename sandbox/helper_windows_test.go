//go:build windows

package sandbox

// Plumbing tests of the built-in helper and the Windows backend. They run
// under Wine (../shared/wine) as well as on Windows; Wine does not enforce
// restricted tokens or ACLs, so nothing here asserts that a write is
// refused: that needs real Windows.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

// The test binary is its own helper, and its own small programs.
func init() {
	if len(os.Args) < 2 {
		return
	}
	switch os.Args[1] {
	case winHelperArg:
		os.Exit(RunWindowsHelper(os.Args[2:]))
	case "__sleep": // __sleep SECONDS
		n, _ := strconv.Atoi(os.Args[2])
		time.Sleep(time.Duration(n) * time.Second)
		os.Exit(0)
	case "__spawn": // __spawn PIDFILE: start a sleeper, write its pid, exit
		c := exec.Command(os.Args[0], "__sleep", "60")
		if err := c.Start(); err != nil {
			os.Exit(3)
		}
		os.WriteFile(os.Args[2], []byte(strconv.Itoa(c.Process.Pid)), 0o644)
		os.Exit(0)
	case "__env": // __env NAME: print the variable
		os.Stdout.WriteString(os.Getenv(os.Args[2]))
		os.Exit(0)
	case "__mark": // __mark PIDFILE SECONDS: write the pid, then sleep
		os.WriteFile(os.Args[2], []byte(strconv.Itoa(os.Getpid())), 0o644)
		n, _ := strconv.Atoi(os.Args[3])
		time.Sleep(time.Duration(n) * time.Second)
		os.Exit(0)
	case "__write": // __write PATH: create PATH; exit 3 when refused
		if err := os.WriteFile(os.Args[2], []byte("x"), 0o644); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(3)
		}
		os.Exit(0)
	case "__regwrite": // __regwrite NAME: create HKCU\Software\NAME; exit 3 when refused
		k, _, err := registry.CreateKey(registry.CURRENT_USER, `Software\`+os.Args[2], registry.SET_VALUE)
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(3)
		}
		k.Close()
		os.Exit(0)
	case "__rename": // __rename FROM TO; exit 3 when refused
		if err := os.Rename(os.Args[2], os.Args[3]); err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(3)
		}
		os.Exit(0)
	case "__chain": // __chain N: a chain of N processes below this one; the last prints "leaf"
		n, _ := strconv.Atoi(os.Args[2])
		if n == 0 {
			os.Stdout.WriteString("leaf")
			os.Exit(0)
		}
		c := exec.Command(os.Args[0], "__chain", strconv.Itoa(n-1))
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		if err := c.Run(); err != nil {
			os.Stderr.WriteString("chain: " + err.Error())
			os.Exit(4)
		}
		os.Exit(0)
	case "__echo": // __echo TEXT EXIT: print TEXT, exit with EXIT
		os.Stdout.WriteString(os.Args[2])
		os.Stderr.WriteString("err:" + os.Args[2])
		n, _ := strconv.Atoi(os.Args[3])
		os.Exit(n)
	}
}

// winTempDir is t.TempDir without os.RemoveAll, which fails under Wine.
func winTempDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "safeexec-wintest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var paths []string
		filepath.Walk(d, func(p string, _ os.FileInfo, _ error) error {
			paths = append(paths, p)
			return nil
		})
		sort.Sort(sort.Reverse(sort.StringSlice(paths)))
		for _, p := range paths {
			os.Remove(p)
		}
	})
	return d
}

func runHelperProcess(t *testing.T, req *helperRequest) helperAnswer {
	t.Helper()
	exe, _ := os.Executable()
	if req.Policy.JournalDir == "" {
		req.Policy.JournalDir = journalDir(t)
	}
	args, err := req.args()
	if err != nil {
		t.Fatal(err)
	}
	// Not the test's own stderr: a process the command leaves behind
	// would hold go test's pipe open.
	var out, errb bytes.Buffer
	cmd := exec.Command(exe, append([]string{winHelperArg}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Run()
	a, err := decodeHelperAnswer(out.Bytes())
	if err != nil {
		t.Fatalf("helper answer %q: %v (stderr %q)", out.String(), err, errb.String())
	}
	return a
}

func TestWindowsHelperProtocol(t *testing.T) {
	exe, _ := os.Executable()
	dir := winTempDir(t)
	pol := helperPolicyOf(&Policy{WritableRoots: []string{dir}, DenyWrite: []string{".git\\hooks"}})
	for _, mode := range []Mode{Strict, Compat, Permissive} {
		a := runHelperProcess(t, &helperRequest{Mode: mode, Cwd: dir, Policy: pol, Argv: []string{exe, "__echo", "hello", "7"}})
		if a.Error != "" || a.ExitCode != 7 || a.Stdout != "hello" || a.Stderr != "err:hello" || a.TimedOut {
			t.Errorf("%s: %+v", mode, a)
		}
	}
	a := runHelperProcess(t, &helperRequest{Mode: Compat, Cwd: dir, Policy: pol, Argv: []string{"no-such-command-xyz"}})
	if a.ExitCode != 127 || !strings.Contains(a.Stderr, "not found") {
		t.Errorf("not found: %+v", a)
	}
}

func TestWindowsHelperTimeoutAndJob(t *testing.T) {
	exe, _ := os.Executable()
	dir := winTempDir(t)
	pol := helperPolicyOf(&Policy{WritableRoots: []string{dir}})
	pol.TimeoutMS = 500
	start := time.Now()
	a := runHelperProcess(t, &helperRequest{Mode: Compat, Cwd: dir, Policy: pol, Argv: []string{exe, "__sleep", "60"}})
	if !a.TimedOut || a.ExitCode != 124 {
		t.Errorf("timeout: %+v", a)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("timeout took %v", d)
	}
	// A grandchild started by the command dies with the job.
	pidFile := filepath.Join(dir, "pid")
	pol.TimeoutMS = 0
	a = runHelperProcess(t, &helperRequest{Mode: Compat, Cwd: dir, Policy: pol, Argv: []string{exe, "__spawn", pidFile}})
	if a.ExitCode != 0 {
		t.Fatalf("spawn: %+v", a)
	}
	assertGone(t, pidFile)
}

// assertGone fails when the process whose pid is in pidFile still runs.
func assertGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("no pid file: %v", err)
	}
	pid, _ := strconv.Atoi(string(b))
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return // gone already
	}
	defer windows.CloseHandle(h)
	if ev, _ := windows.WaitForSingleObject(h, 5000); ev != windows.WAIT_OBJECT_0 {
		t.Errorf("process %d outlived the job", pid)
	}
}

func TestWindowsBackend(t *testing.T) {
	exe, _ := os.Executable()
	journalDir(t)
	dir := winTempDir(t)
	p := &Policy{Mode: Compat, Cwd: dir, WritableRoots: []string{dir}, DenyWrite: []string{".env"}, SafeexecPath: exe}
	var out, errb bytes.Buffer
	proc, err := Windows().Start(p, &Command{Argv: []string{exe, "__echo", "streamed", "3"}, Env: os.Environ(), Stdout: &out, Stderr: &errb})
	if err != nil {
		t.Fatal(err)
	}
	st, err := proc.Wait()
	if err != nil || st.ExitCode != 3 || out.String() != "streamed" || !strings.Contains(errb.String(), "err:streamed") {
		t.Errorf("status %+v err %v stdout %q stderr %q", st, err, out.String(), errb.String())
	}

	// The command's TEMP is a directory of its own.
	out.Reset()
	proc, err = Windows().Start(p, &Command{Argv: []string{exe, "__env", "TEMP"}, Env: os.Environ(), Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	if !strings.Contains(out.String(), "safeexec-tmp") {
		t.Errorf("TEMP = %q, want a private directory", out.String())
	}

	// Kill ends the helper, the command and what it started.
	pidFile := filepath.Join(dir, "pid2")
	proc, err = Windows().Start(p, &Command{Argv: []string{exe, "__spawn", pidFile}, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	assertGone(t, pidFile)
	proc, err = Windows().Start(p, &Command{Argv: []string{exe, "__sleep", "60"}, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	proc.Kill()
	st, _ = proc.Wait()
	if st.ExitCode != 137 || time.Since(start) > 20*time.Second {
		t.Errorf("after Kill: %+v in %v", st, time.Since(start))
	}
	// A new protected file does not survive the run.
	if !rootRemoveWorks(t) {
		t.Skip("os.Root cannot remove files on this system (Wine): the guard cannot restore here")
	}
	proc, err = Windows().Start(p, &Command{Argv: []string{"cmd", "/c", "echo x> .env"}, Env: os.Environ()})
	if err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	if _, err := os.Stat(filepath.Join(dir, ".env")); err == nil {
		t.Error(".env created in the run is still there")
	}
}

func TestWindowsRestrictedTokenBuilds(t *testing.T) {
	s, err := newRunSIDString()
	if err != nil {
		t.Fatal(err)
	}
	run, err := windows.StringToSid(s)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := windows.StringToSid(workspaceSID("S-1-5-21-1-2-3-1000", Compat, []string{`C:\w`}))
	if err != nil {
		t.Fatal(err)
	}
	var cur windows.Token
	if err := windows.OpenProcessToken(windows.CurrentProcess(), windows.TOKEN_DUPLICATE|windows.TOKEN_QUERY|windows.TOKEN_ASSIGN_PRIMARY|windows.TOKEN_ADJUST_DEFAULT, &cur); err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	for _, mode := range []Mode{Strict, Compat, Permissive} {
		tok, err := restrictedToken(cur, mode, ws, run)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		tok.Close()
	}
}
