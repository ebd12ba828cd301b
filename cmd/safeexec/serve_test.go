package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serveClient talks to a `safeexec serve` over a pipe or a socket.
type serveClient struct {
	t    *testing.T
	w    io.Writer
	r    *bufio.Reader
	next int
}

// call sends a request and returns the result or error object of its
// response (notifications in between are skipped).
func (c *serveClient) call(method string, params any) (result, rpcErr json.RawMessage) {
	c.t.Helper()
	c.next++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	for {
		line, err := c.r.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("%s: reading the response: %v", method, err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Fatalf("%s: %q: %v", method, line, err)
		}
		if m.ID != nil && *m.ID == c.next {
			return m.Result, m.Error
		}
	}
}

func (c *serveClient) create(params map[string]any) string {
	c.t.Helper()
	params["sessionId"] = "s1"
	res, e := c.call("terminal/create", params)
	if e != nil {
		c.t.Fatalf("create %v: %s", params, e)
	}
	var r struct {
		TerminalID string `json:"terminalId"`
	}
	json.Unmarshal(res, &r)
	return r.TerminalID
}

func startServe(t *testing.T, env []string, dir string, args ...string) (*exec.Cmd, *serveClient) {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"serve"}, args...)...)
	cmd.Env, cmd.Dir = env, dir
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// As a client leaves: end of input, then serve kills what it
		// started (its warm sandbox too) and exits.
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		// A sandbox serve was still building when it was killed (a test
		// that kills it) dies with it, a moment later: before the test's
		// directory is removed, it is gone (bwrap makes mount points in
		// the project's temporary directory while it builds).
		deadline := time.Now().Add(5 * time.Second)
		for bwrapsIn(dir) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	})
	return cmd, &serveClient{t: t, w: in, r: bufio.NewReader(out)}
}

// bwrapsIn counts live bwrap processes whose command line names dir.
func bwrapsIn(dir string) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err == nil && strings.HasPrefix(string(b), "bwrap\x00") && strings.Contains(string(b), dir) &&
			!strings.Contains(string(st), ") Z ") {
			n++
		}
	}
	return n
}

// TestServeKilledLeavesNothing: SIGKILL to serve ends every command it
// started, whatever they did to get away.
func TestServeKilledLeavesNothing(t *testing.T) {
	needBwrap(t)
	env, dir := hermetic(t)
	cmd, c := startServe(t, env, dir)
	marker := fmt.Sprintf("300.%09d", time.Now().UnixNano()%1e9)
	script := fmt.Sprintf(`sleep %[1]s & nohup sleep %[1]s >/dev/null 2>&1 & setsid sleep %[1]s & echo ready; wait`, marker)
	for i := 0; i < 2; i++ {
		c.create(map[string]any{"command": "sh", "args": []string{"-c", script}})
	}
	waitProcs(t, marker, 6)
	cmd.Process.Kill()
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for countProcs(marker) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := countProcs(marker); n > 0 {
		exec.Command("pkill", "-f", "sleep "+marker).Run()
		t.Fatalf("%d processes outlived a SIGKILLed safeexec serve", n)
	}
}

// TestServeSocket: --socket makes a socket only this user can open; each
// connection's commands die with it; the socket goes when serve stops.
func TestServeSocket(t *testing.T) {
	needBwrap(t)
	env, dir := hermetic(t)
	sock := filepath.Join(t.TempDir(), "serve.sock")
	cmd, _ := startServe(t, env, dir, "--socket", sock)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(sock); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	fi, err := os.Stat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket with 0600", fi.Mode())
	}
	marker := fmt.Sprintf("300.%09d", time.Now().UnixNano()%1e9)
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	c := &serveClient{t: t, w: conn, r: bufio.NewReader(conn)}
	c.create(map[string]any{"command": "sleep", "args": []string{marker}})
	waitProcs(t, marker, 1)
	conn.Close()
	deadline = time.Now().Add(10 * time.Second)
	for countProcs(marker) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := countProcs(marker); n > 0 {
		t.Errorf("%d processes outlived their connection", n)
	}
	// Another client connects and is served.
	conn, err = net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	c = &serveClient{t: t, w: conn, r: bufio.NewReader(conn)}
	id := c.create(map[string]any{"command": "echo", "args": []string{"second"}})
	res, _ := c.call("terminal/wait_for_exit", map[string]any{"sessionId": "s1", "terminalId": id})
	if !strings.Contains(string(res), `"exitCode":0`) {
		t.Errorf("second connection: %s", res)
	}
	conn.Close()
	// A second server on the same path is refused.
	out, err := exec.Command(binary(t), "serve", "--socket", sock).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "another server") {
		t.Errorf("second server: %v %s", err, out)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if _, err := os.Stat(sock); err == nil {
		t.Error("the socket is still there after serve stopped")
	}
}

