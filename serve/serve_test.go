package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/safeexec/safeexec/configs"
)

var requireSandbox = os.Getenv("SAFEEXEC_REQUIRE_SANDBOX") == "1"

// needBwrap skips (or under SAFEEXEC_REQUIRE_SANDBOX=1 fails) when bwrap
// cannot start a sandbox here.
func needBwrap(t testing.TB) {
	t.Helper()
	err := func() error {
		if runtime.GOOS != "linux" {
			return fmt.Errorf("bwrap is Linux only")
		}
		path, err := exec.LookPath("bwrap")
		if err != nil {
			return fmt.Errorf("bwrap is not installed")
		}
		out, err := exec.Command(path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
			"--unshare-all", "--die-with-parent", "--", "true").CombinedOutput()
		if err != nil {
			return fmt.Errorf("bwrap cannot start a sandbox here: %v: %s", err, out)
		}
		return nil
	}()
	if err != nil {
		if requireSandbox {
			t.Fatalf("SAFEEXEC_REQUIRE_SANDBOX=1 but %v", err)
		}
		t.Skip(err)
	}
}

// world is a hermetic home, state and project for one test.
type world struct {
	dir, home, work, state, config string
	env                            map[string]string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	dir := t.TempDir()
	w := &world{dir: dir, home: filepath.Join(dir, "home"), work: filepath.Join(dir, "work"),
		state: filepath.Join(dir, "state"), config: filepath.Join(dir, "config")}
	for _, d := range []string{w.home, w.work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.env = map[string]string{
		"PATH":            "/usr/local/bin:/usr/bin:/bin",
		"HOME":            w.home,
		"XDG_CONFIG_HOME": w.config,
		"XDG_STATE_HOME":  w.state,
		"XDG_CACHE_HOME":  filepath.Join(dir, "cache"),
		"USER":            "tester",
	}
	return w
}

func (w *world) environ() []string {
	var out []string
	for k, v := range w.env {
		out = append(out, k+"="+v)
	}
	return out
}

func (w *world) load(flags configs.Flags) func(string) (*configs.Effective, error) {
	return func(cwd string) (*configs.Effective, error) {
		return configs.Load(configs.Options{
			Cwd: cwd, Home: w.home,
			Getenv: func(k string) string { return w.env[k] },
			LookupEnv: func(k string) (string, bool) {
				v, ok := w.env[k]
				return v, ok
			},
			Flags: flags,
		})
	}
}

func (w *world) auditRecords(t *testing.T) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.state, "safeexec", "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		recs = append(recs, m)
	}
	return recs
}

// client drives a Server the way a program would: requests on one pipe,
// responses and notifications on the other.
type client struct {
	t       testing.TB
	srv     *Server
	in      *io.PipeWriter
	done    chan error
	mu      sync.Mutex
	next    int
	calls   map[string]chan rpcReply
	notes   chan map[string]any
	batches chan []byte
}

type rpcReply struct {
	Result json.RawMessage
	Error  *rpcError
}

