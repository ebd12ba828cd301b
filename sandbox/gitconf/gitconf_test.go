package gitconf

import (
	"bytes"
	"os"
	"os/exec"
	"reflect"
	"testing"
)

// configCases are files in git's syntax, tricky ones first. Each is parsed
// by Parse and, where git is installed, by the host's git; they must agree.
var configCases = []string{
	"[core] fsmonitor = touch /tmp/x\n",
	"[core]fsmonitor=x",
	"[core]\n\tfsmonitor = a \\\n b\n",
	"[core]\n\tpager = \"less  -R\" ; a comment\n",
	"[core]\n\teditor = 'vi' # comment\n\tbare\n",
	"[CORE]\n\tFsMonitor = x\n",
	"[core.Sub]\n\tKey = v\n",
	"[diff \"My Driver\"]\n\ttextconv = cat\n",
	"[diff \"a\\\"b\\\\c\\d\"] textconv = x\n",
	"[alias]\n\tst = \"!sh -c 'echo hi'\"\n\tco = checkout\n",
	"[include]\n\tpath = other.cfg\n[includeIf \"gitdir:~/work/\"]\n\tpath = work.cfg\n",
	"\xef\xbb\xbf[core]\n\tfsmonitor = bom\n",
	"[core]\r\n\tfsmonitor = crlf\r\n",
	"[core]\n\tx = a\\tb\\nc\\bd\n",
	"[core]\n\tx = \"unterminated\n",
	"[core]\n\tx = bad\\escape\n",
	"[core]\n\t1x = y\n",
	"[core\n",
	"[core \"sub\"\n",
	"[core \"sub\" ]\n",
	"[]\n",
	"; comment only\n# another\n",
	"",
	"[a]\n\tb = c # \"not\" quoted\n\td = \"e # f\"\n",
	"[a]\n\tb = x   y\t z   \n",
	"[a]\n\tb =\n\tc = \"\"\n",
	"[a] b = 1 [c] d = 2\n",
	"[a]\n\tb = x\\\n",
	"[a]\n\tb = \\\n\n",
	"[a]\n\tkey-with-dash = v\n",
	"[remote \"o\"]\n\turl = ev\"\":il::x\n",
	"[a]\n\tb\t  = c\n",
	"[a]\n\tb c\n",
	"[a]\n\tb = v\x00hidden\n",
	"[sec \"sub.with.dots\"]\n\tname = v\n",
}

func hostGit(t testing.TB) string {
	g, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git on this machine")
	}
	return g
}

// gitList asks the host's git what it reads from data.
func gitList(git string, data []byte) ([]Entry, error) {
	c := exec.Command(git, "config", "--no-includes", "--file", "-", "--list", "--null")
	c.Stdin = bytes.NewReader(data)
	c.Dir = "/"
	c.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "LC_ALL=C"}
	out, err := c.Output()
	if err != nil {
		return nil, err
	}
	return ParseList(out), nil
}

func TestParseAgreesWithGit(t *testing.T) {
	git := hostGit(t)
	for _, c := range configCases {
		compareWithGit(t, git, []byte(c))
	}
}

func compareWithGit(t *testing.T, git string, data []byte) {
	t.Helper()
	want, gerr := gitList(git, data)
	got, perr := Parse(data)
	if (gerr != nil) != (perr != nil) {
		t.Errorf("%q: git error %v, Parse error %v (got %+v, git %+v)", data, gerr, perr, got, want)
		return
	}
	if gerr != nil {
		return
	}
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%q:\nParse: %+v\ngit:   %+v", data, got, want)
	}
}

// FuzzParse: Parse reads what git reads, and never panics.
func FuzzParse(f *testing.F) {
	for _, c := range configCases {
		f.Add([]byte(c))
	}
	git, _ := exec.LookPath("git")
	f.Fuzz(func(t *testing.T, data []byte) {
		if git == "" || len(data) > 4096 || bytes.Contains(data, []byte("include")) {
			Parse(data)
			return
		}
		compareWithGit(t, git, data)
	})
}

