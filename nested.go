package safeexec

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/safeexec/safeexec/audit"
	"github.com/safeexec/safeexec/configs"
	"github.com/safeexec/safeexec/sandbox"
)

// safeexec inside safeexec.
//
// When safeexec is the agent's SHELL, or a script's #!/usr/bin/env bash
// finds safeexec, a safeexec starts inside another one's sandbox. It
// cannot start a sandbox of its own there (no user namespaces, its state
// directory is masked), and it need not: it classifies and decides as
// usual, then runs the command directly, inside the sandbox it is already
// in, and sends its audit record to the outer run, which writes it.
//
// The outer run (under bwrap) listens on a socket in a private directory
// that it shows read-only inside the sandbox, and names it in
// $SAFEEXEC_NESTED (a path rather than an inherited descriptor: programs
// such as Python's subprocess close inherited descriptors, but keep the
// environment). The marker cannot be forged by setting the variable: the
// socket must be held by a process outside the inner process's PID
// namespace, which only holds inside a sandbox with a PID namespace of its
// own (bwrap's); anywhere else the marker is ignored and safeexec starts
// its own sandbox as usual. Through the channel the inner run gets the outer run's policy,
// and only that: its own flags and environment cannot widen it.

// nestedEnv names the descriptor of the channel an outer run hands down.
const nestedEnv = "SAFEEXEC_NESTED"

// nestedHello is the datagram that opens a connection (it carries the
// connection's socket).
const nestedHello = "safeexec-nested-1"

// maxNestedMessage bounds one message on the channel.
const maxNestedMessage = 1 << 20

// maxNestedRecords bounds the records one run accepts from inside.
const maxNestedRecords = 10000

// nestedAnswer is what the outer run tells an inner one.
type nestedAnswer struct {
	Policy  *configs.Effective `json:"policy"`
	Backend string             `json:"backend"`
	Mode    string             `json:"mode"`
	Level   string             `json:"level,omitempty"`
	Parent  string             `json:"parent"`
	// ReadDirs and ReadOnly are the outer request's.
	ReadDirs []string `json:"read_dirs,omitempty"`
	ReadOnly bool     `json:"read_only,omitempty"`
}

// nestedRequest is a message from an inner run.
type nestedRequest struct {
	Op     string          `json:"op"` // hello | record
	Record json.RawMessage `json:"record,omitempty"`
}

type nestedReply struct {
	OK    bool   `json:"ok,omitempty"`
	Error string `json:"error,omitempty"`
}

// Outer is the safeexec run whose sandbox this process runs in, found by
// DetectOuter. Give it to Request.Outer: the run then uses its policy,
// starts no sandbox, proxy or terminal of its own, and sends its audit
// record to it.
type Outer struct {
	// Policy is the outer run's effective policy.
	Policy *configs.Effective
	// Backend, Mode and Level describe the sandbox the command is in.
	Backend, Mode, Level string
	// Parent is the outer run's audit id.
	Parent string
	// ReadDirs and ReadOnly are the outer request's.
	ReadDirs []string
	ReadOnly bool

	mu   sync.Mutex
	conn net.Conn
	r    *bufio.Reader
}

// call sends one request and reads the reply line into v.
func (o *Outer) call(req any, v any) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	o.conn.SetDeadline(time.Now().Add(10 * time.Second))
	defer o.conn.SetDeadline(time.Time{})
	if _, err := o.conn.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("nested safeexec: the outer run: %w", err)
	}
	line, err := readLine(o.r, maxNestedMessage)
	if err != nil {
		return fmt.Errorf("nested safeexec: the outer run did not answer: %w", err)
	}
	return json.Unmarshal(line, v)
}

// Append sends a record to the outer run, which writes it to its log.
func (o *Outer) Append(rec *audit.Record) error {
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	var rep nestedReply
	if err := o.call(nestedRequest{Op: "record", Record: raw}, &rep); err != nil {
		return err
	}
	if !rep.OK {
		return fmt.Errorf("the outer run did not record it: %s", rep.Error)
	}
	return nil
}

// Close ends the connection.
func (o *Outer) Close() error { return o.conn.Close() }

// readLine reads one line of at most max bytes, without its newline.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > max {
			return nil, errors.New("message too large")
		}
		if !isPrefix {
			return line, nil
		}
	}
}

// recorder is where a run's audit record goes: the log, or the outer run.
type recorder interface {
	Append(*audit.Record) error
}

// nestedBackend runs the command directly: it is already inside the outer
// run's sandbox. The command stays in safeexec's process group, so the
// terminal's job control and signals reach it as they reach safeexec.
type nestedBackend struct{}

func (nestedBackend) Name() string { return "nested" }

func (nestedBackend) Start(p *sandbox.Policy, c *sandbox.Command) (sandbox.Process, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("nested: empty command")
	}
	path, code := lookPathIn(c.Argv[0], c.Env, p.Cwd)
	if code != 0 {
		if c.Stderr != nil {
			fmt.Fprintf(c.Stderr, "safeexec: %s: %s\n", c.Argv[0], map[int]string{126: "permission denied", 127: "command not found"}[code])
		}
		return exitedProcess(code), nil
	}
	cmd := &exec.Cmd{Path: path, Args: c.Argv, Env: c.Env, Dir: p.Cwd,
		Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, ExtraFiles: c.ExtraFiles}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("nested: start %s: %w", c.Argv[0], err)
	}
	return &nestedProcess{cmd: cmd}, nil
}

