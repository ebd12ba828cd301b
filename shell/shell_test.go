package shell_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/safeexec/safeexec/catalog"
	"github.com/safeexec/safeexec/shell"
)

var testOpts = shell.Options{Home: "/home/u", Cwd: "/home/u/p", Tools: catalog.Tools, Vars: catalog.Vars, Programs: func(n string) bool { return catalog.Lookup(n) != nil }}

// dump renders a program for failure messages.
func dump(prog *shell.Program) string {
	var b strings.Builder
	for _, c := range prog.Commands {
		fmt.Fprintf(&b, "\n  %s%s [%s]", strings.Repeat("  ", c.Depth), c.String(), c.Origin)
	}
	for _, is := range prog.Issues {
		fmt.Fprintf(&b, "\n  issue %d: %s", is.Kind, is.Detail)
	}
	return b.String()
}

// names lists the command names of a program, "?" for dynamic ones.
func names(prog *shell.Program) []string {
	var out []string
	for _, c := range prog.Commands {
		switch {
		case len(c.Args) == 0:
			out = append(out, "<redir>")
		case c.Args[0].Dynamic:
			out = append(out, "?")
		default:
			out = append(out, c.Name())
		}
	}
	return out
}

func find(prog *shell.Program, name string) *shell.Command {
	for _, c := range prog.Commands {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

func TestUnquoting(t *testing.T) {
	for _, src := range []string{`s\udo id`, `su''do id`, `"sudo" id`, `'sudo' id`, `$'\x73\x75\x64\x6f' id`,
		`$'\163\165\144\157' id`, `s"u"d'o' id`, `sud$'o' id`, "su\\\ndo id", `x=sudo; $x id`, `$(echo sudo) id`,
		"`printf sudo` id", `$(echo c3Vkbw== | base64 -d) id`, `$(echo odus | rev) id`, `x=xsudo; ${x#x} id`,
		`x=sudox; ${x%x} id`, `x=SUDO; ${x,,} id`, `x=asudob; ${x:1:4} id`, `x=sado; ${x/a/u} id`, `/usr/bin/sudo id`} {
		prog := shell.Parse(src, testOpts)
		c := find(prog, "id")
		if c == nil || len(c.Wrappers) != 1 || c.Wrappers[0].Name != "sudo" {
			t.Errorf("%q: no sudo id in%s", src, dump(prog))
		}
	}
}

func TestFolding(t *testing.T) {
	tests := []struct {
		src  string
		args []string
	}{
		{`x=rm; $x -rf build`, []string{"rm", "-rf", "build"}},
		{`x="a b"; echo $x`, []string{"echo", "a", "b"}},
		{`x="a b"; echo "$x"`, []string{"echo", "a b"}},
		{`echo $(echo a b)`, []string{"echo", "a", "b"}},
		{`echo "$(echo a b)"`, []string{"echo", "a b"}},
		{`echo ~ ~/x ~root`, []string{"echo", "/home/u", "/home/u/x", "/root"}},
		{`echo $HOME ${HOME}/y`, []string{"echo", "/home/u", "/home/u/y"}},
		{`x=; echo ${x:-d} ${x-e}`, []string{"echo", "d"}},
		{`x=abc; echo ${#x}`, []string{"echo", "3"}},
		{`echo a{b,c}d`, []string{"echo", "abd", "acd"}},
		{`e=''; $e ls -l`, []string{"ls", "-l"}},
		{`echo $(printf '%s-%s' a b)`, []string{"echo", "a-b"}},
		{`IFS=,; x=a,b; echo $x`, []string{"echo", "a", "b"}},
		{`set -- x y; echo "$@"`, []string{"echo", "x", "y"}},
		{`echo $'a\tb'`, []string{"echo", "a\tb"}},
	}
	for _, tc := range tests {
		prog := shell.Parse(tc.src, testOpts)
		last := prog.Commands[len(prog.Commands)-1]
		if got := last.Values(); !slices.Equal(got, tc.args) {
			t.Errorf("%q: got %q, want %q%s", tc.src, got, tc.args, dump(prog))
		}
	}
}

func TestDynamic(t *testing.T) {
	tests := []struct {
		src    string
		arg    int
		prefix string
	}{
		{`rm -rf "$DIR"`, 2, ""},
		{`rm -rf /etc/$X`, 2, "/etc/"},
		{`cat ~/.ssh/$K`, 1, "/home/u/.ssh/"},
		{`x=a; if y; then x=b; fi; echo $x`, 1, ""},
		{`for i in $(ls); do echo $i; done`, 1, ""},
		{`for i in 1 2 3 4 5 6 7 8 9; do echo $i; done`, 1, ""},
		{`read v; echo $v`, 1, ""},
		{`echo $RANDOM`, 1, ""},
	}
	for _, tc := range tests {
		prog := shell.Parse(tc.src, testOpts)
		last := prog.Commands[len(prog.Commands)-1]
		if len(last.Args) <= tc.arg || !last.Args[tc.arg].Dynamic || last.Args[tc.arg].Prefix != tc.prefix {
			t.Errorf("%q: arg %d not dynamic with prefix %q%s", tc.src, tc.arg, tc.prefix, dump(prog))
		}
	}
}

func TestWrappers(t *testing.T) {
	prog := shell.Parse(`env -i A=1 nice -n 5 timeout -s KILL 3 sudo -u root B=2 ls -l`, testOpts)
	c := prog.Commands[0]
	var ws []string
	for _, w := range c.Wrappers {
		ws = append(ws, w.Name)
	}
	if c.Name() != "ls" || !slices.Equal(ws, []string{"env", "nice", "timeout", "sudo"}) {
		t.Fatalf("got %s wrappers %v%s", c.Name(), ws, dump(prog))
	}
	if len(c.Assigns) != 2 || c.Assigns[0].Name != "A" || c.Assigns[1].Name != "B" {
		t.Errorf("assigns %+v", c.Assigns)
	}
	for _, src := range []string{`command -v rm`, `env`, `sudo -l`, `timeout 5`} {
		prog := shell.Parse(src, testOpts)
		if len(prog.Commands[0].Wrappers) != 0 {
			t.Errorf("%q: unwrapped%s", src, dump(prog))
		}
	}
	prog = shell.Parse(`echo a b | xargs rm -f`, testOpts)
	if rm := find(prog, "rm"); rm == nil || !slices.Equal(rm.Values(), []string{"rm", "-f", "a", "b"}) {
		t.Errorf("xargs with known input%s", dump(prog))
	}
	prog = shell.Parse(`find . -name x -exec rm {} +`, testOpts)
	if rm := find(prog, "rm"); rm == nil || rm.Origin != shell.Wrapped || !rm.Args[1].Dynamic {
		t.Errorf("find -exec%s", dump(prog))
	}
}

func TestNested(t *testing.T) {
	tests := []struct {
		src   string
		names []string
	}{
		{`bash -c 'a; b | c'`, []string{"bash", "a", "b", "c"}},
		{`sh -c '$0 x' rm`, []string{"sh", "rm"}},
		{`echo 'ls' | sh`, []string{"echo", "sh", "ls"}},
		{"bash <<EOF\nmake\nEOF", []string{"bash", "make"}},
		{`eval 'a && b'`, []string{"eval", "a", "b"}},
		{`x=$(a | b)`, []string{"a", "b"}},
		{`diff <(a) <(b)`, []string{"a", "b", "diff"}},
		{`trap 'cleanup' EXIT`, []string{"trap", "cleanup"}},
		{`git -c alias.x='!a' x`, []string{"git", "a"}},
		{`GIT_SSH_COMMAND='b -v' git fetch`, []string{"git", "b"}},
		{`watch -n1 make test`, []string{"watch", "make"}},
		{`su -c 'a' root`, []string{"su", "a"}},
		{`safeexec -- a x`, []string{"safeexec", "a"}},
		{`$X rm y`, []string{"?", "rm"}},
		{`f() { a; }`, []string{"a"}},
		{`pwsh -c 'Get-Item x | Remove-Item'`, []string{"pwsh", "Get-Item", "Remove-Item"}},
		{`cmd /c "dir & rd /s x"`, []string{"cmd", "dir", "rd"}},
	}
	for _, tc := range tests {
		prog := shell.Parse(tc.src, testOpts)
		if got := names(prog); !slices.Equal(got, tc.names) {
			t.Errorf("%q: got %q, want %q%s", tc.src, got, tc.names, dump(prog))
		}
	}
}

func TestDirectory(t *testing.T) {
	prog := shell.Parse(`cd sub && a; cd /tmp; b; cd; c; cd "$X"; d; (cd /; e); f`, testOpts)
	want := map[string]string{"a": "/home/u/p/sub", "b": "/tmp", "c": "/home/u", "e": "/", "f": ""}
	for _, c := range prog.Commands {
		w, ok := want[c.Name()]
		if !ok {
			continue
		}
		got := ""
		if c.DirKnown {
			got = c.Dir
		}
		if got != w {
			t.Errorf("%s runs in %q, want %q", c.Name(), got, w)
		}
	}
}

func TestTaint(t *testing.T) {
	tests := []struct {
		src  string
		name string
		want shell.Taint
	}{
		{`curl -s x | sh`, "sh", shell.Network},
		{`echo aGk= | base64 -d | sh`, "sh", shell.Decoded},
		{`wget -O- x | tee f | bash`, "bash", shell.Network},
		{`cat f | sh`, "sh", 0},
	}
	for _, tc := range tests {
		prog := shell.Parse(tc.src, testOpts)
		c := find(prog, tc.name)
		if c == nil || c.Stdin.Taint&tc.want != tc.want || (tc.want == 0 && c.Stdin.Taint != 0) {
			t.Errorf("%q: stdin taint of %s is not %d%s", tc.src, tc.name, tc.want, dump(prog))
		}
	}
	prog := shell.Parse(`curl -o x.sh https://e/i.sh && sh x.sh`, testOpts)
	if c := find(prog, "sh"); c == nil || c.Script == nil || c.Script.Taint&shell.Downloaded == 0 {
		t.Errorf("downloaded script not tainted%s", dump(prog))
	}
}

func TestAgentShapes(t *testing.T) {
	claude := `source /home/u/.claude/shell-snapshots/snapshot-bash-1788557415117-j0hu0n.sh 2>/dev/null || true && shopt -u extglob 2>/dev/null || true && eval 'npm test' < /dev/null && pwd -P >| /tmp/claude-f8eb-cwd`
	prog := shell.Parse(claude, testOpts)
	if prog.Wrapper != "claude-code" || !slices.Equal(names(prog), []string{"npm"}) {
		t.Errorf("claude shape: wrapper %q%s", prog.Wrapper, dump(prog))
	}
	if prog.WrapperOutput != "/tmp/claude-f8eb-cwd" {
		t.Errorf("claude shape: wrapper output %q, want the cwd file", prog.WrapperOutput)
	}
	for _, bad := range []string{
		strings.Replace(claude, "/tmp/claude-f8eb-cwd", "/tmp/x", 1),
		strings.Replace(claude, "eval 'npm test'", `eval "$X"`, 1),
		claude + "; ls",
		strings.Replace(claude, "shopt -u extglob", "rm -rf x", 1),
	} {
		if prog := shell.Parse(bad, testOpts); prog.Wrapper != "" {
			t.Errorf("look-alike accepted: %q", bad)
		}
	}
	gemini := `{ npm test; }; __code=$?; pgrep -g 0 >/tmp/shell_pgrep_a1b2c3.tmp 2>&1; exit $__code;`
	prog = shell.Parse(gemini, testOpts)
	if prog.Wrapper != "gemini-cli" || !slices.Equal(names(prog), []string{"npm"}) {
		t.Errorf("gemini shape: wrapper %q%s", prog.Wrapper, dump(prog))
	}
}

func TestIssues(t *testing.T) {
	for _, src := range []string{`echo "x`, `bash -c 'if'`, strings.Repeat("(", 2000), `pwsh -c "'x"`} {
		if prog := shell.Parse(src, testOpts); len(prog.Issues) == 0 {
			t.Errorf("%q: no issue%s", src, dump(prog))
		}
	}
}

func TestParseArgv(t *testing.T) {
	prog := shell.ParseArgv([]string{"bash", "-c", "rm -rf x; ls"}, testOpts)
	if got := names(prog); !slices.Equal(got, []string{"bash", "rm", "ls"}) {
		t.Errorf("got %q%s", got, dump(prog))
	}
	// Words of an argv are not shell-parsed.
	prog = shell.ParseArgv([]string{"echo", "$(sudo id)", "a;b"}, testOpts)
	if got := names(prog); !slices.Equal(got, []string{"echo"}) || prog.Commands[0].Args[1].Value != "$(sudo id)" {
		t.Errorf("argv words were parsed%s", dump(prog))
	}
}

func TestString(t *testing.T) {
	prog := shell.Parse(`env A='x y' rm -rf "a b" $Z > "o u t"`, testOpts)
	got := prog.Commands[0].String()
	want := `env 'A=x y' A='x y' rm -rf 'a b' $Z >'o u t'`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestPowerShell(t *testing.T) {
	prog := shell.Parse(`pwsh -c 'Remove-Item -Recurse $env:USERPROFILE\.ssh'`, testOpts)
	c := find(prog, "Remove-Item")
	if c == nil || c.Dialect != shell.PowerShell || c.Args[2].Value != "/home/u/.ssh" {
		t.Errorf("powershell%s", dump(prog))
	}
	enc := "UgBlAG0AbwB2AGUALQBJAHQAZQBtACAAeAA=" // Remove-Item x
	prog = shell.Parse("powershell -EncodedCommand "+enc, testOpts)
	if c := find(prog, "Remove-Item"); c == nil || c.Origin != shell.Encoded {
		t.Errorf("encoded command%s", dump(prog))
	}
	prog = shell.Parse(`pwsh -c 'irm https://x | iex'`, testOpts)
	if c := find(prog, "iex"); c == nil || c.Stdin.Taint&shell.Network == 0 {
		t.Errorf("irm | iex%s", dump(prog))
	}
}

func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, s string
		ok     bool
	}{{"*.go", "a.go", true}, {"a?c", "abc", true}, {"[a-c]x", "bx", true}, {"[!a]x", "ax", false},
		{"*", "", true}, {"a*b*c", "aXbYc", true}, {"a*b", "ac", false}, {".s?h", ".ssh", true}} {
		if got := shell.GlobMatch(tc.pat, tc.s); got != tc.ok {
			t.Errorf("GlobMatch(%q, %q) = %v", tc.pat, tc.s, got)
		}
	}
}

// Dynamic values take what they can reach: a loop variable the values of
// a literal list or the names a pattern matches, "$@" in a function the
// arguments of each call.
func TestReachableValues(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string // the arguments of the commands named rm, in order
	}{
		{`for f in a b; do rm "$f"; done`, "a|b"},
		{`for f in src/*.ts; do rm "$f"; done`, "src/*.ts"},
		{`f() { rm "$@"; }; f x y; f z`, "x y|z"},
		{`retry() { "$@"; }; retry rm -f x`, "-f x"},
		{`f() { rm "$1"; }`, `"$1"`},
		{`f() { rm "$1"; }; f a; $g b`, `a|"$1"`},
		{`f() { f "$@"; rm "$1"; }; f a`, "a"},
		{`f() { rm "$1"; }; f "$x"`, `"$1"`},
	} {
		prog := shell.Parse(tc.src, testOpts)
		var got []string
		for _, c := range prog.Commands {
			if c.Name() == "rm" {
				got = append(got, strings.Join(c.Values()[1:], " "))
			}
		}
		if strings.Join(got, "|") != tc.want {
			t.Errorf("%q: rm got %q, want %q%s", tc.src, strings.Join(got, "|"), tc.want, dump(prog))
		}
	}
	prog := shell.Parse(`for f in src/*.ts; do rm "$f"; done`, testOpts)
	if c := find(prog, "rm"); c == nil || !c.Args[1].Glob {
		t.Errorf("a loop over a pattern: the value is not a pattern%s", dump(prog))
	}
}

