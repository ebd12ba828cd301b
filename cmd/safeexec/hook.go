package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"

	"github.com/urfave/cli/v2"

	"github.com/safeexec/safeexec"
	"github.com/safeexec/safeexec/audit"
	"github.com/safeexec/safeexec/risk"
)

// maxHookInput bounds what a hook reads from the agent.
const maxHookInput = 4 << 20

func (e *env) hookCommand() *cli.Command {
	return &cli.Command{
		Name:      "hook",
		Usage:     "answer an agent's pre-tool-use hook (JSON on stdin, decision on stdout); install sets it up",
		ArgsUsage: "claude|codex|gemini | install claude|codex|gemini [--project] [--write]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "sandbox", Usage: "classify as if this backend (or none) confined the command; default: the one safeexec would use"},
		},
		Action:      e.hookAction,
		Subcommands: []*cli.Command{e.hookInstallCommand()},
	}
}

// hookInput is the part of the agents' hook payloads safeexec reads.
type hookInput struct {
	ToolName  string `json:"tool_name"`
	Cwd       string `json:"cwd"`
	ToolInput struct {
		Command json.RawMessage `json:"command"`
	} `json:"tool_input"`
}

// hookDecision is safeexec's answer before it is put in an agent's shape.
type hookDecision struct {
	decision string // allow, ask, deny
	reason   string
}

func (e *env) hookAction(c *cli.Context) error {
	agent := c.Args().First()
	if c.NArg() != 1 || (agent != "claude" && agent != "codex" && agent != "gemini") {
		return exitf(safeexec.ExitCodeError, "hook needs one of: claude, codex, gemini")
	}
	d, skip := e.hookDecide(c, agent)
	if skip {
		return nil
	}
	switch agent {
	case "claude":
		out := map[string]any{"hookSpecificOutput": map[string]string{
			"hookEventName":            "PreToolUse",
			"permissionDecision":       d.decision,
			"permissionDecisionReason": d.reason,
		}}
		return json.NewEncoder(e.stdout).Encode(out)
	case "gemini":
		// Gemini CLI knows allow and deny only; what needs a human is denied
		// with the reason, so the agent can ask its user.
		dec := d.decision
		if dec == "ask" {
			dec = "deny"
		}
		return json.NewEncoder(e.stdout).Encode(map[string]string{"decision": dec, "reason": d.reason})
	default: // codex: only a deny with a reason is understood (exit 2, reason on stderr)
		if d.decision == "allow" {
			return nil
		}
		return exitf(2, "%s", d.reason)
	}
}

// hookDecide reads the payload and classifies its command. skip is true
// when the tool is not a shell command (no opinion).
func (e *env) hookDecide(c *cli.Context, agent string) (d hookDecision, skip bool) {
	data, err := io.ReadAll(io.LimitReader(e.stdin, maxHookInput+1))
	if err != nil || len(data) > maxHookInput {
		return hookDecision{"deny", "safeexec: could not read the hook input"}, false
	}
	var in hookInput
	if err := json.Unmarshal(data, &in); err != nil {
		return hookDecision{"deny", "safeexec: hook input is not valid JSON: " + err.Error()}, false
	}
	if len(in.ToolInput.Command) == 0 {
		switch in.ToolName {
		case "Bash", "PowerShell", "shell", "local_shell", "exec_command", "run_shell_command", "container.exec":
			return hookDecision{"deny", "safeexec: shell tool call without a command"}, false
		}
		return hookDecision{}, true
	}
	req := &safeexec.Request{Cwd: e.cwd, Environ: e.environ}
	if in.Cwd != "" && filepath.IsAbs(in.Cwd) {
		req.Cwd = filepath.Clean(in.Cwd)
	}
	var script string
	var argv []string
	if err := json.Unmarshal(in.ToolInput.Command, &script); err == nil {
		req.Script, req.IsScript = script, true
		req.Shell = hookShell(agent, in.ToolName, runtime.GOOS)
	} else if err := json.Unmarshal(in.ToolInput.Command, &argv); err == nil && len(argv) > 0 {
		req.Argv = argv
	} else {
		return hookDecision{"deny", "safeexec: tool_input.command is neither a string nor a list of strings"}, false
	}
	pol, err := e.loadPolicy(c)
	if err != nil {
		return hookDecision{"deny", "safeexec: " + err.Error()}, false
	}
	req.Policy = pol
	// Only when safeexec is also the agent's shell prefix does the command
	// run in a sandbox; a hook alone judges it as unconfined, so it never
	// says "allow" for a command that would run with no sandbox at all.
	backend := "none"
	if pol.PrefixFor(agent) && prefixWraps(agent, in.ToolName) {
		backend = assumedBackend(pol)
	}
	v := safeexec.Classify(req, backend)
	d = hookVerdict(v, backend, unconfinedWhy(agent, in.ToolName, pol.PrefixFor(agent)))
	if d.decision == "ask" {
		if agent == "claude" {
			if backend != "none" {
				e.grantAgentApproval(req, v)
			}
		} else {
			// Codex and Gemini CLI cannot ask their user from a hook.
			d = hookDecision{"deny", d.reason + " — " + agentName(agent) + " cannot ask you from a hook: run it yourself, or allow it with an allow rule in your safeexec config"}
		}
	}
	decision := map[string]string{"allow": audit.DecisionAllowed, "ask": audit.DecisionAsked, "deny": audit.DecisionDenied}[d.decision]
	if v.Tier == risk.Risky && !v.AllowedByRule {
		decision = audit.DecisionBlocked
	}
	if err := safeexec.RecordDecision(req, audit.KindHook, agent, v, decision, backend); err != nil && d.decision != "deny" {
		// No record, no run.
		return hookDecision{"deny", "safeexec: cannot record the decision (" + err.Error() + "); nothing may run unrecorded"}, false
	}
	return d, false
}