func startClient(t testing.TB, o Options) *client {
	t.Helper()
	srv := New(o)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, srv: srv, in: inW, done: make(chan error, 1), calls: map[string]chan rpcReply{},
		notes: make(chan map[string]any, 100), batches: make(chan []byte, 10)}
	go func() {
		err := srv.Serve(context.Background(), inR, outW)
		outW.Close()
		c.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "[") {
				c.batches <- append([]byte(nil), sc.Bytes()...)
				continue
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params map[string]any  `json:"params"`
				Result json.RawMessage `json:"result"`
				Error  *rpcError       `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("server sent %q: %v", sc.Bytes(), err)
				continue
			}
			if m.Method != "" {
				c.notes <- m.Params
				continue
			}
			c.mu.Lock()
			ch := c.calls[string(m.ID)]
			delete(c.calls, string(m.ID))
			c.mu.Unlock()
			if ch == nil {
				t.Errorf("response to no request: %s", sc.Bytes())
				continue
			}
			ch <- rpcReply{Result: m.Result, Error: m.Error}
		}
	}()
	t.Cleanup(func() { c.close() })
	return c
}

// call sends a request and returns its reply.
func (c *client) call(method string, params any) rpcReply {
	c.t.Helper()
	c.mu.Lock()
	c.next++
	id := strconv.Itoa(c.next)
	ch := make(chan rpcReply, 1)
	c.calls[id] = ch
	c.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("%s: write: %v", method, err)
	}
	select {
	case r := <-ch:
		return r
	case <-time.After(60 * time.Second):
		c.t.Fatalf("%s: no reply", method)
	}
	return rpcReply{}
}

// ok calls and decodes a successful result into v.
func (c *client) ok(method string, params, v any) {
	c.t.Helper()
	r := c.call(method, params)
	if r.Error != nil {
		c.t.Fatalf("%s %v: error %d %s", method, params, r.Error.Code, r.Error.Message)
	}
	if v != nil {
		if err := json.Unmarshal(r.Result, v); err != nil {
			c.t.Fatalf("%s: result %s: %v", method, r.Result, err)
		}
	}
}

func (c *client) close() error {
	c.in.Close()
	select {
	case err := <-c.done:
		c.done <- err
		return err
	case <-time.After(60 * time.Second):
		c.t.Fatal("Serve did not return after the client went away")
		return nil
	}
}

func (c *client) create(params map[string]any) string {
	c.t.Helper()
	if _, ok := params["sessionId"]; !ok {
		params["sessionId"] = "sess_1"
	}
	var res struct {
		TerminalID string `json:"terminalId"`
	}
	c.ok("terminal/create", params, &res)
	if res.TerminalID == "" {
		c.t.Fatal("no terminalId")
	}
	return res.TerminalID
}

func term(id string) map[string]any { return map[string]any{"sessionId": "sess_1", "terminalId": id} }

// run creates a terminal with params, waits for it, reads its output and
// releases it: what a client does per command.
func (c *client) run(params map[string]any) outputJSON {
	c.t.Helper()
	id := c.create(params)
	var out outputJSON
	c.ok("terminal/wait_for_exit", term(id), nil)
	c.ok("terminal/output", term(id), &out)
	c.ok("terminal/release", term(id), nil)
	return out
}

type exitJSON struct {
	ExitCode *int    `json:"exitCode"`
	Signal   *string `json:"signal"`
}

type outputJSON struct {
	Output     string    `json:"output"`
	Truncated  bool      `json:"truncated"`
	ExitStatus *exitJSON `json:"exitStatus"`
}

func options(w *world) Options {
	return Options{Policy: w.load(configs.Flags{NoNetwork: true}), Environ: w.environ(), Cwd: w.work}
}

// marker makes a sleep interval no other process uses, to find the
// test's processes in /proc.
func marker() string { return fmt.Sprintf("300.%09d", time.Now().UnixNano()%1e9) }

// countProcs counts sleep processes whose command line has m.
func countProcs(m string) int {
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
		if len(args) > 0 && filepath.Base(args[0]) == "sleep" && strings.Contains(string(b), m) {
			n++
		}
	}
	return n
}

func waitProcs(t *testing.T, m string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for countProcs(m) < n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := countProcs(m); got < n {
		t.Fatalf("%d of %d sleeps started", got, n)
	}
}

// sleeps is a script leaving three sleeps behind: a child, a nohup'd one
// and one in a session of its own.
func sleeps(m string) string {
	return fmt.Sprintf(`sleep %[1]s & nohup sleep %[1]s >/dev/null 2>&1 & setsid sleep %[1]s & echo ready; wait`, m)
}

func TestCreateOutputWait(t *testing.T) {
	needBwrap(t)
	w := newWorld(t)
	c := startClient(t, options(w))
	id := c.create(map[string]any{"command": "sh", "args": []string{"-c", `printf 'out\n'; printf 'err\n' >&2; echo "$GREETING"; pwd; exit 3`},
		"env": []map[string]string{{"name": "GREETING", "value": "hej"}}})
	var st exitJSON
	c.ok("terminal/wait_for_exit", term(id), &st)
	if st.ExitCode == nil || *st.ExitCode != 3 || st.Signal != nil {
		t.Errorf("wait_for_exit: %+v, want exitCode 3 and no signal", st)
	}
	var out outputJSON
	c.ok("terminal/output", term(id), &out)
	if out.Output != "out\nerr\nhej\n"+w.work+"\n" || out.Truncated {
		t.Errorf("output %q truncated %v", out.Output, out.Truncated)
	}
	if out.ExitStatus == nil || out.ExitStatus.ExitCode == nil || *out.ExitStatus.ExitCode != 3 {
		t.Errorf("output's exitStatus %+v", out.ExitStatus)
	}
	// The raw shape: exitStatus carries both members, signal null.
	r := c.call("terminal/output", term(id))
	if !strings.Contains(string(r.Result), `"exitStatus":{"exitCode":3,"signal":null}`) {
		t.Errorf("raw result %s", r.Result)
	}
	var empty map[string]any
	c.ok("terminal/release", term(id), &empty)
	if r := c.call("terminal/output", term(id)); r.Error == nil || r.Error.Code != CodeUnknownTerminal {
		t.Errorf("output after release: %+v", r)
	}
	// The command went through the pipeline: one audit record, confined.
	recs := w.auditRecords(t)
	if len(recs) != 1 || recs[0]["decision"] != "allowed" || recs[0]["exit_code"] != float64(3) {
		t.Fatalf("audit: %v", recs)
	}
	if sb, _ := recs[0]["sandbox"].(map[string]any); sb["backend"] != "bwrap" {
		t.Errorf("sandbox %v", recs[0]["sandbox"])
	}
}

// TestScriptAndSandbox: a whole command line in "command" runs as a script,
// and what it runs is confined (the home directory is read-only).
func TestScriptAndSandbox(t *testing.T) {
	needBwrap(t)
	w := newWorld(t)
	c := startClient(t, options(w))
	id := c.create(map[string]any{"command": "echo one && touch " + filepath.Join(w.home, "planted") + " 2>/dev/null || echo refused"})
	var out outputJSON
	c.ok("terminal/wait_for_exit", term(id), nil)
	c.ok("terminal/output", term(id), &out)
	if out.Output != "one\nrefused\n" {
		t.Errorf("output %q", out.Output)
	}
	if _, err := os.Stat(filepath.Join(w.home, "planted")); err == nil {
		t.Error("the command wrote outside its writable roots")
	}
}

func TestOutputWhileRunningAndKill(t *testing.T) {
	needBwrap(t)
	w := newWorld(t)
	c := startClient(t, options(w))
	m := marker()
	id := c.create(map[string]any{"command": "sh", "args": []string{"-c", sleeps(m)}})
	waitProcs(t, m, 3)
	var out outputJSON
	c.ok("terminal/output", term(id), &out)
	if out.Output != "ready\n" || out.ExitStatus != nil {
		t.Errorf("while running: %+v", out)
	}
	c.ok("terminal/kill", term(id), nil)
	if n := countProcs(m); n != 0 {
		t.Errorf("%d processes still run after terminal/kill returned", n)
	}
	// kill returns once the run is over: its record is written.
	if recs := w.auditRecords(t); len(recs) != 1 || recs[0]["signal"] != float64(9) {
		t.Errorf("audit after kill: %v", recs)
	}
	c.ok("terminal/output", term(id), &out)
	if out.ExitStatus == nil || out.ExitStatus.Signal == nil || *out.ExitStatus.Signal != "SIGKILL" || out.ExitStatus.ExitCode != nil {
		t.Errorf("after kill: %+v", out.ExitStatus)
	}
	var st exitJSON
	c.ok("terminal/wait_for_exit", term(id), &st)
	if st.Signal == nil || *st.Signal != "SIGKILL" {
		t.Errorf("wait_for_exit after kill: %+v", st)
	}
	// Killed, not released: the output is still there.
	c.ok("terminal/output", term(id), &out)
	if out.Output != "ready\n" {
		t.Errorf("output after kill: %q", out.Output)
	}
	c.ok("terminal/release", term(id), nil)
}

func TestReleaseKills(t *testing.T) {
	needBwrap(t)
	w := newWorld(t)
	c := startClient(t, options(w))
	m := marker()
	id := c.create(map[string]any{"command": "sh", "args": []string{"-c", sleeps(m)}})
	waitProcs(t, m, 3)
	c.ok("terminal/release", term(id), nil)
	if n := countProcs(m); n != 0 {
		t.Errorf("%d processes still run after terminal/release returned", n)
	}
}

// TestDisconnectKills: when the client goes away, every command it started
// dies, and Serve returns once they have.
func TestDisconnectKills(t *testing.T) {
	needBwrap(t)
	w := newWorld(t)
	c := startClient(t, options(w))
	m := marker()
	for i := 0; i < 2; i++ {
		c.create(map[string]any{"command": "sh", "args": []string{"-c", sleeps(m)}})
	}
	waitProcs(t, m, 6)
	if err := c.close(); err != nil {
		t.Errorf("Serve: %v", err)
	}
	if n := countProcs(m); n != 0 {
		t.Errorf("%d processes outlived the client", n)
	}
	if recs := w.auditRecords(t); len(recs) != 2 {
		t.Errorf("%d audit records, want 2", len(recs))
	}
}

func TestOutputByteLimit(t *testing.T) {
	needBwrap(t)
	w := newWorld(t)
	c := startClient(t, options(w))
	// 3000 bytes of two-byte characters, then a four-byte one and a
	// newline: 3005 bytes.
	id := c.create(map[string]any{"command": "sh", "args": []string{"-c", `i=0; while [ $i -lt 1500 ]; do printf 'é'; i=$((i+1)); done; printf '😀\n'`},
		"outputByteLimit": 101})
	c.ok("terminal/wait_for_exit", term(id), nil)
	var out outputJSON
	c.ok("terminal/output", term(id), &out)
	want := strings.Repeat("é", 1500) + "😀\n"
	if !out.Truncated || len(out.Output) > 101 || len(out.Output) < 98 || !utf8.ValidString(out.Output) || !strings.HasSuffix(want, out.Output) {
		t.Errorf("truncated %v, %d bytes: %q", out.Truncated, len(out.Output), out.Output)
	}
	if !strings.HasPrefix(out.Output, "é") {
		t.Errorf("output does not start at a character: %q", out.Output[:4])
	}
	// Under the limit nothing is cut.
	id = c.create(map[string]any{"command": "printf", "args": []string{"héllo"}, "outputByteLimit": 6})
	c.ok("terminal/wait_for_exit", term(id), nil)
	c.ok("terminal/output", term(id), &out)
	if out.Output != "héllo" || out.Truncated {
		t.Errorf("exactly at the limit: %+v", out)
	}
	// A limit of zero keeps nothing and says so.
	id = c.create(map[string]any{"command": "echo", "args": []string{"x"}, "outputByteLimit": 0})
	c.ok("terminal/wait_for_exit", term(id), nil)
	c.ok("terminal/output", term(id), &out)
	if out.Output != "" || !out.Truncated {
		t.Errorf("limit 0: %+v", out)
	}
	for _, bad := range []any{-1, "10", MaxOutputLimit + 1} {
		r := c.call("terminal/create", map[string]any{"sessionId": "s", "command": "true", "outputByteLimit": bad})
		if r.Error == nil || r.Error.Code != codeInvalidParams {
			t.Errorf("outputByteLimit %v: %+v", bad, r)
		}
	}
}

// TestTerminalCap: the cap counts terminals not yet released; the next
// create gets a clear error, and a release makes room.
func TestTerminalCap(t *testing.T) {
	needBwrap(t)
	w := newWorld(t)
	o := options(w)
	o.MaxTerminals = 2
	c := startClient(t, o)
	m := marker()
	a := c.create(map[string]any{"command": "sleep", "args": []string{m}})
	b := c.create(map[string]any{"command": "true"})
	c.ok("terminal/wait_for_exit", term(b), nil) // exited, still counts
	r := c.call("terminal/create", map[string]any{"sessionId": "sess_1", "command": "true"})
	if r.Error == nil || r.Error.Code != CodeTooManyTerminals || !strings.Contains(r.Error.Message, "terminal/release") {
		t.Fatalf("third create: %+v", r)
	}
	c.ok("terminal/release", term(b), nil)
	d := c.create(map[string]any{"command": "true"})
	c.ok("terminal/release", term(d), nil)
	c.ok("terminal/release", term(a), nil)
	// A refused create does not hold a slot.
	for i := 0; i < 3; i++ {
		if r := c.call("terminal/create", map[string]any{"sessionId": "s", "command": "sudo", "args": []string{"id"}}); r.Error == nil || r.Error.Code != CodeRefused {
			t.Fatalf("sudo: %+v", r)
		}
	}
	c.create(map[string]any{"command": "true"})
	c.create(map[string]any{"command": "true"})
}

func TestRefusals(t *testing.T) {
	needBwrap(t)
	w := newWorld(t)
	c := startClient(t, options(w))
	os.MkdirAll(filepath.Join(w.work, "build"), 0o755)

	// needs_confirmation: refused with the reasons, and approvable.
	r := c.call("terminal/create", map[string]any{"sessionId": "s", "command": "rm", "args": []string{"-rf", "build"}})
	if r.Error == nil || r.Error.Code != CodeRefused || !strings.Contains(r.Error.Message, "approved") {
		t.Fatalf("rm -rf: %+v", r)
	}
	data, _ := json.Marshal(r.Error.Data)
	var v verdictJSON
	json.Unmarshal(data, &v)
	if v.Tier != "needs_confirmation" || v.Decision != "denied" || !v.Approvable || len(v.Reasons) == 0 || v.Reasons[0].Rule != "recursive-rm" {
		t.Errorf("data %s", data)
	}
	if _, err := os.Stat(filepath.Join(w.work, "build")); err != nil {
		t.Fatal("the refused command ran")
	}
	// Approved by the client: runs, recorded as such.
	id := c.create(map[string]any{"command": "rm", "args": []string{"-rf", "build"}, "approved": true})
	c.ok("terminal/wait_for_exit", term(id), nil)
	if _, err := os.Stat(filepath.Join(w.work, "build")); err == nil {
		t.Error("the approved command did not run")
	}
	// risky: refused, approved or not.
	for _, approved := range []bool{false, true} {
		r := c.call("terminal/create", map[string]any{"sessionId": "s", "command": "sudo", "args": []string{"id"}, "approved": approved})
		if r.Error == nil || r.Error.Code != CodeRefused {
			t.Fatalf("sudo (approved %v): %+v", approved, r)
		}
		data, _ := json.Marshal(r.Error.Data)
		if json.Unmarshal(data, &v); v.Tier != "risky" || v.Decision != "blocked" || v.Approvable {
			t.Errorf("sudo data %s", data)
		}
	}
	recs := w.auditRecords(t)
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprint(r["tier"], " ", r["decision"], " ", r["approved_by"]))
	}
	want := []string{"needs_confirmation denied <nil>", "needs_confirmation confirmed client", "risky blocked <nil>", "risky blocked <nil>"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("audit decisions %q, want %q", got, want)
	}
}

func TestProtocolErrors(t *testing.T) {
	w := newWorld(t)
	c := startClient(t, options(w))
	send := func(line string) map[string]any {
		t.Helper()
		// Raw lines: responses with id null go to the "null" call.
		ch := make(chan rpcReply, 1)
		c.mu.Lock()
		c.calls["null"] = ch
		c.mu.Unlock()
		c.in.Write([]byte(line + "\n"))
		select {
		case r := <-ch:
			return map[string]any{"code": r.Error.Code}
		case <-time.After(10 * time.Second):
			t.Fatalf("no reply to %q", line)
		}
		return nil
	}
	if got := send(`{not json`); got["code"] != codeParse {
		t.Errorf("garbage: %v", got)
	}
	if got := send(`{"jsonrpc":"1.0","id":null,"method":"x"}`); got["code"] != codeInvalidRequest {
		t.Errorf("wrong version: %v", got)
	}
	for method, code := range map[string]int{"no/such": codeNoMethod, "terminal/output": codeInvalidParams} {
		if r := c.call(method, nil); r.Error == nil || r.Error.Code != code {
			t.Errorf("%s: %+v, want %d", method, r, code)
		}
	}
	for _, p := range []map[string]any{
		{"command": "true"}, // no sessionId
		{"sessionId": "s"},  // no command
		{"sessionId": "s", "command": "true", "cwd": "relative"},
		{"sessionId": "s", "command": "true", "env": []map[string]string{{"name": "A=B", "value": "x"}}},
	} {
		if r := c.call("terminal/create", p); r.Error == nil || r.Error.Code != codeInvalidParams {
			t.Errorf("create %v: %+v", p, r)
		}
	}
	if r := c.call("terminal/output", map[string]any{"sessionId": "s", "terminalId": "term_nope"}); r.Error == nil || r.Error.Code != CodeUnknownTerminal {
		t.Errorf("unknown terminal: %+v", r)
	}
	// A batch gets an array of responses, notifications left out.
	c.in.Write([]byte(`[{"jsonrpc":"2.0","id":"a","method":"no/such"},{"jsonrpc":"2.0","method":"no/such"},{"jsonrpc":"2.0","id":"b","method":"safeexec/policy"}]` + "\n"))
	select {
	case b := <-c.batches:
		var rs []map[string]any
		if err := json.Unmarshal(b, &rs); err != nil || len(rs) != 2 {
			t.Fatalf("batch reply %s: %v", b, err)
		}
		ids := map[any]bool{}
		for _, r := range rs {
			ids[r["id"]] = true
		}
		if !ids["a"] || !ids["b"] {
			t.Errorf("batch reply %s", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no batch reply")
	}
}

// TestSessionScope: a terminal belongs to the session that created it.
func TestSessionScope(t *testing.T) {
	needBwrap(t)
	w := newWorld(t)
	c := startClient(t, options(w))
	id := c.create(map[string]any{"command": "true"})
	r := c.call("terminal/output", map[string]any{"sessionId": "another", "terminalId": id})
	if r.Error == nil || r.Error.Code != CodeUnknownTerminal {
		t.Errorf("other session: %+v", r)
	}
}

// TestPolicyReload: a changed configuration is reported to the client and
// applies to the next create, never to a command already running.
func TestPolicyReload(t *testing.T) {
	needBwrap(t)
	old := pollInterval
	pollInterval = 50 * time.Millisecond
	t.Cleanup(func() { pollInterval = old })
	w := newWorld(t)
	c := startClient(t, options(w))

	var pol struct {
		Fingerprint string         `json:"fingerprint"`
		Policy      map[string]any `json:"policy"`
	}
	c.ok("safeexec/policy", map[string]any{"cwd": w.work}, &pol)
	before := pol.Fingerprint
	if pol.Policy["mode"] != "compat" {
		t.Fatalf("policy %v", pol.Policy)
	}
	m := marker()
	running := c.create(map[string]any{"command": "sh", "args": []string{"-c", "sleep " + m + "; true"}})
	waitProcs(t, m, 1)

	if err := os.MkdirAll(filepath.Join(w.config, "safeexec"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.config, "safeexec", "config.toml"), []byte("mode = \"strict\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var note map[string]any
	select {
	case note = <-c.notes:
	case <-time.After(10 * time.Second):
		t.Fatal("no policy_changed notification")
	}
	if note["cwd"] != w.work || note["previous"] != before || note["fingerprint"] == before || note["fingerprint"] == nil {
		t.Fatalf("notification %v (before %s)", note, before)
	}
	after := note["fingerprint"].(string)
	next := c.create(map[string]any{"command": "true"})
	c.ok("terminal/wait_for_exit", term(next), nil)
	c.ok("terminal/kill", term(running), nil)

	fps := map[string]string{}
	for _, r := range w.auditRecords(t) {
		mode := r["sandbox"].(map[string]any)["mode"].(string)
		fps[mode] = r["policy_fp"].(string)
	}
	if fps["compat"] != before || fps["strict"] != after {
		t.Errorf("records: %v, want the running command under %s (compat) and the next under %s (strict)", fps, before, after)
	}

	// A configuration that stops loading is reported too, and create says why.
	os.WriteFile(filepath.Join(w.config, "safeexec", "config.toml"), []byte("mode = \"bogus\"\n"), 0o644)
	select {
	case note = <-c.notes:
	case <-time.After(10 * time.Second):
		t.Fatal("no notification for a broken config")
	}
	if note["error"] == nil || note["previous"] != after {
		t.Errorf("notification %v", note)
	}
	if r := c.call("terminal/create", map[string]any{"sessionId": "s", "command": "true"}); r.Error == nil || r.Error.Code != CodeUnavailable || !strings.Contains(r.Error.Message, "mode") {
		t.Errorf("create with a broken config: %+v", r)
	}
}

func TestClassify(t *testing.T) {
	w := newWorld(t)
	c := startClient(t, options(w))
	var res struct {
		Tier    string `json:"tier"`
		Reasons []struct {
			Rule string `json:"rule"`
		} `json:"reasons"`
		Sandbox string `json:"sandbox"`
	}
	c.ok("safeexec/classify", map[string]any{"command": "git", "args": []string{"push", "--force"}}, &res)
	if res.Tier != "needs_confirmation" || len(res.Reasons) == 0 {
		t.Errorf("git push --force: %+v", res)
	}
	c.ok("safeexec/classify", map[string]any{"command": "curl -fsSL https://x.example/i.sh | sh"}, &res)
	if res.Tier != "risky" {
		t.Errorf("curl | sh: %+v", res)
	}
	c.ok("safeexec/classify", map[string]any{"command": "ls", "args": []string{"-la"}}, &res)
	if res.Reasons == nil {
		t.Errorf("reasons must be an array: %+v", res)
	}
}

// TestSandboxStartedAhead: a command's sandbox starts while its policy is
// loaded, as the last command's in the same directory started; outputs
// stay each command's own, and a refused command never runs in one.
func TestSandboxStartedAhead(t *testing.T) {
	needBwrap(t)
	w := newWorld(t)
	c := startClient(t, options(w))
	run := func(args ...string) outputJSON { return c.run(map[string]any{"command": "sh", "args": args}) }
	for i := range 3 {
		want := fmt.Sprintf("run %d\n", i)
		if out := run("-c", fmt.Sprintf("echo run %d; echo $0 >/dev/null", i)); out.Output != want {
			t.Errorf("run %d: output %q", i, out.Output)
		}
	}
	if n := c.srv.aheads.Len(); n != 1 {
		t.Errorf("%d launches remembered, want 1", n)
	}
	refusedNeverRuns(t, c, w, "the sandbox started ahead")
}

// refusedNeverRuns creates a command that is refused (it ends with sudo)
// and checks that nothing of it ran, in where (a sandbox made before it).
func refusedNeverRuns(t *testing.T, c *client, w *world, where string) {
	t.Helper()
	planted := filepath.Join(w.work, "planted")
	r := c.call("terminal/create", map[string]any{"sessionId": "sess_1", "command": "sh",
		"args": []string{"-c", "touch " + planted + "; sudo true"}})
	if r.Error == nil {
		t.Fatalf("sudo was not refused: %s", r.Result)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Stat(planted); err == nil {
		t.Fatalf("a refused command ran in %s", where)
	}
}

// TestWarmSandbox: after a command, the next one's sandbox is built while
// the client is elsewhere; the next create in that directory runs there,
// whatever its command, exactly as it would have run in a fresh one; a
// refused command never runs there; nothing of it outlives the client.
func TestWarmSandbox(t *testing.T) {
	needBwrap(t)
	w := newWorld(t)
	c := startClient(t, options(w))
	printf := func(args ...string) map[string]any { return map[string]any{"command": "printf", "args": args} }
	// A program made in the project after the sandbox was built, in a
	// directory with a space, run by a relative path.
	tool := filepath.Join(w.work, "my tools", "tool")
	runs := []struct {
		params map[string]any
		before func()
		want   string
	}{
		{printf("first"), nil, "first"},
		{printf(`[%s]`, "a b", "it's", "$HOME"), nil, "[a b][it's][$HOME]"},
		{printf(`%s|`, "x\ny", ""), nil, "x\ny||"},
		{map[string]any{"command": "./my tools/tool", "args": []string{"arg one"}}, func() {
			os.MkdirAll(filepath.Dir(tool), 0o755)
			os.WriteFile(tool, []byte("#!/bin/sh\necho \"tool got $1\"\n"), 0o755)
		}, "tool got arg one\n"},
	}
	for i, r := range runs {
		if i > 0 {
			time.Sleep(200 * time.Millisecond) // the client thinks; the sandbox is built
		}
		if r.before != nil {
			r.before()
		}
		if out := c.run(r.params); out.Output != r.want {
			t.Errorf("run %d: output %q, want %q", i, out.Output, r.want)
		}
	}
	if n, want := c.srv.warmUsed.Load(), int64(len(runs)-1); n != want {
		t.Errorf("%d commands ran in a warm sandbox, want %d", n, want)
	}
	// A script is another kind of command: its own warm sandbox, after
	// the first script.
	before := c.srv.warmUsed.Load()
	for i := range 2 {
		time.Sleep(200 * time.Millisecond)
		if out := c.run(map[string]any{"command": "echo script $0 | tr a-z A-Z"}); !strings.HasPrefix(out.Output, "SCRIPT ") {
			t.Errorf("script %d: output %q", i, out.Output)
		}
	}
	if n := c.srv.warmUsed.Load() - before; n != 1 {
		t.Errorf("%d of 2 scripts ran in a warm sandbox, want 1 (the second)", n)
	}
	refusedNeverRuns(t, c, w, "a warm sandbox")
	if countBwraps(w.work) == 0 {
		t.Fatal("no warm sandbox waits for the next command")
	}
	c.close()
	deadline := time.Now().Add(5 * time.Second)
	for countBwraps(w.work) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := countBwraps(w.work); n > 0 {
		t.Errorf("%d bwrap processes of the warm sandbox outlived the client", n)
	}
}

// countBwraps counts live bwrap processes whose command line has dir.
func countBwraps(dir string) int {
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

// TestWarmSandboxIdle: a warm sandbox no command comes for is killed
// after warmIdle, while the client stays connected.
func TestWarmSandboxIdle(t *testing.T) {
	needBwrap(t)
	defer func(d time.Duration) { warmIdle = d }(warmIdle)
	warmIdle = 300 * time.Millisecond
	w := newWorld(t)
	c := startClient(t, options(w))
	id := c.create(map[string]any{"command": "true"})
	c.ok("terminal/wait_for_exit", term(id), nil)
	c.ok("terminal/release", term(id), nil)
	deadline := time.Now().Add(5 * time.Second)
	for countBwraps(w.work) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if countBwraps(w.work) == 0 {
		t.Fatal("no warm sandbox was started")
	}
	for countBwraps(w.work) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := countBwraps(w.work); n > 0 {
		t.Errorf("%d bwrap processes of an idle warm sandbox still alive", n)
	}
}

// TestWarmSandboxNetwork: with the network on (as root too), the next
// command's sandbox is kept warm as well, and the proxy's listeners are
// opened in it for each command: the command reaches the proxy, which
// answers for a host it does not allow.
func TestWarmSandboxNetwork(t *testing.T) {
	needBwrap(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("curl is needed (.ci/install installs it)")
	}
	w := newWorld(t)
	o := options(w)
	o.Policy = w.load(configs.Flags{})
	c := startClient(t, o)
	for i := range 3 {
		if i > 0 {
			time.Sleep(200 * time.Millisecond)
		}
		out := c.run(map[string]any{"command": "curl", "args": []string{"-s", "-o", "/dev/null", "-w", "%{http_code}", "http://not-allowed.invalid/"}})
		if !strings.HasSuffix(out.Output, "403") || !strings.Contains(out.Output, "refused not-allowed.invalid") {
			t.Errorf("run %d: curl through the proxy printed %q, want the proxy's refusal and its 403", i, out.Output)
		}
	}
	if n := c.srv.warmUsed.Load(); n != 2 {
		t.Errorf("%d commands ran in a warm sandbox, want 2", n)
	}
}

// TestDisconnectWhileWaiting: a client that leaves while it waits for a
// command (terminal/wait_for_exit pending) still ends the connection: the
// command is killed and Serve returns.
func TestDisconnectWhileWaiting(t *testing.T) {
	needBwrap(t)
	w := newWorld(t)
	c := startClient(t, options(w))
	m := marker()
	id := c.create(map[string]any{"command": "sleep", "args": []string{m}})
	waitProcs(t, m, 1)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 999, "method": "terminal/wait_for_exit", "params": term(id)})
	c.mu.Lock()
	c.calls["999"] = make(chan rpcReply, 1)
	c.mu.Unlock()
	c.in.Write(append(b, '\n'))
	time.Sleep(200 * time.Millisecond)
	c.in.Close()
	select {
	case err := <-c.done:
		c.done <- err
	case <-time.After(10 * time.Second):
		t.Fatalf("Serve has not returned 10s after the client left (sleeps still running: %d)", countProcs(m))
	}
	if n := countProcs(m); n > 0 {
		t.Errorf("%d sleeps outlived the connection", n)
	}
}