// lookPathIn finds argv0 as a shell would with env's PATH; the code is 127
// when it is not there, 126 when it cannot be executed.
func lookPathIn(argv0 string, env []string, cwd string) (string, int) {
	try := func(p string) (string, int) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return "", 127
		case fi.IsDir() || fi.Mode()&0o111 == 0:
			return "", 126
		}
		return p, 0
	}
	if strings.Contains(argv0, "/") {
		return try(argv0)
	}
	code := 127
	for _, dir := range filepath.SplitList(lookup(env, "PATH")) {
		if dir == "" {
			dir = "."
		}
		p, c := try(filepath.Join(dir, argv0))
		if c == 0 {
			return p, 0
		}
		if c == 126 {
			code = 126
		}
	}
	return "", code
}

type nestedProcess struct{ cmd *exec.Cmd }

// Signal forwards what is aimed at safeexec alone (SIGTERM, SIGHUP, a
// timeout). SIGINT and SIGQUIT come from the terminal to the whole process
// group, which the command is in already: forwarding them would deliver
// them twice.
func (n *nestedProcess) Signal(sig os.Signal) error {
	if sig == syscall.SIGINT || sig == syscall.SIGQUIT {
		return nil
	}
	return n.cmd.Process.Signal(sig)
}

func (n *nestedProcess) Kill() error { return n.cmd.Process.Kill() }

func (n *nestedProcess) Wait() (sandbox.Status, error) {
	err := n.cmd.Wait()
	ps := n.cmd.ProcessState
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return sandbox.Status{ExitCode: ExitCodeError}, fmt.Errorf("nested: wait: %w", err)
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return sandbox.Status{ExitCode: 128 + int(ws.Signal()), Signal: int(ws.Signal())}, nil
	}
	return sandbox.Status{ExitCode: ps.ExitCode()}, nil
}

// exitedProcess is a command that never started.
type exitedProcess int

func (exitedProcess) Signal(os.Signal) error { return nil }
func (exitedProcess) Kill() error            { return nil }
func (e exitedProcess) Wait() (sandbox.Status, error) {
	return sandbox.Status{ExitCode: int(e)}, nil
}

// ErrNestedUnsupported is DetectOuter's error inside a sandbox that cannot
// hand its policy down (Landlock, seatbelt): a safeexec cannot run there
// at all (it can neither start a sandbox nor write its log), and says so.
var ErrNestedUnsupported = errors.New("a safeexec inside this sandbox cannot run commands: only bwrap's sandbox hands its policy down to one; run the command directly, it is confined already")

// nestedUnsupported prefixes the marker a sandbox without a channel sets.
const nestedUnsupported = "unsupported:"

// DetectOuter finds the safeexec run whose sandbox this process is in. It
// returns nil and no error when there is none ($SAFEEXEC_NESTED is
// unset); an error wrapping ErrNestedUnsupported inside a sandbox that
// cannot hand its policy down; and another error when the variable does
// not lead to a safeexec outside this process's PID namespace: the caller
// then runs as usual, starting a sandbox of its own.
func DetectOuter(environ []string) (*Outer, error) {
	v := lookup(environ, nestedEnv)
	switch {
	case v == "":
		return nil, nil
	case strings.HasPrefix(v, nestedUnsupported):
		return nil, fmt.Errorf("%w (%s)", ErrNestedUnsupported, strings.TrimPrefix(v, nestedUnsupported))
	}
	return detectOuter(v)
}

// handDown opens the channel to this run for a safeexec the command may
// start (see above).
func (p *pipeline) handDown(sp *sandbox.Policy, cmd *sandbox.Command) (*nestedServer, error) {
	if p.req.Outer != nil {
		// Already inside: $SAFEEXEC_NESTED still leads to the outer run.
		return nil, nil
	}
	switch p.backend.Name() {
	case "bwrap":
	case "none":
		return nil, nil
	default:
		cmd.Env = append(cmd.Env, nestedEnv+"="+nestedUnsupported+p.backend.Name())
		return nil, nil
	}
	// The record's id is handed down now; the rest of what an inner run
	// is told is put together only if one asks (most commands start none).
	p.id = audit.NewID()
	return p.startNested(sp, cmd)
}

// adjustPolicy applies what the request adds to the sandbox policy: the
// directories it may read, a read-only run, an agent wrapper's output file;
// inside another run's sandbox, nothing of its own.
func (p *pipeline) adjustPolicy(sp *sandbox.Policy) {
	req := p.req
	if req.Outer != nil {
		sp.CacheDir = ""
		return
	}
	sp.ReadOnlyRoots = append(sp.ReadOnlyRoots, req.ReadDirs...)
	if req.ReadOnly {
		sp.WritableRoots, sp.CacheDir = nil, ""
		sp.ReadOnlyRoots = append(sp.ReadOnlyRoots, req.Cwd)
		return
	}
	p.agentOutput(sp)
}

// openLogError explains a log that cannot be opened; inside another run's
// sandbox (its state directory masked) that is what happens when the
// channel to the outer run could not be used.
func openLogError(err error, environ []string) error {
	if lookup(environ, nestedEnv) != "" {
		return fmt.Errorf("open audit log: %w (this is a safeexec inside another one's sandbox, but the channel to the outer run could not be used; run the command directly: it is confined already)", err)
	}
	return fmt.Errorf("open audit log: %w", err)
}
