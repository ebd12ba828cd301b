package sandbox

// The git escape suite: every way a command could leave something in the
// writable roots that makes the host's git run a program later, one test
// per class, under bwrap and Landlock, each plain and disguised (paths and
// payloads read from files at run time, so no classifier could have
// refused the command). Every check is made on the host after the run, by
// the host's real git: it works in every repository-like directory of the
// project (status, diff, log under a terminal, add, commit with and
// without a message, signing, checkout, fetch, push to a bare repository,
// credentials, ssh, aliases, submodules, rebase, gc), and a planted
// program would leave a file in a directory no sandboxed command can
// write to.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// gitEnv is a project holding every kind of git directory the host's git
// reads: the project's repository with a submodule, a worktree inside the
// project, a bare repository it pushes to, and a vendored repository with
// a hook of the user's own; plus a home, a tool cache, a directory outside
// every root, and the mark directory payloads write to.
type gitEnv struct {
	t       *testing.T
	backend string
	top     string
	root    string // the project, the only writable root
	home    string
	mark    string
	outside string
	cache   string
	hostEnv []string
	p       *Policy
	before  map[string]string // file contents before the run (snapshot)
}

// gitBackends are the backends the suite runs under.
var gitBackends = []string{"bwrap", "landlock"}

func needGitBackend(t *testing.T, backend string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on this machine")
	}
	switch backend {
	case "bwrap":
		bwBackend(t)
	case "landlock":
		needLandlock(t)
	}
}

// gitFixtureOpts varies the project.
type gitFixtureOpts struct {
	// dotGit: "dir" (default), "link" (.git is a link to a git directory
	// elsewhere in the project), "none" (not a repository).
	dotGit string
	// config is appended to the project repository's config.
	config string
	// global is the host's global git config (beyond user name/email).
	global string
	// files are written into the project before the repository is made
	// (relative path → content; a name ending in "*" is made executable).
	files map[string]string
}

// gitTemplate builds the fixture once for a parent test; newGitEnv copies
// it (cp -a is one process, the fixture's git commands are twenty).
func gitTemplate(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on this machine")
	}
	top, err := os.MkdirTemp(bwFixtureBase(t), ".safeexec-gittmpl-")
	if err != nil {
		t.Skipf("fixture: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	g := &gitEnv{t: t, top: top, root: filepath.Join(top, "proj"), home: filepath.Join(top, "home"),
		mark: filepath.Join(top, "mark"), outside: filepath.Join(top, "outside"), cache: filepath.Join(top, "cache")}
	for _, d := range []string{g.root, g.home, g.mark, g.outside, g.cache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	g.setHostEnv("")
	// A repository outside every root, the submodule's origin.
	g.git(g.outside, "init", "-q", "--bare", "lib.git")
	g.git(g.outside, "init", "-q", "libsrc")
	g.write(filepath.Join(g.outside, "libsrc", "lib.txt"), "lib\n")
	g.git(filepath.Join(g.outside, "libsrc"), "add", ".")
	g.git(filepath.Join(g.outside, "libsrc"), "commit", "-qm", "lib")
	g.git(filepath.Join(g.outside, "libsrc"), "push", "-q", filepath.Join(g.outside, "lib.git"), "main")
	// The project.
	g.git(g.root, "init", "-q")
	g.write(filepath.Join(g.root, "README"), "readme\n")
	g.write(filepath.Join(g.root, ".gitignore"), "wt/\nvendor/\nremote.git/\n")
	g.git(g.root, "add", ".")
	g.git(g.root, "commit", "-qm", "first")
	g.git(g.root, "submodule", "add", "-q", filepath.Join(g.outside, "lib.git"), "lib")
	g.git(g.root, "commit", "-qm", "submodule")
	g.git(g.root, "init", "-q", "--bare", "remote.git")
	g.git(g.root, "remote", "add", "origin", "./remote.git")
	g.git(g.root, "push", "-q", "origin", "main")
	g.git(g.root, "worktree", "add", "-q", "-b", "side", "wt")
	g.git(g.root, "init", "-q", "vendor/x")
	g.write(filepath.Join(g.root, "vendor", "x", "x.txt"), "x\n")
	g.git(filepath.Join(g.root, "vendor", "x"), "add", ".")
	g.git(filepath.Join(g.root, "vendor", "x"), "commit", "-qm", "x")
	// The user's own hook in the vendored repository.
	g.write(filepath.Join(g.root, "vendor", "x", ".git", "hooks", "pre-push"), "#!/bin/sh\nexit 0\n")
	os.Chmod(filepath.Join(g.root, "vendor", "x", ".git", "hooks", "pre-push"), 0o755)
	return top
}

// setHostEnv writes the host's global git config and the environment the
// judging git runs with; safeexec (this process) reads the same config.
func (g *gitEnv) setHostEnv(extra string) {
	global := filepath.Join(g.home, ".gitconfig")
	g.write(global, "[user]\n\tname = t\n\temail = t@example.invalid\n[init]\n\tdefaultBranch = main\n[protocol \"file\"]\n\tallow = always\n"+extra)
	g.t.Setenv("GIT_CONFIG_GLOBAL", global)
	g.t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	g.hostEnv = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + g.home, "GIT_CONFIG_GLOBAL=" + global,
		"GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C", "TERM=dumb", "PAGER=cat", "GIT_TERMINAL_PROMPT=0"}
}