// TestServeRecordsLikeCLI: a command run through serve is classified,
// decided and recorded exactly as `safeexec -- CMD` records it: the audit
// records are the same apart from time, id, pid and duration (and who
// approved a confirmed command: --yes is "flag", the client "client").
func TestServeRecordsLikeCLI(t *testing.T) {
	needBwrap(t)
	env, dir := hermetic(t)
	os.MkdirAll(filepath.Join(dir, "build"), 0o755)
	env = append(env, "DEPLOY_TOKEN=tok-123456789", "PLAIN=1")
	cases := []struct {
		argv     []string
		approved bool
	}{
		{[]string{"sh", "-c", "echo hi; exit 4"}, false},
		{[]string{"rm", "-rf", "build"}, false}, // needs_confirmation, nobody to ask
		{[]string{"sudo", "id"}, false},         // risky
		{[]string{"curl", "-H", "Authorization: Bearer abcdefghijklmnop", "http://example.invalid/"}, false},
		{[]string{"rm", "-rf", "build"}, true},
	}
	for _, tc := range cases {
		args := []string{"--"}
		if tc.approved {
			args = []string{"--yes", "--"}
		}
		cmd := exec.Command(binary(t), append(args, tc.argv...)...)
		cmd.Env, cmd.Dir = env, dir
		cmd.Run()
		os.MkdirAll(filepath.Join(dir, "build"), 0o755)
	}
	logPath := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_STATE_HOME="); ok {
			logPath = filepath.Join(v, "safeexec", "audit.log")
		}
	}
	cliRecs := readRecords(t, logPath)
	os.Remove(logPath)

	_, c := startServe(t, env, dir)
	for _, tc := range cases {
		params := map[string]any{"sessionId": "s1", "command": tc.argv[0], "args": tc.argv[1:], "approved": tc.approved}
		res, e := c.call("terminal/create", params)
		if e == nil {
			var r struct {
				TerminalID string `json:"terminalId"`
			}
			json.Unmarshal(res, &r)
			c.call("terminal/wait_for_exit", map[string]any{"sessionId": "s1", "terminalId": r.TerminalID})
		}
		os.MkdirAll(filepath.Join(dir, "build"), 0o755)
	}
	serveRecs := readRecords(t, logPath)
	if len(cliRecs) != len(cases) || len(serveRecs) != len(cases) {
		t.Fatalf("%d CLI records, %d serve records, want %d each", len(cliRecs), len(serveRecs), len(cases))
	}
	for i := range cases {
		a, b := cliRecs[i], serveRecs[i]
		for _, k := range []string{"ts", "id", "pid", "duration_ms"} {
			if _, ok := a[k]; !ok {
				t.Errorf("CLI record %d has no %s", i, k)
			}
			delete(a, k)
			delete(b, k)
		}
		if cases[i].approved {
			if a["approved_by"] != "flag" || b["approved_by"] != "client" {
				t.Errorf("approved_by: CLI %v, serve %v", a["approved_by"], b["approved_by"])
			}
			delete(a, "approved_by")
			delete(b, "approved_by")
		}
		if !reflect.DeepEqual(a, b) {
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			t.Errorf("case %v:\nCLI   %s\nserve %s", cases[i].argv, ja, jb)
		}
	}
}

func readRecords(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}
