package risk

import (
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// A user rule is a command prefix: its words (split like a shell would)
// must equal the first words of a normalised command. "npm publish"
// matches "npm publish --tag next" but not "npm publisher"; "git push
// origin main" matches "git push origin main --tags". A rule matches the
// command as run after transparent wrappers (env, nice, timeout, …) are
// peeled off, and also the command with its wrappers, so a deny rule for
// "rm" catches "nice rm" and an allow rule for "sudo apt update" can
// allow exactly that.

type pattern struct {
	text  string
	words []string
}

func compile(rules []string) []pattern {
	out := make([]pattern, 0, len(rules))
	for _, r := range rules {
		ws := splitPattern(r)
		if len(ws) == 0 {
			continue
		}
		out = append(out, pattern{text: r, words: ws})
	}
	return out
}

func splitPattern(s string) []string {
	return shell.SplitWords(strings.TrimSpace(s))
}

// candidates are the word lists a command is matched as.
func candidates(c *shell.Command) [][]string {
	inner := c.Values()
	if len(c.Wrappers) == 0 {
		return [][]string{inner}
	}
	var full []string
	for _, w := range c.Wrappers {
		full = append(full, w.Name)
		for _, a := range w.Args {
			full = append(full, a.Value)
		}
	}
	full = append(full, inner...)
	return [][]string{inner, full}
}

func (p pattern) match(words []string) bool {
	if len(words) < len(p.words) {
		return false
	}
	for i, w := range p.words {
		if i == 0 {
			if shell.CommandName(words[0]) != w && words[0] != w {
				return false
			}
			continue
		}
		if words[i] != w {
			return false
		}
	}
	return true
}

func firstMatch(ps []pattern, c *shell.Command) (string, bool) {
	for _, cand := range candidates(c) {
		for _, p := range ps {
			if p.match(cand) {
				return p.text, true
			}
		}
	}
	return "", false
}

// userRules applies deny and confirm rules.
func (j *judge) userRules(prog *shell.Program) {
	r := j.env.c.Rules
	if len(r.Deny) == 0 && len(r.Confirm) == 0 {
		return
	}
	deny, confirm := compile(r.Deny), compile(r.Confirm)
	for _, c := range prog.Commands {
		if len(c.Args) == 0 {
			continue
		}
		if p, ok := firstMatch(deny, c); ok {
			j.hit(c, ruleUserDeny, "matches the deny rule %q", p)
			continue
		}
		if p, ok := firstMatch(confirm, c); ok {
			j.hit(c, ruleUserConfirm, "matches the confirm rule %q", p)
		}
	}
}

// privileged wrappers must be part of an allow rule to be allowed.
var privilegedWrappers = map[string]bool{"sudo": true, "doas": true, "pkexec": true, "run0": true, "runuser": true, "exec": true, "systemd-run": true, "chroot": true, "nsenter": true, "unshare": true}

// allowRules reports whether every command of the program is allowed by
// the user's allow rules, and which rules were used. Commands that only
// carry nested code (bash -c '…', eval '…' whose content was analysed)
// need no rule of their own: their content does. eval is not such a
// carrier: it needs a rule of its own. A deny match, a parse
// problem or a command whose name is dynamic is never allowed.
func (j *judge) allowRules(prog *shell.Program) (bool, []string) {
	r := j.env.c.Rules
	if len(r.Allow) == 0 || len(prog.Commands) == 0 || len(prog.Issues) > 0 {
		return false, nil
	}
	for _, rs := range j.reasons {
		if rs.Rule == ruleUserDeny.String() {
			return false, nil
		}
	}
	allow := compile(r.Allow)
	used := map[string]bool{}
	var order []string
	for _, c := range prog.Commands {
		if !j.redirsFine(c) {
			// An allow rule covers a command's words, not writes its
			// redirections make outside the roots or to protected places.
			return false, nil
		}
		if len(c.Args) == 0 {
			continue
		}
		if c.Args[0].Dynamic {
			return false, nil
		}
		if c.Origin == shell.Maybe {
			continue
		}
		if carrier(c) {
			continue
		}
		matched := ""
		inner := c.Values()
		for _, p := range allow {
			if p.match(inner) && !hasPrivileged(c) {
				matched = p.text
				break
			}
		}
		if matched == "" && len(c.Wrappers) > 0 {
			full := candidates(c)[1]
			for _, p := range allow {
				if p.match(full) {
					matched = p.text
					break
				}
			}
		}
		if matched == "" {
			return false, nil
		}
		if !used[matched] {
			used[matched] = true
			order = append(order, matched)
		}
	}
	if len(order) == 0 {
		return false, nil
	}
	return true, order
}

func hasPrivileged(c *shell.Command) bool {
	for _, w := range c.Wrappers {
		if privilegedWrappers[w.Name] {
			return true
		}
	}
	return false
}

// carrier reports whether a command only hands fully analysed code to a
// shell (sh -c 'literal', eval 'literal', a read script).
func carrier(c *shell.Command) bool {
	if c.Script == nil || !c.Script.Known || c.Script.Taint != 0 || len(c.Redirs) > 0 || len(c.Wrappers) > 0 {
		return false
	}
	n := c.Name()
	return shell.IsShell(n) || n == "source" || n == "."
}

// redirsFine reports whether every file a command's redirections write to
// is an ordinary path inside the roots.
func (j *judge) redirsFine(c *shell.Command) bool {
	for _, r := range c.Redirs {
		if !r.Writes() {
			continue
		}
		if r.Target.Dynamic {
			return false
		}
		p, ok := j.env.resolve(c, r.Target)
		if !ok {
			return false
		}
		if kind, _ := j.env.writeKind(p); kind != pathFine {
			return false
		}
	}
	return true
}
