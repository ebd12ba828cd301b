package safeexec

import (
	"encoding/base64"
	"errors"
	"unicode/utf8"

	"github.com/safeexec/safeexec/risk"
)

// Result is the outcome of one run as a program reads it: what `safeexec
// --json` and `safeexec helper run` print, one JSON object. Its first four
// fields are the seed's sandbox-helper answer.
type Result struct {
	ExitCode int `json:"exit_code"`
	// Stdout and Stderr are the command's output: text when it is valid
	// UTF-8, otherwise standard base64 with StdoutBase64/StderrBase64 set.
	Stdout       string `json:"stdout"`
	StdoutBase64 bool   `json:"stdout_base64,omitempty"`
	Stderr       string `json:"stderr"`
	StderrBase64 bool   `json:"stderr_base64,omitempty"`
	TimedOut     bool   `json:"timed_out"`
	// Truncated says older output was dropped to keep within the output
	// limit (in either stream).
	Truncated bool `json:"truncated"`
	// Tier, Reasons and Decision say how the command was judged; Tier and
	// Decision are "" when safeexec failed before judging it.
	Tier     string        `json:"tier"`
	Reasons  []risk.Reason `json:"reasons"`
	Decision string        `json:"decision"`
	// Sandbox is the backend that confined the command ("none":
	// unconfined; "" when none was chosen).
	Sandbox    string `json:"sandbox"`
	DurationMS int64  `json:"duration_ms"`
	// ApprovedBy says who approved a command the verdict alone would not
	// let run ("rule", "tty", "flag", "session", "agent"); Approved lists
	// the reasons the user's allow rules lifted (as check --json does).
	ApprovedBy string          `json:"approved_by,omitempty"`
	Approved   []risk.Approval `json:"approved,omitempty"`
	// Error is set when the command did not run to completion because of
	// safeexec: its own failure (exit_code 125) or a refusal (126).
	Error string `json:"error,omitempty"`
}

// NewResult builds the Result of a run from what Run returned and the
// captured streams (either may be nil).
func NewResult(out *Outcome, err error, stdout, stderr *Capture) Result {
	r := Result{Reasons: []risk.Reason{}}
	if out != nil {
		r.ExitCode = out.ExitCode
		r.TimedOut = out.TimedOut
		r.Tier = out.Verdict.Tier.String()
		if len(out.Verdict.Reasons) > 0 {
			r.Reasons = out.Verdict.Reasons
		}
		r.Decision = string(out.Decision)
		r.Sandbox = out.Sandbox.Backend
		r.DurationMS = out.Duration.Milliseconds()
		r.ApprovedBy, r.Approved = out.ApprovedBy, out.Verdict.Approved
	}
	if err != nil {
		r.Error = err.Error()
		var re *RefusedError
		switch {
		case errors.As(err, &re):
			r.ExitCode = ExitCodeRefused
		case out == nil || out.ExitCode == 0:
			r.ExitCode = ExitCodeError
		}
	}
	if stdout != nil {
		r.Stdout, r.StdoutBase64 = textOrBase64(stdout.Bytes())
		r.Truncated = stdout.Truncated()
	}
	if stderr != nil {
		r.Stderr, r.StderrBase64 = textOrBase64(stderr.Bytes())
		r.Truncated = r.Truncated || stderr.Truncated()
	}
	return r
}

// ErrorResult is the Result when safeexec failed before anything ran.
func ErrorResult(err error) Result {
	return NewResult(nil, err, nil, nil)
}

func textOrBase64(b []byte) (string, bool) {
	if utf8.Valid(b) {
		return string(b), false
	}
	return base64.StdEncoding.EncodeToString(b), true
}
