package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/safeexec/safeexec"
	"github.com/safeexec/safeexec/configs"
	"github.com/safeexec/safeexec/risk"
)

// DefaultMaxTerminals is how many terminals may exist at once (created and
// not yet released) unless Options says otherwise.
const DefaultMaxTerminals = 50

// DefaultOutputLimit is how many bytes of output a terminal keeps when the
// client names no outputByteLimit; MaxOutputLimit is the most it may ask
// for.
const (
	DefaultOutputLimit = 1 << 20
	MaxOutputLimit     = 64 << 20
)

// PolicyChanged is the notification sent when the effective policy of a
// working directory the client used has changed (or stopped loading):
// params {cwd, fingerprint, previous} or {cwd, error, previous}.
const PolicyChanged = "safeexec/policy_changed"

// pollInterval is how often the configuration is re-read to notice a
// change; tests shorten it.
var pollInterval = time.Second

// Options configure a Server.
type Options struct {
	// Policy loads the effective configuration for a working directory
	// (configs.Load with serve's own flags). It runs for every
	// terminal/create, so a changed configuration applies to the next
	// command and never to a running one.
	Policy func(cwd string) (*configs.Effective, error)
	// Environ is the environment commands start from, before the
	// request's env and the policy's filter.
	Environ []string
	// Cwd is the working directory of a request that names none.
	Cwd string
	// MaxTerminals caps terminals created and not yet released, over all
	// connections (0: DefaultMaxTerminals).
	MaxTerminals int
	// Self is the safeexec executable (safeexec.Request.Self).
	Self string
	// Log receives serve's own diagnostics; nil discards them.
	Log io.Writer
}

// Server runs commands for clients speaking JSON-RPC 2.0: the terminal
// methods of the Agent Client Protocol's client side plus safeexec/classify
// and safeexec/policy. Each command goes through safeexec.Run, exactly as
// `safeexec -- CMD` would.
type Server struct {
	o Options

	mu   sync.Mutex
	open int // terminals not yet released

	// aheads are the launches of earlier commands, to start the next
	// one's sandbox while its policy is loaded and it is judged.
	aheads safeexec.AheadMemory
	// warmUsed counts the commands that ran in a warm sandbox (warm.go).
	warmUsed atomic.Int64
}

// New returns a Server.
func New(o Options) *Server {
	if o.MaxTerminals <= 0 {
		o.MaxTerminals = DefaultMaxTerminals
	}
	return &Server{o: o}
}

func (s *Server) logf(format string, args ...any) {
	if s.o.Log != nil {
		fmt.Fprintf(s.o.Log, "safeexec: serve: "+format+"\n", args...)
	}
}

// reserve takes a terminal slot.
func (s *Server) reserve() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open >= s.o.MaxTerminals {
		return &rpcError{Code: CodeTooManyTerminals, Message: fmt.Sprintf(
			"too many terminals: %d are open, the most this server allows (safeexec serve --max-terminals); release finished ones with terminal/release",
			s.open)}
	}
	s.open++
	return nil
}

func (s *Server) unreserve() {
	s.mu.Lock()
	s.open--
	s.mu.Unlock()
}

// Serve answers the requests read from r on w until r ends (the client
// disconnected) or ctx is done. Then every command this connection started
// is killed, and Serve returns once they are all gone.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	ctx, cancel := context.WithCancelCause(ctx)
	c := &conn{s: s, w: &writer{w: w}, ctx: ctx, terms: map[string]*terminal{}, fps: map[string]string{}}
	var handlers sync.WaitGroup
	defer func() {
		// The connection's context first: a handler waiting for a
		// command (terminal/wait_for_exit) returns then, and only then
		// can every handler be waited for.
		cancel(safeexec.ErrKilled)
		handlers.Wait()
		c.closeAll()
	}()
	go c.watchPolicy()

	in := newReader(r)
	sem := make(chan struct{}, 256) // requests handled at once
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		for {
			line, err := in.next()
			if err == errTooLong {
				c.w.send(response{JSONRPC: "2.0", ID: nullID, Error: errorf(codeParse, "message longer than 16 MiB")})
				continue
			}
			if err != nil {
				readErr <- err
				return
			}
			select {
			case lines <- line:
			case <-ctx.Done():
				readErr <- context.Cause(ctx)
				return
			}
		}
	}()
	for {
		select {
		case line := <-lines:
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return nil
			}
			handlers.Add(1)
			go func() {
				defer func() { <-sem; handlers.Done() }()
				c.handleMessage(line)
			}()
		case err := <-readErr:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case <-ctx.Done():
			return nil
		}
	}
}

