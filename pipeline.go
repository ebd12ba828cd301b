package safeexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/safeexec/safeexec/audit"
	"github.com/safeexec/safeexec/configs"
	"github.com/safeexec/safeexec/envfilter"
	"github.com/safeexec/safeexec/internal/prelaunch"
	"github.com/safeexec/safeexec/netallow"
	"github.com/safeexec/safeexec/risk"
	"github.com/safeexec/safeexec/sandbox"
	"github.com/safeexec/safeexec/shell"
	"github.com/safeexec/safeexec/toolcache"
	"github.com/safeexec/safeexec/workspace"
)

// killGrace is how long a command gets between SIGTERM and SIGKILL when
// its timeout expires or the caller's context ends.
var killGrace = 2 * time.Second

// detectBackend is sandbox.Detect; tests replace it to simulate a machine
// without a sandbox.
var detectBackend = sandbox.Detect

type pipeline struct {
	req   *Request
	start time.Time
	out   Outcome
	// shell runs a script request with the argument vector scriptRun.
	shell     scriptShell
	scriptRun []string

	log      recorder // the audit log, or the outer run (Request.Outer)
	id       string   // the record's id, once handed down
	home     string
	backend  sandbox.Backend
	stripped []string // names of stripped variables
	secrets  []string // their values, for redaction
	network  networkUse

	// env and sandboxed are what the command was classified with.
	env       []string
	sandboxed bool
	// prepared delivers the record's first part, built while the command
	// runs (prepare).
	prepared <-chan *audit.Record
}

func (p *pipeline) run(ctx context.Context) (*Outcome, error) {
	req, pol := p.req, p.req.Policy
	// safeexec's memory and environment (which still holds what is
	// stripped from the command's) must be out of the command's reach.
	if err := sandbox.Harden(); err != nil {
		return nil, err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		// Without a home, ~ and the credential paths under it cannot be
		// judged: refuse rather than guess.
		return nil, fmt.Errorf("home directory: %w", err)
	}
	p.home = home
	if req.IsScript {
		if err := p.resolveShell(); err != nil {
			return nil, err
		}
	}
	// Before anything is recorded: like a bad flag, a working directory
	// that cannot be a workspace is the caller's error.
	if err := p.projectRoots(); err != nil {
		return nil, err
	}
	req, pol = p.req, p.req.Policy

	// The audit log is opened before anything runs: a run that cannot be
	// recorded does not happen. Inside another run's sandbox, that run
	// writes the record.
	if req.Outer != nil {
		p.log = req.Outer
	} else {
		log, err := audit.Open(pol.AuditPath, pol.AuditSync)
		if err != nil {
			return nil, openLogError(err, req.Environ)
		}
		p.log = log
		defer log.Close()
	}

	be, rep, derr := p.detect()
	p.backend, p.out.Sandbox = be, sandbox.Assess(rep, sandbox.Mode(pol.Mode))
	for _, c := range rep.Checks {
		if c.Name == "fallback" && derr == nil {
			// A weaker sandbox than the platform's best is a decision the
			// user sees every time, not a silent substitution.
			req.notef("%s; %s (safeexec doctor says more)", c.Detail, c.Fix)
		}
	}
	sandboxed := derr == nil && be.Name() != "none"

	env := p.environment()
	p.out.Verdict = p.verdict(env, be, derr)
	if derr != nil {
		p.out.Decision = Blocked
		p.out.ExitCode = ExitCodeError
		p.finish()
		return &p.out, fmt.Errorf("no sandbox: %w", derr)
	}

	if err := p.decide(); err != nil {
		p.ciRefusal(err)
		p.finish()
		return &p.out, err
	}

	// Catch the signals before the command exists: one that arrives while
	// it starts is delivered once it runs, instead of killing safeexec.
	// Catching costs round trips to the runtime's signal thread (~2 ms
	// here, on the one processor a plain run has): begun now, it runs
	// while the run waits for bwrap, which waits for it before it lets
	// the command start (BeforeRelease); other backends wait for it
	// before Start. Should a signal kill safeexec before that, bwrap finds
	// its block and filter descriptors ended and never starts the command.
	sigc := make(chan os.Signal, 8)
	caught := make(chan struct{})
	go func() {
		signal.Notify(sigc, forwarded...)
		close(caught)
	}()
	defer func() {
		<-caught
		if !req.Last {
			signal.Stop(sigc)
		}
	}()

	sp := p.sandboxPolicy()
	p.adjustPolicy(sp)
	if sandboxed && req.Outer == nil && !req.ReadOnly {
		// The project's own /tmp and tool caches. A read-only run gets
		// no writable place on the host (a throw-away /tmp); a run inside
		// another one's sandbox uses what that one set up.
		end, err := p.startProject(sp)
		if err != nil {
			p.out.ExitCode = ExitCodeError
			p.finish()
			return &p.out, err
		}
		defer end()
	}
	if sp.CacheDir != "" {
		env = toolcache.Env(toolcache.Options{Dir: sp.CacheDir, Env: env, Self: p.self(), NoExec: sp.Mode == sandbox.Strict, Command: p.argv()})
	}
	cmd := &sandbox.Command{
		Argv:   p.argv(),
		Env:    env,
		Stdin:  req.Stdin,
		Stdout: req.Stdout,
		Stderr: req.Stderr,
	}
	if req.Outer == nil {
		cmd.Ahead = req.Ahead.sandboxAhead()
		cmd.JoinNetns = req.Ahead.joinNetns()
	}
	if pol.NetworkEnabled && req.Outer == nil {
		if err := p.startNetwork(sp, cmd); err != nil {
			p.out.ExitCode = ExitCodeError
			p.finish()
			return &p.out, err
		}
		defer p.network.close()
	}
	tty := p.terminal(sp, cmd)
	// A terminal of the user's that the command gets as it is (stdin
	// alone a terminal) is put back as it was after the run.
	var hostTTY *hostTerminals
	if tty == nil {
		hostTTY = saveTerminals(cmd.Stdin, cmd.Stdout, cmd.Stderr)
	}

	nested, err := p.handDown(sp, cmd)
	if err != nil {
		p.out.ExitCode = ExitCodeError
		p.finish()
		return &p.out, err
	}
	defer nested.close()
	if be.Name() == "bwrap" {
		cmd.BeforeRelease = func() { <-caught }
	} else {
		<-caught
	}
	proc, err := be.Start(sp, cmd)
	if err != nil {
		if tty != nil {
			tty.abort()
		}
		p.out.ExitCode = ExitCodeError
		p.finish()
		return &p.out, fmt.Errorf("start %s sandbox: %w", be.Name(), err)
	}
	req.Ahead.remember(req.Environ, nested.directory())
	if tty != nil {
		tty.start()
	}
	p.prepare()
	if req.OnStart != nil {
		req.OnStart()
	}
	p.wait(ctx, proc, sigc)
	hostTTY.restore()
	if tty != nil {
		tty.finish()
	}
	p.refusedHint()
	p.finish()
	return &p.out, nil
}

