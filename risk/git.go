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
	config := catalog.GitConfigSet(c)
	if _, ok := config["core.hookspath"]; ok {
		j.hit(c, ruleGitHooksPath, "git -c core.hooksPath runs hooks from another directory")
	}
	for _, d := range anyArgs.Values(globals, "", "exec-path", 0) {
		j.gitExecPath(c, "--exec-path", d)
	}
	si := catalog.GitSub(args)
	if si < 0 {
		return
	}
	sub := args[si].Value
	rest := args[si:]
	spec := catalog.GitArgs(sub)
	set := func(short string, long ...string) bool { return spec.Set(rest, short, long...) }
	if sub == "init" || sub == "clone" {
		if t, ok := spec.Value(rest, "", "template"); ok && (t.Dynamic || t.Value != "") {
			j.hit(c, ruleGitHooksPath, "git %s --template copies hooks from %s into the new repository", sub, t.Value)
		}
	}
	if gitDestructiveSubs[sub] {
		j.hitDynamicOption(c, spec, rest, false, "destructive ("+sub+")")
	}
	switch sub {
	case "reset":
		for _, mode := range []string{"hard", "merge", "keep"} {
			if set("", mode) {
				j.hit(c, ruleGitResetHard, "git reset --%s discards uncommitted changes", mode)
			}
		}
	case "clean":
		force := set("f", "force")
		if v, ok := config["clean.requireforce"]; ok && (v.Dynamic || gitFalse(v.Value)) {
			force = true // clean.requireForce=false: git clean deletes without -f
		}
		if _, ok := config["*"]; ok {
			force = true
		}
		if force && !set("n", "dry-run") {
			j.hit(c, ruleGitClean, "git clean deletes untracked files")
		}
	case "push":
		force := set("f", "force", "mirror")
		for key, v := range config {
			// remote.NAME.mirror=true makes a push a mirror, a forced
			// refspec in remote.NAME.push forces it.
			if strings.HasPrefix(key, "remote.") && (strings.HasSuffix(key, ".mirror") && (v.Dynamic || !gitFalse(v.Value)) ||
				strings.HasSuffix(key, ".push") && (v.Dynamic || strings.HasPrefix(v.Value, "+"))) || key == "*" {
				force = true
			}
		}
		for _, o := range spec.Operands(rest) {
			if strings.HasPrefix(o.Prefix, "+") {
				force = true
			}
			if strings.HasPrefix(o.Value, ":") && len(o.Value) > 1 && !o.Dynamic {
				j.hit(c, ruleGitPushDelete, "git push :%s deletes a remote branch", o.Value[1:])
			}
		}
		if force {
			j.hit(c, ruleGitPushForce, "git push --force overwrites remote history")
		}
		if set("d", "delete") || set("", "prune") {
			j.hit(c, ruleGitPushDelete, "git push --delete/--prune deletes remote branches")
		}
	case "branch":
		if set("D") || set("d", "delete") && set("f", "force") {
			j.hit(c, ruleGitBranchDelete, "git branch -D deletes a branch even when it is not merged")
		}
	case "checkout":
		j.gitCheckout(c, rest, spec)
	case "restore":
		staged := set("S", "staged")
		worktree := set("W", "worktree")
		_, fromFile := spec.Value(rest, "", "pathspec-from-file")
		if (!staged || worktree) && (len(spec.Operands(rest)) > 0 || fromFile) {
			j.hit(c, ruleGitDiscard, "git restore overwrites uncommitted changes")
		}
	case "switch":
		if set("f", "force", "discard-changes") {
			j.hit(c, ruleGitDiscard, "git switch --discard-changes drops uncommitted changes")
		}
	case "stash":
		if ops := spec.Operands(rest); len(ops) > 0 && slices.Contains([]string{"drop", "clear"}, ops[0].Value) {
			j.hit(c, ruleGitDiscard, "git stash %s deletes stashed changes", ops[0].Value)
		}
	case "read-tree":
		if set("u") && set("", "reset") {
			j.hit(c, ruleGitDiscard, "git read-tree -u --reset overwrites the working tree")
		}
	case "update-ref":
		if set("d") {
			j.hit(c, ruleGitBranchDelete, "git update-ref -d deletes a ref")
		}
	case "filter-branch", "filter-repo":
		j.hit(c, ruleGitHistory, "git %s rewrites history", sub)
	case "reflog":
		if ops := spec.Operands(rest); len(ops) > 0 && (ops[0].Value == "expire" || ops[0].Value == "delete") {
			j.hit(c, ruleGitHistory, "git reflog %s drops reflog entries, the way back to lost commits", ops[0].Value)
		}
	case "gc":
		for _, w := range spec.Values(rest, "", "prune", 0) {
			if w.Dynamic || slices.Contains([]string{"now", "all"}, strings.ToLower(w.Value)) {
				j.hit(c, ruleGitHistory, "git gc --prune=%s deletes unreachable objects for good", w.Value)
			}
		}
	case "prune":
		if !set("n", "dry-run") {
			j.hit(c, ruleGitHistory, "git prune deletes unreachable objects for good")
		}
	case "rm":
		if set("r") && !set("", "cached") && !set("n", "dry-run") {
			j.hit(c, ruleRecursiveRm, "git rm -r removes directories from the working tree")
		}
	case "credential", "credential-store", "credential-cache":
		if len(rest) > 1 && slices.Contains([]string{"fill", "get"}, rest[len(rest)-1].Value) {
			j.hit(c, ruleCredentialPath, "git %s prints stored credentials", sub)
		}
	case "config":
		j.gitConfig(c, rest)
	}
}