// newGitEnv copies the template for one test and varies it by o.
func newGitEnv(t *testing.T, tmpl, backend string, o gitFixtureOpts) *gitEnv {
	t.Helper()
	needGitBackend(t, backend)
	top, err := os.MkdirTemp(bwFixtureBase(t), ".safeexec-git-")
	if err != nil {
		t.Skipf("fixture: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	if out, err := exec.Command("cp", "-a", tmpl+"/.", top).CombinedOutput(); err != nil {
		t.Fatalf("copy the fixture: %v\n%s", err, out)
	}
	g := &gitEnv{t: t, backend: backend, top: top,
		root: filepath.Join(top, "proj"), home: filepath.Join(top, "home"), mark: filepath.Join(top, "mark"),
		outside: filepath.Join(top, "outside"), cache: filepath.Join(top, "cache")}
	t.Setenv("XDG_STATE_HOME", filepath.Join(top, "state"))
	g.setHostEnv(strings.ReplaceAll(o.global, "{ROOT}", g.root))
	// The worktree's links to the repository are absolute.
	g.write(filepath.Join(g.root, "wt", ".git"), "gitdir: "+filepath.Join(g.root, ".git", "worktrees", "wt")+"\n")
	g.write(filepath.Join(g.root, ".git", "worktrees", "wt", "gitdir"), filepath.Join(g.root, "wt", ".git")+"\n")
	g.git(g.outside, "init", "-q", "evilrepo")
	g.plantAll(filepath.Join(g.outside, "evilrepo", ".git"), "copied")
	for name, content := range o.files {
		p := filepath.Join(g.root, strings.TrimSuffix(name, "*"))
		g.write(p, content)
		if strings.HasSuffix(name, "*") {
			os.Chmod(p, 0o755)
		}
	}
	if o.config != "" {
		f, err := os.OpenFile(filepath.Join(g.root, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(o.config)
		f.Close()
	}
	switch o.dotGit {
	case "link":
		if err := os.Rename(filepath.Join(g.root, ".git"), filepath.Join(g.root, ".gitstore")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(".gitstore", filepath.Join(g.root, ".git")); err != nil {
			t.Fatal(err)
		}
		g.write(filepath.Join(g.root, "wt", ".git"), "gitdir: "+filepath.Join(g.root, ".gitstore", "worktrees", "wt")+"\n")
		g.write(filepath.Join(g.root, ".gitstore", "worktrees", "wt", "gitdir"), filepath.Join(g.root, "wt", ".git")+"\n")
		g.write(filepath.Join(g.root, "lib", ".git"), "gitdir: ../.gitstore/modules/lib\n")
	case "none":
		os.RemoveAll(g.root)
		os.MkdirAll(g.root, 0o755)
	}
	g.p = &Policy{Mode: Compat, Cwd: g.root, WritableRoots: []string{g.root}, CacheDir: g.cache,
		DenyWrite:    []string{".env", ".envrc", ".git/hooks", ".git/config", ".safeexec.toml"},
		SafeexecPath: testExecutable(t)}
	// Everything above is older than the run: change times are read
	// with the kernel's coarse clock.
	time.Sleep(30 * time.Millisecond)
	return g
}

func (g *gitEnv) write(p, s string) {
	g.t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		g.t.Fatal(err)
	}
}

// git runs the host's git in dir for the fixture; it must work.
func (g *gitEnv) git(dir string, args ...string) string {
	g.t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = g.hostEnv
	out, err := c.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

// payload is a shell command that leaves a mark named tag.
func (g *gitEnv) payload(tag string) string {
	return "touch " + filepath.Join(g.mark, tag)
}

// hookScript is an executable hook leaving the mark tag.
func (g *gitEnv) hookScript(tag string) string {
	return "#!/bin/sh\n" + g.payload(tag) + "\n"
}

// program is an executable outside the roots that leaves the mark tag,
// for keys git runs as a program rather than through the shell.
func (g *gitEnv) program(tag string) string {
	p := filepath.Join(g.outside, "prog-"+tag)
	if err := os.WriteFile(p, []byte(g.hookScript(tag)), 0o755); err != nil {
		g.t.Fatal(err)
	}
	return p
}

// evilConfig sets every key the battery triggers, each leaving its own
// mark (a comment swallows the arguments git adds to shell commands).
func (g *gitEnv) evilConfig(tag string) string {
	m := func(k string) string { return g.payload(tag+"-"+k) + " #" }
	return fmt.Sprintf("[core] fsmonitor = %q\n\tpager = %q\n\teditor = %q\n\tsshCommand = %q\n\taskPass = %q\n"+
		"[alias]\n\tst = %q\n\tlg = %q\n[credential]\n\thelper = %q\n[gpg]\n\tprogram = %q\n[diff]\n\texternal = %q\n"+
		"[sequence]\n\teditor = %q\n",
		m("fsmonitor"), m("pager"), m("editor"), m("ssh"), g.program(tag+"-askpass"),
		"!"+m("alias"), "!"+m("alias2"), "!"+m("credential"), g.program(tag+"-gpg"), m("diff"), m("seqeditor"))
}

// plantAll puts hooks and a config naming programs into the git directory
// gd (on the host, for fixtures and for the judge's self-test).
func (g *gitEnv) plantAll(gd, tag string) {
	g.t.Helper()
	for _, h := range []string{"pre-commit", "post-checkout", "pre-push", "post-commit", "pre-receive", "post-receive", "update", "reference-transaction"} {
		p := filepath.Join(gd, "hooks", h)
		g.write(p, g.hookScript(tag+"-hook"))
		os.Chmod(p, 0o755)
	}
	f, err := os.OpenFile(filepath.Join(gd, "config"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		g.t.Fatal(err)
	}
	f.WriteString(g.evilConfig(tag))
	f.Close()
}

// run runs script in the backend, in the project.
func (g *gitEnv) run(script string) bwResult {
	g.t.Helper()
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + g.home, "LC_ALL=C",
		"GIT_CONFIG_GLOBAL=" + filepath.Join(g.home, ".gitconfig"), "GIT_CONFIG_NOSYSTEM=1",
		"M=" + g.mark, "O=" + g.outside, "C=" + g.cache, "R=" + g.root}
	var be Backend
	switch g.backend {
	case "bwrap":
		be = bwBackend(g.t)
	default:
		be = Landlock()
	}
	var out, errb bytes.Buffer
	proc, err := be.Start(g.p, &Command{Argv: []string{"/bin/sh", "-c", script}, Env: env, Stdout: &out, Stderr: &errb})
	if err != nil {
		g.t.Fatalf("start: %v", err)
	}
	st, err := proc.Wait()
	if err != nil {
		g.t.Fatalf("wait: %v\n%s", err, errb.String())
	}
	return bwResult{st, out.String(), errb.String()}
}

// gitBattery is what the host's git does in a repository: a command for
// each hook or configured program, as few as cover them.
const gitBattery = `
cd "$1" || exit 0
b=battery-$$
git status >/dev/null 2>&1
f=$(git ls-files 2>/dev/null | head -n1); [ -n "$f" ] && echo change >> "$f"; git diff >/dev/null 2>&1
git add -A >/dev/null 2>&1
git commit -qm battery --no-verify >/dev/null 2>&1
git commit -q --allow-empty </dev/null >/dev/null 2>&1
git commit -q -S --allow-empty -m signed >/dev/null 2>&1
git checkout -q -b $b >/dev/null 2>&1
git rebase -q -i HEAD </dev/null >/dev/null 2>&1; git rebase --abort >/dev/null 2>&1
git fetch -q --all >/dev/null 2>&1
git push -q origin HEAD:refs/heads/$b >/dev/null 2>&1
git ls-remote ssh://127.0.0.1:1/x >/dev/null 2>&1
printf 'protocol=https\nhost=example.invalid\n\n' | git credential fill >/dev/null 2>&1
git st </dev/null >/dev/null 2>&1; git lg </dev/null >/dev/null 2>&1
[ -f .gitmodules ] && git submodule update >/dev/null 2>&1
exit 0
`

// bareBattery exercises a bare repository as a remote from a worktree:
// a push (its receive hooks run) and a fetch.
const bareBattery = `
cd "$2" || exit 0
git push -q "$1" HEAD:refs/heads/battery-$$ >/dev/null 2>&1
git fetch -q "$1" >/dev/null 2>&1
exit 0
`

// repos lists the directories under root where the host's git would work:
// worktrees (a .git entry) and bare repositories (HEAD, objects, refs).
func gitRepos(root string) (worktrees, bare []string) {
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
			worktrees = append(worktrees, p)
		}
		if filepath.Base(p) == ".git" || strings.Contains(p, "/.git/") {
			return nil
		}
		_, e1 := os.Stat(filepath.Join(p, "HEAD"))
		_, e2 := os.Stat(filepath.Join(p, "objects"))
		_, e3 := os.Stat(filepath.Join(p, "refs"))
		if e1 == nil && e2 == nil && e3 == nil {
			bare = append(bare, p)
		}
		return nil
	})
	return worktrees, bare
}

// judge works with the host's git in the worktrees dirs (relative to the
// project; "" is the project) and every bare repository of the project,
// and fails the test for every mark a planted program left. r is the run
// being judged (its output is shown).
func (g *gitEnv) judge(r bwResult, dirs ...string) {
	g.t.Helper()
	if names := g.exercise(dirs...); len(names) > 0 {
		g.t.Errorf("the host's git ran what the command planted: %s\nrun stdout: %s\nrun stderr: %s", strings.Join(names, " "), r.stdout, r.stderr)
	}
}

// exercise runs the battery and returns the marks left.
func (g *gitEnv) exercise(dirs ...string) []string {
	_, bares := gitRepos(g.root)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	sh := func(script string, args ...string) {
		c := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", script, "battery"}, args...)...)
		c.Env = g.hostEnv
		c.Dir = g.top
		c.Run()
	}
	var wts []string
	for _, d := range dirs {
		wts = append(wts, filepath.Join(g.root, d))
	}
	for _, w := range wts {
		sh(gitBattery, w)
		// A pager runs only for a terminal.
		c := exec.CommandContext(ctx, "git", "log", "-1")
		c.Dir = w
		c.Env = append(g.hostEnv[:len(g.hostEnv):len(g.hostEnv)], "TERM=xterm")
		if f, err := pty.Start(c); err == nil {
			go io.Copy(io.Discard, f)
			c.Wait()
			f.Close()
		}
	}
	if len(wts) > 0 {
		for _, b := range bares {
			if b == filepath.Join(g.root, "remote.git") && slices.Contains(dirs, "") {
				continue // the project's battery pushes to it (origin)
			}
			sh(bareBattery, b, wts[0])
		}
	}
	ents, _ := os.ReadDir(g.mark)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// TestGitJudgeSeesPlants: the judge finds what is planted on the host
// directly, in each kind of repository of the fixture (so a passing escape
// test means something).
func TestGitJudgeSeesPlants(t *testing.T) {
	g := newGitEnv(t, gitTemplate(t), "bwrap", gitFixtureOpts{})
	for _, gd := range []string{".git", ".git/modules/lib", "vendor/x/.git", "remote.git"} {
		g.plantAll(filepath.Join(g.root, gd), strings.NewReplacer("/", "_", ".", "_").Replace(gd))
	}
	names := g.exercise("", "lib", "vendor/x")
	got := map[string]bool{}
	for _, n := range names {
		got[n] = true
	}
	for _, want := range []string{"_git-hook", "_git-fsmonitor", "_git-pager", "_git-editor", "_git-ssh",
		"_git-alias", "_git-credential", "_git-gpg", "_git-diff", "_git-seqeditor",
		"_git_modules_lib-hook", "_git_modules_lib-fsmonitor", "vendor_x__git-hook", "vendor_x__git-fsmonitor", "remote_git-hook"} {
		if !got[want] {
			t.Errorf("the judge did not trigger %s (got %v)", want, names)
		}
	}
}

// gitOp is one step of a plant, written out plainly or disguised.
type gitOp struct {
	kind    string   // write, append, mv, cp, ln, mkdir, init, bare, rm, chmodx, hardln
	args    []string // paths, relative to the project or absolute
	content string   // for write and append
	exec    bool     // write: make it executable
}

func opWrite(p, content string, exec bool) gitOp {
	return gitOp{kind: "write", args: []string{p}, content: content, exec: exec}
}
func opAppend(p, content string) gitOp {
	return gitOp{kind: "append", args: []string{p}, content: content}
}
func op(kind string, args ...string) gitOp { return gitOp{kind: kind, args: args} }

// gitScript turns ops into a shell script. Plain: the paths and contents
// are in the script's text. Disguised: each is read at run time from a
// file outside the project that the test writes, so the command's text
// names nothing a classifier could judge.
func (g *gitEnv) gitScript(ops []gitOp, disguised bool) string {
	var b strings.Builder
	n := 0
	stash := func(s string) string {
		n++
		f := filepath.Join(g.outside, fmt.Sprintf(".s%d-%d", len(g.t.Name()), n))
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			g.t.Fatal(err)
		}
		return fmt.Sprintf(`"$(cat "$O/%s")"`, filepath.Base(f))
	}
	word := func(s string) string {
		if disguised {
			return stash(s)
		}
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	// body writes content to the file a (a word) with redirection redir.
	body := func(content, redir, a string) string {
		if disguised {
			n++
			f := filepath.Join(g.outside, fmt.Sprintf(".c%d-%d", len(g.t.Name()), n))
			if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
				g.t.Fatal(err)
			}
			return fmt.Sprintf("cat \"$O/%s\" %s %s 2>/dev/null\n", filepath.Base(f), redir, a)
		}
		return fmt.Sprintf("cat %s %s 2>/dev/null <<'SAFEEXEC_EOF'\n%sSAFEEXEC_EOF\n", redir, a, content)
	}
	for _, o := range ops {
		a := make([]string, len(o.args))
		for i, x := range o.args {
			a[i] = word(x)
		}
		switch o.kind {
		case "write", "append":
			redir := ">"
			if o.kind == "append" {
				redir = ">>"
			}
			fmt.Fprintf(&b, "mkdir -p \"$(dirname %s)\" 2>/dev/null\n%s", a[0], body(o.content, redir, a[0]))
			if o.exec {
				fmt.Fprintf(&b, "chmod +x %s 2>/dev/null\n", a[0])
			}
		case "mv":
			fmt.Fprintf(&b, "mv -f %s %s 2>/dev/null\n", a[0], a[1])
		case "cp":
			fmt.Fprintf(&b, "cp -a %s %s 2>/dev/null\n", a[0], a[1])
		case "ln":
			fmt.Fprintf(&b, "ln -sfn %s %s 2>/dev/null\n", a[0], a[1])
		case "hardln":
			fmt.Fprintf(&b, "ln -f %s %s 2>/dev/null\n", a[0], a[1])
		case "mkdir":
			fmt.Fprintf(&b, "mkdir -p %s 2>/dev/null\n", a[0])
		case "init":
			fmt.Fprintf(&b, "git init -q %s >/dev/null 2>&1\n", a[0])
		case "bare":
			fmt.Fprintf(&b, "git init -q --bare %s >/dev/null 2>&1\n", a[0])
		case "clone":
			fmt.Fprintf(&b, "git clone -q %s %s >/dev/null 2>&1\n", a[0], a[1])
		case "rm":
			fmt.Fprintf(&b, "rm -rf %s 2>/dev/null\n", a[0])
		case "chmodx":
			fmt.Fprintf(&b, "chmod +x %s 2>/dev/null\n", a[0])
		default:
			g.t.Fatalf("unknown op %q", o.kind)
		}
	}
	b.WriteString("exit 0\n")
	return b.String()
}

// hooksOps plants runnable hooks (leaving tag) in the hooks directory dir.
func (g *gitEnv) hooksOps(dir, tag string) []gitOp {
	var ops []gitOp
	for _, h := range []string{"pre-commit", "post-checkout", "pre-push", "pre-receive", "post-receive", "reference-transaction"} {
		ops = append(ops, opWrite(filepath.Join(dir, h), g.hookScript(tag), true))
	}
	return ops
}

// gitDirOps plants hooks and a config naming programs in the git
// directory gd.
func (g *gitEnv) gitDirOps(gd, tag string) []gitOp {
	return append(g.hooksOps(filepath.Join(gd, "hooks"), tag+"-hook"), opAppend(filepath.Join(gd, "config"), g.evilConfig(tag)))
}

// gitClass is one class of attack: the runs of one attempt (a later run
// uses what an earlier one staged), the worktrees the host's git works in
// afterwards, and what else must hold on the host.
type gitClass struct {
	name  string
	opts  gitFixtureOpts
	runs  func(g *gitEnv) [][]gitOp
	judge []string
	check func(g *gitEnv, rs []bwResult)
}

func concat(lists ...[]gitOp) []gitOp {
	var out []gitOp
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// gitClasses are the ways a command can make the host's git run a program
// through files inside the roots.
var gitClasses = []gitClass{
	{
		name: "hooks of the project's repository",
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{concat(
				g.hooksOps(".git/hooks", "hooks"),
				[]gitOp{op("mv", ".git/hooks/pre-push.sample", ".git/hooks/pre-push")},
				[]gitOp{op("mv", ".git/hooks", ".git/hooks.old"), op("mkdir", ".git/hooks")}, g.hooksOps(".git/hooks", "hooks-new"),
				g.hooksOps("evilhooks", "hooks-link"), []gitOp{op("rm", ".git/hooks"), op("ln", g.root+"/evilhooks", ".git/hooks")},
			)}
		},
		judge: []string{"", "wt"},
		check: func(g *gitEnv, _ []bwResult) { g.unchanged(".git/hooks/pre-push.sample") },
	},
	{
		name: "config of the project's repository",
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{{
				opAppend(".git/config", g.evilConfig("config")),
				opWrite("evil.cfg", g.evilConfig("config-mv"), false), op("mv", "evil.cfg", ".git/config"),
				opWrite(".git/config.worktree", g.evilConfig("config-wt"), false),
				opWrite(".git/worktrees/wt/config.worktree", g.evilConfig("config-wtwt"), false),
				opAppend(".git/config", "[include]\n\tpath = ../inc.cfg\n"), opWrite("inc.cfg", g.evilConfig("config-inc"), false),
			}}
		},
		judge: []string{"", "wt"},
		check: func(g *gitEnv, _ []bwResult) { g.unchanged(".git/config") },
	},
	{
		name: "config files the project's repository includes",
		opts: gitFixtureOpts{
			config: "[include]\n\tpath = ../team.gitconfig\n[includeIf \"gitdir:/\"]\n\tpath = ../later.gitconfig\n",
			files:  map[string]string{"team.gitconfig": "[user]\n\tname = team\n"},
		},
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{{
				opAppend("team.gitconfig", g.evilConfig("team")),
				opWrite("later.gitconfig", g.evilConfig("later"), false),
				opWrite("t2", g.evilConfig("team-mv"), false), op("mv", "t2", "team.gitconfig"),
			}}
		},
		judge: []string{"", "wt"},
		check: func(g *gitEnv, _ []bwResult) { g.unchanged("team.gitconfig") },
	},
	{
		name: "hooks directory the project's config names",
		opts: gitFixtureOpts{config: "[core]\n\thooksPath = .husky\n", files: map[string]string{".husky/pre-commit*": "#!/bin/sh\nexit 0\n"}},
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{concat(
				[]gitOp{opAppend(".husky/pre-commit", g.payload("husky-append")+"\n")},
				g.hooksOps(".husky", "husky"),
				[]gitOp{op("mv", ".husky", ".husky.old"), op("mkdir", ".husky")}, g.hooksOps(".husky", "husky-new"),
			)}
		},
		judge: []string{"", "wt"},
		check: func(g *gitEnv, _ []bwResult) { g.unchanged(".husky/pre-commit") },
	},
	{
		name: "programs the project's config names by path",
		opts: gitFixtureOpts{
			config: "[alias]\n\tst = !tools/st.sh\n[diff \"tc\"]\n\ttextconv = tools/tc.sh\n",
			files:  map[string]string{"tools/st.sh*": "#!/bin/sh\nexit 0\n", "tools/tc.sh*": "#!/bin/sh\ncat \"$1\"\n", ".gitattributes": "README diff=tc\n"},
		},
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{{
				opAppend("tools/st.sh", g.payload("prog-alias")+"\n"),
				opWrite("tools/tc2.sh", g.hookScript("prog-textconv"), true), op("mv", "tools/tc2.sh", "tools/tc.sh"),
			}}
		},
		judge: []string{""},
		check: func(g *gitEnv, _ []bwResult) { g.unchanged("tools/st.sh") },
	},
	{
		name: "template directory the host's config names",
		opts: gitFixtureOpts{global: "[init]\n\ttemplateDir = {ROOT}/.tmpl\n", files: map[string]string{".tmpl/description": "x\n"}},
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{g.hooksOps(".tmpl/hooks", "template")}
		},
		check: func(g *gitEnv, rs []bwResult) {
			// A repository the host makes after the run gets the
			// template's hooks.
			d := filepath.Join(g.top, "after")
			g.git(g.top, "init", "-q", d)
			g.write(filepath.Join(d, "f"), "f\n")
			g.git(d, "add", "f")
			g.git(d, "commit", "-qm", "f")
			c := exec.Command("git", "checkout", "-q", "-b", "b")
			c.Dir, c.Env = d, g.hostEnv
			c.Run()
			g.judge(rs[len(rs)-1])
		},
	},
	{
		name: "hooks directory the host's config names in every worktree",
		opts: gitFixtureOpts{global: "[core]\n\thooksPath = .githooks\n"},
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{concat(
				g.hooksOps(".githooks", "gh-root"), g.hooksOps("wt/.githooks", "gh-wt"),
				g.hooksOps("vendor/x/.githooks", "gh-vendor"), g.hooksOps("lib/.githooks", "gh-lib"),
			)}
		},
		judge: []string{"", "wt", "vendor/x", "lib"},
	},
	{
		name: "the project's .git entry",
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{concat(
				[]gitOp{op("bare", "evil.git")}, g.gitDirOps("evil.git", "dotgit"),
				[]gitOp{op("mv", ".git", ".git.moved"), op("rm", ".git"), opWrite(".git", "gitdir: evil.git\n", false),
					op("ln", "evil.git", ".git")},
			)}
		},
		judge: []string{""},
		check: func(g *gitEnv, _ []bwResult) { g.isDir(".git/objects") },
	},
	{
		name: "the project's .git link",
		opts: gitFixtureOpts{dotGit: "link"},
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{concat(
				[]gitOp{op("bare", "evil.git")}, g.gitDirOps("evil.git", "dotlink"),
				[]gitOp{op("ln", "evil.git", ".git")},
			)}
		},
		judge: []string{"", "wt"},
		check: func(g *gitEnv, _ []bwResult) {
			if t, err := os.Readlink(filepath.Join(g.root, ".git")); err != nil || t != ".gitstore" {
				g.t.Errorf(".git is %q (%v), want the link to .gitstore", t, err)
			}
		},
	},
	{
		name: "pointers and object stores of the project's repository",
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{concat(
				[]gitOp{op("bare", "evilcommon")}, g.gitDirOps("evilcommon", "common"),
				[]gitOp{
					opWrite(".git/commondir", "../evilcommon\n", false),
					opWrite(".git/worktrees/wt/commondir", "../../../evilcommon\n", false),
					opWrite(".git/worktrees/wt/gitdir", g.root+"/evilcommon\n", false),
					opWrite(".git/objects/info/alternates", g.root+"/evilcommon/objects\n", false),
					opWrite(".git/info/attributes", "* diff=evil\n", false),
					opWrite(".git/info/exclude", "*\n", false),
					opWrite(".git/remotes/origin", "URL: ext::sh -c touch% "+g.mark+"/remotes\n", false),
				},
			)}
		},
		judge: []string{"", "wt"},
		check: func(g *gitEnv, _ []bwResult) {
			g.absent(".git/commondir")
			g.absent(".git/objects/info/alternates")
			g.absent(".git/info/attributes")
			g.absent(".git/remotes/origin")
			g.unchanged(".git/info/exclude")
			g.unchanged(".git/worktrees/wt/commondir")
		},
	},
	{
		name: "submodule",
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{concat(
				g.gitDirOps(".git/modules/lib", "module"),
				[]gitOp{op("cp", ".git/modules/lib", "evilsub")}, g.gitDirOps("evilsub", "module-copy"),
				[]gitOp{opWrite("lib/.git", "gitdir: ../evilsub\n", false)},
			)}
		},
		judge: []string{"", "lib"},
		check: func(g *gitEnv, _ []bwResult) { g.unchanged(".git/modules/lib/config") },
	},
	{
		name: "linked worktree",
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{concat(
				[]gitOp{opWrite(".git/worktrees/wt/config.worktree", g.evilConfig("wt"), false)},
				[]gitOp{op("cp", ".git/worktrees/wt", ".git/worktrees/evilwt")},
				[]gitOp{opWrite(".git/worktrees/evilwt/config.worktree", g.evilConfig("wt-new"), false)},
				[]gitOp{opAppend(".git/config", "[extensions]\n\tworktreeConfig = true\n")},
				[]gitOp{opWrite("wt/.git", "gitdir: "+g.root+"/.git/worktrees/evilwt\n", false)},
				[]gitOp{op("mv", ".git/worktrees/wt", ".git/worktrees/wt.old"), op("cp", ".git/worktrees/wt.old", ".git/worktrees/wt"),
					opWrite(".git/worktrees/wt/config.worktree", g.evilConfig("wt-moved"), false)},
			)}
		},
		judge: []string{"wt", ""},
	},
	{
		name: "vendored repository",
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{concat(
				g.gitDirOps("vendor/x/.git", "vendored"),
				[]gitOp{opAppend("vendor/x/.git/hooks/pre-push", g.payload("vendored-user-hook")+"\n")},
			)}
		},
		judge: []string{"vendor/x"},
	},
	{
		name: "new repositories",
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{concat(
				[]gitOp{op("init", "newrepo")}, g.gitDirOps("newrepo/.git", "new"),
				[]gitOp{op("cp", g.outside+"/evilrepo", "copied")},
				[]gitOp{op("clone", "remote.git", "cloned")}, g.gitDirOps("cloned/.git", "cloned"),
				[]gitOp{op("bare", "newbare.git")}, g.gitDirOps("newbare.git", "newbare"),
				[]gitOp{op("mkdir", "deep/a/b/c/d/e/f/g"), op("init", "deep/a/b/c/d/e/f/g/r")}, g.gitDirOps("deep/a/b/c/d/e/f/g/r/.git", "deep"),
			)}
		},
		judge: []string{"newrepo", "copied", "cloned", "deep/a/b/c/d/e/f/g/r"},
	},
	{
		name: "the working directory becomes a repository",
		opts: gitFixtureOpts{dotGit: "none"},
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{concat(
				[]gitOp{op("init", ".")}, g.gitDirOps(".git", "became"),
			)}
		},
		judge: []string{""},
	},
	{
		name: "staged by one run, made a repository by the next",
		runs: func(g *gitEnv) [][]gitOp {
			stage := func(d, tag string) []gitOp {
				return append(g.gitDirOps(d, tag), opWrite(d+"/HEAD", "ref: refs/heads/main\n", false))
			}
			first := concat(
				stage("s1", "staged-mkdir"),
				stage("s2", "staged-pointer"),
				stage("s3", "staged-rename"), []gitOp{op("mkdir", "s3/objs"), op("mkdir", "s3/rfs")},
				stage("s4", "staged-moved"),
				[]gitOp{op("bare", g.cache+"/cached.git")}, g.gitDirOps(g.cache+"/cached.git", "staged-cache"),
				[]gitOp{opWrite("s5/hooks/post-checkout", g.hookScript("staged-chmod"), false), op("bare", "s5")},
			)
			second := []gitOp{
				op("mkdir", "s1/objects"), op("mkdir", "s1/refs"),
				op("mkdir", "s2/objects"), op("mkdir", "s2/refs"), op("mkdir", "vendor/w"), opWrite("vendor/w/.git", "gitdir: ../../s2\n", false),
				op("mv", "s3/objs", "s3/objects"), op("mv", "s3/rfs", "s3/refs"), op("mkdir", "vendor/t"), op("ln", "../../s3", "vendor/t/.git"),
				op("mkdir", "vendor/v"), op("mv", "s4", "vendor/v/.git"), op("mkdir", "vendor/v/.git/objects"), op("mkdir", "vendor/v/.git/refs"),
				op("mkdir", "vendor/u"), op("ln", g.cache+"/cached.git", "vendor/u/.git"),
				op("chmodx", "s5/hooks/post-checkout"), op("mkdir", "vendor/s"), opWrite("vendor/s/.git", "gitdir: ../../s5\n", false),
			}
			return [][]gitOp{first, second}
		},
		judge: []string{"vendor/w", "vendor/t", "vendor/v", "vendor/u", "vendor/s"},
	},
	{
		name: "bare repository the project pushes to",
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{g.gitDirOps("remote.git", "remote")}
		},
		judge: []string{""},
	},
	{
		name: "links to programs outside the roots",
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{{
				opWrite(g.cache+"/evil.sh", g.hookScript("link-hook"), true),
				op("ln", g.cache+"/evil.sh", "vendor/x/.git/hooks/post-checkout"),
				op("ln", g.cache+"/evil.sh", "vendor/x/.git/hooks/pre-commit"),
				opWrite(g.cache+"/evil.cfg", g.evilConfig("link-config"), false),
				op("rm", "vendor/x/.git/config"), op("ln", g.cache+"/evil.cfg", "vendor/x/.git/config"),
				op("ln", g.cache+"/evil.sh", ".git/hooks/post-checkout"),
			}}
		},
		judge: []string{"vendor/x", ""},
	},
	{
		name: "changed in place across runs",
		runs: func(g *gitEnv) [][]gitOp {
			return [][]gitOp{
				{opWrite("vendor/x/.git/hooks/post-commit", g.hookScript("inplace-chmod"), false),
					opWrite("vendor/x/.git/cfgstage", g.evilConfig("inplace-cfg"), false)},
				{op("chmodx", "vendor/x/.git/hooks/post-commit"), op("hardln", "vendor/x/.git/cfgstage", "vendor/x/.git/config.new"),
					op("mv", "vendor/x/.git/config.new", "vendor/x/.git/config")},
			}
		},
		judge: []string{"vendor/x"},
	},
}

