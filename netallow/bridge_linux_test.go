package netallow

import (
	"bufio"
	"bytes"
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

	"github.com/creack/pty"
)

// The test binary plays the re-executed safeexec: TestMain runs RunBridge
// when its first argument is "__bridge".

// bridgePrefix starts the bridge: the test binary re-executed, unless a
// test points it at a built safeexec-bridge.
var bridgePrefix = func(t testing.TB) []string { return []string{selfExe(t), "__bridge"} }

func selfExe(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

var bwrapErr error
var bwrapChecked bool

// requireBwrap skips (or under SAFEEXEC_REQUIRE_SANDBOX=1 fails) when
// bubblewrap is missing or cannot make a network namespace here.
func requireBwrap(t testing.TB) {
	t.Helper()
	requireEnv(t)
	if !bwrapChecked {
		bwrapChecked = true
		if _, err := exec.LookPath("bwrap"); err != nil {
			bwrapErr = err
		} else if out, err := exec.Command("bwrap", "--unshare-net", "--ro-bind", "/", "/", "true").CombinedOutput(); err != nil {
			bwrapErr = &exec.Error{Name: "bwrap", Err: errString(strings.TrimSpace(string(out)))}
		}
	}
	if bwrapErr != nil {
		if os.Getenv("SAFEEXEC_REQUIRE_SANDBOX") == "1" {
			t.Fatalf("bwrap unavailable: %v", bwrapErr)
		}
		t.Skipf("bwrap unavailable: %v", bwrapErr)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// sandboxed runs argv through the bridge inside a bwrap network namespace,
// as the bwrap backend does: only the socket directory (and work, when
// given) is writable, the network namespace is empty but for lo.
func sandboxed(t testing.TB, p *Proxy, work string, argv ...string) (string, string, int) {
	t.Helper()
	dir := filepath.Dir(p.HTTPSocket())
	args := []string{"--die-with-parent", "--unshare-net", "--unshare-pid", "--new-session",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", dir, dir}
	if work != "" {
		args = append(args, "--bind", work, work, "--chdir", work)
	}
	args = append(args, bridgePrefix(t)...)
	args = append(args, BridgeArgs(p.HTTPSocket(), p.SOCKSSocket())...)
	args = append(args, "--")
	args = append(args, argv...)
	cmd := exec.Command("bwrap", args...)
	cmd.Env = append(cleanEnv(), "HOME="+os.TempDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("bwrap: %v", err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errb.String(), code
}

const pyRelay = `
import socket, sys, os, urllib.parse
u = urllib.parse.urlparse(os.environ["http_proxy"])
s = socket.create_connection((u.hostname, u.port), timeout=5)
s.sendall(b"CONNECT allowed.test:9000 HTTP/1.1\r\nHost: allowed.test:9000\r\n\r\n")
head = b""
while b"\r\n\r\n" not in head:
    head += s.recv(1)
print(head.split(b"\r\n")[0].decode())
s.sendall(b"CONNECT denied.test:80 HTTP/1.1\r\nHost: denied.test:80\r\n\r\n")
data = b""
while True:
    b = s.recv(4096)
    if not b:
        break
    data += b
print(data.decode(), end="")
`

// TestBridgeInBwrap runs real clients inside bwrap's empty network
// namespace: they reach the allowed names through the bridge and the
// proxy on the host, nothing else, and DNS does not work.
func TestBridgeInBwrap(t *testing.T) {
	requireBwrap(t)
	o := startOrigins(t)
	raw := startRawOrigin(t, "relay", "198.51.100.1:9000")
	p, _ := startProxy(t, []string{"allowed.test", "allowed.test:9000"}, nil)
	work, err := os.MkdirTemp("", "netallow-work-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(work)

	for _, tc := range []struct {
		name string
		argv []string
		code int
		want string
	}{
		{"curl plain", []string{"curl", "-sS", "--max-time", "10", "http://allowed.test/in"}, 0, "origin=allowed host=allowed.test path=/in"},
		{"curl CONNECT", []string{"curl", "-sSk", "--max-time", "10", "https://allowed.test/in"}, 0, "origin=allowed-tls host=allowed.test"},
		{"curl SOCKS5h", []string{"sh", "-c", `curl -sS --max-time 10 -x "$ALL_PROXY" http://allowed.test/socks`}, 0, "path=/socks"},
		{"curl denied", []string{"curl", "-sS", "--max-time", "10", "http://denied.test/"}, 0, "safeexec: denied.test is not in the network allowlist"},
		{"curl denied CONNECT", []string{"sh", "-c", "curl -sSk --max-time 10 https://denied.test/ 2>&1"}, 56, "403"},
		{"python", []string{"python3", "-c", pyFetch, "https://allowed.test/py"}, 0, "host=allowed.test path=/py"},
		{"git clone", []string{"sh", "-c", "git clone -q http://allowed.test/git/repo.git c && git -C c log --format=%s"}, 0, "hello from the origin"},
		{"relay", []string{"python3", "-c", pyRelay}, 0, "raw-origin=relay"},
		{"npm ping", []string{"sh", "-c", `command -v npm >/dev/null || { echo "PING PONG (npm missing)"; exit 0; }; npm_config_cache="$PWD/.npm" npm ping --registry http://allowed.test/npm/ 2>&1`}, 0, "PONG"},
		{"env", []string{"sh", "-c", `echo "$http_proxy|$HTTPS_PROXY|$ALL_PROXY|$no_proxy|$NO_PROXY|$npm_config_proxy|$PIP_PROXY"`}, 0, "|socks5h://127.0.0.1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := sandboxed(t, p, work, tc.argv...)
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d (want %d), stdout %q (want %q), stderr %q", code, tc.code, out, tc.want, errOut)
			}
		})
	}
	if _, err := exec.LookPath("npm"); err == nil && !strings.Contains(strings.Join(o.allowed.requests(), ","), "allowed.test /npm/-/ping") {
		t.Errorf("npm ping did not reach the origin: %q", o.allowed.requests())
	}
	if got := raw.rawBytes(); !strings.Contains(got, "CONNECT denied.test:80") {
		t.Errorf("relay origin got %q", got)
	}

	// Without the proxy there is no way out, and no DNS.
	before := o.allowed.accepts()
	_, _, code := sandboxed(t, p, "", "curl", "-sS", "--max-time", "5", "--noproxy", "*", "http://198.51.100.1/")
	if code == 0 || o.allowed.accepts() != before {
		t.Errorf("direct connection with --noproxy: exit %d", code)
	}
	_, _, code = sandboxed(t, p, "", "curl", "-sS", "--max-time", "5", "--noproxy", "*", "http://inside-dns-a.test/")
	if code != 6 {
		t.Errorf("curl resolving a name inside: exit %d, want 6 (could not resolve)", code)
	}
	_, _, code = sandboxed(t, p, "", "getent", "hosts", "inside-dns-b.test")
	if code == 0 {
		t.Error("getent resolved a name inside the sandbox")
	}
	_, _, code = sandboxed(t, p, "", "python3", "-c", "import socket; socket.getaddrinfo('inside-dns-c.test', 80)")
	if code == 0 {
		t.Error("python resolved a name inside the sandbox")
	}
	for _, n := range []string{"inside-dns-a.test", "inside-dns-b.test", "inside-dns-c.test"} {
		if dnsQueried(n) {
			t.Errorf("a DNS query for %s left the sandbox", n)
		}
	}
	o.assertUntouched(t, o.denied, o.deniedTLS)
	wantEnv := "http://127.0.0.1:"
	out, _, _ := sandboxed(t, p, "", "sh", "-c", `echo "$no_proxy"; echo "$http_proxy"`)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || lines[0] != NoProxy || !strings.HasPrefix(lines[1], wantEnv) {
		t.Errorf("proxy variables inside: %q", out)
	}
}

// TestBridgeExitStatus: the bridge returns the command's status the way a
// shell would.
func TestBridgeExitStatus(t *testing.T) {
	exe := selfExe(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "noexec.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--http", "/nonexistent.sock", "--", "sh", "-c", "exit 3"}, 3, ""},
		{[]string{"--http", "/nonexistent.sock", "--", "true"}, 0, ""},
		{[]string{"--http", "/nonexistent.sock", "--", "sh", "-c", "kill -TERM $$"}, 128 + 15, ""},
		{[]string{"--http", "/nonexistent.sock", "--", "sh", "-c", "kill -KILL $$"}, 128 + 9, ""},
		{[]string{"--http", "/nonexistent.sock", "--", "no-such-command-xyz"}, 127, "no-such-command-xyz: command not found"},
		{[]string{"--http", "/nonexistent.sock", "--", "./no/such/file"}, 127, "no such file"},
		{[]string{"--http", "/nonexistent.sock", "--", script}, 126, "permission denied"},
		{[]string{"--http", "/nonexistent.sock", "--", dir}, 126, ""},
		{[]string{"--http", "/nonexistent.sock", "true"}, 125, "unknown argument"},
		{[]string{"--http", "/nonexistent.sock"}, 125, "missing --"},
		{[]string{"--", "true"}, 125, "--http is required"},
		{[]string{"--http", "/x.sock", "--bogus", "--", "true"}, 125, "unknown argument"},
		{[]string{"--http", "/x.sock", "--"}, 125, "no command"},
	} {
		cmd := exec.Command(exe, append([]string{"__bridge"}, tc.args...)...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || !strings.Contains(errb.String(), tc.err) {
			t.Errorf("__bridge %q: exit %d, stderr %q; want %d, %q", tc.args, code, errb.String(), tc.code, tc.err)
		}
		if tc.err != "" && !strings.HasPrefix(errb.String(), "safeexec: ") {
			t.Errorf("__bridge %q: message %q does not start with safeexec:", tc.args, errb.String())
		}
	}
}

// TestBridgeForwardsSignals: SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to
// the bridge reach the command, which may handle them.
func TestBridgeForwardsSignals(t *testing.T) {
	exe := selfExe(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		name := strconv.Itoa(int(sig))
		cmd := exec.Command(exe, "__bridge", "--http", "/nonexistent.sock", "--", "sh", "-c",
			`trap 'echo trapped; exit 42' `+name+`; echo ready; while :; do sleep 0.05; done`)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(stdout)
		if line, err := br.ReadString('\n'); err != nil || line != "ready\n" {
			t.Fatalf("signal %d: %q %v", sig, line, err)
		}
		cmd.Process.Signal(sig)
		rest, _ := br.ReadString('\n')
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("signal %d: bridge did not exit", sig)
		}
		if cmd.ProcessState.ExitCode() != 42 || rest != "trapped\n" {
			t.Errorf("signal %d: exit %d, output %q; want the command's handler to run and exit 42", sig, cmd.ProcessState.ExitCode(), rest)
		}
	}
	// Without a handler the command dies of the signal: 128+N.
	cmd := exec.Command(exe, "__bridge", "--http", "/nonexistent.sock", "--", "sh", "-c", "echo ready; exec sleep 30")
	stdout, _ := cmd.StdoutPipe()
	cmd.Start()
	bufio.NewReader(stdout).ReadString('\n')
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if got := cmd.ProcessState.ExitCode(); got != 130 {
		t.Errorf("SIGINT to an unhandled command: exit %d, want 130", got)
	}
}

// BenchmarkBridge measures what the bridge adds to starting a command: bare
// bwrap running true, against the same bwrap running the bridge which runs
// true; and the same without bwrap. The test binary stands in for
// safeexec, so its own start-up (a larger binary) is included.
func BenchmarkBridge(b *testing.B) {
	requireBwrap(b)
	p := benchProxy(b)
	exe := selfExe(b)
	dir := filepath.Dir(p.HTTPSocket())
	bw := []string{"--die-with-parent", "--unshare-net", "--unshare-pid", "--new-session",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", dir, dir}
	bridge := append([]string{exe, "__bridge"}, BridgeArgs(p.HTTPSocket(), p.SOCKSSocket())...)
	bridge = append(bridge, "--")
	for _, tc := range []struct {
		name string
		argv []string
	}{
		{"exec/bare", []string{"/bin/true"}},
		{"exec/bridge", append(append([]string(nil), bridge...), "/bin/true")},
		{"bwrap/bare", append(append([]string{"bwrap"}, bw...), "/bin/true")},
		{"bwrap/bridge", append(append(append([]string{"bwrap"}, bw...), bridge...), "/bin/true")},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if out, err := exec.Command(tc.argv[0], tc.argv[1:]...).CombinedOutput(); err != nil {
					b.Fatalf("%v: %v %s", tc.argv, err, out)
				}
			}
		})
	}
}

// TestBridgeKilled: when the bridge itself is killed outright, the command
// does not outlive it.
func TestBridgeKilled(t *testing.T) {
	cmd := exec.Command(selfExe(t), "__bridge", "--http", "/nonexistent.sock", "--", "sh", "-c", "echo $$; exec sleep 60")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("command %d still running after the bridge was killed", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBridgeTerminal: on a terminal the command's process group becomes the
// foreground group (so it can read and gets ^C), and it does not inherit
// job-control signals ignored.
func TestBridgeTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	cmd := exec.Command(selfExe(t), "__bridge", "--http", "/nonexistent.sock", "--", "sh", "-c",
		`set -- $(cat /proc/$$/stat); echo "pgrp=$5 tpgid=$8"; grep SigIgn /proc/$$/status`)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	var out bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&out, ptmx); close(done) }()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("bridge: %v\n%s", err, out.String())
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	var pgrp, tpgid int
	var ign uint64
	for line := range strings.Lines(out.String()) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "pgrp=") {
			fmt.Sscanf(line, "pgrp=%d tpgid=%d", &pgrp, &tpgid)
		}
		if v, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			ign, _ = strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	if pgrp == 0 || pgrp != tpgid {
		t.Errorf("command's group %d, terminal's foreground group %d:\n%s", pgrp, tpgid, out.String())
	}
	for _, s := range []syscall.Signal{syscall.SIGTTOU, syscall.SIGTTIN, syscall.SIGINT, syscall.SIGHUP} {
		if ign&(1<<(uint(s)-1)) != 0 {
			t.Errorf("command starts with signal %d ignored (SigIgn %x)", s, ign)
		}
	}
}
