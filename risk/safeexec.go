package risk

import (
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// A nested safeexec that would loosen the policy.

var safeexecJudges = map[string]judgeFunc{
	"safeexec": func(j *judge, c *shell.Command) { j.safeexec(c) },
}

// safeexec flags a nested safeexec that would loosen the policy.
func (j *judge) safeexec(c *shell.Command) {
	args := c.Args
	for _, w := range c.Wrappers {
		if w.Name != "env" {
			continue
		}
		for i, a := range w.Args {
			v := a.Value
			unset := ""
			switch {
			case v == "-i" || v == "--ignore-environment" || v == "-" || len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsRune(v, 'i') && !strings.ContainsAny(v, "uCS"):
				j.hit(c, ruleNestedSafeexec, "env %s clears the variables that set the policy of a nested safeexec", v)
			case (v == "-u" || v == "--unset") && i+1 < len(w.Args):
				unset = w.Args[i+1].Value
			case strings.HasPrefix(v, "--unset="):
				unset = v[len("--unset="):]
			case strings.HasPrefix(v, "-u") && len(v) > 2:
				unset = v[2:]
			}
			if unset != "" && policyVar(unset) {
				j.hit(c, ruleNestedSafeexec, "env -u %s changes the policy of a nested safeexec", unset)
			}
		}
	}
	if len(args) > 2 && args[1].Value == "config" && args[2].Value == "init" {
		j.hit(c, ruleNestedSafeexec, "safeexec config init writes the user's safeexec configuration")
	}
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		if v == "--" || v == "-c" || v == "-lc" || v == "-ic" {
			break
		}
		name, val, hasVal := strings.Cut(v, "=")
		next := func() string {
			if hasVal {
				return val
			}
			if i+1 < len(args) {
				return args[i+1].Value
			}
			return ""
		}
		switch name {
		case "--sandbox":
			if next() == "none" {
				j.hit(c, ruleNestedSafeexec, "a nested safeexec would run without a sandbox")
			}
		case "--yes", "-y", "--yes-all":
			j.hit(c, ruleNestedSafeexec, "a nested safeexec would approve commands by itself (--yes)")
		case "--config":
			j.hit(c, ruleNestedSafeexec, "a nested safeexec would load another configuration")
		case "--mode":
			if next() == "permissive" {
				j.hit(c, ruleNestedSafeexec, "a nested safeexec would run in permissive mode")
			}
		case "--allow-domain", "--allow-write", "--allow-read", "--keep-env", "--network", "--no-audit", "--audit", "--prompt":
			j.hit(c, ruleNestedSafeexec, "a nested safeexec would loosen the policy (%s)", name)
		}
	}
}

// policyVar reports whether an environment variable decides which
// policy safeexec loads.
func policyVar(name string) bool {
	return strings.HasPrefix(name, "SAFEEXEC_") || name == "XDG_CONFIG_HOME" || name == "XDG_STATE_HOME" || name == "HOME"
}
