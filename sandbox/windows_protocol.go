package sandbox

// The Windows helper protocol, portable part (encoding, decoding), so that
// it is tested on every OS. A helper is asked
//
//	<helper> run --mode <strict|compat|permissive> --cwd <dir> --policy-json <json> -- <cmd> [<arg>...]
//
// and answers one JSON object on its stdout:
//
//	{"exit_code": N, "stdout": "…", "stderr": "…", "timed_out": false}
//
// stdout and stderr are the command's output as strings (bytes that are not
// UTF-8 become U+FFFD). Two extensions, used by safeexec's built-in helper
// (`safeexec __winhelper run …`), which any helper may ignore:
//   - "--stdio inherit --answer-file <path>": the command uses the helper's
//     own stdin, stdout and stderr (a terminal keeps working, output
//     streams), and the answer, with empty stdout and stderr, is written to
//     <path> instead of stdout;
//   - "error" in the answer: setup failed and nothing ran (exit_code 125).
//
// The command's environment is the helper's environment; it is never part
// of the request.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// winHelperArg is the hidden argv[1] that dispatches to RunWindowsHelper.
const winHelperArg = "__winhelper"

// helperPolicy is the --policy-json document.
type helperPolicy struct {
	WritableRoots []string      `json:"writable_roots"`
	DenyRead      []string      `json:"deny_read"`
	DenyWrite     []string      `json:"deny_write"`
	Network       helperNetwork `json:"network"`
	Limits        helperLimits  `json:"limits"`
	// CacheDir (safeexec's tool cache) and TempDir (the run's private
	// temporary directory) are writable in every mode.
	CacheDir string `json:"cache_dir,omitempty"`
	TempDir  string `json:"temp_dir,omitempty"`
	// TimeoutMS ends the command (and answers timed_out) after so many
	// milliseconds; 0 means no timeout.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// SID is the workspace SID the granted roots are granted to; empty
	// means the helper derives it from the user, the mode and the roots.
	SID string `json:"sid,omitempty"`
	// JournalDir is where the helper journals its ACL changes; empty
	// means %LOCALAPPDATA%\safeexec\acl-journal, where every safeexec
	// start looks for the journals of killed runs.
	JournalDir string `json:"journal_dir,omitempty"`
}

type helperNetwork struct {
	Enabled        bool `json:"enabled"`
	ProxyHTTPPort  int  `json:"proxy_http_port,omitempty"`
	ProxySOCKSPort int  `json:"proxy_socks_port,omitempty"`
}

type helperLimits struct {
	Processes  uint64 `json:"processes,omitempty"`
	MemoryMB   uint64 `json:"memory_mb,omitempty"`
	CPUSeconds uint64 `json:"cpu_seconds,omitempty"`
}

// helperRequest is one "run" request.
type helperRequest struct {
	Mode   Mode
	Cwd    string
	Policy helperPolicy
	Argv   []string
	// Inherit and AnswerFile are the streaming extension.
	Inherit    bool
	AnswerFile string
}

// helperAnswer is the helper's reply.
type helperAnswer struct {
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	TimedOut bool   `json:"timed_out"`
	Error    string `json:"error,omitempty"`
}