// refusedHint says, after a failed run, which protected file the command
// tried to change: the tool's own message ("could not write config file
// .git/config: Device or resource busy") does not say that the sandbox
// keeps it read-only, nor what to do.
func (p *pipeline) refusedHint() {
	if p.out.ExitCode == 0 || len(p.out.Refused) == 0 {
		return
	}
	what := p.out.Refused[0]
	if rel, err := filepath.Rel(p.req.Cwd, what); err == nil && !strings.HasPrefix(rel, "..") {
		what = rel
	}
	if n := len(p.out.Refused) - 1; n > 0 {
		what += fmt.Sprintf(" (and %d more)", n)
	}
	p.req.notef("the command failed changing %s, a protected path that is read-only in the sandbox; to change it, run the command on the host, outside safeexec: %s", what, p.pasteable())
}

// terminal gives an interactive command a pseudo-terminal of its own when
// safeexec runs on one (see ptyRelay), and tells the sandbox to make it
// the command's controlling terminal.
func (p *pipeline) terminal(sp *sandbox.Policy, cmd *sandbox.Command) *ptyRelay {
	switch p.backend.Name() {
	case "none", "landlock":
	case "bwrap":
		// The in-sandbox supervisor (the bridge) takes the terminal.
	default:
		return nil
	}
	r, err := openPTY(p.req.Stdin, p.req.Stdout)
	if err != nil {
		p.req.notef("no terminal for the command: %v", err)
		return nil
	}
	if r == nil {
		return nil
	}
	cmd.Stdin, cmd.Stdout, cmd.Terminal = r.slave, r.slave, true
	if f, ok := p.req.Stderr.(*os.File); ok && isTerminal(f) {
		cmd.Stderr = r.slave
	}
	if p.backend.Name() == "bwrap" {
		if len(sp.Network.Bridge) == 0 {
			sp.Network.Bridge = p.bridge()
		}
		sp.Network.Bridge = append(sp.Network.Bridge, netallow.TTYArg)
	}
	return r
}

