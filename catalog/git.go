package catalog

import (
	"path"
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
	rest := append([]shell.Word{args[si]}, args[si+1:]...)
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
