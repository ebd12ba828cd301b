package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	builtPath string
	buildErr  error
)

// binary builds safeexec once for the tests that need a real process.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "safeexec-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtPath = filepath.Join(dir, "safeexec")
		out, err := exec.Command("go", "build", "-o", builtPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtPath
}

func needBwrap(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		// SAFEEXEC_REQUIRE_SANDBOX asks for the platform's sandbox, which
		// is not bwrap here.
		t.Skip("bwrap is Linux only")
	}
	if err := bwrapWorks(); err != nil {
		if requireSandbox {
			t.Fatalf("SAFEEXEC_REQUIRE_SANDBOX=1 but %v", err)
		}
		t.Skip(err)
	}
}

// hermetic returns an environment and working directory for one test run.
func hermetic(t *testing.T) (env []string, dir string) {
	t.Helper()
	dir = t.TempDir()
	home := filepath.Join(dir, "home")
	work := filepath.Join(dir, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"USER=tester",
	}
	return env, work
}

// readyLine waits until r prints a line containing want.
func readyLine(t *testing.T, r *bufio.Reader, want string) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				done <- fmt.Errorf("reading output: %v (last %q)", err, line)
				return
			}
			if strings.Contains(line, want) {
				done <- nil
				return
			}
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no %q from the command", want)
	}
}

// TestSignalsReachCommand sends each forwarded signal to safeexec and
// checks that the command's own handler ran.
func TestSignalsReachCommand(t *testing.T) {
	needBwrap(t)
	bin := binary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			env, dir := hermetic(t)
			name := strings.ToUpper(strings.TrimPrefix(sigName(sig), "SIG"))
			script := fmt.Sprintf(`trap 'echo "caught %s"; exit 42' %s; echo ready; while :; do sleep 0.05; done`, name, name)
			cmd := exec.Command(bin, "-c", script)
			cmd.Env, cmd.Dir = env, dir
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(stdout)
			readyLine(t, r, "ready")
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			rest := make(chan string, 1)
			go func() {
				b, _ := r.ReadString(0)
				rest <- b
			}()
			err = cmd.Wait()
			out := <-rest
			if !strings.Contains(out, "caught "+name) {
				t.Errorf("the command's handler did not run; output %q, stderr %q", out, stderr.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != 42 {
				t.Errorf("exit code %d, want 42 (the handler's); err %v; stderr %q", code, err, stderr.String())
			}
		})
	}
}

func sigName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return s.String()
}

// TestSignalKillsUntrapped checks that SIGINT ends a command that does
// not handle it, with 128+2.
func TestSignalKillsUntrapped(t *testing.T) {
	needBwrap(t)
	bin := binary(t)
	env, dir := hermetic(t)
	marker := fmt.Sprintf("60.%09d", time.Now().UnixNano()%1e9)
	cmd := exec.Command(bin, "--", "sh", "-c", "echo ready; sleep "+marker)
	cmd.Env, cmd.Dir = env, dir
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	readyLine(t, bufio.NewReader(stdout), "ready")
	// Signal once sleep runs: a terminal's ^C that comes between the
	// shell's echo and its fork of sleep reaches only the shell.
	waitProcs(t, marker, 1)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit code %d, want 130", code)
	}
}

// TestKillLeavesNothing kills safeexec with SIGKILL and checks that the
// command tree it started is gone.
func TestKillLeavesNothing(t *testing.T) {
	needBwrap(t)
	bin := binary(t)
	env, dir := hermetic(t)
	// A unique sleep interval marks the test's processes.
	marker := fmt.Sprintf("300.%09d", time.Now().UnixNano()%1e9)
	// A background child, a nohup'd grandchild and a setsid'd one.
	script := fmt.Sprintf(`sleep %[1]s & nohup sleep %[1]s >/dev/null 2>&1 & setsid sleep %[1]s & echo ready; wait`, marker)
	cmd := exec.Command(bin, "--yes", "-c", script)
	cmd.Env, cmd.Dir = env, dir
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	readyLine(t, bufio.NewReader(stdout), "ready")
	waitProcs(t, marker, 3)
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for countProcs(marker) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := countProcs(marker); n > 0 {
		exec.Command("pkill", "-f", "sleep "+marker).Run()
		t.Fatalf("%d processes outlived a SIGKILLed safeexec", n)
	}
}

// waitProcs waits until n sleep processes with the marker interval run.
func waitProcs(t *testing.T, marker string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for countProcs(marker) < n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := countProcs(marker); got < n {
		t.Fatalf("%d of the test's %d sleeps started", got, n)
	}
}

// countProcs counts processes whose command line mentions marker.
func countProcs(marker string) int {
	if runtime.GOOS != "linux" {
		return 0
	}
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 0 && filepath.Base(args[0]) == "sleep" && strings.Contains(string(b), marker) {
			n++
		}
	}
	return n
}

// TestConcurrentAuditRecords runs 30 safeexec processes at once and
// expects exactly 30 intact records.
func TestConcurrentAuditRecords(t *testing.T) {
	needBwrap(t)
	bin := binary(t)
	env, dir := hermetic(t)
	const n = 30
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(bin, "--", "echo", strings.Repeat(fmt.Sprintf("run-%02d-", i), 200))
			cmd.Env, cmd.Dir = env, dir
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("run %d: %v: %s", i, err, out)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "state", "safeexec", "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines in the audit log, want %d", len(lines), n)
	}
	seen := map[string]bool{}
	for i, l := range lines {
		var rec struct {
			Argv     []string `json:"argv"`
			Decision string   `json:"decision"`
		}
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("line %d is not one intact record: %v", i+1, err)
		}
		if len(rec.Argv) != 2 {
			t.Fatalf("line %d: argv %q", i+1, rec.Argv)
		}
		seen[rec.Argv[1][:7]] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct runs recorded, want %d", len(seen), n)
	}
}

// TestAuditFollow starts `audit --follow` and expects the record of a run
// that happens afterwards.
func TestAuditFollow(t *testing.T) {
	needBwrap(t)
	bin := binary(t)
	env, dir := hermetic(t)
	follow := exec.Command(bin, "audit", "--follow", "--json")
	follow.Env, follow.Dir = env, dir
	stdout, err := follow.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	defer follow.Process.Kill()
	// Follow reports records appended after it starts: keep running until
	// one arrives, then check it is ours.
	lines := make(chan string, 16)
	go func() {
		r := bufio.NewReader(stdout)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- l
		}
	}()
	deadline := time.After(30 * time.Second)
	for i := 0; ; i++ {
		run := exec.Command(bin, "--", "echo", fmt.Sprintf("followed-%d", i))
		run.Env, run.Dir = env, dir
		if out, err := run.CombinedOutput(); err != nil {
			t.Fatalf("run: %v: %s", err, out)
		}
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("audit --follow ended")
			}
			if !strings.Contains(l, `"followed-`) || !strings.Contains(l, `"decision":"allowed"`) {
				t.Fatalf("unexpected record %q", l)
			}
			follow.Process.Signal(syscall.SIGTERM)
			follow.Wait()
			if code := follow.ProcessState.ExitCode(); code != 0 {
				t.Errorf("audit --follow exited %d after SIGTERM, want 0", code)
			}
			return
		case <-time.After(500 * time.Millisecond):
		case <-deadline:
			t.Fatal("no record reached audit --follow")
		}
	}
}