func (p *pipeline) detect() (sandbox.Backend, sandbox.Report, error) {
	if o := p.req.Outer; o != nil {
		return nestedBackend{}, sandbox.Report{Backend: o.Backend, Level: o.Level,
			Reason: "inside the sandbox of safeexec run " + o.Parent}, nil
	}
	want := p.req.Policy.Backend
	if want == "none" {
		return sandbox.None(), sandbox.Report{Backend: "none", Reason: "chosen with --sandbox none", Weak: true}, nil
	}
	if want == "" {
		want = "auto"
	}
	be, rep, err := detectBackend(want)
	if err == nil && be == nil {
		err = fmt.Errorf("%w: backend %q gave nothing to run with", sandbox.ErrUnavailable, want)
	}
	return be, rep, err
}

// projectRoots narrows the policy's writable roots to those a sandboxed
// run in the working directory gets (WritableRoots): a working directory
// that is not a project stays read-only, or is an error when no other
// root remains. Run and Judge both do this before classifying.
func (p *pipeline) projectRoots() error {
	req, pol := p.req, p.req.Policy
	if pol.Backend == "none" || req.Outer != nil {
		return nil
	}
	roots, err := WritableRoots(pol, req.Cwd, p.home, req.Environ)
	if err != nil {
		return err
	}
	if len(roots) != len(pol.AllowWrite) {
		req.notef("the working directory %s is not a project: it stays read-only", req.Cwd)
		rq, pc := *req, *pol
		pc.AllowWrite = roots
		rq.Policy = &pc
		p.req = &rq
	}
	return nil
}

// verdict is the classification a run gets (Judge gives the same): as
// confined by the backend detect found, or when none can start, refused
// (risky, sandbox-unavailable), judged as unconfined.
func (p *pipeline) verdict(env []string, be sandbox.Backend, derr error) risk.Verdict {
	v := p.classify(env, derr == nil && be != nil && be.Name() != "none")
	if derr != nil {
		v.Reasons = append(v.Reasons, risk.Reason{Rule: "sandbox-unavailable", Detail: derr.Error(), Tier: risk.Risky})
		v.Tier = risk.Risky
	}
	return v
}

func (p *pipeline) classify(env []string, sandboxed bool) risk.Verdict {
	req := p.req
	p.env, p.sandboxed = env, sandboxed
	rc := withReadDirs(riskContext(req.Policy, req.Cwd, p.home, env, sandboxed), req)
	if sandboxed {
		withProjectTemp(rc, p.backend.Name(), req.Cwd, p.home, req.Environ)
	}
	return classifyRequest(req, p.shell, rc)
}

// classifyRequest judges argv, or a script in the language of the shell
// that runs it.
func classifyRequest(req *Request, sh scriptShell, rc *risk.Context) risk.Verdict {
	if !req.IsScript {
		return risk.ClassifyArgv(req.Argv, rc)
	}
	rc.Dialect = sh.dialect()
	return risk.ClassifyScript(req.Script, rc)
}

// shellHostFor is what shell resolution looks at; tests replace it.
var shellHostFor = realShellHost

// resolveShell finds the shell of a script request (the policy's
// [run] shell, or --shell) and its argument vectors.
func (p *pipeline) resolveShell() error {
	sh, err := resolveShell(p.req.shell(), shellHostFor(), true)
	if err != nil {
		return err
	}
	run, err := sh.scriptArgv(p.req.Script, p.req.ScriptArgs)
	if err != nil {
		return err
	}
	p.shell, p.scriptRun = sh, run
	return nil
}

// decide turns the verdict into a decision. It returns a *RefusedError
// when the command must not run.
func (p *pipeline) decide() error {
	v := p.out.Verdict
	req := p.req
	switch {
	case v.AllowedByRule:
		p.out.Decision, p.out.ApprovedBy = Allowed, "rule"
		if v.ApprovedTier() == risk.Risky {
			p.req.notef("running a command the built-in rules call risky, because your allow rule %q approves it: %s",
				strings.Join(v.AllowRules, `", "`), describeApproved(v, risk.Risky))
		}
		return nil
	case v.Tier == risk.Safe:
		p.out.Decision = Allowed
		return nil
	case v.Tier >= risk.Risky:
		p.out.Decision = Blocked
		p.out.ExitCode = ExitCodeRefused
		return &RefusedError{Decision: Blocked, Verdict: v,
			Why: describeReasons(v, risk.Risky) + " — if you mean it, run it yourself outside safeexec, or add an allow rule to your own config"}
	}

	// needs_confirmation
	if req.Yes {
		p.out.Decision, p.out.ApprovedBy = Confirmed, "flag"
		if req.YesBy != "" {
			p.out.ApprovedBy = req.YesBy
		}
		return nil
	}
	return p.confirm()
}