// gitDestructiveSubs are the subcommands that one option or operand can
// make destructive (reset --hard, push --force, checkout ., …).
var gitDestructiveSubs = map[string]bool{"reset": true, "push": true, "clean": true, "branch": true, "checkout": true,
	"switch": true, "stash": true, "rm": true, "gc": true, "reflog": true, "read-tree": true, "update-ref": true, "prune": true}

// gitFalse reports whether a git boolean value is false.
func gitFalse(v string) bool {
	return slices.Contains([]string{"false", "no", "off", "0", ""}, strings.ToLower(v))
}

// gitCheckout: checkout -f, and every form that restores paths over the
// working tree (checkout -- PATHS, checkout TREE PATHS, checkout .).
func (j *judge) gitCheckout(c *shell.Command, rest []shell.Word, spec *shell.ArgSpec) {
	discard := spec.Set(rest, "f", "force")
	creates := spec.Has(rest, "bB", "orphan")
	ops := spec.Operands(rest)
	paths := false
	for a := range spec.Args(rest) {
		if a.Operand && a.At > 1 && rest[a.At-1].Value == "--" && !rest[a.At-1].Dynamic {
			paths = true
		}
	}
	for _, o := range ops {
		if o.Value == "." || o.Value == ":/" || strings.HasPrefix(o.Value, ":(") || o.Glob || strings.ContainsAny(o.Value, "*?[") {
			paths = true
		}
	}
	if _, ok := spec.Value(rest, "", "pathspec-from-file"); ok {
		paths = true
	}
	if len(ops) >= 2 && !creates {
		// checkout TREE PATH…: two operands are a tree and paths.
		paths = true
	}
	if spec.Set(rest, "", "ours") || spec.Set(rest, "", "theirs") {
		paths = paths || len(ops) > 0
	}
	if discard || paths && !creates {
		j.hit(c, ruleGitDiscard, "git checkout overwrites uncommitted changes")
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
	spec := catalog.GitArgs("config")
	ops := spec.Operands(rest)
	reading := spec.Has(rest, "l", "get", "get-all", "get-regexp", "list", "get-urlmatch", "get-color", "get-colorbool", "show-origin") || len(ops) == 1
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
	if spec.Has(rest, "", "global") && j.env.home != "" {
		j.writePath(c, path.Join(j.env.home, ".gitconfig"), "git config --global writes")
	}
	if spec.Has(rest, "", "system") {
		j.writePath(c, "/etc/gitconfig", "git config --system writes")
	}
	for _, f := range spec.Values(rest, "f", "file", 0) {
		if f.Dynamic || f.Value != "-" {
			j.write(c, f, "git config --file writes")
		}
	}
}
