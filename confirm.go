package safeexec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode"

	"mvdan.cc/sh/v3/syntax"

	"github.com/safeexec/safeexec/approval"
	"github.com/safeexec/safeexec/configs"
	"github.com/safeexec/safeexec/risk"
)

// EnvSession names the environment variable an agent sets once per
// conversation to scope "allow for this session" answers.
const EnvSession = "SAFEEXEC_SESSION"

// SessionTTL is how long an "allow for this session" answer lasts.
const SessionTTL = 24 * time.Hour

// AgentApprovalTTL is how long the one-time approval a hook leaves for
// the run that follows stays valid: the time the agent's user has to
// answer the agent's own question.
const AgentApprovalTTL = 10 * time.Minute

// ApprovalText is the command as an agent's hook sees it and as approvals
// name it: the command inside a recognised agent wrapper (what Claude
// Code's hook was shown), else the script, else argv quoted.
func ApprovalText(req *Request, v risk.Verdict) string {
	switch {
	case v.WrapperCommand != "":
		return v.WrapperCommand
	case req.IsScript:
		return req.Script
	}
	return quoteArgv(req.Argv)
}

// Approvals returns the store of agent and session approvals for pol, and
// whether it may be used: only while the policy keeps safeexec's state
// directory unreadable and unwritable inside the sandbox, so that a
// sandboxed command can neither read an approval nor plant one.
func Approvals(pol *configs.Effective) (approval.Store, bool) {
	st := approval.Store{Dir: pol.StateDir}
	if pol.StateDir == "" {
		return st, false
	}
	return st, covered(pol.DenyRead, pol.StateDir) && covered(pol.DenyWrite, pol.StateDir)
}

// covered reports whether an absolute entry of list is path or above it.
func covered(list []string, path string) bool {
	for _, e := range list {
		if filepath.IsAbs(e) && within(filepath.Clean(e), path) {
			return true
		}
	}
	return false
}

// confirm decides a needs_confirmation command that no rule and no flag
// approved: an agent's one-time approval, the session's, else a human.
func (p *pipeline) confirm() error {
	req, v := p.req, p.out.Verdict
	why := describeReasons(v, risk.NeedsConfirmation)
	text := ApprovalText(req, v)
	session := envValue(req.Environ, EnvSession)
	store, usable := Approvals(req.Policy)
	if usable {
		if agent, ok := store.Consume(req.Cwd, text); ok {
			p.out.Decision, p.out.ApprovedBy = Confirmed, "agent"
			p.req.notef("running it: %s approved it when %s's hook asked", agentUser(agent), agent)
			return nil
		}
		if store.SessionAllows(session, req.Cwd, text) {
			p.out.Decision, p.out.ApprovedBy = Confirmed, "session"
			return nil
		}
	}
	if req.Prompter == nil || req.Policy.PromptChannel == "none" {
		return p.deny(why + " — no terminal to ask; approve with --yes, or add an allow rule to your config")
	}
	q := Question{
		Command: p.pasteable(),
		Verdict: v,
		Sandbox: p.backend.Name(),
		Mode:    req.Policy.Mode,
		Timeout: req.Policy.PromptTimeout,
	}
	if usable {
		q.Session = session
	}
	if q.Always = p.alwaysRules(text); len(q.Always) > 0 {
		q.AlwaysFile = p.userConfigFile()
	}
	ans, err := req.Prompter.Confirm(q)
	var ie *InterruptedError
	switch {
	case errors.As(err, &ie):
		p.out.Decision = Denied
		p.out.ExitCode = 128 + signalNumber(ie.Signal)
		return &RefusedError{Decision: Denied, Verdict: v, Why: why + " — " + ie.Error(), Interrupted: ie.Signal}
	case errors.Is(err, ErrNoHuman):
		return p.deny(why + " — " + noHumanWhy(err) + "; approve with --yes, or add an allow rule to your config")
	case errors.Is(err, ErrNoAnswer):
		return p.deny(fmt.Sprintf("%s — no answer within %v", why, q.Timeout))
	case err != nil:
		return p.deny(why + " — the prompt failed (" + err.Error() + "); approve with --yes, or add an allow rule to your config")
	}
	switch ans {
	case AllowOnce:
	case AllowAlways:
		if len(q.Always) == 0 {
			return p.deny(why + " — not confirmed")
		}
		added, err := configs.AddAllowRules(q.AlwaysFile, q.Always)
		switch {
		case err != nil:
			p.req.notef("%v", err)
		case len(added) > 0:
			p.req.notef("added the allow rule %s to %s: it runs without asking from now on", quoteList(added), q.AlwaysFile)
		}
	case AllowSession:
		if q.Session == "" {
			return p.deny(why + " — not confirmed")
		}
		if err := store.AllowInSession(q.Session, req.Cwd, text, SessionTTL); err != nil {
			p.req.notef("%v", err)
		}
	default:
		return p.deny(why + " — not confirmed")
	}
	p.out.Decision, p.out.ApprovedBy = Confirmed, "tty"
	return nil
}

