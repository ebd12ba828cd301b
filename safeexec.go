package safeexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/safeexec/safeexec/configs"
	"github.com/safeexec/safeexec/risk"
	"github.com/safeexec/safeexec/sandbox"
)

// Request is one invocation of the pipeline.
type Request struct {
	// Argv is the command to run (safeexec -- CMD ARGS...). Exactly one of
	// Argv and Script is set.
	Argv []string
	// Script is a shell script (safeexec -c SCRIPT, safeexec SCRIPT). It
	// runs under the shell the policy names ([run] shell, --shell; by
	// default bash, or sh when there is no bash, and on Windows Git for
	// Windows' bash.exe, else PowerShell), with ScriptArgs as $0, $1, ...
	// like sh -c (bash and sh only), and is classified in that shell's
	// language.
	Script     string
	ScriptArgs []string
	// Shell, when set, is the shell the script runs in instead of the
	// policy's (auto, bash, powershell, pwsh or cmd): a hook judges an
	// agent's command in the language of the shell the agent runs it in.
	Shell string
	// IsScript tells an empty Script apart from an Argv request.
	IsScript bool

	// Cwd is the absolute working directory.
	Cwd string
	// Environ is the environment before filtering (os.Environ()).
	Environ []string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer

	// Policy is the effective configuration (configs.Load).
	Policy *configs.Effective
	// Yes approves needs_confirmation (never risky), as --yes does.
	Yes bool
	// YesBy is who gave Yes, for the audit record's approved_by: "flag"
	// when empty (--yes); "client" for a program that asked its own user
	// (safeexec serve's "approved").
	YesBy string
	// CI says the run is a CI job's: refusals are one line that names the
	// allow rule that would approve the command. (The front end also gives
	// no Prompter and adds RunnerFiles to the writable roots.)
	CI bool
	// ReadDirs are directories outside the writable roots whose local
	// scripts the classifier may read (bash -e $RUNNER_TEMP/step.sh), shown
	// read-only inside the sandbox even where the mode hides them.
	ReadDirs []string
	// Outer, when set (DetectOuter), is the safeexec run whose sandbox this
	// process is in: the run takes Outer.Policy as Policy, starts no
	// sandbox, proxy or terminal of its own, runs the command where it is,
	// and sends its audit record to the outer run.
	Outer *Outer
	// ReadOnly leaves the command no writable place at all on the host:
	// Policy.AllowWrite should be empty, and safeexec's own tool cache is
	// not made writable either (its private temporary directory remains).
	ReadOnly bool
	// Prompter asks a human. Nil means there is no human to ask.
	Prompter Prompter
	// Self is the safeexec executable, re-executed inside the sandbox for
	// the network bridge and the Landlock fallback. Empty: os.Executable.
	Self string
	// Notes receives one-line diagnostics ("safeexec: ..."), normally
	// stderr. Nil discards them.
	Notes io.Writer
	// OnStart, when set, is called once the command has started in its
	// sandbox: never for a refused command or one that could not start.
	OnStart func()
	// Ahead is this run's sandbox started ahead of its plan (StartAhead);
	// nil: none. The caller closes it.
	Ahead *Ahead
	// Last says the process ends once Run returns (safeexec's command
	// line): the signals caught for the command are left caught until
	// then instead of being handed back to their default action (which
	// costs round trips to Go's signal thread, ~1.5% of a plain run). A
	// signal in between is then ignored, where it would have ended the
	// process a moment early; the run is recorded either way.
	Last bool
}

// ErrKilled, as the cause of the context given to Run
// (context.WithCancelCause), kills the command at once; any other end of
// the context asks it to stop with SIGTERM first.
var ErrKilled = errors.New("killed")

// Decision is what the pipeline decided about a request.
type Decision string

const (
	Allowed   Decision = "allowed"   // safe, or approved by a user allow rule
	Confirmed Decision = "confirmed" // needs_confirmation, approved by a human or --yes
	Denied    Decision = "denied"    // needs_confirmation, not approved
	Blocked   Decision = "blocked"   // risky, or no sandbox could be started
)