func (p *pipeline) deny(why string) error {
	p.out.Decision = Denied
	p.out.ExitCode = ExitCodeRefused
	return &RefusedError{Decision: Denied, Verdict: p.out.Verdict, Why: why}
}

// filterEnv applies the policy's environment filter.
func filterEnv(pol *configs.Effective, environ []string) (kept, stripped []string) {
	f := envfilter.Filter{Names: pol.EnvStrip, Suffixes: pol.EnvStripSuffixes, Keep: pol.EnvKeep}
	return f.Apply(environ)
}

func (p *pipeline) environment() []string {
	kept, stripped := filterEnv(policyKeeping(p.req), p.req.Environ)
	p.stripped = stripped
	if len(stripped) > 0 {
		drop := make(map[string]bool, len(stripped))
		for _, n := range stripped {
			drop[n] = true
		}
		for _, kv := range p.req.Environ {
			if name, val, ok := strings.Cut(kv, "="); ok && drop[name] && val != "" {
				p.secrets = append(p.secrets, val)
			}
		}
	}
	return kept
}

// argv is what the sandbox runs.
func (p *pipeline) argv() []string {
	if !p.req.IsScript {
		return p.req.Argv
	}
	return p.scriptRun
}

// maskable is the deny_read list without its name patterns (**/.env),
// which the classifier judges and the sandbox cannot mask: they name no
// fixed path.
func maskable(denyRead []string) []string {
	for i, s := range denyRead {
		if configs.IsNamePattern(s) {
			out := append([]string(nil), denyRead[:i]...)
			for _, s := range denyRead[i+1:] {
				if !configs.IsNamePattern(s) {
					out = append(out, s)
				}
			}
			return out
		}
	}
	return denyRead
}

func (p *pipeline) sandboxPolicy() *sandbox.Policy {
	pol := p.req.Policy
	return &sandbox.Policy{
		Mode:          sandbox.Mode(pol.Mode),
		Cwd:           p.req.Cwd,
		WritableRoots: pol.AllowWrite,
		DenyRead:      maskable(pol.DenyRead),
		DenyWrite:     pol.DenyWrite,
		Limits: sandbox.Limits{
			Processes:  pol.Limits.Processes,
			OpenFiles:  pol.Limits.OpenFiles,
			FileSize:   pol.Limits.FileSize,
			CPUSeconds: pol.Limits.CPUSeconds,
		},
		SafeexecPath: p.self(),
	}
}

// startProject gives the run its project's temporary directory and tool
// caches (package workspace), holding the project for the run's length.
// The returned function ends the run and sweeps idle projects.
func (p *pipeline) startProject(sp *sandbox.Policy) (func(), error) {
	getenv := func(k string) string { v, _ := environValue(p.req.Environ, k); return v }
	base := workspace.Base(getenv, p.home)
	proj := workspace.Open(base, workspace.Find(p.req.Cwd, p.home))
	run, err := proj.Start()
	if err != nil {
		return nil, err
	}
	sp.TempDir, sp.CacheDir = proj.TempDir(), proj.CacheDir()
	sp.Private = workspace.SafeexecCache(getenv, p.home)
	ttl := p.req.Policy.TmpTTL
	return func() {
		run.End()
		if ttl == 0 {
			proj.ExpireOwn()
		}
		if workspace.Sweep(base, ttl, time.Now()) {
			// As seldom: the private run directories of runs killed
			// before they could remove their own.
			prelaunch.SweepRunDirs()
		}
	}, nil
}

// WritableRoots returns the writable roots a sandboxed run in cwd gets
// from pol. No root may be "/", a system directory, the home directory or
// one that contains it: such a root is an error (a *workspace.NotProjectError).
// The working directory (".") must also be a project; when it is not, it
// is left out if another root remains (the user named the real one with
// --allow-write), and is an error otherwise. The host's temporary
// directories stand for the command's own /tmp ("$TMPDIR").
func WritableRoots(pol *configs.Effective, cwd, home string, environ []string) ([]string, error) {
	temps := []string{"/tmp", "/var/tmp", filepath.Clean(os.TempDir())}
	if v, ok := environValue(environ, "TMPDIR"); ok && filepath.IsAbs(v) {
		temps = append(temps, filepath.Clean(v))
	}
	var out []string
	var cwdErr error
	real := false
	for _, r := range pol.AllowWrite {
		isCwd := filepath.Clean(r) == filepath.Clean(cwd)
		var err error
		switch {
		case isCwd && slices.Contains(temps, filepath.Clean(r)):
			err = &workspace.NotProjectError{Dir: r, Why: "the temporary directory", Cwd: true}
		case slices.Contains(temps, filepath.Clean(r)):
		default:
			err = workspace.CheckRoot(r, home, isCwd)
		}
		switch {
		case err != nil && isCwd:
			cwdErr = err
			continue
		case err != nil:
			return nil, err
		}
		if !slices.Contains(temps, filepath.Clean(r)) {
			real = true
		}
		out = append(out, r)
	}
	if cwdErr != nil && !real {
		return nil, cwdErr
	}
	return out, nil
}