// snapshot records the files unchanged compares.
func (g *gitEnv) snapshot() {
	g.before = map[string]string{}
	for _, rel := range []string{".git/hooks/pre-push.sample", ".git/config", "team.gitconfig", ".husky/pre-commit", "tools/st.sh",
		".git/info/exclude", ".git/worktrees/wt/commondir", ".git/modules/lib/config"} {
		if b, err := os.ReadFile(filepath.Join(g.root, rel)); err == nil {
			g.before[rel] = string(b)
		}
	}
}

// unchanged fails when the project's file rel is not as it was before the
// run.
func (g *gitEnv) unchanged(rel string) {
	g.t.Helper()
	want, ok := g.before[rel]
	if !ok {
		g.t.Fatalf("%s was not recorded before the run", rel)
	}
	got, err := os.ReadFile(filepath.Join(g.root, rel))
	if err != nil {
		g.t.Errorf("%s: %v", rel, err)
		return
	}
	if string(got) != want {
		g.t.Errorf("%s changed:\n%s", rel, got)
	}
}

func (g *gitEnv) absent(rel string) {
	g.t.Helper()
	if _, err := os.Lstat(filepath.Join(g.root, rel)); err == nil {
		g.t.Errorf("%s exists on the host", rel)
	}
}

func (g *gitEnv) isDir(rel string) {
	g.t.Helper()
	if fi, err := os.Lstat(filepath.Join(g.root, rel)); err != nil || !fi.IsDir() {
		g.t.Errorf("%s is not the directory it was: %v", rel, err)
	}
}

