package risk

import (
	"path"
	"slices"
	"strings"

	"github.com/safeexec/safeexec/catalog"
	"github.com/safeexec/safeexec/shell"
)

// git: the destructive forms of its subcommands, configuration that
// runs commands, hooks from elsewhere.

var gitJudges = map[string]judgeFunc{
	"git": func(j *judge, c *shell.Command) { j.git(c) },
}

func (j *judge) git(c *shell.Command) {
	args := c.Args
	globals := catalog.GitGlobals(args)
	for _, kv := range catalog.Args("git").Values(globals, "c", "", 0) {
		key, _, _ := strings.Cut(strings.ToLower(kv.Value), "=")
		if key == "core.hookspath" {
			j.hit(c, ruleGitHooksPath, "git -c core.hooksPath runs hooks from another directory")
		}
	}
	for _, d := range anyArgs.Values(globals, "", "exec-path", 0) {
		j.gitExecPath(c, "--exec-path", d)
	}
	si := catalog.GitSub(args)
	if si < 0 {
		return
	}
	sub := args[si].Value
	rest := append([]shell.Word{args[si]}, args[si+1:]...)
	if sub == "init" || sub == "clone" {
		if t, ok := anyArgs.Value(rest, "", "template"); ok && (t.Dynamic || t.Value != "") {
			j.hit(c, ruleGitHooksPath, "git %s --template copies hooks from %s into the new repository", sub, t.Value)
		}
	}
	switch sub {
	case "reset":
		if anyArgs.Has(rest, "", "hard") {
			j.hit(c, ruleGitResetHard, "git reset --hard discards uncommitted changes")
		}
	case "clean":
		if anyArgs.Has(rest, "f", "force") && !anyArgs.Has(rest, "n", "dry-run") {
			j.hit(c, ruleGitClean, "git clean -f deletes untracked files")
		}
	case "push":
		force := anyArgs.Has(rest, "f", "force", "mirror")
		for _, o := range (&shell.ArgSpec{Short: "o", Long: []string{"push-option", "repo", "receive-pack", "exec"}}).Operands(rest) {
			if strings.HasPrefix(o.Value, "+") {
				force = true
			}
			if strings.HasPrefix(o.Value, ":") && len(o.Value) > 1 {
				j.hit(c, ruleGitPushDelete, "git push :%s deletes a remote branch", o.Value[1:])
			}
		}
		if force {
			j.hit(c, ruleGitPushForce, "git push --force overwrites remote history")
		}
		if anyArgs.Has(rest, "d", "delete", "prune") {
			j.hit(c, ruleGitPushDelete, "git push --delete/--prune deletes remote branches")
		}
	case "branch":
		if anyArgs.Has(rest, "D") || (anyArgs.Has(rest, "d", "delete") && anyArgs.Has(rest, "f", "force")) {
			j.hit(c, ruleGitBranchDelete, "git branch -D deletes a branch even when it is not merged")
		}
	case "checkout":
		ops := (&shell.ArgSpec{Short: "bB", Long: []string{"orphan", "conflict"}}).Operands(rest)
		dd := false
		for _, a := range rest[1:] {
			if a.Value == "--" {
				dd = true
			}
		}
		discard := anyArgs.Has(rest, "f", "force")
		for _, o := range ops {
			if o.Value == "." || o.Value == ":/" || o.Value == "*" || strings.HasPrefix(o.Value, ":(") {
				discard = true
			}
		}
		if dd && len(ops) > 0 && !anyArgs.Has(rest, "bB", "orphan") {
			// checkout [branch] -- paths: restores the paths.
			discard = true
		}
		if discard {
			j.hit(c, ruleGitDiscard, "git checkout overwrites uncommitted changes")
		}
	case "restore":
		staged := anyArgs.Has(rest, "S", "staged")
		worktree := anyArgs.Has(rest, "W", "worktree")
		if (!staged || worktree) && len((&shell.ArgSpec{Short: "s", Long: []string{"source"}}).Operands(rest)) > 0 {
			j.hit(c, ruleGitDiscard, "git restore overwrites uncommitted changes")
		}
	case "switch":
		if anyArgs.Has(rest, "f", "force", "discard-changes") {
			j.hit(c, ruleGitDiscard, "git switch --discard-changes drops uncommitted changes")
		}
	case "stash":
		if len(rest) > 1 && slices.Contains([]string{"drop", "clear"}, rest[1].Value) {
			j.hit(c, ruleGitDiscard, "git stash %s deletes stashed changes", rest[1].Value)
		}
	case "credential", "credential-store", "credential-cache":
		if len(rest) > 1 && slices.Contains([]string{"fill", "get"}, rest[len(rest)-1].Value) {
			j.hit(c, ruleCredentialPath, "git %s prints stored credentials", sub)
		}
	case "config":
		j.gitConfig(c, rest)
	}
}

// gitExecPath judges a directory git would run its subcommand programs
// (git-SUBCOMMAND) from.
func (j *judge) gitExecPath(c *shell.Command, what string, d shell.Word) {
	if !d.Dynamic {
		if p, ok := j.env.resolve(c, d); ok {
			if _, sys := j.env.isSystem(p); sys {
				return
			}
		}
	}
	j.hit(c, ruleDynamicCommand, "%s %s: git runs its subcommands from a directory that is not checked", what, d.Value)
}

func (j *judge) gitConfig(c *shell.Command, rest []shell.Word) {
	ops := (&shell.ArgSpec{Short: "f", Long: []string{"file", "blob", "type", "default"}}).Operands(rest)
	reading := anyArgs.Has(rest, "l", "get", "get-all", "get-regexp", "list", "get-urlmatch", "get-color", "get-colorbool", "show-origin") || len(ops) == 1
	if len(ops) > 0 && slices.Contains([]string{"get", "list"}, ops[0].Value) {
		reading = true
	}
	if reading {
		return
	}
	key := ""
	if len(ops) > 0 {
		key = strings.ToLower(ops[0].Value)
		if slices.Contains([]string{"set", "unset"}, key) && len(ops) > 1 {
			key = strings.ToLower(ops[1].Value)
		}
	}
	val := ""
	if len(ops) > 1 {
		val = ops[len(ops)-1].Value
	}
	if strings.HasPrefix(key, "alias.") && !strings.HasPrefix(val, "!") {
		// A git alias of git subcommands; what it expands to is judged
		// when it is used.
	} else if catalog.GitCommandKey(key) || key == "core.hookspath" {
		j.hit(c, ruleGitConfigExec, "git config %s stores a command that git runs later", key)
	}
	if anyArgs.Has(rest, "", "global") && j.env.home != "" {
		j.writePath(c, path.Join(j.env.home, ".gitconfig"), "git config --global writes")
	}
	if anyArgs.Has(rest, "", "system") {
		j.writePath(c, "/etc/gitconfig", "git config --system writes")
	}
	for _, f := range anyArgs.Values(rest, "f", "file", 0) {
		if f.Dynamic || f.Value != "-" {
			j.write(c, f, "git config --file writes")
		}
	}
}
