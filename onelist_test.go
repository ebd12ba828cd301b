package safeexec

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/safeexec/safeexec/configs"
	"github.com/safeexec/safeexec/risk"
)

// The classifier and the sandbox read one credential list and one list of
// protected paths: the effective deny_read and deny_write, which start as
// configs/default.toml. Nothing in the classifier or the pipeline adds
// entries of its own.
func TestOneCredentialList(t *testing.T) {
	home := t.TempDir()
	cwd := filepath.Join(home, "proj")
	if err := os.Mkdir(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	pol, err := configs.Load(configs.Options{Cwd: cwd, Home: home, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}

	rc := riskContext(pol, cwd, home, nil, true)
	p := &pipeline{req: &Request{Cwd: cwd, Policy: pol}}
	sp := p.sandboxPolicy()
	// The sandbox masks every entry but the name patterns (**/.env), which
	// name no fixed path; the classifier judges them all.
	if !slices.Equal(rc.SensitivePaths, pol.DenyRead) || !slices.Equal(sp.DenyRead, slices.DeleteFunc(slices.Clone(pol.DenyRead), configs.IsNamePattern)) {
		t.Errorf("the classifier's credential paths differ from the sandbox's deny_read:\nclassifier %q\nsandbox    %q", rc.SensitivePaths, sp.DenyRead)
	}
	if n := len(pol.DenyRead) - len(sp.DenyRead); n == 0 {
		t.Errorf("the default deny_read has no name patterns (**/.env)")
	}
	if !slices.Equal(rc.ProtectedPaths, sp.DenyWrite) || !slices.Equal(rc.ProtectedPaths, pol.DenyWrite) {
		t.Errorf("the classifier's protected paths differ from the sandbox's deny_write:\nclassifier %q\nsandbox    %q", rc.ProtectedPaths, sp.DenyWrite)
	}

	// Every home entry of the embedded file is in the effective list and
	// is judged a credential path by the classifier, file or directory.
	for _, e := range tomlList(t, "deny_read") {
		rel, ok := strings.CutPrefix(e, "~/")
		if !ok || strings.Contains(rel, " ") {
			// The classifier does not take a word with a space for a
			// path (risk pathCandidates); the sandbox masks it all the
			// same.
			continue
		}
		abs := filepath.Join(home, rel)
		if !slices.Contains(pol.DenyRead, abs) {
			t.Errorf("deny_read entry %q is not in the effective list as %s", e, abs)
			continue
		}
		for _, target := range []string{abs, abs + "/x"} {
			q, err := syntax.Quote(target, syntax.LangBash)
			if err != nil {
				t.Fatal(err)
			}
			script := "cat " + q
			v := Classify(&Request{Script: script, IsScript: true, Cwd: cwd, Policy: pol}, "bwrap")
			if v.Tier != risk.Risky || !hasRule(v, "credential-path") {
				t.Errorf("%s: %s %v, want risky (credential-path)", script, v.Tier, v.Reasons)
			}
		}
	}
	// The credentials that only the classifier's old private list knew.
	for _, script := range []string{"cat ~/.pgpass", "cat ~/.my.cnf", "cat ~/.config/op/config"} {
		v := Classify(&Request{Script: script, IsScript: true, Cwd: cwd, Policy: pol}, "bwrap")
		if v.Tier != risk.Risky {
			t.Errorf("%s: %s, want risky", script, v.Tier)
		}
	}

	// Every protected entry is one a write to is judged by.
	for _, e := range tomlList(t, "deny_write") {
		if strings.HasPrefix(e, "<") {
			continue
		}
		if !slices.Contains(pol.DenyWrite, e) {
			t.Errorf("deny_write entry %q is not in the effective list", e)
		}
	}
}

// The classifier and the pipeline keep no list of credential or protected
// paths of their own: no list literal in their code holds entries of the
// default lists. A second list, however small, drifts from the first (a
// private fallback once judged cat ~/.pgpass safe while the sandbox masked
// it). The one or two names a tool's own knowledge needs (gh auth login
// writes ~/.config/gh/hosts.yml; yarn config set writes ~/.yarnrc or
// ~/.yarnrc.yml) are not a list: they are judged against the policy's list
// like any other path.
func TestNoSecondList(t *testing.T) {
	known := map[string]bool{}
	for _, e := range tomlList(t, "deny_read") {
		if rel, ok := strings.CutPrefix(e, "~/"); ok {
			known[rel], known[e] = true, true
		}
	}
	for _, e := range tomlList(t, "deny_write") {
		if !strings.HasPrefix(e, "<") {
			known[e] = true
		}
	}
	var files []string
	for _, pat := range []string{"*.go", "risk/*.go", "shell/*.go"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found only %d source files", len(files))
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			var hits []string
			for _, el := range lit.Elts {
				if b, ok := el.(*ast.BasicLit); ok && b.Kind == token.STRING {
					if v, err := strconv.Unquote(b.Value); err == nil && known[v] {
						hits = append(hits, v)
					}
				}
			}
			if len(hits) >= 3 {
				t.Errorf("%s: a list of paths from configs/default.toml (%q): take them from the policy instead", fset.Position(lit.Pos()), hits)
			}
			return true
		})
	}
}

// tomlList returns the string entries of one list of the embedded
// default.toml.
func tomlList(t *testing.T, key string) []string {
	t.Helper()
	src := string(configs.DefaultTOML())
	i := strings.Index(src, "\n"+key+" = [")
	if i < 0 {
		t.Fatalf("default.toml has no %s", key)
	}
	body := src[i:]
	body = body[:strings.Index(body, "\n]")]
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^\s*"([^"]+)",`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	if len(out) < 10 {
		t.Fatalf("default.toml's %s has only %d entries", key, len(out))
	}
	return out
}

func hasRule(v risk.Verdict, rule string) bool {
	for _, r := range v.Reasons {
		if r.Rule == rule {
			return true
		}
	}
	return false
}