// conn is one client's connection.
type conn struct {
	s   *Server
	w   *writer
	ctx context.Context

	mu    sync.Mutex
	terms map[string]*terminal
	fps   map[string]string // the last fingerprint (or "error: ...") told per cwd

	warm warmSlot // the next command's sandbox (warm.go)
}

func (c *conn) handleMessage(line []byte) {
	if line[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil {
			c.w.send(response{JSONRPC: "2.0", ID: nullID, Error: errorf(codeParse, "parse error: "+err.Error())})
			return
		}
		if len(batch) == 0 {
			c.w.send(response{JSONRPC: "2.0", ID: nullID, Error: errorf(codeInvalidRequest, "empty batch")})
			return
		}
		out := make([]*response, len(batch))
		var wg sync.WaitGroup
		for i, m := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i] = c.handle(m)
			}()
		}
		wg.Wait()
		var rs []*response
		for _, r := range out {
			if r != nil {
				rs = append(rs, r)
			}
		}
		if len(rs) > 0 {
			c.w.send(rs)
		}
		return
	}
	if r := c.handle(line); r != nil {
		c.w.send(r)
	}
}

// handle answers one message: nil for a notification.
func (c *conn) handle(msg []byte) *response {
	var req request
	if err := json.Unmarshal(msg, &req); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return &response{JSONRPC: "2.0", ID: nullID, Error: errorf(codeParse, "parse error: "+err.Error())}
		}
		return &response{JSONRPC: "2.0", ID: nullID, Error: errorf(codeInvalidRequest, "invalid request: "+err.Error())}
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		id := req.ID
		if id == nil {
			id = nullID
		}
		return &response{JSONRPC: "2.0", ID: id, Error: errorf(codeInvalidRequest, `invalid request: want "jsonrpc": "2.0" and a method`)}
	}
	v, err := c.call(req.Method, req.Params)
	if !req.hasID() {
		return nil
	}
	r := result(req.ID, v, err)
	return &r
}

func (c *conn) call(method string, params json.RawMessage) (any, error) {
	switch method {
	case "terminal/create":
		return c.create(params)
	case "terminal/output":
		return c.output(params)
	case "terminal/wait_for_exit":
		return c.waitForExit(params)
	case "terminal/kill":
		return c.kill(params)
	case "terminal/release":
		return c.release(params)
	case "safeexec/classify":
		return c.classify(params)
	case "safeexec/policy":
		return c.policy(params)
	}
	return nil, errorf(codeNoMethod, "method not found: "+method)
}

// decode reads params into v; unknown fields (_meta and the like) are
// allowed.
func decode(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		return errorf(codeInvalidParams, "invalid params: none given")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return errorf(codeInvalidParams, "invalid params: "+err.Error())
	}
	return nil
}

// envVariable is ACP's EnvVariable.
type envVariable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// commandParams are what terminal/create and safeexec/classify take.
type commandParams struct {
	SessionID       *string       `json:"sessionId"`
	Command         string        `json:"command"`
	Args            []string      `json:"args"`
	Env             []envVariable `json:"env"`
	Cwd             *string       `json:"cwd"`
	OutputByteLimit *uint64       `json:"outputByteLimit"`
	// Approved is safeexec's own: the client asked its user about a
	// needs_confirmation command and the user said yes. It never lifts a
	// risky verdict.
	Approved bool `json:"approved"`
}