// helperPolicyOf turns a Policy into the request's policy document.
func helperPolicyOf(p *Policy) helperPolicy {
	return helperPolicy{
		WritableRoots: nonNilStrings(p.WritableRoots),
		DenyRead:      nonNilStrings(p.DenyRead),
		DenyWrite:     nonNilStrings(p.DenyWrite),
		Network: helperNetwork{
			Enabled:        p.Network.Enabled,
			ProxyHTTPPort:  p.Network.ProxyHTTPPort,
			ProxySOCKSPort: p.Network.ProxySOCKSPort,
		},
		Limits:   helperLimits{Processes: p.Limits.Processes, CPUSeconds: p.Limits.CPUSeconds},
		CacheDir: p.CacheDir,
	}
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// args renders the request as the helper's arguments (after the helper's
// own name, and after "__winhelper" for the built-in one).
func (r *helperRequest) args() ([]string, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	pj, err := json.Marshal(r.Policy)
	if err != nil {
		return nil, fmt.Errorf("helper request: %w", err)
	}
	args := []string{"run", "--mode", string(r.Mode), "--cwd", r.Cwd, "--policy-json", string(pj)}
	if r.Inherit {
		args = append(args, "--stdio", "inherit", "--answer-file", r.AnswerFile)
	}
	return append(append(args, "--"), r.Argv...), nil
}

func (r *helperRequest) check() error {
	switch r.Mode {
	case Strict, Compat, Permissive:
	default:
		return fmt.Errorf("helper request: unknown mode %q (want strict, compat or permissive)", r.Mode)
	}
	if r.Cwd == "" {
		return errors.New("helper request: no working directory")
	}
	if len(r.Argv) == 0 || r.Argv[0] == "" {
		return errors.New("helper request: no command")
	}
	if r.Inherit && r.AnswerFile == "" {
		return errors.New("helper request: --stdio inherit needs --answer-file")
	}
	if r.Policy.TimeoutMS < 0 {
		return errors.New("helper request: negative timeout")
	}
	if r.Policy.SID != "" && !ownSID(r.Policy.SID) {
		// Recovery removes only ACEs of safeexec's own SIDs.
		return fmt.Errorf("helper request: sid %q is not a workspace SID (S-1-15-3-%d-…)", r.Policy.SID, workspaceSIDMark)
	}
	return nil
}

// parseHelperArgs reads a request; args start with "run".
func parseHelperArgs(args []string) (*helperRequest, error) {
	if len(args) == 0 || args[0] != "run" {
		return nil, errors.New(`helper: usage: run --mode <m> --cwd <dir> --policy-json <json> -- <cmd>...`)
	}
	r := &helperRequest{}
	seen := map[string]bool{}
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "--") {
			return nil, fmt.Errorf("helper: unexpected argument %q before --", a)
		}
		name, val, hasVal := strings.Cut(a[2:], "=")
		if !hasVal {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("helper: --%s needs a value", name)
			}
			i++
			val = args[i]
		}
		if seen[name] {
			return nil, fmt.Errorf("helper: --%s given twice", name)
		}
		seen[name] = true
		switch name {
		case "mode":
			r.Mode = Mode(val)
		case "cwd":
			r.Cwd = val
		case "policy-json":
			dec := json.NewDecoder(bytes.NewReader([]byte(val)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&r.Policy); err != nil {
				return nil, fmt.Errorf("helper: --policy-json: %w", err)
			}
			if dec.More() {
				return nil, errors.New("helper: --policy-json: trailing data")
			}
		case "stdio":
			if val != "inherit" {
				return nil, fmt.Errorf("helper: --stdio %q (only inherit)", val)
			}
			r.Inherit = true
		case "answer-file":
			r.AnswerFile = val
		default:
			return nil, fmt.Errorf("helper: unknown option --%s", name)
		}
	}
	for _, req := range []string{"mode", "cwd", "policy-json"} {
		if !seen[req] {
			return nil, fmt.Errorf("helper: --%s is required", req)
		}
	}
	r.Argv = args[i:]
	if err := r.check(); err != nil {
		return nil, err
	}
	return r, nil
}

// encodeHelperAnswer is the answer as the helper prints it: one line.
func encodeHelperAnswer(a helperAnswer) []byte {
	b, err := json.Marshal(a)
	if err != nil {
		// Marshal of this struct cannot fail; keep the protocol anyway.
		b = []byte(`{"exit_code":125,"stdout":"","stderr":"","timed_out":false,"error":"helper: encode answer"}`)
	}
	return append(b, '\n')
}

// decodeHelperAnswer reads a helper's answer; every field of the protocol
// must be there, so a crashed or foreign helper is not mistaken for a
// command that exited 0.
func decodeHelperAnswer(b []byte) (helperAnswer, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return helperAnswer{}, fmt.Errorf("helper answer: %w", err)
	}
	for _, k := range []string{"exit_code", "stdout", "stderr", "timed_out"} {
		if _, ok := raw[k]; !ok {
			return helperAnswer{}, fmt.Errorf("helper answer: no %q", k)
		}
	}
	var a helperAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		return helperAnswer{}, fmt.Errorf("helper answer: %w", err)
	}
	return a, nil
}
