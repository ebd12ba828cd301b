package shell_test

import (
	"strings"
	"testing"

	"github.com/safeexec/safeexec/shell"
)

// words splits a test command line on blanks; a word written $X… is
// dynamic with the static beginning before the $.
func words(line string) []shell.Word {
	var out []shell.Word
	for _, f := range strings.Fields(line) {
		if i := strings.IndexByte(f, '$'); i >= 0 {
			out = append(out, shell.Word{Value: f, Dynamic: true, Prefix: f[:i]})
			continue
		}
		out = append(out, shell.Static(f))
	}
	return out
}

func TestArgSpecHas(t *testing.T) {
	gnuRm := &shell.ArgSpec{Abbrev: true, Flags: []string{"force", "interactive", "one-file-system", "no-preserve-root", "preserve-root", "recursive", "dir", "verbose"}}
	grep := &shell.ArgSpec{Short: "efABCm", Long: []string{"regexp", "file", "context"}, Abbrev: true}
	for _, tc := range []struct {
		spec  *shell.ArgSpec
		line  string
		short string
		long  []string
		want  bool
	}{
		{gnuRm, "rm -rf x", "rR", []string{"recursive"}, true},
		{gnuRm, "rm -fr x", "rR", []string{"recursive"}, true},
		{gnuRm, "rm x -R", "rR", []string{"recursive"}, true},
		{gnuRm, "rm --recursive x", "rR", []string{"recursive"}, true},
		{gnuRm, "rm --rec x", "rR", []string{"recursive"}, true},
		{gnuRm, "rm --r x", "rR", []string{"recursive"}, true},
		{gnuRm, "rm --recursive=x y", "rR", []string{"recursive"}, true},
		{gnuRm, "rm -f -- -r", "rR", []string{"recursive"}, false},
		{gnuRm, "rm -f x", "rR", []string{"recursive"}, false},
		{gnuRm, "rm --reco x", "rR", []string{"recursive"}, false},
		{gnuRm, "rm -r$X y", "rR", []string{"recursive"}, true},
		{gnuRm, "rm $X y", "rR", []string{"recursive"}, false},
		// Without Abbrev (or when ambiguous for a known option) a prefix is not the option.
		{&shell.ArgSpec{}, "x --rec", "", []string{"recursive"}, false},
		{&shell.ArgSpec{Abbrev: true, Flags: []string{"force", "force-with-lease"}}, "git push --force-w", "f", []string{"force"}, false},
		{&shell.ArgSpec{Abbrev: true, Flags: []string{"force", "force-with-lease"}}, "git push --forc", "f", []string{"force"}, true},
		// A value is not an option.
		{grep, "grep -e -r x", "rR", []string{"recursive"}, false},
		{grep, "grep -ie -r x", "rR", []string{"recursive"}, false},
		{grep, "grep --regexp -r x", "rR", []string{"recursive"}, false},
		{grep, "grep --reg -r x", "rR", []string{"recursive"}, false},
		{grep, "grep -e x -r y", "rR", []string{"recursive"}, true},
		{grep, "grep -ex -r y", "rR", []string{"recursive"}, true},
		{grep, "grep --regexp=x -r y", "rR", []string{"recursive"}, true},
		// Options end at the first operand for programs that read them in order.
		{&shell.ArgSpec{InOrder: true}, "nice ls -r", "r", nil, false},
	} {
		if got := tc.spec.Has(words(tc.line), tc.short, tc.long...); got != tc.want {
			t.Errorf("%q: Has(%q, %q) = %v, want %v", tc.line, tc.short, tc.long, got, tc.want)
		}
	}
}

