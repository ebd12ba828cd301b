//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

// The pty commands drive a program on a real pseudo-terminal, as a person
// at a terminal would (one such program per script at a time):
//
//	pty [-stdio] [-typeahead TEXT] CMD ARGS...
//	                           start CMD with a new pty as its controlling
//	                           terminal; with -stdio the pty is also its
//	                           stdin, stdout and stderr (an interactive
//	                           shell), else stdin is /dev/null and stdout
//	                           and stderr go to $WORK/pty.stdout and
//	                           $WORK/pty.stderr; -typeahead types TEXT
//	                           before CMD starts; with -e the arguments
//	                           hold Go escapes (\n, \x1b)
//	ptysend TEXT               type TEXT (Go escapes: \r, \x03, \x1a)
//	ptyexpect REGEXP           wait until the terminal shows REGEXP after
//	                           what the previous ptyexpect matched
//	ptysignal SIG              send SIG (TERM, HUP, INT, …) to the program
//	ptywait [CODE|SIG]         wait for it to end: exit status CODE
//	                           (default 0) or killed by signal SIG; the
//	                           whole terminal output is then $WORK/pty.out
//	ptymode cooked|raw         the terminal's line discipline is in
//	                           canonical mode with echo (cooked) or not
var ptyCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"pty":       cmdPty,
	"ptysend":   cmdPtySend,
	"ptyexpect": cmdPtyExpect,
	"ptysignal": cmdPtySignal,
	"ptywait":   cmdPtyWait,
	"ptymode":   cmdPtyMode,
}

type ptySession struct {
	cmd    *exec.Cmd
	ptmx   *os.File
	mu     sync.Mutex
	out    bytes.Buffer
	mark   int // where the next ptyexpect starts looking
	copied chan struct{}
	waited chan struct{}
	err    error
	ended  bool // ptywait saw it end: another may start
}

var ptySessions sync.Map // *testscript.TestScript → *ptySession

// ptyEnvNames are passed from the script's environment to the program.
var ptyEnvNames = []string{"PATH", "HOME", "USER", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
	"TMPDIR", "WORK", "SAFEEXEC_SESSION", "SAFEEXEC_CONFIG", "CI", "PS1", "LANG"}

func session(ts *testscript.TestScript) *ptySession {
	s, ok := ptySessions.Load(ts)
	if !ok {
		ts.Fatalf("no pty started")
	}
	return s.(*ptySession)
}

func (s *ptySession) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

