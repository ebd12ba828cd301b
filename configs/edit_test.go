package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAddAllowRules(t *testing.T) {
	for _, tc := range []struct {
		name, before string
		add          []string
		want         []string // substrings of the file afterwards
	}{
		{"no file", "", []string{"rm -rf build"}, []string{"[rules]\nallow = [\n  \"rm -rf build\",\n]\n"}},
		{"no rules table", "# mine\nmode = \"strict\"\n", []string{"rm -rf build"}, []string{"# mine\nmode = \"strict\"\n\n[rules]\nallow = [\n  \"rm -rf build\",\n]\n"}},
		{"rules table without allow", "[rules]\n# keep\ndeny = [\"npm publish\"]\n\n[audit]\nsync = true\n", []string{"git push --force"},
			[]string{"[rules]\nallow = [\n  \"git push --force\",\n]\n# keep\ndeny = [\"npm publish\"]\n", "[audit]\nsync = true\n"}},
		{"empty inline array", "[rules]\nallow = [] # none yet\n", []string{"x y"}, []string{`allow = ["x y"] # none yet`}},
		{"one-line array", "[rules]\nallow = [\"make\", 'ls -la'] # c\n", []string{"rm -rf out"}, []string{`allow = ["make", 'ls -la', "rm -rf out"] # c`}},
		{"multi-line array", "[rules]\nallow = [\n    \"make\", # build\n    \"ls\",\n    # later\n]\n", []string{"rm -rf out"},
			[]string{"allow = [\n    \"make\", # build\n    \"ls\",\n    \"rm -rf out\",\n    # later\n]\n"}},
		{"dotted key", "rules.allow = [\"a\"]\nmode = \"compat\"\n", []string{"b"}, []string{`rules.allow = ["a", "b"]`}},
		{"quotes and backslashes", "", []string{`printf '%s\n' "a b"`}, []string{`"printf '%s\\n' \"a b\""`}},
		{"already there", "[rules]\nallow = [\"make\"]\n", []string{"make"}, []string{"[rules]\nallow = [\"make\"]\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "sub", "config.toml")
			if tc.before != "" {
				os.MkdirAll(filepath.Dir(path), 0o700)
				if err := os.WriteFile(path, []byte(tc.before), 0o640); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := AddAllowRules(path, tc.add); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(data), w) {
					t.Errorf("file lacks %q:\n%s", w, data)
				}
			}
			p, err := parse(path, data)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tc.add {
				if p.fc.Rules.Allow == nil || !contains(*p.fc.Rules.Allow, r) {
					t.Errorf("rules.allow lacks %q", r)
				}
			}
			fi, _ := os.Stat(path)
			if want := map[bool]os.FileMode{true: 0o600, false: 0o640}[tc.before == ""]; fi.Mode().Perm() != want {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), want)
			}
		})
	}
}

func TestAddAllowRulesRefuses(t *testing.T) {
	dir := t.TempDir()
	if _, err := AddAllowRules(filepath.Join(dir, ProjectFile), []string{"make"}); err == nil {
		t.Error("a project file was edited")
	}
	inline := filepath.Join(dir, "inline.toml")
	os.WriteFile(inline, []byte("rules = { deny = [\"x\"] }\n"), 0o600)
	if _, err := AddAllowRules(inline, []string{"make"}); err == nil || !strings.Contains(err.Error(), "by hand") {
		t.Errorf("inline table: %v", err)
	}
	if b, _ := os.ReadFile(inline); string(b) != "rules = { deny = [\"x\"] }\n" {
		t.Errorf("file changed: %q", b)
	}
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("mode = \n"), 0o600)
	if _, err := AddAllowRules(bad, []string{"make"}); err == nil {
		t.Error("an invalid file was edited")
	}
}

func TestAddAgentPrefix(t *testing.T) {
	for _, tc := range []struct{ before, want string }{
		{"", "[agent]\nprefix = [\"claude\"]\n"},
		{"mode = \"compat\" # x\n", "mode = \"compat\" # x\n\n[agent]\nprefix = [\"claude\"]\n"},
		{"[agent]\nprefix = false # not yet\n", "[agent]\nprefix = [\"claude\"] # not yet\n"},
		{"[agent]\nprefix = [\"codex\"]\n", "[agent]\nprefix = [\"codex\", \"claude\"]\n"},
		{"[agent]\n# hi\n", "[agent]\nprefix = [\"claude\"]\n# hi\n"},
		{"[agent]\nprefix = true\n", "[agent]\nprefix = true\n"},
	} {
		path := filepath.Join(t.TempDir(), "config.toml")
		if tc.before != "" {
			os.WriteFile(path, []byte(tc.before), 0o600)
		}
		if _, err := AddAgentPrefix(path, "claude"); err != nil {
			t.Fatalf("%q: %v", tc.before, err)
		}
		if b, _ := os.ReadFile(path); string(b) != tc.want {
			t.Errorf("%q became %q, want %q", tc.before, b, tc.want)
		}
	}
}

func TestAddAllowRulesThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "safeexec.toml")
	os.MkdirAll(filepath.Dir(real), 0o700)
	os.WriteFile(real, []byte("# dotfile\n"), 0o600)
	link := filepath.Join(dir, "config.toml")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if _, err := AddAllowRules(link, []string{"make clean"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a file")
	}
	if b, _ := os.ReadFile(real); !strings.Contains(string(b), `"make clean"`) || !strings.HasPrefix(string(b), "# dotfile\n") {
		t.Errorf("target: %q", b)
	}
}
