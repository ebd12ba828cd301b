package risk

import (
	"slices"
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
var privilegedWrappers = map[string]bool{"sudo": true, "doas": true, "pkexec": true, "run0": true, "runuser": true, "systemd-run": true, "chroot": true, "nsenter": true, "unshare": true}

// An allow rule approves what its own words cause, nothing more.
//
// A rule without a trailing "*" covers a command whose words are exactly
// the rule's ("rm -rf build" covers rm -rf build, not rm -rf build src): it
// lifts the reasons those words cause wherever the command stands. A
// trailing "*" ("git push *") covers commands that start with the rule's
// words: it lifts what those words cause, and the needs_confirmation
// reasons caused by the further arguments; a risky reason caused by a
// further argument (rm -rf build /usr/share/x under "rm -rf build *")
// still stands. Reasons caused by anything else than the command's words
// — redirections, what a pipe or heredoc feeds it, NAME=value in front of
// it, wrappers outside the rule — always stand, and so do deny and
// confirm rules, parse problems and findings about the whole program. The
// no-sandbox reason is lifted when every command of the program is
// covered by a rule.
//
// Which reasons the words cause is found by judging the command again
// with only those words: a reason of the command that reappears there
// (same rule, same detail) is caused by them.

// allowPattern is one allow rule.
type allowPattern struct {
	pattern
	// star: the rule ended in "*" and also covers further arguments.
	star bool
}

func compileAllow(rules []string) []allowPattern {
	out := make([]allowPattern, 0, len(rules))
	for _, r := range rules {
		t := strings.TrimSpace(r)
		star := false
		if rest, ok := strings.CutSuffix(t, "*"); ok && (rest == "" || strings.HasSuffix(rest, " ") || strings.HasSuffix(rest, "\t")) {
			star, t = true, strings.TrimSpace(rest)
		}
		ws := splitPattern(t)
		if len(ws) == 0 {
			continue // "*" alone names no command
		}
		out = append(out, allowPattern{pattern{text: r, words: ws}, star})
	}
	return out
}

// covers reports whether p covers a command with these words: its words
// all static and equal to the rule's, and no others unless p.star.
func (p allowPattern) covers(words []shell.Word, extraArgs bool) bool {
	if len(words) < len(p.words) || (!p.star && (len(words) > len(p.words) || extraArgs)) {
		return false
	}
	for i, w := range p.words {
		a := words[i]
		if a.Dynamic {
			return false
		}
		if i == 0 {
			if shell.CommandName(a.Value) != w && a.Value != w {
				return false
			}
			continue
		}
		if a.Value != w {
			return false
		}
	}
	return true
}

// fullWords are a command's words with its wrappers in front.
func fullWords(c *shell.Command) []shell.Word {
	var out []shell.Word
	for _, w := range c.Wrappers {
		out = append(out, shell.Static(w.Name))
		out = append(out, w.Args...)
	}
	return append(out, c.Args...)
}

// coverage is how an allow rule covers one command.
type coverage struct {
	rule allowPattern
	// full: the rule matched the command with its wrappers.
	full bool
}

// coveredBy finds the first allow rule that covers c. A command run
// through a privileged wrapper (sudo) is covered only by a rule that
// names the wrapper.
func coveredBy(rules []allowPattern, c *shell.Command) (coverage, bool) {
	if c.Args[0].Dynamic {
		return coverage{}, false
	}
	if !hasPrivileged(c) {
		for _, p := range rules {
			if p.covers(c.Args, c.ExtraArgs) {
				return coverage{rule: p}, true
			}
		}
	}
	if len(c.Wrappers) > 0 {
		full := fullWords(c)
		for _, p := range rules {
			if p.covers(full, c.ExtraArgs) {
				return coverage{rule: p, full: true}, true
			}
		}
	}
	return coverage{}, false
}

// wordsOnly is c with only its first n words (of the inner command, or of
// the wrappers and the inner command when full): no redirections, input,
// assignments, and no script when words were cut.
func wordsOnly(c *shell.Command, n int, full bool) *shell.Command {
	cp := *c
	cp.Redirs, cp.Assigns, cp.Stdin, cp.ExtraArgs = nil, nil, shell.Input{}, false
	if c.Script != nil && c.Script.Kind == shell.ScriptStdin {
		cp.Script = nil // its program comes through the input
	}
	cut := false
	if !full {
		cp.Wrappers = nil
		cut = n < len(c.Args)
		cp.Args = c.Args[:min(n, len(c.Args))]
	} else {
		cp.Wrappers = nil
		left := n
		for _, w := range c.Wrappers {
			if left == 0 {
				cut = true
				break
			}
			left--
			k := min(left, len(w.Args))
			cut = cut || k < len(w.Args)
			cp.Wrappers = append(cp.Wrappers, shell.Wrapper{Name: w.Name, Args: w.Args[:k]})
			left -= k
		}
		cut = cut || left < len(c.Args)
		cp.Args = c.Args[:min(left, len(c.Args))]
	}
	if cut {
		cp.Script = nil
	}
	return &cp
}

// reasonsOf judges one command alone.
func (j *judge) reasonsOf(c *shell.Command) []Reason {
	sub := &judge{env: j.env, links: j.links}
	sub.command(c)
	return sub.reasons
}

func ruleDetail(r Reason) string { return r.Rule + "\x00" + r.Detail }

func reasonKey(r Reason) string { return r.Rule + "\x00" + r.Command + "\x00" + r.Detail }

// applyAllow lifts the reasons the user's allow rules approve (see
// allowPattern) from v and sets v.Tier, v.Approved, v.AllowRules and
// v.AllowedByRule accordingly.
func (j *judge) applyAllow(prog *shell.Program, v *Verdict) {
	r := j.env.c.Rules
	if len(r.Allow) == 0 || len(prog.Commands) == 0 || len(prog.Issues) > 0 {
		return
	}
	for _, rs := range v.Reasons {
		if rs.Rule == ruleUserDeny.String() {
			return
		}
	}
	allow := compileAllow(r.Allow)
	// For every reason a command causes: how many commands cause it, and
	// for how many of them a rule lifts it (a reason is lifted only when
	// every command that causes it is covered).
	causes, lifts := map[string]int{}, map[string]int{}
	liftedBy := map[string]string{}
	all, first := true, "" // every command covered (for no-sandbox), by first
	for _, c := range prog.Commands {
		if len(c.Args) == 0 {
			continue
		}
		cov, ok := coveredBy(allow, c)
		if !ok && c.Origin != shell.Maybe && !carrier(c) {
			all = false
		}
		own := j.reasonsOf(c)
		for _, rs := range own {
			causes[reasonKey(rs)]++
		}
		if !ok {
			continue
		}
		if first == "" {
			first = cov.rule.text
		}
		k := len(cov.rule.words)
		byWords := map[string]bool{}
		for _, rs := range j.reasonsOf(wordsOnly(c, k, cov.full)) {
			byWords[ruleDetail(rs)] = true
		}
		if cov.rule.star {
			n := len(c.Args)
			if cov.full {
				n = len(fullWords(c))
			}
			for _, rs := range j.reasonsOf(wordsOnly(c, n, cov.full)) {
				if rs.Tier <= NeedsConfirmation {
					byWords[ruleDetail(rs)] = true
				}
			}
		}
		for _, rs := range own {
			if byWords[ruleDetail(rs)] {
				lifts[reasonKey(rs)]++
				liftedBy[reasonKey(rs)] = cov.rule.text
			}
		}
	}

	var keep []Reason
	used := map[string]bool{}
	var approved []Approval
	for _, rs := range v.Reasons {
		key := reasonKey(rs)
		rule := ""
		switch {
		case rs.Rule == ruleNoSandbox.String():
			if all {
				rule = first
			}
		case causes[key] > 0 && lifts[key] == causes[key]:
			rule = liftedBy[key]
		}
		if rule == "" {
			keep = append(keep, rs)
			continue
		}
		approved = append(approved, Approval{Reason: rs, AllowRule: rule})
		if !used[rule] {
			used[rule] = true
			v.AllowRules = append(v.AllowRules, rule)
		}
	}
	if len(approved) == 0 {
		return
	}
	v.Reasons, v.Approved = keep, approved
	v.Tier = Safe
	for _, rs := range keep {
		v.Tier = max(v.Tier, rs.Tier)
	}
	v.AllowedByRule = v.Tier == Safe
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

// SuggestAllowScript returns the exact allow rules (one per command that
// needs approval) that would approve the script, checked by classifying it
// again with them; nil when no allow rule can (a reason comes from a
// redirection, a pipe, an assignment, a value known only at run time, or
// the script does not parse). For a refusal that says how to approve.
func SuggestAllowScript(script string, c *Context) []string {
	return suggestAllow(c, func(e *env) *shell.Program { return shell.Parse(script, e.shellOptions()) })
}

// SuggestAllowArgv is SuggestAllowScript for an argv.
func SuggestAllowArgv(argv []string, c *Context) []string {
	return suggestAllow(c, func(e *env) *shell.Program { return shell.ParseArgv(argv, e.shellOptions()) })
}

func suggestAllow(c *Context, parse func(*env) *shell.Program) []string {
	if c == nil {
		c = &Context{}
	}
	e := newEnv(c)
	prog := parse(e)
	if len(prog.Issues) > 0 {
		return nil
	}
	j := &judge{env: e, links: prog.Links}
	var rules []string
	for _, cmd := range prog.Commands {
		if len(cmd.Args) == 0 || cmd.Args[0].Dynamic {
			continue
		}
		need := !c.Sandboxed && cmd.Origin != shell.Maybe && !carrier(cmd)
		for _, r := range j.reasonsOf(cmd) {
			need = need || r.Tier > Safe
		}
		if !need {
			continue
		}
		words := cmd.Args
		if len(cmd.Wrappers) > 0 {
			words = fullWords(cmd)
		}
		if r, ok := ruleText(words); ok && !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return nil
	}
	with := *c
	with.Rules.Allow = append(slices.Clone(c.Rules.Allow), rules...)
	e2 := newEnv(&with)
	if v := classify(parse(e2), e2); !v.AllowedByRule {
		return nil
	}
	return rules
}

// ruleText writes words as a rule that splits back into them; false when
// a word is only known at run time.
func ruleText(words []shell.Word) (string, bool) {
	parts := make([]string, len(words))
	for i, w := range words {
		if w.Dynamic {
			return "", false
		}
		parts[i] = quoteRuleWord(w.Value)
	}
	return strings.Join(parts, " "), true
}

// quoteRuleWord quotes a word for SplitWords: as is when plain, else in
// single quotes (a quoted "*" is a literal star, not the widening one).
func quoteRuleWord(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:=@%+,-", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
