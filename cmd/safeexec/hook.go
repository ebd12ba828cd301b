package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/safeexec/safeexec"
	"github.com/safeexec/safeexec/risk"
)

// maxHookInput bounds what a hook reads from the agent.
const maxHookInput = 4 << 20

func (e *env) hookCommand() *cli.Command {
	return &cli.Command{
		Name:      "hook",
		Usage:     "answer an agent's pre-tool-use hook (JSON on stdin, decision on stdout)",
		ArgsUsage: "claude|codex|gemini",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "sandbox", Usage: "classify as if this backend (or none) confined the command; default: the one safeexec would use"},
		},
		Action: e.hookAction,
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
	d, skip := e.hookDecide(c)
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
func (e *env) hookDecide(c *cli.Context) (d hookDecision, skip bool) {
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
		case "Bash", "shell", "local_shell", "exec_command", "run_shell_command", "container.exec":
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
	v := safeexec.Classify(req, assumedBackend(pol))
	switch {
	case v.AllowedByRule:
		return hookDecision{"allow", "safeexec: approved by your allow rules"}, false
	case v.Tier == risk.Safe:
		return hookDecision{"allow", "safeexec: safe"}, false
	case v.Tier == risk.Risky:
		return hookDecision{"deny", fmt.Sprintf("safeexec: refused (risky): %s", reasonsLine(v))}, false
	default:
		return hookDecision{"ask", fmt.Sprintf("safeexec: needs confirmation: %s", reasonsLine(v))}, false
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
