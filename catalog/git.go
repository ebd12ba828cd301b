package catalog

import (
	"path"
	"slices"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// git: its global options, the commands its configuration, remotes and
// subcommands run, and what its subcommands change.

// gitGlobals are git's own options, before the subcommand.
var gitGlobals = &shell.ArgSpec{Short: "Cc", Long: []string{"git-dir", "work-tree", "namespace", "config-env", "super-prefix", "attr-source"},
	Flags: []string{"exec-path", "html-path", "man-path", "info-path", "paginate", "no-pager", "no-replace-objects", "no-lazy-fetch",
		"no-optional-locks", "no-advice", "bare", "literal-pathspecs", "glob-pathspecs", "noglob-pathspecs", "icase-pathspecs",
		"list-cmds", "version", "help"},
	Abbrev: true, InOrder: true}

// GitSub returns the index of git's subcommand in args (args[0] is git),
// or -1 when there is none.
func GitSub(args []shell.Word) int {
	if len(args) > 1 {
		// The commonest case, read as the scan below reads its first
		// word: one that is not an option is the subcommand.
		known := args[1].Value
		if args[1].Dynamic {
			known = args[1].Prefix
		}
		if len(known) < 2 || known[0] != '-' {
			return 1
		}
	}
	for a := range gitGlobals.Args(args) {
		if a.Operand {
			return a.At
		}
	}
	return -1
}

// GitGlobals returns git's own options: the words before the subcommand.
func GitGlobals(args []shell.Word) []shell.Word {
	if si := GitSub(args); si > 0 {
		return args[:si]
	}
	return args
}

var gitTools = map[string]*Tool{
	"git": {Tool: shell.Tool{Args: gitGlobals, Follow: followGit, Writes: gitWritesHere}, Targets: gitTargets},
}

func followGit(f *shell.Follower) {
	gitConfigs(f)
	gitRuns(f)
}

// gitConfigs follows git -c KEY=VALUE and --config-env KEY=VAR for keys
// whose value is a command.
func gitConfigs(f *shell.Follower) {
	for a := range gitGlobals.Args(f.Cmd().Args) {
		switch {
		case a.Operand:
			return
		case !a.HasValue:
		case a.Name == "c":
			GitConfig(f, a.Value)
		case a.Name == "config-env":
			gitConfigEnv(f, a.Value)
		}
	}
}

// gitConfigEnv follows git --config-env=KEY=VAR: the value comes from
// the environment.
func gitConfigEnv(f *shell.Follower, kv shell.Word) {
	key, env, ok := strings.Cut(kv.Value, "=")
	if !ok || kv.Dynamic {
		return
	}
	val, _ := f.Lookup(env)
	w := val
	w.Value = key + "=" + val.Value
	w.Prefix = key + "=" + val.Prefix
	GitConfig(f, w)
}

// GitConfig follows a git configuration setting KEY=VALUE that the
// command makes: a key whose value is a command runs it.
func GitConfig(f *shell.Follower, kv shell.Word) {
	key, val, _ := strings.Cut(kv.Value, "=")
	key = strings.ToLower(key)
	if key == "include.path" || strings.HasPrefix(key, "includeif.") && strings.HasSuffix(key, ".path") {
		// Configuration read from a file: any command-running key may
		// be set there.
		f.Run(&shell.Command{Args: []shell.Word{{Value: "(git configuration from " + val + ")", Dynamic: true}}}, shell.ConfigCommand)
		return
	}
	if !GitCommandKey(key) {
		return
	}
	if kv.Dynamic {
		w := kv
		if i := strings.IndexByte(w.Value, '='); i >= 0 && strings.HasPrefix(w.Prefix, w.Value[:i+1]) {
			w.Value, w.Prefix = w.Value[i+1:], w.Prefix[i+1:]
		}
		f.Run(&shell.Command{Args: []shell.Word{w}}, shell.ConfigCommand)
		return
	}
	if strings.HasPrefix(key, "alias.") {
		if strings.HasPrefix(val, "!") {
			f.Shell(val[1:], shell.ConfigCommand)
			return
		}
		// A git alias: git followed by the alias words.
		ws := []shell.Word{shell.Static("git")}
		for _, s := range shell.SplitWords(val) {
			ws = append(ws, shell.Static(s))
		}
		f.Run(&shell.Command{Args: ws}, shell.ConfigCommand)
		return
	}
	if key == "core.fsmonitor" || strings.HasPrefix(key, "pager.") {
		switch strings.ToLower(val) {
		case "", "true", "false", "yes", "no", "on", "off", "1", "0":
			return
		}
	}
	if key == "credential.helper" {
		if strings.HasPrefix(val, "!") {
			val = val[1:]
		} else if !strings.Contains(val, "/") {
			val = "git-credential-" + val
		}
	}
	f.Shell(val, shell.ConfigCommand)
}

// gitRuns follows what git subcommands run: ext:: remotes, --upload-pack
// and its kin, rebase --exec, submodule foreach, bisect run, and git
// config storing a command.
func gitRuns(f *shell.Follower) {
	args := f.Cmd().Args
	si := GitSub(args)
	if si < 0 {
		return
	}
	sub, rest := args[si].Value, args[si+1:]
	for _, a := range rest {
		// ext::CMD ARG… remotes run a program (when protocol.ext.allow
		// permits; judged as if it did).
		if strings.HasPrefix(a.Prefix, "ext::") {
			if a.Dynamic {
				f.Run(&shell.Command{Args: []shell.Word{{Value: a.Value, Dynamic: true, Prefix: a.Prefix[5:], Taint: a.Taint}}}, shell.ConfigCommand)
				continue
			}
			var words []shell.Word
			for _, w := range gitExtWords(a.Value[5:]) {
				words = append(words, word(w, false, a.Taint))
			}
			if len(words) > 0 {
				f.Run(&shell.Command{Args: words}, shell.ConfigCommand)
			}
		}
	}
	// --upload-pack/-u (clone, fetch, ls-remote, archive --exec) and
	// --receive-pack/--exec (push) name programs git runs.
	for k := 0; k < len(rest); k++ {
		v := rest[k].Value
		for _, opt := range []string{"--upload-pack", "--receive-pack", "--exec"} {
			if strings.HasPrefix(v, opt+"=") {
				f.Code(after(rest[k], len(opt)+1), shell.ConfigCommand)
			} else if v == opt && k+1 < len(rest) && sub != "rebase" {
				f.Code(rest[k+1], shell.ConfigCommand)
				k++
			}
		}
		if v == "-u" && (sub == "clone" || sub == "fetch" || sub == "ls-remote") && k+1 < len(rest) {
			f.Code(rest[k+1], shell.ConfigCommand)
			k++
		}
	}
	switch sub {
	case "rebase":
		for k := 0; k < len(rest); k++ {
			v := rest[k].Value
			switch {
			case (v == "-x" || v == "--exec") && k+1 < len(rest):
				f.Code(rest[k+1], shell.ShellC)
				k++
			case strings.HasPrefix(v, "--exec="):
				f.Code(after(rest[k], 7), shell.ShellC)
			}
		}
	case "submodule":
		for k := 0; k < len(rest); k++ {
			if rest[k].Value == "foreach" {
				words := rest[k+1:]
				for len(words) > 0 && (words[0].Value == "--recursive" || words[0].Value == "-q" || words[0].Value == "--quiet") {
					words = words[1:]
				}
				f.Joined(words)
				return
			}
		}
	case "grep":
		// -O[PAGER] / --open-files-in-pager[=PAGER] opens the matches in
		// a program (the value is attached; without one, the pager).
		sargs := args[si:]
		for a := range GitArgs(sub).Args(sargs) {
			switch {
			case a.Operand:
			case a.Name == "O" && !a.Long:
				if w := sargs[a.At]; strings.HasPrefix(w.Prefix, "-O") && (len(w.Value) > 2 || w.Dynamic) {
					f.Code(after(w, 2), shell.ShellC)
				}
			case a.Name == "open-files-in-pager":
				if _, v, ok := strings.Cut(sargs[a.At].Value, "="); ok {
					f.Code(word(v, sargs[a.At].Dynamic, sargs[a.At].Taint), shell.ShellC)
				}
			}
		}
	case "difftool", "filter-branch", "send-email":
		// Options whose value is a command: difftool -x CMD, the
		// filters of filter-branch, send-email's --sendmail-cmd.
		for a := range GitArgs(sub).Args(args[si:]) {
			if a.HasValue && slices.Contains([]string{"x", "extcmd", "env-filter", "tree-filter", "index-filter", "parent-filter",
				"msg-filter", "commit-filter", "tag-name-filter", "setup", "sendmail-cmd", "to-cmd", "cc-cmd", "header-cmd"}, a.Name) {
				f.Code(a.Value, shell.ShellC)
			}
			if a.HasValue && a.Name == "smtp-server" && strings.HasPrefix(a.Value.Prefix, "/") {
				f.Code(a.Value, shell.ShellC)
			}
		}
	case "bisect":
		if len(rest) > 1 && rest[0].Value == "run" {
			f.Run(&shell.Command{Args: append([]shell.Word(nil), rest[1:]...)}, shell.Wrapped)
		}
	case "config":
		var ops []shell.Word
		for _, a := range rest {
			if !strings.HasPrefix(a.Value, "-") || a.Dynamic {
				ops = append(ops, a)
			}
		}
		if len(ops) >= 2 && (ops[0].Value == "set" || ops[0].Value == "--add") && len(ops) >= 3 {
			ops = ops[1:]
		}
		if len(ops) >= 2 && !ops[0].Dynamic {
			GitConfig(f, word(ops[0].Value+"="+ops[1].Value, ops[1].Dynamic, ops[1].Taint))
		}
	}
}

// GitCommandKey reports whether a git configuration key (lower case)
// holds a command that git runs.
func GitCommandKey(key string) bool {
	switch key {
	case "core.sshcommand", "core.fsmonitor", "core.pager", "core.editor", "core.askpass", "sequence.editor",
		"diff.external", "credential.helper", "gpg.program", "uploadpack.packobjectshook", "interactive.difffilter",
		"web.browser", "core.gitproxy":
		return true
	}
	if strings.HasPrefix(key, "alias.") || strings.HasPrefix(key, "pager.") {
		return true
	}
	parts := strings.Split(key, ".")
	if len(parts) >= 3 {
		last := parts[len(parts)-1]
		switch parts[0] {
		case "diff":
			return last == "command" || last == "textconv"
		case "merge":
			return last == "driver"
		case "filter":
			return last == "clean" || last == "smudge" || last == "process"
		case "gpg":
			return last == "program"
		case "browser", "man", "mergetool", "difftool":
			return last == "cmd" || last == "path"
		case "remote":
			return last == "uploadpack" || last == "receivepack" || last == "proxy"
		}
	}
	return false
}

// gitExtWords splits the command of a git ext:: remote: spaces separate
// words, "% " is a space, "%%" a percent sign, %s, %S and %G stand for
// values git fills in.
func gitExtWords(s string) []string {
	var out []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+1 < len(s):
			i++
			switch s[i] {
			case ' ':
				cur.WriteByte(' ')
			case '%':
				cur.WriteByte('%')
			case 's', 'S':
				cur.WriteString("git-upload-pack")
			case 'G':
				cur.WriteString("repo")
			default:
				cur.WriteByte('%')
				cur.WriteByte(s[i])
			}
			in = true
		case c == ' ':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// gitChangesTree are the subcommands that may change any file of the
// working tree (a script read from it afterwards is not trusted).
var gitChangesTree = map[string]bool{"checkout": true, "pull": true, "merge": true, "rebase": true, "reset": true,
	"restore": true, "switch": true, "stash": true, "apply": true, "am": true, "cherry-pick": true, "revert": true,
	"clone": true, "worktree": true, "submodule": true, "mv": true, "rm": true}

func gitWritesHere(c *shell.Command) shell.Writes {
	si := GitSub(c.Args)
	return shell.Writes{Here: si > 0 && gitChangesTree[strings.ToLower(c.Args[si].Value)]}
}

// gitChangesRepo are the git subcommands that change the repository or
// its working tree.
var gitChangesRepo = map[string]bool{"checkout": true, "switch": true, "reset": true, "restore": true, "clean": true,
	"pull": true, "merge": true, "rebase": true, "cherry-pick": true, "revert": true, "am": true, "apply": true,
	"stash": true, "mv": true, "rm": true, "commit": true, "add": true, "worktree": true, "submodule": true,
	"fetch": true, "gc": true, "init": true, "tag": true, "branch": true, "notes": true, "prune": true, "lfs": true}

var gitCloneArgs = &shell.ArgSpec{Short: "obcju", Long: []string{"origin", "branch", "config", "jobs", "upload-pack", "reference", "separate-git-dir", "depth", "template", "filter", "object-format", "ref-format", "initial-branch", "shared"}}

// gitTargets are the places a git command writes: the new repository of
// clone and init, and the repository (-C DIR, --git-dir, --work-tree or
// the working directory, when known) of a command that changes it.
func gitTargets(c *shell.Command) []shell.Word {
	args := c.Args
	si := GitSub(args)
	if si <= 0 {
		return nil
	}
	globals := args[:si]
	base, dynamic := "", false
	for _, d := range gitGlobals.Values(globals, "C", "", 0) {
		if d.Dynamic {
			dynamic = true
			break
		}
		base = path.Join(base, d.Value)
		if path.IsAbs(d.Value) {
			base = d.Value
		}
	}
	at := func(w shell.Word) shell.Word {
		switch {
		case dynamic:
			return shell.Word{Value: "-C " + w.Value, Dynamic: true}
		case base == "" || w.Dynamic || path.IsAbs(w.Value) || strings.HasPrefix(w.Value, "~"):
			return w
		}
		j := path.Join(base, w.Value)
		return shell.Word{Value: j, Prefix: j}
	}
	var out []shell.Word
	sub := args[si].Value
	rest := args[si:len(args):len(args)] // read only
	for _, o := range []string{"git-dir", "work-tree"} {
		if w, ok := gitGlobals.Value(globals, "", o); ok && gitChangesRepo[sub] {
			out = append(out, at(w))
		}
	}
	switch {
	case sub == "clone" || sub == "init":
		ops := gitCloneArgs.Operands(rest)
		switch {
		case sub == "clone" && len(ops) >= 2:
			out = append(out, at(ops[len(ops)-1]))
		case sub == "init" && len(ops) >= 1:
			out = append(out, at(ops[len(ops)-1]))
		case sub == "init":
			out = append(out, at(shell.Static(".")))
		}
		if w, ok := gitCloneArgs.Value(rest, "", "separate-git-dir"); ok {
			out = append(out, at(w))
		}
	case gitChangesRepo[sub] && (base != "" || dynamic || c.DirKnown):
		out = append(out, at(shell.Static(".")))
	}
	if sub == "archive" || sub == "format-patch" {
		out = append(out, anyArgs.Values(rest, "o", "output", 4)...)
	}
	if sub == "bundle" && len(rest) > 2 && rest[1].Value == "create" {
		out = append(out, rest[2])
	}
	return out
}

// gitSpec is a git subcommand's options: git accepts unambiguous
// prefixes of long options and --no-NAME for most of them.
func gitSpec(short string, long []string, flags ...string) *shell.ArgSpec {
	return &shell.ArgSpec{Short: short, Long: long, Flags: flags, Abbrev: true, Negatable: true}
}

// gitSubArgs are the options of the git subcommands whose meaning the
// classifier reads.
var gitSubArgs = map[string]*shell.ArgSpec{
	"reset": gitSpec("", []string{"pathspec-from-file"}, "soft", "mixed", "hard", "merge", "keep", "quiet", "patch",
		"intent-to-add", "refresh", "pathspec-file-nul", "recurse-submodules"),
	"clean": gitSpec("e", []string{"exclude"}, "force", "interactive", "dry-run", "quiet"),
	"push": gitSpec("o", []string{"repo", "push-option", "receive-pack", "exec"}, "all", "branches", "mirror", "delete", "tags",
		"dry-run", "porcelain", "force", "prune", "verbose", "quiet", "set-upstream", "thin", "verify", "atomic", "follow-tags",
		"ipv4", "ipv6", "progress", "force-with-lease", "force-if-includes", "signed", "recurse-submodules"),
	"branch": gitSpec("u", []string{"set-upstream-to", "contains", "no-contains", "merged", "no-merged", "points-at", "sort", "format"},
		"delete", "force", "move", "copy", "list", "all", "remotes", "verbose", "quiet", "track", "unset-upstream",
		"edit-description", "create-reflog", "show-current", "ignore-case", "omit-empty", "recurse-submodules", "color", "column", "abbrev"),
	"checkout": gitSpec("bB", []string{"orphan", "pathspec-from-file"}, "force", "quiet", "progress", "ours", "theirs", "merge",
		"detach", "track", "guess", "overlay", "ignore-skip-worktree-bits", "ignore-other-worktrees", "patch",
		"recurse-submodules", "overwrite-ignore", "pathspec-file-nul", "conflict"),
	"switch": gitSpec("cC", []string{"create", "force-create", "orphan"}, "discard-changes", "force", "merge", "detach", "guess",
		"track", "progress", "quiet", "recurse-submodules", "ignore-other-worktrees", "conflict"),
	"restore": gitSpec("s", []string{"source", "pathspec-from-file"}, "staged", "worktree", "ours", "theirs", "merge", "patch",
		"quiet", "progress", "overlay", "ignore-unmerged", "ignore-skip-worktree-bits", "recurse-submodules", "pathspec-file-nul", "conflict"),
	"stash":      gitSpec("m", []string{"message", "pathspec-from-file"}, "patch", "staged", "keep-index", "include-untracked", "all", "quiet", "index"),
	"read-tree":  gitSpec("", nil, "reset", "dry-run", "verbose", "trivial", "aggressive", "empty", "quiet", "recurse-submodules", "index-output", "prefix", "exclude-per-directory", "sparse-checkout"),
	"update-ref": gitSpec("m", nil, "no-deref", "create-reflog", "stdin"),
	"gc":         gitSpec("", nil, "aggressive", "auto", "prune", "quiet", "force", "keep-largest-pack", "cruft", "detach"),
	"prune":      gitSpec("", []string{"expire"}, "dry-run", "verbose", "progress"),
	"reflog":     gitSpec("", nil, "expire", "expire-unreachable", "all", "rewrite", "updateref", "stale-fix", "dry-run", "verbose", "single-worktree"),
	"rm":         gitSpec("", []string{"pathspec-from-file"}, "force", "dry-run", "cached", "ignore-unmatch", "sparse", "quiet", "pathspec-file-nul"),
	"config":     gitSpec("f", []string{"file", "blob", "type", "default", "comment", "value"}, "global", "system", "local", "worktree", "list", "get", "get-all", "get-regexp", "get-urlmatch", "get-color", "get-colorbool", "show-origin", "show-scope", "unset", "unset-all", "replace-all", "add", "edit", "null", "name-only", "includes", "fixed-value"),
	"clone":      gitCloneArgs,
	"init":       gitSpec("", []string{"template", "separate-git-dir", "object-format", "ref-format", "initial-branch", "shared"}, "bare", "quiet"),
	"grep":       gitSpec("efABCm", []string{"max-depth", "after-context", "before-context", "context", "threads", "max-count"}, "cached", "untracked", "recurse-submodules", "open-files-in-pager"),
	"difftool":   gitSpec("tx", []string{"tool", "extcmd"}, "dir-diff", "prompt", "gui", "trust-exit-code", "symlinks"),
	"filter-branch": gitSpec("d", []string{"setup", "subdirectory-filter", "env-filter", "tree-filter", "index-filter", "parent-filter",
		"msg-filter", "commit-filter", "tag-name-filter", "original", "state-branch"}, "prune-empty", "force"),
	"send-email": gitSpec("", []string{"sendmail-cmd", "smtp-server", "to-cmd", "cc-cmd", "header-cmd", "to", "cc", "bcc", "from",
		"subject", "in-reply-to", "smtp-user", "smtp-pass", "smtp-server-port", "smtp-encryption"}, "annotate", "compose", "dry-run"),
}

// GitArgs returns the options of a git subcommand (a generic reading of
// git's options for one the catalog does not describe).
func GitArgs(sub string) *shell.ArgSpec {
	if s := gitSubArgs[sub]; s != nil {
		return s
	}
	return gitAnySub
}

var gitAnySub = gitSpec("", nil)

// GitConfigSet returns the configuration a git command sets for itself
// (-c KEY=VALUE, --config-env KEY=VAR, GIT_CONFIG_PARAMETERS,
// GIT_CONFIG_KEY_N/VALUE_N), by lower-case key; a value only known at
// run time is a dynamic word, and a key only known at run time is "*".
func GitConfigSet(c *shell.Command) map[string]shell.Word {
	out := map[string]shell.Word{}
	set := func(kv shell.Word) {
		if kv.Dynamic {
			key, _, ok := strings.Cut(kv.Prefix, "=")
			if !ok {
				key = "*" // a key only known at run time
			}
			out[strings.ToLower(key)] = shell.Word{Value: kv.Value, Dynamic: true}
			return
		}
		key, val, ok := strings.Cut(kv.Value, "=")
		if !ok {
			val = "true" // -c KEY alone sets it to true
		}
		out[strings.ToLower(key)] = word(val, false, kv.Taint)
	}
	for _, a := range c.Assigns {
		switch {
		case a.Name == "GIT_CONFIG_PARAMETERS" && !a.Value.Dynamic:
			for _, kv := range shell.SplitWords(a.Value.Value) {
				set(shell.Static(kv))
			}
		case strings.HasPrefix(a.Name, "GIT_CONFIG_KEY_"):
			for _, v := range c.Assigns {
				if v.Name == "GIT_CONFIG_VALUE_"+strings.TrimPrefix(a.Name, "GIT_CONFIG_KEY_") {
					set(word(a.Value.Value+"="+v.Value.Value, a.Value.Dynamic || v.Value.Dynamic, 0))
				}
			}
		}
	}
	for a := range gitGlobals.Args(c.Args) {
		switch {
		case a.Operand:
			return out
		case a.HasValue && a.Name == "c":
			set(a.Value)
		case a.HasValue && a.Name == "config-env":
			if key, _, ok := strings.Cut(a.Value.Value, "="); ok {
				out[strings.ToLower(key)] = shell.Word{Value: "$" + a.Value.Value, Dynamic: true}
			}
		}
	}
	return out
}