// hookShell is the shell an agent runs a tool's command string in, so
// that the hook judges the command in that shell's language (not in
// [run] shell's): Claude Code's Bash tool runs bash (Git for Windows'
// bash on Windows) and its PowerShell tool (Windows) PowerShell; Codex
// runs commands in the user's shell, PowerShell on Windows; Gemini CLI
// runs bash -c, and powershell.exe -Command on Windows.
func hookShell(agent, tool, goos string) string {
	switch {
	case agent == "claude" && tool == "PowerShell":
		return safeexec.ShellPowerShell
	case agent == "claude":
		return safeexec.ShellBash
	case goos == "windows":
		return safeexec.ShellPowerShell
	}
	return safeexec.ShellBash
}

// prefixWraps reports whether the agent's shell prefix runs the tool's
// commands. Claude Code documents CLAUDE_CODE_SHELL_PREFIX for its Bash
// tool only: its PowerShell tool's commands are judged as unconfined.
func prefixWraps(agent, tool string) bool {
	return agent != "claude" || tool != "PowerShell"
}

// hookVerdict turns a verdict into the hook's answer. why says why the
// command would run unconfined (backend "none").
func hookVerdict(v risk.Verdict, backend, why string) hookDecision {
	switch {
	case v.AllowedByRule && backend == "none":
		// The rule approves a run through safeexec; this one would have
		// no sandbox at all, so a person decides.
		return hookDecision{"ask", "safeexec: your allow rules approve it, but it would run unconfined (" + why + ")"}
	case v.AllowedByRule:
		return hookDecision{"allow", "safeexec: approved by your allow rules"}
	case v.Tier == risk.Safe && backend == "none":
		// Nothing a sandbox would have confined is safe to run without one
		// (the classifier says no-sandbox; this guards that promise here).
		return hookDecision{"ask", "safeexec: it would run unconfined (" + why + ")"}
	case v.Tier == risk.Safe:
		return hookDecision{"allow", "safeexec: safe"}
	case v.Tier == risk.Risky:
		return hookDecision{"deny", fmt.Sprintf("safeexec: refused (risky): %s", reasonsLine(v))}
	}
	reason := "safeexec: needs confirmation: " + reasonsLine(v)
	if backend == "none" {
		reason += " (the command would run unconfined: " + why + ")"
	}
	return hookDecision{"ask", reason}
}

// unconfinedWhy says why an agent's command would run outside safeexec's
// sandbox, and what to do about it.
func unconfinedWhy(agent, tool string, prefix bool) string {
	if prefix && !prefixWraps(agent, tool) {
		return agentName(agent) + "'s " + tool + " tool does not run through its shell prefix"
	}
	return "safeexec is not " + agentName(agent) + "'s shell prefix here; `safeexec hook install " + agent + "` sets both up"
}

func agentName(agent string) string {
	return map[string]string{"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}[agent]
}

// grantAgentApproval leaves a one-time approval of the command for the
// prefix run that follows when the agent's user approves it; it only
// matters (and is only left) when safeexec is the agent's prefix too.
func (e *env) grantAgentApproval(req *safeexec.Request, v risk.Verdict) {
	if !req.Policy.PrefixFor("claude") {
		return
	}
	store, ok := safeexec.Approvals(req.Policy)
	if !ok {
		fmt.Fprintf(e.stderr, "safeexec: the state directory %s is not protected from sandboxed commands by your policy, so no approval is left for the run; the run will refuse the command\n", req.Policy.StateDir)
		return
	}
	if err := store.Grant(req.Cwd, safeexec.ApprovalText(req, v), "claude", safeexec.AgentApprovalTTL); err != nil {
		fmt.Fprintf(e.stderr, "safeexec: %v\n", err)
	}
}

func reasonsLine(v risk.Verdict) string {
	s := ""
	for i, r := range v.Reasons {
		if i > 0 {
			s += "; "
		}
		s += r.Detail + " [" + r.Rule + "]"
	}
	return s
}