func noHumanWhy(err error) string {
	if s := strings.TrimPrefix(err.Error(), ErrNoHuman.Error()+": "); s != err.Error() && s != "" {
		return "no terminal to ask (" + s + ")"
	}
	return "no terminal to ask"
}

func agentUser(agent string) string {
	if agent == "" {
		return "the agent's user"
	}
	return "the user of " + agent
}

func quoteList(rules []string) string {
	q := make([]string, len(rules))
	for i, r := range rules {
		q[i] = fmt.Sprintf("%q", r)
	}
	return strings.Join(q, ", ")
}

func signalNumber(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return int(n)
	}
	return 0
}

func envValue(environ []string, name string) string {
	v := ""
	for _, kv := range environ {
		if s, ok := strings.CutPrefix(kv, name+"="); ok {
			v = s
		}
	}
	return v
}

// userConfigFile is the user's own config: the file that was read, else
// where it would be read from.
func (p *pipeline) userConfigFile() string {
	pol := p.req.Policy
	if pol.UserFile != "" {
		return pol.UserFile
	}
	if v := envValue(p.req.Environ, configs.EnvConfig); v != "" && filepath.IsAbs(v) {
		return v
	}
	return filepath.Join(pol.ConfigDir, "config.toml")
}

// alwaysRules returns exact allow rules that would approve this command
// from now on, checked by classifying it again with them; nil when none
// would (a reason no rule can lift, a part no rule can name).
func (p *pipeline) alwaysRules(text string) []string {
	if filepath.Base(p.userConfigFile()) == configs.ProjectFile {
		return nil
	}
	var fromReasons []string
	for _, r := range p.out.Verdict.Reasons {
		if r.Tier != risk.NeedsConfirmation || r.Command == "" || strings.HasSuffix(r.Command, "...") {
			continue
		}
		if !containsString(fromReasons, r.Command) {
			fromReasons = append(fromReasons, r.Command)
		}
	}
	for _, rules := range [][]string{fromReasons, {text}} {
		if len(rules) > 0 && p.rulesApprove(rules) {
			return rules
		}
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// rulesApprove reports whether the command would be approved with rules
// added to the user's allow rules.
func (p *pipeline) rulesApprove(rules []string) bool {
	for _, r := range rules {
		if strings.TrimSpace(r) != r || r == "" || strings.ContainsAny(r, "\x00\n") {
			return false
		}
	}
	pol := *p.req.Policy
	pol.RulesAllow = append(append([]string(nil), pol.RulesAllow...), rules...)
	rc := riskContext(&pol, p.req.Cwd, p.home, p.env, p.sandboxed)
	var v risk.Verdict
	if p.req.IsScript {
		v = risk.ClassifyScript(p.req.Script, rc)
	} else {
		v = risk.ClassifyArgv(p.req.Argv, rc)
	}
	// Approved by the rules, or (where rules lift the reasons their own
	// words cause) nothing left to confirm.
	return (v.AllowedByRule && v.Tier < risk.Risky) || v.Tier == risk.Safe
}

// pasteable renders the command so that it can be pasted into a shell: an
// argv quoted word by word; a script as it is when it is one line of
// printable text, else as bash -c $'…' with every other character
// escaped, so that nothing in it can hide from or act on the terminal.
func (p *pipeline) pasteable() string {
	if !p.req.IsScript {
		return quoteArgv(p.req.Argv)
	}
	s := p.req.Script
	plain := true
	for _, r := range s {
		if r == '\t' || (!unicode.IsPrint(r) && r != ' ') {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return quoteArgv([]string{"bash", "-c", s})
	}
	return "bash -c " + q
}
