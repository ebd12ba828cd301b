package safeexec

import (
	"fmt"
	"time"

	"github.com/safeexec/safeexec/audit"
	"github.com/safeexec/safeexec/risk"
)

// finish completes the outcome and appends the audit record. A record that
// cannot be written is reported; the command's exit status is kept.
func (p *pipeline) finish() {
	p.out.Duration = time.Since(p.start)
	var rec *audit.Record
	if p.prepared != nil {
		rec = <-p.prepared
	} else {
		rec = p.recordBase()
	}
	p.recordOutcome(rec)
	if err := p.log.Append(rec); err != nil {
		p.req.notef("audit: %v", err)
	}
}

// prepare builds the part of the record that is known once the command
// has started (and redacts it) while the command runs, so that little is
// left to do after it ends.
func (p *pipeline) prepare() {
	c := make(chan *audit.Record, 1)
	p.prepared = c
	go func() {
		rec := p.recordBase()
		audit.Warm(rec)
		c <- rec
	}()
}

// recordBase is the record without the outcome: nothing in it changes
// once the command has started.
func (p *pipeline) recordBase() *audit.Record {
	req, pol, out := p.req, p.req.Policy, &p.out
	rec := audit.NewRecord()
	if p.id != "" {
		rec.ID = p.id
	}
	rec.Time = p.start
	rec.Kind = audit.KindRun
	rec.Cwd = req.Cwd
	if req.IsScript {
		rec.Script = req.Script
		if rec.Script == "" {
			rec.Argv = []string{}
		}
	} else {
		rec.Argv = append([]string(nil), req.Argv...)
	}
	rec.Tier = out.Verdict.Tier.String()
	for _, r := range out.Verdict.Reasons {
		rec.Reasons = append(rec.Reasons, audit.Reason{Rule: r.Rule, Detail: r.Detail, Command: r.Command})
	}
	for _, a := range out.Verdict.Approved {
		rec.Reasons = append(rec.Reasons, audit.Reason{Rule: "user-allow", Command: a.Command,
			Detail: fmt.Sprintf("approved by your allow rule %q: %s [%s]", a.AllowRule, a.Detail, a.Rule)})
	}
	rec.Decision = string(out.Decision)
	rec.ApprovedBy = out.ApprovedBy
	rec.Sandbox = p.recordSandbox()
	rec.PolicyFP = pol.Fingerprint()
	rec.EnvStripped = p.stripped
	rec.Redact(p.secrets)
	return rec
}

// recordSandbox is the record's account of the sandbox the command runs in.
func (p *pipeline) recordSandbox() audit.Sandbox {
	pol, out := p.req.Policy, &p.out
	sb := audit.Sandbox{
		Backend: out.Sandbox.Backend,
		Mode:    pol.Mode,
		Level:   out.Sandbox.Level,
		Weak:    out.Sandbox.Weak || pol.Mode == "permissive",
		// What the backend leaves to the classifier or to the command's
		// good will is said in every record, not only by doctor.
		Unenforced: out.Sandbox.Unenforced,
	}
	if sb.Backend == "" && p.backend != nil {
		sb.Backend = p.backend.Name()
	}
	return sb
}

// record is the whole record at once: for a decision made without a run,
// or a look at one before it starts.
func (p *pipeline) record() *audit.Record {
	rec := p.recordBase()
	p.recordOutcome(rec)
	return rec
}

// recordOutcome adds what happened (redaction does not touch these).
func (p *pipeline) recordOutcome(rec *audit.Record) {
	out := &p.out
	rec.Network.Allowed, rec.Network.Denied = p.network.summary()
	rec.ExitCode = out.ExitCode
	rec.Signal = out.Signal
	rec.DurationMS = out.Duration.Milliseconds()
	rec.TimedOut = out.TimedOut
	rec.Protected = out.Protected
	rec.Unchecked = out.Unchecked
}

// RecordDecision appends the audit record of a decision made without a
// run: kind is audit.KindHook (an agent's hook was answered; agent names
// it) or audit.KindCheck. decision is an audit.Decision* value; backend is
// the sandbox the classification assumed. Secrets of the request's
// environment are redacted as in a run's record.
func RecordDecision(req *Request, kind, agent string, v risk.Verdict, decision, backend string) error {
	pol := req.Policy
	log, err := audit.Open(pol.AuditPath, pol.AuditSync)
	if err != nil {
		return fmt.Errorf("open audit log: %w", err)
	}
	defer log.Close()
	p := &pipeline{req: req, start: time.Now()}
	p.environment()
	p.out.Verdict = v
	p.out.Decision = Decision(decision)
	p.out.Sandbox.Backend = backend
	p.out.Sandbox.Weak = backend == "none"
	rec := p.record()
	rec.Kind, rec.Agent = kind, agent
	rec.DurationMS = 0
	return log.Append(rec)
}
