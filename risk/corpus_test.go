package risk

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/safeexec/safeexec/configs"
)

// The classification corpus lives in testdata/classify/*.txt, one file
// per family (files.txt judges what risk/files.go and catalog/files.go
// know). Each case is one line:
//
//	COMMAND<TAB>TIER<TAB>RULES[<TAB>FLAGS]
//
// COMMAND is the script as written, or go:"…" — a Go-quoted string, for
// newlines, tabs and control bytes; TIER is safe, needs_confirmation or risky; RULES is
// "-" or a comma list of rule ids that must be among the reasons (!id:
// must not be). FLAGS may be "allowed" or "not-allowed" (AllowedByRule),
// and "argv" to classify the command as an argv split on blanks.
// Directives change the context of the following lines of the file:
//
//	@category NAME      the category counted in the summary
//	@sandbox on|off     Context.Sandboxed
//	@cwd DIR            Context.Cwd
//	@project DIR        a project in DIR: Cwd, the first writable root, its scripts
//	@platform GOOS      Context.Platform
//	@allow|@confirm|@deny PATTERN   add a user rule
//	@reset              back to the default context
//	@windows            a Windows context (C:\Users\me, C:\Users\me\proj)
const (
	testHome = "/home/user"
	testCwd  = "/home/user/project"
)