func cmdPty(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: pty [-stdio] CMD ARGS...")
	}
	if old, ok := ptySessions.Load(ts); ok {
		if !old.(*ptySession).ended {
			ts.Fatalf("a pty program is already running")
		}
		old.(*ptySession).ptmx.Close()
	}
	stdio, typeahead, escapes := false, "", false
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-stdio":
			stdio, args = true, args[1:]
		case "-e":
			escapes, args = true, args[1:]
		case "-typeahead":
			typeahead, args = unquote(ts, args[1]), args[2:]
		default:
			ts.Fatalf("pty: unknown flag %s", args[0])
		}
	}
	if escapes {
		for i := range args {
			args[i] = unquote(ts, args[i])
		}
	}
	path := args[0]
	if !strings.Contains(path, "/") {
		for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
			if p := filepath.Join(dir, path); isExec(p) {
				path = p
				break
			}
		}
	}
	ptmx, pts, err := pty.Open()
	ts.Check(err)
	pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 200})
	if typeahead != "" {
		_, err := ptmx.Write([]byte(typeahead))
		ts.Check(err)
	}
	cmd := exec.Command(path, args[1:]...)
	cmd.Args[0] = args[0]
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = []string{"TERM=xterm"}
	for _, n := range ptyEnvNames {
		if v := ts.Getenv(n); v != "" {
			cmd.Env = append(cmd.Env, n+"="+v)
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if stdio {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
		cmd.SysProcAttr.Ctty = 0
	} else {
		so, err := os.Create(ts.MkAbs("pty.stdout"))
		ts.Check(err)
		se, err := os.Create(ts.MkAbs("pty.stderr"))
		ts.Check(err)
		defer so.Close()
		defer se.Close()
		cmd.Stdout, cmd.Stderr = so, se
		cmd.ExtraFiles = []*os.File{pts}
		cmd.SysProcAttr.Ctty = 3
	}
	ts.Check(cmd.Start())
	pts.Close()
	s := &ptySession{cmd: cmd, ptmx: ptmx, copied: make(chan struct{}), waited: make(chan struct{})}
	go func() {
		defer close(s.copied)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() {
		s.err = cmd.Wait()
		close(s.waited)
	}()
	ptySessions.Store(ts, s)
	ts.Defer(func() {
		select {
		case <-s.waited:
		default:
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-s.waited
		}
		ptmx.Close()
		ptySessions.CompareAndDelete(ts, s)
	})
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

func cmdPtySend(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ptysend TEXT")
	}
	_, err := session(ts).ptmx.Write([]byte(unquote(ts, args[0])))
	ts.Check(err)
}

// unquote reads the Go escapes (\r, \x1a) in a script argument.
func unquote(ts *testscript.TestScript, s string) string {
	text, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)
	ts.Check(err)
	return text
}

// ptyTimeout bounds every wait of the pty commands.
var ptyTimeout = 30 * time.Second

func cmdPtyExpect(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: ptyexpect REGEXP")
	}
	re, err := regexp.Compile(args[0])
	ts.Check(err)
	s := session(ts)
	wait := ptyTimeout
	if neg {
		// Not there after a while.
		wait = time.Second
	}
	deadline := time.Now().Add(wait)
	for {
		s.mu.Lock()
		text := s.out.String()[s.mark:]
		loc := re.FindStringIndex(text)
		if loc != nil && !neg {
			s.mark += loc[1]
		}
		s.mu.Unlock()
		switch {
		case loc != nil && neg:
			ts.Fatalf("the terminal shows %q:\n%s", args[0], text)
		case loc != nil:
			return
		case time.Now().After(deadline) && neg:
			return
		case time.Now().After(deadline):
			ts.Fatalf("the terminal does not show %q after %v; it shows:\n%s", args[0], wait, text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func cmdPtySignal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: ptysignal SIG")
	}
	sig := unix.SignalNum("SIG" + strings.TrimPrefix(args[0], "SIG"))
	if sig == 0 {
		ts.Fatalf("unknown signal %s", args[0])
	}
	ts.Check(session(ts).cmd.Process.Signal(sig))
}

func cmdPtyWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		ts.Fatalf("usage: ptywait [CODE|SIG]")
	}
	s := session(ts)
	select {
	case <-s.waited:
	case <-time.After(ptyTimeout):
		ts.Fatalf("the program did not end after %v; the terminal shows:\n%s", ptyTimeout, s.output())
	}
	// The last output, then the hang-up.
	select {
	case <-s.copied:
	case <-time.After(2 * time.Second):
	}
	ts.Check(os.WriteFile(ts.MkAbs("pty.out"), []byte(s.output()), 0o644))
	s.ended = true
	want := "0"
	if len(args) == 1 {
		want = args[0]
	}
	got := "0"
	var ee *exec.ExitError
	if errors.As(s.err, &ee) {
		ws := ee.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			got = strings.TrimPrefix(unix.SignalName(ws.Signal()), "SIG")
		} else {
			got = strconv.Itoa(ws.ExitStatus())
		}
	} else if s.err != nil {
		ts.Fatalf("wait: %v", s.err)
	}
	if got != strings.TrimPrefix(want, "SIG") {
		ts.Fatalf("the program ended with %s, want %s; the terminal shows:\n%s", got, want, s.output())
	}
}

func cmdPtyMode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || (args[0] != "cooked" && args[0] != "raw") {
		ts.Fatalf("usage: ptymode cooked|raw")
	}
	t, err := unix.IoctlGetTermios(int(session(ts).ptmx.Fd()), unix.TCGETS)
	ts.Check(err)
	cooked := t.Lflag&unix.ICANON != 0 && t.Lflag&unix.ECHO != 0
	if (cooked == (args[0] == "cooked")) == neg {
		ts.Fatalf("the terminal is %s", fmt.Sprint(map[bool]string{true: "cooked", false: "raw"}[cooked]))
	}
}