// withProjectTemp tells the classifier where the command's temporary
// directory is inside the sandbox, writable: /tmp under bwrap, the
// project's own directory ($TMPDIR) elsewhere.
func withProjectTemp(rc *risk.Context, backend, cwd, home string, environ []string) {
	tmp := "/tmp"
	if backend != "bwrap" {
		getenv := func(k string) string { v, _ := environValue(environ, k); return v }
		tmp = workspace.Open(workspace.Base(getenv, home), workspace.Find(cwd, home)).TempDir()
	}
	rc.WritableRoots = append(slices.Clone(rc.WritableRoots), tmp)
	if runtime.GOOS != "windows" && rc.Env != nil {
		rc.Env["TMPDIR"] = tmp
	}
}

// environValue is the last value of key in environ.
func environValue(environ []string, key string) (string, bool) {
	for i := len(environ) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(environ[i], key+"="); ok {
			return v, true
		}
	}
	return "", false
}

func (p *pipeline) self() string {
	if p.req.Self != "" {
		return p.req.Self
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

// forwarded are the signals that reach the command when safeexec gets
// them: with a new session the terminal cannot deliver them itself.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

func (p *pipeline) wait(ctx context.Context, proc sandbox.Process, sigc <-chan os.Signal) {

	type result struct {
		st  sandbox.Status
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := proc.Wait()
		done <- result{st, err}
	}()

	var timeout, grace <-chan time.Time
	if d := p.req.Policy.Limits.Timeout; d > 0 {
		t := time.NewTimer(d - time.Since(p.start))
		defer t.Stop()
		timeout = t.C
	}
	ctxDone := ctx.Done()
	for {
		select {
		case s := <-sigc:
			if err := proc.Signal(s); err != nil {
				p.req.notef("forward %v: %v", s, err)
			}
		case <-timeout:
			timeout = nil
			p.out.TimedOut = true
			p.req.notef("timed out after %v; stopping the command", p.req.Policy.Limits.Timeout)
			proc.Signal(syscall.SIGTERM)
			grace = time.After(killGrace)
		case <-ctxDone:
			ctxDone = nil
			if errors.Is(context.Cause(ctx), ErrKilled) {
				proc.Kill()
				continue
			}
			proc.Signal(syscall.SIGTERM)
			grace = time.After(killGrace)
		case <-grace:
			grace = nil
			proc.Kill()
		case r := <-done:
			p.out.ExitCode = r.st.ExitCode
			p.out.Signal = r.st.Signal
			p.out.Protected = r.st.Protected
			p.out.Refused = r.st.Refused
			p.out.Unchecked = r.st.Unchecked
			if r.err != nil {
				p.req.notef("wait: %v", r.err)
				if p.out.ExitCode == 0 {
					p.out.ExitCode = ExitCodeError
				}
			}
			if p.out.TimedOut {
				p.out.ExitCode = ExitCodeTimeout
			}
			return
		}
	}
}

// scriptReader lets the classifier read a local script that a command
// would run, when it is a small regular file inside a writable root.
// Anything else is unreadable, and the classifier treats it as unknown.
func scriptReader(roots []string) func(string) ([]byte, error) {
	return func(path string) ([]byte, error) {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, err
		}
		inside := false
		for _, r := range roots {
			if rr, err := filepath.EvalSymlinks(r); err == nil && within(rr, real) {
				inside = true
				break
			}
		}
		if !inside {
			return nil, fmt.Errorf("%s is outside the writable roots", path)
		}
		f, err := os.Open(real)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, err
		}
		if fi.IsDir() {
			return nil, &os.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
		}
		if !fi.Mode().IsRegular() || fi.Size() > maxScriptSize {
			return nil, fmt.Errorf("%s is not a small regular file", path)
		}
		b, err := io.ReadAll(io.LimitReader(f, maxScriptSize+1))
		if err != nil {
			return nil, err
		}
		if len(b) > maxScriptSize {
			return nil, fmt.Errorf("%s grew while being read", path)
		}
		return b, nil
	}
}

// maxScriptSize bounds the local scripts the classifier reads.
const maxScriptSize = shell.MaxScriptFile

// within reports whether path is root or below it.
func within(root, path string) bool {
	if root == path {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(path, root)
}