// TestGitEscape runs every class under each backend, plain and disguised,
// and judges the host with the host's git.
func TestGitEscape(t *testing.T) {
	for _, backend := range gitBackends {
		t.Run(backend, func(t *testing.T) {
			needGitBackend(t, backend)
			tmpl := gitTemplate(t)
			for _, c := range gitClasses {
				for _, disguised := range []bool{false, true} {
					name := c.name
					if disguised {
						name += " disguised"
					}
					t.Run(name, func(t *testing.T) {
						g := newGitEnv(t, tmpl, backend, c.opts)
						g.snapshot()
						var rs []bwResult
						for _, ops := range c.runs(g) {
							rs = append(rs, g.run(g.gitScript(ops, disguised)))
						}
						if c.check != nil {
							c.check(g, rs)
						}
						last := rs[len(rs)-1]
						g.judge(last, c.judge...)
						if c.name != "vendored repository" && c.name != "links to programs outside the roots" && c.opts.dotGit != "none" {
							if _, err := os.Stat(filepath.Join(g.root, "vendor/x/.git/hooks/pre-push")); err != nil {
								t.Errorf("the user's own hook in vendor/x was taken: %v\n%s", err, last.stderr)
							}
						}
					})
				}
			}
		})
	}
}

// gitWorkload is ordinary work in every kind of repository of the
// fixture: it must all succeed inside the sandbox, and nothing of it may
// be taken away afterwards.
const gitWorkload = `set -e
export GIT_SEQUENCE_EDITOR=true
git checkout -q -b feature
echo a > a.txt; git add a.txt; git commit -qm a
git branch other; git tag v1
echo b > b.txt; git add b.txt; git commit -qm b
echo dirty >> a.txt; git stash -q; git stash list | grep -q stash; git stash pop -q; git commit -qam dirty
git rebase -q main
git rebase -q -i main
git checkout -q main; git merge -q --no-edit feature
git checkout -q -b picked v1~1; git cherry-pick v1 >/dev/null; git checkout -q main
git worktree add -q wt2 -b wt2
(cd wt2 && echo w > w.txt && git add w.txt && git commit -qm w)
(cd wt && git commit -q --allow-empty -m inwt)
git submodule update -q
(cd lib && git checkout -q -b libwork && git commit -q --allow-empty -m l)
(cd vendor/x && git commit -q --allow-empty -m v && git checkout -q -b vb && git stash list >/dev/null)
git gc -q
git init -q scratch; (cd scratch && git commit -q --allow-empty -m s)
git clone -q remote.git clone2; (cd clone2 && git log --oneline >/dev/null)
git init -q --bare scratch.git; git push -q scratch.git main
git push -q origin main; git fetch -q origin
git status --short >/dev/null
echo WORKLOAD-OK
`