// request turns the parameters into a pipeline request (without I/O).
func (c *conn) request(p *commandParams, needSession bool) (*safeexec.Request, error) {
	if needSession && (p.SessionID == nil || *p.SessionID == "") {
		return nil, errorf(codeInvalidParams, "invalid params: sessionId is required")
	}
	if p.Command == "" {
		return nil, errorf(codeInvalidParams, "invalid params: command is required")
	}
	cwd := c.s.o.Cwd
	if p.Cwd != nil && *p.Cwd != "" {
		cwd = *p.Cwd
	}
	if !filepath.IsAbs(cwd) {
		return nil, errorf(codeInvalidParams, fmt.Sprintf("invalid params: cwd %q is not an absolute path", cwd))
	}
	cwd = filepath.Clean(cwd)
	environ := append([]string(nil), c.s.o.Environ...)
	for _, e := range p.Env {
		if e.Name == "" || strings.ContainsAny(e.Name, "=\x00") || strings.ContainsRune(e.Value, 0) {
			return nil, errorf(codeInvalidParams, fmt.Sprintf("invalid params: environment variable %q: a name without '=' or NUL and a value without NUL are needed", e.Name))
		}
		environ = setEnv(environ, e.Name, e.Value)
	}
	for _, a := range p.Args {
		if strings.ContainsRune(a, 0) {
			return nil, errorf(codeInvalidParams, "invalid params: an argument contains a NUL byte")
		}
	}
	req := &safeexec.Request{Cwd: cwd, Environ: environ, Self: c.s.o.Self}
	if len(p.Args) == 0 && strings.ContainsAny(p.Command, " \t\n;&|<>()$`'\"\\*?[#~=%{}") {
		// A whole command line in "command" with no args: a script, as
		// `safeexec 'npm test && npm run lint'` treats one argument.
		req.Script, req.IsScript = p.Command, true
	} else {
		req.Argv = append([]string{p.Command}, p.Args...)
	}
	return req, nil
}

func setEnv(env []string, name, value string) []string {
	out := env[:0]
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

// loadPolicy loads the policy for cwd and tells the client when it is not
// the one it was last told about for that directory.
func (c *conn) loadPolicy(cwd string) (*configs.Effective, error) {
	pol, err := c.s.o.Policy(cwd)
	state := ""
	if err != nil {
		state = "error: " + err.Error()
	} else {
		state = pol.Fingerprint()
	}
	c.notePolicy(cwd, state)
	if err != nil {
		return nil, &rpcError{Code: CodeUnavailable, Message: "configuration: " + err.Error()}
	}
	return pol, nil
}

// notePolicy records state for cwd, notifying the client of a change.
func (c *conn) notePolicy(cwd, state string) {
	c.mu.Lock()
	prev, known := c.fps[cwd]
	if !known && len(c.fps) >= 32 {
		for k := range c.fps { // forget one: watch at most 32 directories
			delete(c.fps, k)
			break
		}
	}
	c.fps[cwd] = state
	c.mu.Unlock()
	if !known || prev == state {
		return
	}
	params := map[string]string{"cwd": cwd, "previous": strings.TrimPrefix(prev, "error: ")}
	if e, ok := strings.CutPrefix(state, "error: "); ok {
		params["error"] = e
	} else {
		params["fingerprint"] = state
	}
	c.w.notify(PolicyChanged, params)
}

// watchPolicy re-reads the configuration of the directories this client
// used and reports changes, until the connection ends.
func (c *conn) watchPolicy() {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		c.mu.Lock()
		cwds := make([]string, 0, len(c.fps))
		for k := range c.fps {
			cwds = append(cwds, k)
		}
		c.mu.Unlock()
		for _, cwd := range cwds {
			pol, err := c.s.o.Policy(cwd)
			if err != nil {
				c.notePolicy(cwd, "error: "+err.Error())
			} else {
				c.notePolicy(cwd, pol.Fingerprint())
			}
		}
	}
}

