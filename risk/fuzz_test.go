package risk

import (
	"reflect"
	"strings"
	"testing"

	"github.com/safeexec/safeexec/shell"
)

// FuzzClassify checks that classification never panics and that a script
// the analysis could not fully read is never safe.
func FuzzClassify(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(c.cmd)
	}
	for _, s := range []string{"", "$(", "`", "${x", "<<EOF", "pwsh -c '{'", "cmd /c \"", "\x00", "eval '$('", "a=$'\\x"} {
		f.Add(s)
	}
	c := testContext()
	f.Fuzz(func(t *testing.T, script string) {
		v := ClassifyScript(script, c)
		prog := shell.Parse(script, newEnv(c).shellOptions())
		if len(prog.Issues) > 0 && v.Tier == Safe {
			t.Fatalf("safe despite %v: %q", prog.Issues, script)
		}
		// ClassifyScript parses into pooled memory (shell.ParseScoped):
		// the verdict must be the one of a program of its own.
		if own := Classify(prog, c); !reflect.DeepEqual(own, v) {
			t.Fatalf("scoped parse: %+v, own program: %+v: %q", v, own, script)
		}
		for _, r := range v.Reasons {
			if r.Tier > v.Tier {
				t.Fatalf("reason %s above the verdict's tier", r.Rule)
			}
			if (r.Rule == "parse-error" || r.Rule == "too-complex") && v.Tier == Safe {
				t.Fatalf("%s yet safe: %q", r.Rule, script)
			}
		}
		av := ClassifyArgv(strings.Fields(script), c)
		if own := Classify(shell.ParseArgv(strings.Fields(script), newEnv(c).shellOptions()), c); !reflect.DeepEqual(own, av) {
			t.Fatalf("scoped argv: %+v, own program: %+v: %q", av, own, script)
		}
	})
}

// TestBounded feeds inputs at and past the analysis bounds: each must
// finish, and none may be safe.
func TestBounded(t *testing.T) {
	line := "echo hello world | grep -v foo && ls -la /tmp; "
	cases := map[string]string{
		"1 MiB":                 strings.Repeat(line, (1<<20)/len(line)),
		"over 1 MiB":            strings.Repeat(line, (1<<20)/len(line)+1),
		"10000 nested $(":       strings.Repeat("$(", 10000) + "x" + strings.Repeat(")", 10000),
		"10000 nested (":        strings.Repeat("(", 10000) + "x" + strings.Repeat(")", 10000),
		"10000 nested {":        strings.Repeat("{ ", 10000) + "x;" + strings.Repeat(" }", 10000),
		"10000 nested if":       strings.Repeat("if true; then ", 10000) + "x;" + strings.Repeat(" fi;", 10000),
		"10000 nested quotes":   strings.Repeat(`echo "$(`, 10000) + "x" + strings.Repeat(`)"`, 10000),
		"deep sh -c":            nestedShC(10),
		"200 evals":             strings.Repeat("eval ", 200) + "ls",
		"200 wrappers":          strings.Repeat("timeout 1 nice ", 200) + "ls",
		"binary garbage":        garbage(1 << 16),
		"exponential variable":  "x=a" + strings.Repeat("; x=$x$x", 64) + "; $x",
		"huge brace expansion":  "rm -rf {1..100000}{1..100000}",
		"many heredocs":         strings.Repeat("cat <<EOF\nline\nEOF\n", 20000) + "sudo id(",
		"eval chain":            nestedEval(10),
		"1000 nested parameter": strings.Repeat("${a:-", 1000) + "x" + strings.Repeat("}", 1000),
	}
	c := testContext()
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			// How long it takes is measured by BenchmarkClassifyLargeScript;
			// here it only has to finish and not be safe.
			v := ClassifyScript(src, c)
			if v.Tier == Safe {
				t.Errorf("safe; reasons %+v", v.Reasons)
			}
		})
	}
}

func nestedShC(n int) string {
	s := "sudo id"
	for i := 0; i < n; i++ {
		q, _ := quoteSh(s)
		s = "sh -c " + q
	}
	return s
}

func nestedEval(n int) string {
	s := "ls"
	for i := 0; i < n; i++ {
		q, _ := quoteSh(s)
		s = "eval " + q
	}
	return s
}

func quoteSh(s string) (string, error) {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'", nil
}

func garbage(n int) string {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return string(b)
}