func TestArgSpecValues(t *testing.T) {
	curl := &shell.ArgSpec{Short: "dHo", Long: []string{"data", "header", "output"}, Abbrev: true}
	for _, tc := range []struct {
		spec        *shell.ArgSpec
		line        string
		short, long string
		want        []string
	}{
		{curl, "curl -o a -ob --output c --output=d --out e -so f", "o", "output", []string{"a", "b", "c", "d", "e", "f"}},
		{curl, "curl -d -o -o x", "o", "output", []string{"x"}},
		{curl, "curl -- -o x", "o", "output", nil},
		{curl, "curl -o$X", "o", "output", []string{"$X"}},
		{curl, "curl --output=$X/y", "o", "output", []string{"$X/y"}},
		// The option asked about takes a value even when the spec does not list it.
		{nil, "cc -c -o prog x.c", "o", "", []string{"prog"}},
		{nil, "cc -o", "o", "", nil},
	} {
		var got []string
		for _, w := range tc.spec.Values(words(tc.line), tc.short, tc.long, 0) {
			got = append(got, w.Value)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%q: Values(%q, %q) = %q, want %q", tc.line, tc.short, tc.long, got, tc.want)
		}
	}
	if w, ok := curl.Value(words("curl -o$X"), "o", ""); !ok || !w.Dynamic {
		t.Errorf("an attached dynamic value is dynamic: %+v %v", w, ok)
	}
}

func TestArgSpecOperands(t *testing.T) {
	cp := &shell.ArgSpec{Short: "tS", Long: []string{"target-directory", "suffix"}, Abbrev: true}
	for _, tc := range []struct {
		spec *shell.ArgSpec
		line string
		want string
	}{
		{cp, "cp -a src dst", "src dst"},
		{cp, "cp -S .bak -t dir a b", "a b"},
		{cp, "cp -aS .bak a b", "a b"},
		{cp, "cp --target dir a b", "a b"},
		{cp, "cp -- -a b", "-a b"},
		{cp, "cp - x", "- x"},
		{&shell.ArgSpec{InOrder: true}, "x -a b -c", "b -c"},
	} {
		var got []string
		for _, w := range tc.spec.Operands(words(tc.line)) {
			got = append(got, w.Value)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%q: Operands = %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestArgSpecSkip(t *testing.T) {
	timeout := &shell.ArgSpec{Short: "sk", Long: []string{"signal", "kill-after"}, Positional: 1}
	sudo := &shell.ArgSpec{Short: "u", Stop: "lv", StopLong: []string{"list"}}
	for _, tc := range []struct {
		spec *shell.ArgSpec
		line string
		want int
	}{
		{timeout, "timeout 5 rm x", 2},
		{timeout, "timeout -s KILL 5 rm x", 4},
		{timeout, "timeout --signal=KILL 5 rm", 3},
		{timeout, "timeout -k 1 -- 5 rm", 5},
		{timeout, "timeout 5", -1},
		{sudo, "sudo -u root id", 3},
		{sudo, "sudo -uroot id", 2},
		{sudo, "sudo -l", -1},
		{sudo, "sudo --list id", -1},
		{sudo, "sudo $CMD x", 1},
		{sudo, "sudo -u $U id", 3},
		{nil, "nice -- -x", 2},
	} {
		if got := tc.spec.Skip(words(tc.line)); got != tc.want {
			t.Errorf("%q: Skip = %d, want %d", tc.line, got, tc.want)
		}
	}
}

func TestPowerShellParams(t *testing.T) {
	args := words("Remove-Item -Rec -Path:x -Force:$true")
	if !shell.PSParam(args, "recurse", 1) || !shell.PSParam(args, "force", 2) || shell.PSParam(args, "whatif", 1) {
		t.Errorf("PSParam misreads %v", args)
	}
	if w, ok := shell.PSValue(args, "path", 1); !ok || w.Value != "x" {
		t.Errorf("PSValue(path) = %v %v", w, ok)
	}
	if !shell.WinFlag(words("rd /S /Q x"), "s") || shell.WinFlag(words("rd x"), "s") {
		t.Error("WinFlag misreads rd /S")
	}
}