// Outcome is what happened.
type Outcome struct {
	// ExitCode is what safeexec exits with: the command's own status, 124
	// on timeout, 126 when refused, 127 when the command was not found,
	// 128+N when a signal N killed it, 125 when safeexec itself failed.
	ExitCode   int
	Decision   Decision
	ApprovedBy string // "rule", "tty", "flag" or ""
	Verdict    risk.Verdict
	Sandbox    sandbox.Report
	Signal     int
	TimedOut   bool
	Duration   time.Duration
	// Protected lists protected paths the command created or changed that
	// the sandbox took back after the run.
	Protected []string
	// Refused lists protected files the command tried to replace while
	// they were read-only (a likely reason for its failure).
	Refused []string
	// Unchecked lists what the sandbox's look after the run could not
	// finish, with why.
	Unchecked []string
}

// RefusedError is returned when the command was not run because of its
// tier: risky (Decision Blocked) or not confirmed (Decision Denied).
type RefusedError struct {
	Decision Decision
	Verdict  risk.Verdict
	// Why is the human explanation, with what to do next.
	Why string
	// Interrupted is the signal that ended the question, if one did: the
	// caller should end as that signal says.
	Interrupted os.Signal
}

func (e *RefusedError) Error() string {
	switch e.Decision {
	case Blocked:
		return "refused (risky): " + e.Why
	default:
		return "refused (needs confirmation): " + e.Why
	}
}

// ExitCodeRefused is the exit status of a refused or unconfirmed command.
const ExitCodeRefused = 126

// ExitCodeError is the exit status when safeexec itself fails (usage,
// configuration, no sandbox).
const ExitCodeError = 125

// ExitCodeTimeout is the exit status when --timeout ended the command.
const ExitCodeTimeout = 124

func (r *Request) validate() error {
	if r.Policy == nil {
		return errors.New("no policy: load the configuration first")
	}
	if r.IsScript == (len(r.Argv) > 0) {
		return errors.New("exactly one of a command or a script is needed")
	}
	if r.Cwd == "" {
		return errors.New("no working directory")
	}
	return nil
}

func (r *Request) notef(format string, args ...any) {
	if r.Notes == nil {
		return
	}
	fmt.Fprintf(r.Notes, "safeexec: "+format+"\n", args...)
}

// riskContext builds what the classifier needs from the policy. env is
// the environment the command will get (after filtering), so that values
// the classifier folds ($TMPDIR, $USER) are the ones the command sees and
// stripped secrets are never folded into a displayed command.
func riskContext(pol *configs.Effective, cwd, home string, env []string, sandboxed bool) *risk.Context {
	vars := make(map[string]string, len(env)+1)
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			vars[k] = v
		}
	}
	if _, ok := vars["TMPDIR"]; !ok && sandboxed && runtime.GOOS != "windows" {
		// Every backend gives the command a private $TMPDIR, which the
		// policy's "$TMPDIR" root stands for (configs expands an unset
		// TMPDIR to /tmp the same way).
		vars["TMPDIR"] = "/tmp"
	}
	return &risk.Context{
		Cwd:            cwd,
		Home:           home,
		WritableRoots:  pol.AllowWrite,
		SensitivePaths: pol.DenyRead,
		ProtectedPaths: pol.DenyWrite,
		Sandboxed:      sandboxed,
		Rules: risk.Rules{
			Allow:   pol.RulesAllow,
			Confirm: pol.RulesConfirm,
			Deny:    pol.RulesDeny,
		},
		ReadScript: scriptReader(pol.AllowWrite),
		Readlink:   os.Readlink,
		Platform:   runtime.GOOS,
		Env:        vars,
	}
}

// withReadDirs lets the classifier read local scripts in req.ReadDirs too.
func withReadDirs(rc *risk.Context, req *Request) *risk.Context {
	if len(req.ReadDirs) > 0 {
		rc.ScriptDirs = req.ReadDirs
		rc.ReadScript = scriptReader(append(append([]string(nil), req.Policy.AllowWrite...), req.ReadDirs...))
	}
	return rc
}