// defaultLists are the shipped deny_read and deny_write (configs/
// default.toml) for a user whose home is testHome: the corpus judges with
// the one list the pipeline gives the classifier.
var defaultLists = sync.OnceValues(func() ([]string, []string) {
	if runtime.GOOS == "windows" {
		// configs speaks the host's paths, the corpus POSIX ones: load
		// for a home on C: and write the entries back in POSIX form.
		const winHome = `C:\home\user`
		pol, err := configs.Load(configs.Options{Cwd: winHome + `\project`, Home: winHome, Getenv: func(string) string { return "" }})
		if err != nil {
			panic(err)
		}
		posix := func(list []string) []string {
			var out []string
			for _, p := range list {
				p = strings.ReplaceAll(p, `\`, "/")
				if rest, ok := strings.CutPrefix(strings.ToLower(p), "c:/home/user"); ok && (rest == "" || rest[0] == '/') {
					p = testHome + p[len("c:/home/user"):]
				}
				// A POSIX absolute entry (/run/secrets) is not absolute
				// on Windows: configs put it under the working
				// directory, where no deny_read entry of ours lives.
				if rest, ok := strings.CutPrefix(p, testCwd+"/"); ok {
					p = "/" + rest
				}
				out = append(out, p)
			}
			return out
		}
		return posix(pol.DenyRead), posix(pol.DenyWrite)
	}
	pol, err := configs.Load(configs.Options{Cwd: testCwd, Home: testHome, Getenv: func(string) string { return "" }})
	if err != nil {
		panic(err)
	}
	return pol.DenyRead, pol.DenyWrite
})

func testContext() *Context {
	sens, prot := defaultLists()
	return &Context{
		Cwd:            testCwd,
		Home:           testHome,
		WritableRoots:  []string{testCwd, "/tmp"},
		SensitivePaths: sens,
		ProtectedPaths: prot,
		Sandboxed:      true,
		ReadScript:     readTestScript,
		Platform:       "linux",
	}
}

func windowsContext() *Context {
	home := `C:\Users\me`
	var sens []string
	for _, s := range []string{`.ssh`, `.aws`, `.gnupg`, `.docker`, `.kube`, `.npmrc`, `.git-credentials`, `AppData\Roaming\gh`} {
		sens = append(sens, home+`\`+s)
	}
	return &Context{
		Cwd:            home + `\proj`,
		Home:           home,
		WritableRoots:  []string{home + `\proj`, home + `\AppData\Local\Temp`},
		SensitivePaths: sens,
		ProtectedPaths: []string{".env", ".git/hooks", ".git/config"},
		Sandboxed:      true,
		Platform:       "windows",
	}
}

// readTestScript maps /home/user/project onto testdata/classify/project.
func readTestScript(p string) ([]byte, error) {
	return projectScripts(testCwd)(p)
}

// projectScripts maps a project directory onto testdata/classify/project.
func projectScripts(dir string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		rel, ok := strings.CutPrefix(p, dir+"/")
		if !ok {
			return nil, fs.ErrNotExist
		}
		return os.ReadFile(filepath.Join("testdata", "classify", "project", filepath.FromSlash(rel)))
	}
}

type corpusCase struct {
	file, category string
	line           int
	cmd            string
	tier           Tier
	want, wantNot  []string
	allowed        int // 0 unchecked, 1 allowed, -1 not allowed
	argv           bool
	ctx            *Context
}

func loadCorpus(t testing.TB) []corpusCase {
	files, err := filepath.Glob(filepath.Join("testdata", "classify", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	var cases []corpusCase
	for _, f := range files {
		cases = append(cases, parseCorpusFile(t, f)...)
	}
	return cases
}

func parseCorpusFile(t testing.TB, file string) []corpusCase {
	fh, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	base := filepath.Base(file)
	category := strings.TrimSuffix(base, ".txt")
	ctx := testContext()
	var out []corpusCase
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "@") {
			key, val, _ := strings.Cut(line[1:], " ")
			val = strings.TrimSpace(val)
			cp := *ctx
			ctx = &cp
			switch key {
			case "category":
				category = val
			case "sandbox":
				ctx.Sandboxed = val == "on"
			case "cwd":
				ctx.Cwd = val
			case "project":
				// A project at another place on disk: the working
				// directory and first writable root, whose scripts are
				// testdata/classify/project.
				ctx.Cwd = val
				ctx.WritableRoots = append([]string{val}, ctx.WritableRoots[1:]...)
				ctx.ReadScript = projectScripts(val)
			case "platform":
				ctx.Platform = val
			case "allow":
				ctx.Rules.Allow = append(append([]string(nil), ctx.Rules.Allow...), val)
			case "confirm":
				ctx.Rules.Confirm = append(append([]string(nil), ctx.Rules.Confirm...), val)
			case "deny":
				ctx.Rules.Deny = append(append([]string(nil), ctx.Rules.Deny...), val)
			case "noread":
				ctx.ReadScript = nil
			case "reset":
				ctx = testContext()
			case "windows":
				ctx = windowsContext()
			default:
				t.Fatalf("%s:%d: unknown directive %q", base, n, key)
			}
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 3 {
			t.Fatalf("%s:%d: want COMMAND<TAB>TIER<TAB>RULES, got %q", base, n, line)
		}
		c := corpusCase{file: base, category: category, line: n, cmd: cols[0], ctx: ctx}
		if q, ok := strings.CutPrefix(c.cmd, "go:"); ok {
			s, err := strconv.Unquote(q)
			if err != nil {
				t.Fatalf("%s:%d: bad quoted command: %v", base, n, err)
			}
			c.cmd = s
		}
		tier, err := ParseTier(strings.TrimSpace(cols[1]))
		if err != nil {
			t.Fatalf("%s:%d: %v", base, n, err)
		}
		c.tier = tier
		if r := strings.TrimSpace(cols[2]); r != "-" && r != "" {
			for _, id := range strings.Split(r, ",") {
				id = strings.TrimSpace(id)
				if strings.HasPrefix(id, "!") {
					c.wantNot = append(c.wantNot, id[1:])
				} else {
					c.want = append(c.want, id)
				}
			}
		}
		if len(cols) > 3 {
			for _, fl := range strings.Fields(cols[3]) {
				switch fl {
				case "allowed":
					c.allowed = 1
				case "not-allowed":
					c.allowed = -1
				case "argv":
					c.argv = true
				default:
					t.Fatalf("%s:%d: unknown flag %q", base, n, fl)
				}
			}
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (c corpusCase) run() Verdict {
	if c.argv {
		return ClassifyArgv(strings.Fields(c.cmd), c.ctx)
	}
	return ClassifyScript(c.cmd, c.ctx)
}

func (c corpusCase) check(v Verdict) error {
	var problems []string
	if v.Tier != c.tier {
		problems = append(problems, "tier "+v.Tier.String()+", want "+c.tier.String())
	}
	have := map[string]bool{}
	for _, r := range v.Reasons {
		have[r.Rule] = true
	}
	for _, id := range c.want {
		if !have[id] {
			problems = append(problems, "missing rule "+id)
		}
	}
	for _, id := range c.wantNot {
		if have[id] {
			problems = append(problems, "unexpected rule "+id)
		}
	}
	if c.allowed == 1 && !v.AllowedByRule {
		problems = append(problems, "not allowed by rule")
	}
	if c.allowed == -1 && v.AllowedByRule {
		problems = append(problems, "allowed by rule "+strings.Join(v.AllowRules, ","))
	}
	if len(problems) == 0 {
		return nil
	}
	var rs []string
	for _, r := range v.Reasons {
		rs = append(rs, r.Rule+"("+r.Tier.String()+"): "+r.Detail)
	}
	return errors.New(strings.Join(problems, "; ") + "\n\treasons: " + strings.Join(rs, "\n\t         "))
}

func TestCorpus(t *testing.T) {
	cases := loadCorpus(t)
	type tally struct{ pass, total int }
	per := map[string]*tally{}
	for _, c := range cases {
		tl := per[c.category]
		if tl == nil {
			tl = &tally{}
			per[c.category] = tl
		}
		tl.total++
		v := c.run()
		if err := c.check(v); err != nil {
			t.Errorf("%s:%d: %s\n\t%s", c.file, c.line, c.cmd, err)
			continue
		}
		tl.pass++
	}
	var names []string
	for k := range per {
		names = append(names, k)
	}
	sort.Strings(names)
	total, pass := 0, 0
	for _, k := range names {
		t.Logf("%-22s %4d/%-4d", k, per[k].pass, per[k].total)
		total += per[k].total
		pass += per[k].pass
	}
	t.Logf("%-22s %4d/%-4d", "total", pass, total)
}
