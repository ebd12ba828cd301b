package safeexec

import (
	"fmt"
	"time"

	"github.com/safeexec/safeexec/audit"
)

// finish completes the outcome and appends the audit record. A record that
// cannot be written is reported; the command's exit status is kept.
func (p *pipeline) finish() {
	p.out.Duration = time.Since(p.start)
	rec := p.record()
	if err := p.log.Append(rec); err != nil {
		p.req.notef("audit: %v", err)
	}
}

func (p *pipeline) record() *audit.Record {
	req, pol, out := p.req, p.req.Policy, &p.out
	rec := audit.NewRecord()
	rec.Time = p.start
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
	rec.Sandbox = audit.Sandbox{
		Backend: out.Sandbox.Backend,
		Mode:    pol.Mode,
		Level:   out.Sandbox.Level,
		Weak:    out.Sandbox.Weak || pol.Mode == "permissive",
	}
	if rec.Sandbox.Backend == "" && p.backend != nil {
		rec.Sandbox.Backend = p.backend.Name()
	}
	rec.PolicyFP = pol.Fingerprint()
	rec.EnvStripped = p.stripped
	rec.Network.Allowed, rec.Network.Denied = p.network.summary()
	rec.ExitCode = out.ExitCode
	rec.Signal = out.Signal
	rec.DurationMS = out.Duration.Milliseconds()
	rec.TimedOut = out.TimedOut
	rec.Protected = out.Protected
	rec.Redact(p.secrets)
	return rec
}