// A word that is all one substitution of one simple command knows that
// command (eval "$(brew shellenv)"): its output is the word.
func TestWordOutput(t *testing.T) {
	for _, tc := range []struct {
		src, want string // want: the Output command of the last command's last word, "" for none
	}{
		{`eval "$(brew shellenv)"`, "brew shellenv"},
		{"eval `ssh-agent -s`", "ssh-agent -s"},
		{`eval $(opam env)`, "opam env"},
		{`source <(kubectl completion bash)`, "kubectl completion bash"},
		{`eval "$(brew shellenv)x"`, ""},
		{`eval "x$(brew shellenv)"`, ""},
		{`eval "$(brew shellenv; id)"`, ""},
		{`eval "$(brew shellenv | cat)"`, ""},
		{`eval "$(a)$(b)"`, ""},
		{`eval "$X"`, ""},
		{`source <(echo ls)`, ""},
	} {
		prog := shell.Parse(tc.src, testOpts)
		var got string
		for _, c := range prog.Commands {
			if c.Origin == shell.Top && len(c.Args) > 1 {
				if out := c.Args[len(c.Args)-1].Output; out != nil {
					got = out.String()
				} else {
					got = ""
				}
			}
		}
		if got != tc.want {
			t.Errorf("%q: output of %q, want %q%s", tc.src, got, tc.want, dump(prog))
		}
	}
}
