package safeexec

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/safeexec/safeexec/risk"
)

// runnerFileVars name the files a CI runner reads back after a step:
// GitHub Actions' environment, outputs, PATH additions and job summary.
var runnerFileVars = []string{"GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY"}

// RunnerFiles returns the runner protocol files named in environ
// ($GITHUB_ENV, $GITHUB_OUTPUT, $GITHUB_PATH, $GITHUB_STEP_SUMMARY) that
// exist as regular files (not symbolic links) at absolute paths. A CI run
// makes them writable, so a step's `echo k=v >> "$GITHUB_OUTPUT"` works
// and is judged safe; nothing else beside them becomes writable.
func RunnerFiles(environ []string) []string {
	var out []string
	for _, name := range runnerFileVars {
		p := lookup(environ, name)
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

// RunnerTemp returns the CI runner's temporary directory ($RUNNER_TEMP),
// where GitHub Actions writes the script of each `run:` step, when it is
// an existing directory; "" otherwise. A CI run may read (never write)
// scripts there: see Request.ReadDirs.
func RunnerTemp(environ []string) string {
	p := lookup(environ, "RUNNER_TEMP")
	if p == "" || !filepath.IsAbs(p) {
		return ""
	}
	p = filepath.Clean(p)
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() || p == "/" {
		return ""
	}
	return p
}

func lookup(environ []string, name string) string {
	v := ""
	for _, kv := range environ {
		if val, ok := strings.CutPrefix(kv, name+"="); ok {
			v = val
		}
	}
	return v
}

// ciRefusal rewrites a refusal for a CI log: one line, naming the allow
// rule that would approve the command, or saying that none can.
func (p *pipeline) ciRefusal(err error) {
	var re *RefusedError
	if !p.req.CI || !errors.As(err, &re) {
		return
	}
	want := risk.NeedsConfirmation
	if re.Decision == Blocked {
		want = risk.Risky
	}
	why := describeReasons(re.Verdict, want) + " — "
	if re.Decision == Denied {
		why += "CI is set, so nobody is asked; "
	}
	if rules := p.suggestAllow(); len(rules) > 0 {
		b, _ := json.Marshal(rules)
		why += "to allow it, add to your safeexec config: [rules] allow = " + string(b)
	} else {
		why += "no allow rule can approve it (a reason comes from a redirection, a pipe, an assignment or a value only known at run time): change the command"
	}
	re.Why = strings.NewReplacer("\r\n", "⏎", "\n", "⏎", "\r", "⏎").Replace(why)
}

// suggestAllow finds the exact allow rules that would approve the request.
func (p *pipeline) suggestAllow() []string {
	req := p.req
	rc := withReadDirs(riskContext(req.Policy, req.Cwd, p.home, p.env, p.sandboxed), req)
	if req.IsScript {
		return risk.SuggestAllowScript(req.Script, rc)
	}
	return risk.SuggestAllowArgv(req.Argv, rc)
}
