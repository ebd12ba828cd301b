//go:build linux

package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyTerminal plays the human at a real pseudo-terminal: it types answer
// once the cue appears. It answers no cursor-position queries, as a
// terminal emulator would: the prompt must not need them.
type ptyTerminal struct {
	ptmx   *os.File
	answer string
	cue    string

	mu   sync.Mutex
	seen bytes.Buffer
	done chan struct{}
}

func (tm *ptyTerminal) run() {
	defer close(tm.done)
	buf := make([]byte, 4096)
	answered := false
	for {
		n, err := tm.ptmx.Read(buf)
		if n > 0 {
			tm.mu.Lock()
			tm.seen.Write(buf[:n])
			text := tm.seen.String()
			tm.mu.Unlock()
			if !answered && strings.Contains(text, tm.cue) {
				answered = true
				time.Sleep(50 * time.Millisecond)
				tm.ptmx.Write([]byte(tm.answer))
			}
		}
		if err != nil {
			return
		}
	}
}

func (tm *ptyTerminal) output() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.seen.String()
}

// runWithTerminal starts safeexec with a pty as its controlling terminal
// and stdin from /dev/null, so the answer can only come from the terminal.
func runWithTerminal(t *testing.T, answer string, args ...string) (code int, tty string, stdout, stderr string) {
	t.Helper()
	return runOnTerminal(t, answer, "Run it?", false, args...)
}

// runOnTerminal starts safeexec with a pty as its controlling terminal;
// with stdio true the pty is also its stdin, stdout and stderr, as in an
// interactive shell. The terminal types answer once it has shown cue.
func runOnTerminal(t *testing.T, answer, cue string, stdio bool, args ...string) (code int, tty string, stdout, stderr string) {
	t.Helper()
	bin := binary(t)
	env, dir := hermetic(t)
	ptmx, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = append(env, "TERM=xterm"), dir
	var so, se bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, &so, &se
	cmd.ExtraFiles = []*os.File{pts}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 3}
	if stdio {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
		cmd.ExtraFiles = nil
		cmd.SysProcAttr.Ctty = 0
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pts.Close()
	tm := &ptyTerminal{ptmx: ptmx, answer: answer, cue: cue, done: make(chan struct{})}
	go tm.run()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("safeexec did not finish; terminal saw %q; stderr %q", tm.output(), se.String())
	}
	return cmd.ProcessState.ExitCode(), tm.output(), so.String(), se.String()
}

func TestPromptYes(t *testing.T) {
	needBwrap(t)
	code, tty, stdout, stderr := runWithTerminal(t, "y\r", "-c", "rm -rf victim; echo removed")
	if code != 0 || !strings.Contains(stdout, "removed") {
		t.Fatalf("exit %d, stdout %q, stderr %q, terminal %q", code, stdout, stderr, tty)
	}
	if !strings.Contains(tty, "recursive") && !strings.Contains(tty, "rm") {
		t.Errorf("the prompt did not say why: %q", tty)
	}
	if strings.Contains(stdout, "Run it?") {
		t.Errorf("the prompt went to stdout")
	}
}

// TestPromptSingleKey: one key is the answer; no Enter is needed.
func TestPromptSingleKey(t *testing.T) {
	needBwrap(t)
	code, tty, stdout, stderr := runWithTerminal(t, "y", "-c", "rm -rf victim; echo removed")
	if code != 0 || !strings.Contains(stdout, "removed") {
		t.Fatalf("exit %d, stdout %q, stderr %q, terminal %q", code, stdout, stderr, tty)
	}
	if strings.Contains(tty, "\x1b[6n") {
		t.Errorf("the prompt queried the cursor position: %q", tty)
	}
}