func TestRuns(t *testing.T) {
	for _, c := range []struct {
		key, value string
		has, runs  bool
	}{
		{"core.fsmonitor", "touch x", true, true},
		{"core.fsmonitor", "true", true, false},
		{"core.fsmonitor", "", false, false},
		{"core.hookspath", ".husky", true, true},
		{"core.sshcommand", "ssh -i k", true, true},
		{"core.pager", "less", true, true},
		{"core.editor", "vi", true, true},
		{"core.askpass", "x", true, true},
		{"core.gitproxy", "x", true, true},
		{"core.bare", "false", true, false},
		{"core.repositoryformatversion", "0", true, false},
		{"core.worktree", "../..", true, false},
		{"diff.external", "x", true, true},
		{"diff.foo.textconv", "x", true, true},
		{"diff.foo.command", "x", true, true},
		{"diff.foo.xfuncname", "x", true, false},
		{"diff.textconv", "x", true, false},
		{"merge.foo.driver", "x", true, true},
		{"filter.lfs.clean", "x", true, true},
		{"filter.lfs.smudge", "x", true, true},
		{"filter.lfs.process", "x", true, true},
		{"filter.lfs.required", "true", true, false},
		{"alias.st", "!sh", true, true},
		{"alias.co", "checkout", true, false},
		{"credential.helper", "store", true, true},
		{"credential.https://x.helper", "store", true, true},
		{"gpg.program", "x", true, true},
		{"gpg.ssh.program", "x", true, true},
		{"gpg.ssh.defaultkeycommand", "x", true, true},
		{"gpg.format", "ssh", true, false},
		{"sequence.editor", "x", true, true},
		{"pager.log", "true", true, false},
		{"pager.log", "less -S", true, true},
		{"color.pager", "true", true, false},
		{"uploadpack.packobjectshook", "x", true, true},
		{"remote.origin.uploadpack", "x", true, true},
		{"remote.origin.receivepack", "x", true, true},
		{"remote.origin.url", "https://example.com/x.git", true, false},
		{"remote.origin.url", "git@example.com:x.git", true, false},
		{"remote.origin.url", "../x", true, false},
		{"remote.origin.url", "ext::sh -c evil", true, true},
		{"remote.origin.url", "evil::x", true, true},
		{"remote.origin.url", "evil://host/x", true, true},
		{"remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*", true, false},
		{"remote.origin.vcs", "evil", true, true},
		{"url.ext::sh.insteadof", "https://", true, true},
		{"submodule.x.update", "!evil", true, true},
		{"submodule.x.update", "rebase", true, false},
		{"submodule.x.url", "https://example.com/x", true, false},
		{"sendemail.sendmailcmd", "x", true, true},
		{"sendemail.work.tocmd", "x", true, true},
		{"include.path", "x", true, true},
		{"includeif.gitdir:~/w/.path", "x", true, true},
		{"include.x.path", "x", true, false},
		{"protocol.ext.allow", "always", true, true},
		{"protocol.ext.allow", "never", true, false},
		{"hook.lint.command", "x", true, true},
		{"trailer.sign.command", "x", true, true},
		{"init.templatedir", "x", true, true},
		{"lfs.customtransfer.x.path", "x", true, true},
		{"branch.main.remote", "origin", true, false},
		{"user.name", "x", true, false},
	} {
		if got := Runs(Entry{c.key, c.value, c.has}); got != c.runs {
			t.Errorf("Runs(%s=%q) = %v, want %v", c.key, c.value, got, c.runs)
		}
		if c.runs && !KeyRuns(c.key) {
			t.Errorf("KeyRuns(%s) = false, but a value runs", c.key)
		}
	}
}

// TestSuspect: no file that holds a running key (as git reads it) passes
// Suspect.
func TestSuspect(t *testing.T) {
	for _, c := range configCases {
		es, _ := Parse([]byte(c))
		runs := false
		for _, e := range es {
			runs = runs || Runs(e)
		}
		if runs && !Suspect([]byte(c)) {
			t.Errorf("Suspect(%q) = false, but it runs", c)
		}
	}
	for _, c := range []string{
		"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n",
		"[remote \"origin\"]\n\turl = git@github.com:a/b.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n",
	} {
		if Suspect([]byte(c)) {
			t.Errorf("Suspect(%q) = true for what git init and clone write", c)
		}
	}
}

// TestSplit covers subsections holding dots.
func TestSplit(t *testing.T) {
	for _, c := range [][4]string{
		{"core.pager", "core", "", "pager"},
		{"Diff.My.Drv.TextConv", "diff", "My.Drv", "textconv"},
		{"x", "", "", "x"},
	} {
		s, sub, n := Split(c[0])
		if s != c[1] || sub != c[2] || n != c[3] {
			t.Errorf("Split(%q) = %q %q %q", c[0], s, sub, n)
		}
	}
}

func TestMain(m *testing.M) {
	// The host's git must not read this machine's config while it parses
	// test input.
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Exit(m.Run())
}