// TestGitWorkload: commits, branches, tags, stashes, rebases, merges,
// cherry-picks, a new worktree, submodule work, gc, new repositories and
// clones all work inside the sandbox, under each backend, and the host
// finds the result as it should: nothing taken away, nothing to run.
func TestGitWorkload(t *testing.T) {
	for _, backend := range gitBackends {
		t.Run(backend, func(t *testing.T) {
			needGitBackend(t, backend)
			g := newGitEnv(t, gitTemplate(t), backend, gitFixtureOpts{})
			r := g.run(gitWorkload)
			if !strings.Contains(r.stdout, "WORKLOAD-OK") || r.ExitCode != 0 {
				t.Fatalf("the workload failed (exit %d):\nstdout: %s\nstderr: %s", r.ExitCode, r.stdout, r.stderr)
			}
			if strings.Contains(r.stderr, "safeexec:") || len(r.Protected) > 0 || len(r.Unchecked) > 0 {
				t.Errorf("ordinary work was taken away or not checked: %v %v\n%s", r.Protected, r.Unchecked, r.stderr)
			}
			for _, c := range [][]string{
				{"", "log", "--oneline", "main"},
				{"wt2", "log", "--oneline", "-1"},
				{"lib", "log", "--oneline", "-1"},
				{"vendor/x", "log", "--oneline", "-1"},
				{"", "worktree", "list"},
			} {
				out := g.git(filepath.Join(g.root, c[0]), c[1:]...)
				if out == "" {
					t.Errorf("git %v in %q: no output", c[1:], c[0])
				}
			}
			if out := g.git(g.root, "log", "--format=%s", "main"); !strings.Contains(out, "dirty") || !strings.Contains(out, "a\n") {
				t.Errorf("the commits are not on the host: %q", out)
			}
			if _, err := os.Stat(filepath.Join(g.root, "vendor/x/.git/hooks/pre-push")); err != nil {
				t.Errorf("the user's own hook was taken: %v", err)
			}
			g.judge(r, "", "wt2", "scratch", "clone2")
		})
	}
}