// terminal is one command and what it printed.
type terminal struct {
	id, session string
	out         *safeexec.Capture
	keepNone    bool // outputByteLimit 0: nothing is kept
	kill        context.CancelCauseFunc
	done        chan struct{} // closed when the command and its record are finished
	outcome     *safeexec.Outcome
	err         error
}

func (t *terminal) finished() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

type createResult struct {
	TerminalID string `json:"terminalId"`
}

func (c *conn) create(params json.RawMessage) (any, error) {
	var p commandParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	req, err := c.request(&p, true)
	if err != nil {
		return nil, err
	}
	limit := uint64(DefaultOutputLimit)
	if p.OutputByteLimit != nil {
		limit = *p.OutputByteLimit
		if limit > MaxOutputLimit {
			return nil, errorf(codeInvalidParams, fmt.Sprintf("invalid params: outputByteLimit %d is more than this server keeps (%d)", limit, MaxOutputLimit))
		}
	}
	if err := c.s.reserve(); err != nil {
		return nil, err
	}
	t := &terminal{id: newID(), session: *p.SessionID, done: make(chan struct{})}
	// A Capture's limit 0 keeps everything; a client's 0 keeps nothing.
	t.out, t.keepNone = safeexec.NewCapture(max(int64(limit), 1)), limit == 0
	req.Stdout, req.Stderr, req.Notes = t.out, t.out, t.out
	// The sandbox starts now as the last command's here started it; it
	// is used only if it is the very one this command needs.
	spec := safeexec.AheadSpec{Memory: &c.s.aheads, Cwd: req.Cwd, Flags: []string{"serve"}, Script: req.IsScript,
		Tail: req.Argv, Environ: req.Environ, Stdout: t.out, Stderr: t.out}
	if req.IsScript {
		spec.Tail = []string{req.Script}
	}
	w := c.warm.take(req.Cwd, req.IsScript)
	if w != nil {
		// The sandbox built after the last command, if it is still the
		// one this command needs.
		w.out.set(t.out)
		req.Stdout, req.Stderr = w.out, w.out
		req.Ahead = w.ahead.For(spec.Tail)
	} else {
		req.Ahead = safeexec.StartAhead(spec)
	}
	pol, err := c.loadPolicy(req.Cwd)
	if err != nil {
		req.Ahead.Close()
		c.s.unreserve()
		return nil, err
	}
	req.Policy = pol
	if p.Approved {
		req.Yes, req.YesBy = true, "client"
	}
	started := make(chan struct{})
	req.OnStart = func() { close(started) }
	ctx, kill := context.WithCancelCause(c.ctx)
	t.kill = kill
	go func() {
		defer close(t.done)
		t.outcome, t.err = safeexec.Run(ctx, req)
		req.Ahead.Close()
		if w != nil && req.Ahead.Used() {
			c.s.warmUsed.Add(1)
		}
		if c.ctx.Err() == nil {
			c.warm.prepare(spec)
		}
	}()
	select {
	case <-started:
	case <-t.done:
		select {
		case <-started: // it ran, and is over already
		default:
			// Refused, or it could not start: no terminal.
			kill(nil)
			c.s.unreserve()
			return nil, startError(t.outcome, t.err)
		}
	}
	c.mu.Lock()
	if c.ctx.Err() != nil {
		c.mu.Unlock()
		kill(safeexec.ErrKilled)
		<-t.done
		c.s.unreserve()
		return nil, errorf(CodeUnavailable, "the connection is closing")
	}
	c.terms[t.id] = t
	c.mu.Unlock()
	return createResult{TerminalID: t.id}, nil
}

// startError explains why a command did not start.
func startError(out *safeexec.Outcome, err error) error {
	var re *safeexec.RefusedError
	if errors.As(err, &re) {
		return refusal(re)
	}
	if err == nil {
		err = errors.New("the command did not start")
	}
	return &rpcError{Code: CodeUnavailable, Message: err.Error()}
}

// reasonJSON is a reason as check --json shows it.
type reasonJSON struct {
	Rule    string `json:"rule"`
	Detail  string `json:"detail"`
	Command string `json:"command,omitempty"`
}