func TestPromptNo(t *testing.T) {
	needBwrap(t)
	for name, answer := range map[string]string{"n": "n\r", "enter": "\r", "ctrl-c": "\x03", "ctrl-d": "\x04", "escape": "\x1b"} {
		t.Run(name, func(t *testing.T) {
			code, tty, stdout, stderr := runWithTerminal(t, answer, "-c", "rm -rf victim; echo removed")
			if code != 126 || strings.Contains(stdout, "removed") {
				t.Fatalf("exit %d, stdout %q, stderr %q, terminal %q", code, stdout, stderr, tty)
			}
			if !strings.Contains(stderr, "not confirmed") {
				t.Errorf("stderr %q does not say it was not confirmed", stderr)
			}
		})
	}
}

// TestPromptNeverForRisky: a risky command is refused without asking.
func TestPromptNeverForRisky(t *testing.T) {
	needBwrap(t)
	code, tty, _, stderr := runWithTerminal(t, "y\r", "--", "sudo", "true")
	if code != 126 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(tty, "Run it?") {
		t.Errorf("a risky command was offered for confirmation: %q", tty)
	}
}

// TestInteractiveTerminal: run from a terminal, the command gets a
// terminal of its own: /dev/tty works (editors, pagers, password prompts),
// typed input reaches it, and ^C typed on the terminal interrupts it.
func TestInteractiveTerminal(t *testing.T) {
	needBwrap(t)
	for _, backend := range []string{"bwrap", "landlock"} {
		for _, net := range []string{"", "--no-network"} {
			t.Run(backend+net, func(t *testing.T) {
				args := []string{"--sandbox", backend}
				if net != "" {
					args = append(args, net)
				}
				args = append(args, "--", "sh", "-c", `printf 'name? ' > /dev/tty; read x < /dev/tty; echo "got <$x>"; test -t 1 && echo stdout-is-a-terminal`)
				code, tty, _, _ := runOnTerminal(t, "abc\r", "name?", true, args...)
				if code != 0 || !strings.Contains(tty, "got <abc>") || !strings.Contains(tty, "stdout-is-a-terminal") {
					t.Fatalf("exit %d, terminal %q", code, tty)
				}
			})
		}
	}
	t.Run("interrupt", func(t *testing.T) {
		code, tty, _, _ := runOnTerminal(t, "\x03", "ready", true,
			"--", "sh", "-c", `trap 'echo "caught INT"; exit 3' INT; echo ready; while :; do sleep 0.05; done`)
		if code != 3 || !strings.Contains(tty, "caught INT") {
			t.Fatalf("exit %d, terminal %q", code, tty)
		}
	})
}

// TestTerminalNetworkBridge: on a terminal the in-sandbox bridge runs
// (it supervises the terminal), so this covers the bridge's proxying and
// loopback port forwarding end to end, next to network.txtar, which covers
// the proxy listening in the sandbox's namespace directly (as root).
func TestTerminalNetworkBridge(t *testing.T) {
	needBwrap(t)
	hits := make(chan string, 8)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits <- r.URL.Path
		fmt.Fprintln(w, "host says hi")
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	port := u.Port()
	script := `ps -eo args | grep -c '^[^ ]*safeexec __bridge'; curl -fsS http://localhost:` + port + `/fwd; curl -fsS --noproxy "" -x "$http_proxy" http://localhost:` + port + `/proxy; curl -fsS --noproxy "" -x "$http_proxy" http://127.0.0.2:` + port + `/denied || echo refused; echo done`
	code, tty, _, _ := runOnTerminal(t, "", "\x00never", true, "--allow-domain", "localhost:"+port, "--", "sh", "-c", script)
	if code != 0 {
		t.Fatalf("exit %d, terminal %q", code, tty)
	}
	for _, want := range []string{"1\r\n", "host says hi\r\nhost says hi\r\n", "refused", "done"} {
		if !strings.Contains(tty, want) {
			t.Errorf("terminal output lacks %q: %q", want, tty)
		}
	}
	close(hits)
	var got []string
	for h := range hits {
		got = append(got, h)
	}
	if strings.Join(got, ",") != "/fwd,/proxy" {
		t.Errorf("the host server saw %q, want /fwd and /proxy only", got)
	}
}