// Classify judges a request without running anything, assuming the
// sandbox backend named by backend ("none" means unconfined). A script is
// judged in the language of the policy's shell, which need not be
// installed. A script the shell cannot take (arguments for PowerShell) is
// never safe.
func Classify(req *Request, backend string) risk.Verdict {
	home, _ := os.UserHomeDir()
	env, _ := filterEnv(req.Policy, req.Environ)
	rc := withReadDirs(riskContext(req.Policy, req.Cwd, home, env, backend != "none" && backend != ""), req)
	if backend != "none" && backend != "" && home != "" {
		withProjectTemp(rc, backend, req.Cwd, home, req.Environ)
	}
	var sh scriptShell
	if req.IsScript {
		var err error
		sh, err = resolveShell(req.shell(), shellHostFor(), false)
		if err == nil {
			_, err = sh.scriptArgv(req.Script, req.ScriptArgs)
		}
		if err != nil {
			return risk.Verdict{Tier: risk.NeedsConfirmation, Reasons: []risk.Reason{{
				Rule: "parse-error", Tier: risk.NeedsConfirmation, Detail: err.Error()}}}
		}
	}
	return classifyRequest(req, sh, rc)
}

// AssumedBackend is the sandbox backend a run with this policy would get,
// for classifying without running: the configured one, for "auto" the one
// sandbox.Detect picks, or "none" when nothing can start.
func AssumedBackend(pol *configs.Effective) string {
	if pol.Backend != "" && pol.Backend != "auto" {
		return pol.Backend
	}
	if be, _, err := detectBackend("auto"); err == nil && be != nil {
		return be.Name()
	}
	return "none"
}

// Judge classifies a request exactly as Run does before it decides, and
// runs nothing: the backend Run would use (the policy's, else the best
// available; when it cannot start, the verdict is Run's refusal: risky,
// sandbox-unavailable), the environment the command would see after
// secret stripping, the policy's rules, the working directory and the
// files in it. It returns the verdict and the sandbox report (Backend is
// what the run's audit record and JSON result name). An error is what
// Run would fail with before deciding (no home directory, a working
// directory that cannot be a project). safeexec check is Judge.
func Judge(req *Request) (risk.Verdict, sandbox.Report, error) {
	p := &pipeline{req: req}
	home, err := os.UserHomeDir()
	if err != nil {
		return risk.Verdict{}, sandbox.Report{}, fmt.Errorf("home directory: %w", err)
	}
	p.home = home
	if req.IsScript {
		sh, err := resolveShell(req.shell(), shellHostFor(), false)
		if err == nil {
			_, err = sh.scriptArgv(req.Script, req.ScriptArgs)
		}
		p.shell = sh
		if err != nil {
			return risk.Verdict{Tier: risk.NeedsConfirmation, Reasons: []risk.Reason{{
				Rule: "parse-error", Tier: risk.NeedsConfirmation, Detail: err.Error()}}}, sandbox.Report{Backend: req.Policy.Backend}, nil
		}
	}
	if err := p.projectRoots(); err != nil {
		return risk.Verdict{}, sandbox.Report{}, err
	}
	be, rep, derr := p.detect()
	p.backend = be
	env, _ := filterEnv(p.req.Policy, p.req.Environ)
	return p.verdict(env, be, derr), sandbox.Assess(rep, sandbox.Mode(p.req.Policy.Mode)), nil
}

// shell is the shell a script request runs in: Shell, else the policy's.
func (req *Request) shell() string {
	if req.Shell != "" {
		return req.Shell
	}
	return req.Policy.Shell
}

// Run takes a request through the whole pipeline. It returns an Outcome
// whenever a decision was made (also for refusals, with a *RefusedError);
// an error without an Outcome means safeexec could not even decide. Run
// makes the calling process non-dumpable (sandbox.Harden), for good: the
// command must not read the memory that held its stripped secrets.
func Run(ctx context.Context, req *Request) (*Outcome, error) {
	if err := req.validate(); err != nil {
		return nil, err
	}
	p := &pipeline{req: req, start: time.Now()}
	return p.run(ctx)
}

func describeReasons(v risk.Verdict, want risk.Tier) string {
	var parts []string
	for _, r := range v.Reasons {
		if r.Tier < want && len(v.Reasons) > 1 {
			continue
		}
		s := r.Detail
		if s == "" {
			s = r.Rule
		}
		if r.Command != "" {
			s += " in `" + r.Command + "`"
		}
		parts = append(parts, s+" ["+r.Rule+"]")
	}
	if len(parts) == 0 {
		return v.Tier.String()
	}
	return strings.Join(parts, "; ")
}

// describeApproved is describeReasons for the reasons allow rules lifted.
func describeApproved(v risk.Verdict, want risk.Tier) string {
	lifted := risk.Verdict{}
	for _, a := range v.Approved {
		lifted.Reasons = append(lifted.Reasons, a.Reason)
	}
	return describeReasons(lifted, want)
}