type verdictJSON struct {
	Tier     string       `json:"tier"`
	Decision string       `json:"decision"`
	Reasons  []reasonJSON `json:"reasons"`
	// Approvable: the client may ask its user and retry with
	// "approved": true.
	Approvable bool `json:"approvable"`
}

func reasonsOf(v risk.Verdict, want risk.Tier) ([]reasonJSON, string) {
	out := []reasonJSON{}
	var text []string
	for _, r := range v.Reasons {
		if r.Tier < want && len(v.Reasons) > 1 {
			continue
		}
		out = append(out, reasonJSON{Rule: r.Rule, Detail: r.Detail, Command: r.Command})
		s := r.Detail
		if s == "" {
			s = r.Rule
		}
		if r.Command != "" {
			s += " in `" + r.Command + "`"
		}
		text = append(text, s+" ["+r.Rule+"]")
	}
	return out, strings.Join(text, "; ")
}

func refusal(re *safeexec.RefusedError) *rpcError {
	v := re.Verdict
	data := verdictJSON{Tier: v.Tier.String(), Decision: string(re.Decision)}
	if re.Decision == safeexec.Blocked {
		data.Reasons, _ = reasonsOf(v, risk.Risky)
		return &rpcError{Code: CodeRefused, Message: re.Error(), Data: data}
	}
	var why string
	data.Reasons, why = reasonsOf(v, risk.NeedsConfirmation)
	data.Approvable = true
	return &rpcError{Code: CodeRefused, Data: data, Message: "refused (needs confirmation): " + why +
		` — there is no one to ask here: ask your user, and if they agree retry terminal/create with "approved": true`}
}

func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return "term_" + hex.EncodeToString(b[:])
}

type terminalParams struct {
	SessionID  *string `json:"sessionId"`
	TerminalID string  `json:"terminalId"`
}

func (c *conn) lookup(params json.RawMessage) (*terminal, error) {
	var p terminalParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.SessionID == nil || *p.SessionID == "" {
		return nil, errorf(codeInvalidParams, "invalid params: sessionId is required")
	}
	c.mu.Lock()
	t := c.terms[p.TerminalID]
	c.mu.Unlock()
	if t == nil || t.session != *p.SessionID {
		return nil, errorf(CodeUnknownTerminal, fmt.Sprintf("unknown terminal %q in session %q (never created here, or released)", p.TerminalID, *p.SessionID))
	}
	return t, nil
}

// exitStatus is ACP's TerminalExitStatus (and WaitForTerminalExitResponse).
type exitStatus struct {
	ExitCode *int    `json:"exitCode"`
	Signal   *string `json:"signal"`
}

func (t *terminal) exitStatus() *exitStatus {
	st := &exitStatus{}
	code := safeexec.ExitCodeError
	if t.outcome != nil {
		code = t.outcome.ExitCode
		if t.outcome.Signal != 0 {
			name := signalName(t.outcome.Signal)
			st.Signal = &name
			return st
		}
	}
	st.ExitCode = &code
	return st
}

type outputResult struct {
	Output     string      `json:"output"`
	Truncated  bool        `json:"truncated"`
	ExitStatus *exitStatus `json:"exitStatus,omitempty"`
}

func (c *conn) output(params json.RawMessage) (any, error) {
	t, err := c.lookup(params)
	if err != nil {
		return nil, err
	}
	done := t.finished()
	res := outputResult{Output: t.out.Text(done), Truncated: t.out.Truncated()}
	if t.keepNone {
		res.Output, res.Truncated = "", t.out.Total() > 0
	}
	if done {
		res.ExitStatus = t.exitStatus()
	}
	return res, nil
}

func (c *conn) waitForExit(params json.RawMessage) (any, error) {
	t, err := c.lookup(params)
	if err != nil {
		return nil, err
	}
	select {
	case <-t.done:
		return t.exitStatus(), nil
	case <-c.ctx.Done():
		return nil, errorf(CodeUnavailable, "the connection is closing")
	}
}

// empty is the result of kill and release: an object, which clients that
// expect ACP's KillTerminalCommandResponse or ReleaseTerminalResponse
// accept.
type empty struct{}

func (c *conn) kill(params json.RawMessage) (any, error) {
	t, err := c.lookup(params)
	if err != nil {
		return nil, err
	}
	t.kill(safeexec.ErrKilled)
	<-t.done // nothing of it runs once this returns
	return empty{}, nil
}

func (c *conn) release(params json.RawMessage) (any, error) {
	t, err := c.lookup(params)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.terms[t.id] != t {
		c.mu.Unlock()
		return nil, errorf(CodeUnknownTerminal, fmt.Sprintf("unknown terminal %q (released meanwhile)", t.id))
	}
	delete(c.terms, t.id)
	c.mu.Unlock()
	t.kill(safeexec.ErrKilled)
	<-t.done
	c.s.unreserve()
	return empty{}, nil
}

// closeAll kills every terminal of the connection (its context is done
// already) and waits for them.
func (c *conn) closeAll() {
	c.warm.close()
	c.mu.Lock()
	terms := c.terms
	c.terms = map[string]*terminal{}
	c.mu.Unlock()
	for _, t := range terms {
		t.kill(safeexec.ErrKilled)
	}
	for _, t := range terms {
		<-t.done
		c.s.unreserve()
	}
}

type classifyResult struct {
	Tier    string       `json:"tier"`
	Reasons []reasonJSON `json:"reasons"`
	Sandbox string       `json:"sandbox"`
}

func (c *conn) classify(params json.RawMessage) (any, error) {
	var p commandParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	req, err := c.request(&p, false)
	if err != nil {
		return nil, err
	}
	pol, err := c.loadPolicy(req.Cwd)
	if err != nil {
		return nil, err
	}
	req.Policy = pol
	// The verdict terminal/create gets for the same command (safeexec.Judge).
	v, rep, err := safeexec.Judge(req)
	if err != nil {
		return nil, err
	}
	res := classifyResult{Tier: v.Tier.String(), Reasons: []reasonJSON{}, Sandbox: rep.Backend}
	for _, r := range v.Reasons {
		res.Reasons = append(res.Reasons, reasonJSON{Rule: r.Rule, Detail: r.Detail, Command: r.Command})
	}
	return res, nil
}

type policyParams struct {
	Cwd *string `json:"cwd"`
}

type policyResult struct {
	Cwd         string          `json:"cwd"`
	Fingerprint string          `json:"fingerprint"`
	Policy      json.RawMessage `json:"policy"`
	Sources     []string        `json:"sources"`
	Warnings    []string        `json:"warnings"`
}

func (c *conn) policy(params json.RawMessage) (any, error) {
	var p policyParams
	if len(params) > 0 && string(params) != "null" {
		if err := decode(params, &p); err != nil {
			return nil, err
		}
	}
	cwd := c.s.o.Cwd
	if p.Cwd != nil && *p.Cwd != "" {
		cwd = *p.Cwd
	}
	if !filepath.IsAbs(cwd) {
		return nil, errorf(codeInvalidParams, fmt.Sprintf("invalid params: cwd %q is not an absolute path", cwd))
	}
	cwd = filepath.Clean(cwd)
	pol, err := c.loadPolicy(cwd)
	if err != nil {
		return nil, err
	}
	doc, err := pol.JSON()
	if err != nil {
		return nil, err
	}
	res := policyResult{Cwd: cwd, Fingerprint: pol.Fingerprint(), Policy: doc, Sources: []string{}, Warnings: pol.Warnings}
	if res.Warnings == nil {
		res.Warnings = []string{}
	}
	for _, s := range pol.Sources {
		if s.Path != "" {
			res.Sources = append(res.Sources, string(s.Kind)+" "+s.Path)
		} else {
			res.Sources = append(res.Sources, string(s.Kind))
		}
	}
	return res, nil
}
