package configs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// env is a fake environment for Options.Getenv / LookupEnv.
type env map[string]string

func (e env) get(k string) string { return e[k] }
func (e env) lookup(k string) (string, bool) {
	v, ok := e[k]
	return v, ok
}

// sandboxDirs makes a home, a repository with a working directory inside
// it, and an XDG config home, all under t.TempDir().
type fixture struct {
	home, repo, cwd string
	env             env
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{
		home: filepath.Join(root, "home"),
		repo: filepath.Join(root, "repo"),
		env:  env{},
	}
	f.cwd = filepath.Join(f.repo, "sub")
	for _, d := range []string{f.home, filepath.Join(f.repo, ".git"), f.cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.env["XDG_CONFIG_HOME"] = filepath.Join(f.home, ".config")
	f.env["GIT_CONFIG_SYSTEM"] = filepath.Join(root, "no-system-gitconfig")
	return f
}

func (f *fixture) opts() Options {
	return Options{Cwd: f.cwd, Home: f.home, Getenv: f.env.get, LookupEnv: f.env.lookup}
}

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func (f *fixture) userFile(t *testing.T, content string) string {
	return write(t, filepath.Join(f.home, ".config", "safeexec", "config.toml"), content)
}

func mustLoad(t *testing.T, o Options) *Effective {
	t.Helper()
	e, err := Load(o)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return e
}

func TestDefaults(t *testing.T) {
	unixPaths(t)
	f := newFixture(t)
	e := mustLoad(t, f.opts())
	if e.Mode != "compat" || e.Backend != "auto" || !e.NetworkEnabled || e.PromptChannel != "tty" {
		t.Errorf("mode/backend/network/prompt = %q %q %v %q", e.Mode, e.Backend, e.NetworkEnabled, e.PromptChannel)
	}
	if want := []string{f.cwd, "/tmp"}; !slices.Equal(e.AllowWrite, want) {
		t.Errorf("AllowWrite = %q, want %q", e.AllowWrite, want)
	}
	for _, p := range []string{"~/.ssh", "~/.aws", "~/.gnupg", "~/.netrc", "~/.git-credentials", "~/.config/gh", "~/.kube", "~/.docker"} {
		abs := filepath.Join(f.home, p[2:])
		if !slices.Contains(e.DenyRead, abs) {
			t.Errorf("DenyRead lacks %s", abs)
		}
	}
	if e.ConfigDir != filepath.Join(f.home, ".config", "safeexec") || !slices.Contains(e.DenyRead, e.ConfigDir) {
		t.Errorf("ConfigDir %q not denied: %q", e.ConfigDir, e.DenyRead)
	}
	if e.StateDir != filepath.Join(f.home, ".local", "state", "safeexec") || !slices.Contains(e.DenyRead, e.StateDir) {
		t.Errorf("StateDir %q not denied", e.StateDir)
	}
	if e.AuditPath != filepath.Join(e.StateDir, "audit.log") {
		t.Errorf("AuditPath = %q", e.AuditPath)
	}
	for _, p := range []string{".env", ".envrc", ".git/hooks", ".git/config", ".safeexec.toml", ".bashrc", ".zshrc", ".profile", ".mcp.json"} {
		if !slices.Contains(e.DenyWrite, p) {
			t.Errorf("DenyWrite lacks %s", p)
		}
	}
	for _, n := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY", "GOOGLE_API_KEY", "TAVILY_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "GH_TOKEN", "NPM_TOKEN", "SSH_AUTH_SOCK"} {
		if !slices.Contains(e.EnvStrip, n) {
			t.Errorf("EnvStrip lacks %s", n)
		}
	}
	for _, s := range []string{"_KEY", "_SECRET", "_TOKEN", "_PASSWORD", "_CREDENTIAL"} {
		if !slices.Contains(e.EnvStripSuffixes, s) {
			t.Errorf("EnvStripSuffixes lacks %s", s)
		}
	}
	for _, d := range []string{"registry.npmjs.org", "pypi.org", "files.pythonhosted.org", "proxy.golang.org", "sum.golang.org", "crates.io", "static.crates.io", "index.crates.io", "github.com", "*.githubusercontent.com", "codeload.github.com", "api.anthropic.com", "api.openai.com"} {
		if !slices.Contains(e.AllowedDomains, d) {
			t.Errorf("AllowedDomains lacks %s", d)
		}
	}
	if len(e.RulesAllow) != 0 || len(e.Warnings) != 0 {
		t.Errorf("RulesAllow %q Warnings %q", e.RulesAllow, e.Warnings)
	}
	if len(e.Sources) != 1 || e.Sources[0].Kind != KindDefault {
		t.Errorf("Sources = %+v", e.Sources)
	}
	if e.Limits != (Limits{}) {
		t.Errorf("Limits = %+v", e.Limits)
	}
}

func TestDefaultTOMLIsValid(t *testing.T) {
	path := write(t, filepath.Join(t.TempDir(), "c.toml"), string(DefaultTOML()))
	if err := Validate(path); err != nil {
		t.Fatal(err)
	}
	d := DefaultTOML()
	d[0] = 'X'
	if DefaultTOML()[0] == 'X' {
		t.Error("DefaultTOML returned the embedded slice itself")
	}
}

func TestGeneratedDefaults(t *testing.T) {
	p, err := parse("default.toml", defaultTOML)
	if err != nil {
		t.Fatal(err)
	}
	if gen := generatedDefaults(); !reflect.DeepEqual(p.fc, gen) {
		t.Fatalf("defaults_gen.go is out of date: run go generate ./configs\ndecoded   %+v\ngenerated %+v", p.fc, gen)
	}
}

func TestUserFile(t *testing.T) {
	f := newFixture(t)
	f.userFile(t, `
mode = "strict"
[sandbox]
backend = "bwrap"
[filesystem]
allow_write = [".", "~/build"]
deny_read = ["~/secrets", "!~/.docker"]
[network]
allowed_domains = ["example.com", "*.Example.org:8443"]
[env]
strip = ["MY_THING"]
keep = ["NPM_TOKEN"]
[rules]
allow = ["git push origin main"]
deny = ["npm publish"]
[audit]
path = "~/logs/safeexec.log"
sync = true
[prompt]
channel = "none"
[limits]
processes = 512
open_files = 1024
file_size = "2G"
cpu_seconds = 600
timeout = "10m"
`)
	e := mustLoad(t, f.opts())
	if e.Mode != "strict" || e.Backend != "bwrap" || e.PromptChannel != "none" || !e.AuditSync {
		t.Errorf("scalars: %q %q %q %v", e.Mode, e.Backend, e.PromptChannel, e.AuditSync)
	}
	if want := []string{f.cwd, filepath.Join(f.home, "build")}; !slices.Equal(e.AllowWrite, want) {
		t.Errorf("AllowWrite = %q, want %q (user list replaces)", e.AllowWrite, want)
	}
	if !slices.Contains(e.DenyRead, filepath.Join(f.home, "secrets")) || !slices.Contains(e.DenyRead, filepath.Join(f.home, ".ssh")) {
		t.Errorf("DenyRead should add to the defaults: %q", e.DenyRead)
	}
	if slices.Contains(e.DenyRead, filepath.Join(f.home, ".docker")) {
		t.Errorf("\"!~/.docker\" did not remove the entry")
	}
	if want := []string{"example.com", "*.example.org:8443"}; !slices.Equal(e.AllowedDomains, want) {
		t.Errorf("AllowedDomains = %q", e.AllowedDomains)
	}
	if !slices.Contains(e.EnvStrip, "MY_THING") || !slices.Contains(e.EnvStrip, "GITHUB_TOKEN") {
		t.Errorf("EnvStrip = %q", e.EnvStrip)
	}
	if !slices.Equal(e.EnvKeep, []string{"NPM_TOKEN"}) || !slices.Equal(e.RulesAllow, []string{"git push origin main"}) || !slices.Equal(e.RulesDeny, []string{"npm publish"}) {
		t.Errorf("keep/allow/deny = %q %q %q", e.EnvKeep, e.RulesAllow, e.RulesDeny)
	}
	logPath := filepath.Join(f.home, "logs", "safeexec.log")
	if e.AuditPath != logPath || !slices.Contains(e.DenyRead, logPath) || !slices.Contains(e.DenyWrite, logPath) {
		t.Errorf("AuditPath %q must be set and denied: %q / %q", e.AuditPath, e.DenyRead, e.DenyWrite)
	}
	want := Limits{Processes: 512, OpenFiles: 1024, FileSize: 2 << 30, CPUSeconds: 600, Timeout: 10 * time.Minute}
	if e.Limits != want {
		t.Errorf("Limits = %+v, want %+v", e.Limits, want)
	}
	if len(e.Sources) != 2 || e.Sources[1] != (Source{Path: e.UserFile, Kind: KindUser}) {
		t.Errorf("Sources = %+v", e.Sources)
	}
}

func TestUserPathPrecedence(t *testing.T) {
	unixPaths(t)
	f := newFixture(t)
	explicit := write(t, filepath.Join(f.home, "explicit.toml"), `mode = "strict"`)
	viaEnv := write(t, filepath.Join(f.home, "env.toml"), `mode = "permissive"`)
	f.userFile(t, `mode = "compat"
[sandbox]
backend = "none"`)

	if e := mustLoad(t, f.opts()); e.Backend != "none" {
		t.Errorf("default location not read: %+v", e.Sources)
	}
	f.env[EnvConfig] = viaEnv
	if e := mustLoad(t, f.opts()); e.Mode != "permissive" || e.Backend != "auto" {
		t.Errorf("$SAFEEXEC_CONFIG not preferred: mode %q backend %q", e.Mode, e.Backend)
	}
	o := f.opts()
	o.ConfigPath = explicit
	e := mustLoad(t, o)
	if e.Mode != "strict" || e.UserFile != explicit {
		t.Errorf("--config not preferred: %q %q", e.Mode, e.UserFile)
	}
	if !slices.Contains(e.DenyWrite, explicit) {
		t.Errorf("an explicit config file outside the config dir must be write-protected: %q", e.DenyWrite)
	}

	if got := UserPath(env{}.get, "/h"); got != "/h/.config/safeexec/config.toml" {
		t.Errorf("UserPath = %q", got)
	}
	if got := UserPath(env{"XDG_CONFIG_HOME": "/x"}.get, "/h"); got != "/x/safeexec/config.toml" {
		t.Errorf("UserPath = %q", got)
	}
	if got := UserPath(env{"XDG_CONFIG_HOME": "/x", EnvConfig: "/c.toml"}.get, "/h"); got != "/c.toml" {
		t.Errorf("UserPath = %q", got)
	}
}

func TestMissingFiles(t *testing.T) {
	f := newFixture(t)
	if _, err := Load(f.opts()); err != nil {
		t.Fatalf("a missing default user file must be fine: %v", err)
	}
	o := f.opts()
	o.ConfigPath = filepath.Join(f.home, "nope.toml")
	_, err := Load(o)
	var ce *Error
	if !errors.As(err, &ce) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing --config: got %v, want *Error wrapping ErrNotExist", err)
	}
	f.env[EnvConfig] = filepath.Join(f.home, "nope.toml")
	if _, err := Load(f.opts()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing $SAFEEXEC_CONFIG: got %v", err)
	}
}

func TestStrictErrors(t *testing.T) {
	tests := []struct {
		name, content string
		line, col     int
		key           string
		msg           string
	}{
		{"unknown key", "[filesystem]\nallow_write = []\n  allow_writes = [\"/x\"]\n", 3, 3, "filesystem.allow_writes", `unknown key "filesystem.allow_writes"`},
		{"unknown table", "mode = \"compat\"\n[netwerk]\nenabled = false\n", 2, 2, "netwerk", `unknown key "netwerk"`},
		{"syntax", "mode = \"compat\"\n[filesystem\n", 2, 12, "", "expected"},
		{"duplicate", "mode = \"strict\"\nmode = \"compat\"\n", 2, 1, "mode", "already defined"},
		{"type string", "[network]\nenabled = \"yes\"\n", 2, 11, "network.enabled", "network.enabled must be a boolean, not a string"},
		{"type list", "[filesystem]\ndeny_read = \"~/.ssh\"\n", 2, 13, "filesystem.deny_read", "must be a list of strings"},
		{"bad mode", "\n\nmode = \"fast\"\n", 3, 1, "mode", `mode "fast" is not one of strict, compat, permissive`},
		{"bad backend", "[sandbox]\nbackend = \"docker\"\n", 2, 1, "sandbox.backend", `"docker"`},
		{"stdin prompt", "[prompt]\nchannel = \"stdin\"\n", 2, 1, "prompt.channel", "standard input belongs to the command"},
		{"negative limit", "[limits]\nprocesses = -1\n", 2, 1, "limits.processes", "must not be negative"},
		{"bad duration", "[limits]\ntimeout = \"ten minutes\"\n", 2, 1, "limits.timeout", "not a duration"},
		{"negative duration", "[limits]\ntimeout = \"-5s\"\n", 2, 1, "limits.timeout", "negative"},
		{"table size", "[limits]\nfile_size = {a = 1}\n", 2, 1, "limits.file_size", "not a table"},
		{"bool timeout", "[limits]\ntimeout = true\n", 2, 1, "limits.timeout", "not a boolean"},
		{"bad size", "[limits]\nfile_size = \"lots\"\n", 2, 1, "limits.file_size", "not a size"},
		{"float limit", "[limits]\nopen_files = 1.5\n", 2, 14, "limits.open_files", "must be an integer"},
		{"empty path", "[filesystem]\ndeny_read = [\"~/.ssh\", \"\"]\n", 2, 24, "filesystem.deny_read", "empty entry"},
		{"bang in allow list", "[filesystem]\nallow_write = [\"!/x\"]\n", 2, 16, "filesystem.allow_write", `"!"`},
		{"unknown placeholder", "[filesystem]\ndeny_read = [\"<cache-dir>\"]\n", 2, 14, "filesystem.deny_read", "unknown placeholder"},
		{"relative audit path", "[audit]\npath = \"logs/audit.log\"\n", 2, 1, "audit.path", "must be absolute"},
		{"domain with scheme", "[network]\nallowed_domains = [\"https://x.com\"]\n", 2, 20, "network.allowed_domains", "a URL, not a host"},
		{"single-label wildcard", "[network]\ndenied_domains = [\"ok.example\", \"*.com\"]\n", 2, 33, "network.denied_domains", "*.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := write(t, filepath.Join(t.TempDir(), "config.toml"), tt.content)
			for _, load := range []func() error{
				func() error { return Validate(path) },
				func() error {
					_, err := Load(Options{Cwd: t.TempDir(), Home: t.TempDir(), Getenv: env{}.get, ConfigPath: path})
					return err
				},
			} {
				err := load()
				var ce *Error
				if !errors.As(err, &ce) {
					t.Fatalf("got %v (%T), want *Error", err, err)
				}
				if ce.Path != path || ce.Line != tt.line || ce.Column != tt.col || ce.Key != tt.key || !strings.Contains(ce.Msg, tt.msg) {
					t.Errorf("got %+v\nwant line %d column %d key %q msg containing %q", ce, tt.line, tt.col, tt.key, tt.msg)
				}
				if tt.line > 0 && !strings.HasPrefix(ce.Error(), "read config "+path+": line ") {
					t.Errorf("Error() = %q", ce.Error())
				}
			}
		})
	}
}

func TestValidateExpandsPaths(t *testing.T) {
	path := write(t, filepath.Join(t.TempDir(), "c.toml"), "[filesystem]\ndeny_read = [\"$SAFEEXEC_TEST_SURELY_UNSET/x\"]\n")
	var ce *Error
	if err := Validate(path); !errors.As(err, &ce) || ce.Line != 2 {
		t.Errorf("got %v, want an *Error at line 2", err)
	}
}

func TestListLengthBound(t *testing.T) {
	var b strings.Builder
	b.WriteString("[rules]\ndeny = [")
	for i := 0; i <= maxListLen; i++ {
		fmt.Fprintf(&b, "\"cmd%d\",", i)
	}
	b.WriteString("]\n")
	path := write(t, filepath.Join(t.TempDir(), "c.toml"), b.String())
	var ce *Error
	if err := Validate(path); !errors.As(err, &ce) || ce.Key != "rules.deny" {
		t.Errorf("got %v", err)
	}
}

func TestErrorString(t *testing.T) {
	e := &Error{Path: "/x/config.toml", Line: 3, Column: 12, Key: "filesystem.allow_writes", Msg: `unknown key "filesystem.allow_writes"`}
	if got, want := e.Error(), `read config /x/config.toml: line 3, column 12: unknown key "filesystem.allow_writes"`; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestUnsetVariableIsAnError(t *testing.T) {
	unixPaths(t)
	f := newFixture(t)
	path := f.userFile(t, "[filesystem]\ndeny_read = [\n  \"$NOPE/secrets\",\n]\n")
	_, err := Load(f.opts())
	var ce *Error
	if !errors.As(err, &ce) || ce.Path != path || ce.Line != 3 || !strings.Contains(ce.Msg, "$NOPE") {
		t.Fatalf("got %v, want an *Error at line 3 naming $NOPE", err)
	}
	f.env["NOPE"] = "/srv"
	e := mustLoad(t, f.opts())
	if !slices.Contains(e.DenyRead, "/srv/secrets") {
		t.Errorf("DenyRead = %q", e.DenyRead)
	}
}

func TestPathExpansion(t *testing.T) {
	unixPaths(t)
	f := newFixture(t)
	f.env["TMPDIR"] = "/var/tmp/me"
	f.userFile(t, `[filesystem]
allow_write = [".", "$TMPDIR", "build/out", "~", "${HOME}/cache", "../sibling"]
deny_write = [".git/hooks", "./x/../y", "~/.local/bin", "/abs/file", "$HOME/z"]
`)
	e := mustLoad(t, f.opts())
	want := []string{f.cwd, "/var/tmp/me", filepath.Join(f.cwd, "build/out"), f.home, filepath.Join(f.home, "cache"), filepath.Join(f.repo, "sibling")}
	if !slices.Equal(e.AllowWrite, want) {
		t.Errorf("AllowWrite = %q\nwant %q", e.AllowWrite, want)
	}
	for _, w := range []string{".git/hooks", "y", filepath.Join(f.home, ".local/bin"), "/abs/file", filepath.Join(f.home, "z")} {
		if !slices.Contains(e.DenyWrite, w) {
			t.Errorf("DenyWrite lacks %q: %q", w, e.DenyWrite)
		}
	}
	f.userFile(t, "[filesystem]\ndeny_write = [\"../escape\"]\n")
	if _, err := Load(f.opts()); err == nil {
		t.Error("a relative deny_write entry climbing out with .. must be an error")
	}
}

func TestProjectFileOnlyTightens(t *testing.T) {
	unixPaths(t)
	f := newFixture(t)
	f.userFile(t, `[prompt]
channel = "none"
[env]
keep = ["NPM_TOKEN", "CI_TOKEN"]
[limits]
processes = 1000
file_size = "1G"
`)
	proj := write(t, filepath.Join(f.repo, ProjectFile), `
mode = "permissive"
[sandbox]
backend = "none"
[filesystem]
allow_write = [".", "/etc", "sub/build"]
deny_read = ["secrets", "!~/.ssh"]
deny_write = ["Makefile"]
[network]
enabled = true
allowed_domains = ["github.com", "raw.githubusercontent.com", "evil.example", "github.com:22", "*.githubusercontent.com:*"]
denied_domains = ["Gist.GitHub.com"]
[env]
strip = ["PROJECT_ONLY"]
keep = ["CI_TOKEN", "AWS_SECRET_ACCESS_KEY"]
[rules]
allow = ["rm -rf /"]
confirm = ["make deploy"]
deny = ["npm publish"]
[audit]
path = "/tmp/elsewhere.log"
[prompt]
channel = "tty"
[limits]
processes = 2000
open_files = 64
file_size = 0
cpu_seconds = 10
timeout = "1m"
`)
	e := mustLoad(t, f.opts())
	if e.Mode != "compat" || e.Backend != "auto" {
		t.Errorf("mode %q backend %q: a project must not loosen them", e.Mode, e.Backend)
	}
	// "." in the project file is the working directory (repo/sub), covered by
	// the user's "."; /etc is not; repo/sub/sub/build is inside the cwd.
	if want := []string{f.cwd, filepath.Join(f.cwd, "sub/build")}; !slices.Equal(e.AllowWrite, want) {
		t.Errorf("AllowWrite = %q, want %q", e.AllowWrite, want)
	}
	if !slices.Contains(e.DenyRead, filepath.Join(f.cwd, "secrets")) || !slices.Contains(e.DenyRead, filepath.Join(f.repo, "secrets")) || !slices.Contains(e.DenyRead, filepath.Join(f.home, ".ssh")) {
		t.Errorf("DenyRead = %q", e.DenyRead)
	}
	if !slices.Contains(e.DenyWrite, "Makefile") {
		t.Errorf("DenyWrite = %q", e.DenyWrite)
	}
	if want := []string{"github.com", "raw.githubusercontent.com"}; !slices.Equal(e.AllowedDomains, want) {
		t.Errorf("AllowedDomains = %q, want %q", e.AllowedDomains, want)
	}
	if !slices.Equal(e.DeniedDomains, []string{"gist.github.com"}) {
		t.Errorf("DeniedDomains = %q", e.DeniedDomains)
	}
	if !slices.Contains(e.EnvStrip, "PROJECT_ONLY") || !slices.Equal(e.EnvKeep, []string{"CI_TOKEN"}) {
		t.Errorf("EnvStrip / EnvKeep = %q / %q", e.EnvStrip, e.EnvKeep)
	}
	if len(e.RulesAllow) != 0 || !slices.Equal(e.RulesConfirm, []string{"make deploy"}) || !slices.Equal(e.RulesDeny, []string{"npm publish"}) {
		t.Errorf("rules = %q %q %q", e.RulesAllow, e.RulesConfirm, e.RulesDeny)
	}
	if strings.Contains(e.AuditPath, "elsewhere") || e.PromptChannel != "none" {
		t.Errorf("audit %q prompt %q", e.AuditPath, e.PromptChannel)
	}
	want := Limits{Processes: 1000, OpenFiles: 64, FileSize: 1 << 30, CPUSeconds: 10, Timeout: time.Minute}
	if e.Limits != want {
		t.Errorf("Limits = %+v, want %+v", e.Limits, want)
	}
	for _, key := range []string{"mode", "sandbox.backend", "filesystem.allow_write", "filesystem.deny_read", "network.allowed_domains", "env.keep", "rules.allow", "audit.path", "prompt.channel", "limits.processes", "limits.file_size"} {
		found := false
		for _, w := range e.Warnings {
			if strings.HasPrefix(w, proj+": "+key+": ") {
				found = true
			}
		}
		if !found {
			t.Errorf("no warning for %s in %q", key, e.Warnings)
		}
	}
	for _, w := range e.Warnings {
		if strings.Contains(w, "network.enabled") {
			t.Errorf("enabled = true equal to the current value is no loosening: %q", w)
		}
	}
	if e.Sources[len(e.Sources)-1] != (Source{Path: proj, Kind: KindProject}) {
		t.Errorf("Sources = %+v", e.Sources)
	}
}

func TestProjectFileTightens(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.repo, ProjectFile), `mode = "strict"
[network]
enabled = false
[prompt]
channel = "none"
[limits]
timeout = "30s"
`)
	e := mustLoad(t, f.opts())
	if e.Mode != "strict" || e.NetworkEnabled || e.PromptChannel != "none" || e.Limits.Timeout != 30*time.Second || len(e.Warnings) != 0 {
		t.Errorf("got mode %q network %v prompt %q timeout %v warnings %q", e.Mode, e.NetworkEnabled, e.PromptChannel, e.Limits.Timeout, e.Warnings)
	}
	// A project cannot turn the network back on after the user turned it off.
	f.userFile(t, "[network]\nenabled = false\n")
	write(t, filepath.Join(f.repo, ProjectFile), "[network]\nenabled = true\n")
	e = mustLoad(t, f.opts())
	if e.NetworkEnabled || len(e.Warnings) != 1 {
		t.Errorf("network %v warnings %q", e.NetworkEnabled, e.Warnings)
	}
}

func TestProjectFileSearch(t *testing.T) {
	f := newFixture(t)
	outside := write(t, filepath.Join(filepath.Dir(f.repo), ProjectFile), "[rules]\ndeny = [\"outside\"]\n")
	write(t, filepath.Join(f.repo, ProjectFile), "[rules]\ndeny = [\"root\"]\n")
	write(t, filepath.Join(f.cwd, ProjectFile), "[rules]\ndeny = [\"cwd\"]\n")
	e := mustLoad(t, f.opts())
	if !slices.Equal(e.RulesDeny, []string{"root", "cwd"}) {
		t.Errorf("RulesDeny = %q: want the repository's files, outermost first, and nothing above the root", e.RulesDeny)
	}

	// Outside a repository only the working directory's own file counts.
	plain := filepath.Join(t.TempDir(), "a", "b")
	write(t, filepath.Join(plain, ProjectFile), "[rules]\ndeny = [\"here\"]\n")
	write(t, filepath.Join(filepath.Dir(plain), ProjectFile), "[rules]\ndeny = [\"parent\"]\n")
	o := f.opts()
	o.Cwd = plain
	e = mustLoad(t, o)
	if !slices.Equal(e.RulesDeny, []string{"here"}) {
		t.Errorf("outside a repo RulesDeny = %q", e.RulesDeny)
	}
	_ = outside

	// An invalid project file fails the load: it is never skipped.
	bad := write(t, filepath.Join(f.cwd, ProjectFile), "[rules]\nalow = []\n")
	_, err := Load(f.opts())
	var ce *Error
	if !errors.As(err, &ce) || ce.Path != bad || ce.Key != "rules.alow" {
		t.Errorf("got %v", err)
	}
}

func TestEnvDomains(t *testing.T) {
	f := newFixture(t)
	f.env[EnvAllowedDomains] = "a.example, B.example:8080"
	f.env[EnvExtraAllowedDomains] = "c.example"
	e := mustLoad(t, f.opts())
	if want := []string{"a.example", "b.example:8080", "c.example"}; !slices.Equal(e.AllowedDomains, want) {
		t.Errorf("AllowedDomains = %q, want %q", e.AllowedDomains, want)
	}
	if n := len(e.Sources); n != 3 || e.Sources[1].Kind != KindEnv || e.Sources[2].Path != EnvExtraAllowedDomains {
		t.Errorf("Sources = %+v", e.Sources)
	}

	f.env[EnvAllowedDomains] = ""
	delete(f.env, EnvExtraAllowedDomains)
	if e := mustLoad(t, f.opts()); len(e.AllowedDomains) != 0 {
		t.Errorf("SAFEEXEC_ALLOWED_DOMAINS=\"\" must allow nothing, got %q", e.AllowedDomains)
	}

	delete(f.env, EnvAllowedDomains)
	f.env[EnvExtraAllowedDomains] = "extra.example"
	e = mustLoad(t, f.opts())
	if !slices.Contains(e.AllowedDomains, "extra.example") || !slices.Contains(e.AllowedDomains, "github.com") {
		t.Errorf("EXTRA must append to the defaults: %q", e.AllowedDomains)
	}

	f.env[EnvAllowedDomains] = "ok.example,http://bad/"
	if _, err := Load(f.opts()); err == nil {
		t.Error("an invalid entry in SAFEEXEC_ALLOWED_DOMAINS must be an error")
	}
}

func TestFlags(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.repo, ProjectFile), "mode = \"strict\"\n")
	o := f.opts()
	o.Flags = Flags{Mode: "permissive", Sandbox: "landlock", AllowWrite: []string{"out"}, AllowDomains: []string{"Flag.example"}, NoNetwork: true, Timeout: time.Second}
	e := mustLoad(t, o)
	if e.Mode != "permissive" || e.Backend != "landlock" || e.NetworkEnabled || e.Limits.Timeout != time.Second {
		t.Errorf("flags not applied: %q %q %v %v", e.Mode, e.Backend, e.NetworkEnabled, e.Limits.Timeout)
	}
	if !slices.Contains(e.AllowWrite, filepath.Join(f.cwd, "out")) || !slices.Contains(e.AllowedDomains, "flag.example") {
		t.Errorf("AllowWrite %q AllowedDomains %q", e.AllowWrite, e.AllowedDomains)
	}
	if e.Sources[len(e.Sources)-1].Kind != KindFlags {
		t.Errorf("Sources = %+v", e.Sources)
	}
	for _, bad := range []Flags{{Mode: "loose"}, {Sandbox: "docker"}, {Timeout: -time.Second}, {AllowDomains: []string{"a b"}}, {AllowWrite: []string{"$UNSET_X"}}} {
		o.Flags = bad
		if _, err := Load(o); err == nil {
			t.Errorf("flags %+v: want an error", bad)
		}
	}
}

func TestHooksPath(t *testing.T) {
	unixPaths(t)
	f := newFixture(t)
	write(t, filepath.Join(f.repo, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n[Core]\n\thooksPath = \".husky\" # comment\n")
	write(t, filepath.Join(f.home, ".gitconfig"), "[include]\n\tpath = ~/.gitconfig.d/extra\n")
	write(t, filepath.Join(f.home, ".gitconfig.d", "extra"), "[core]\nhookspath = ~/global-hooks\n")
	write(t, filepath.Join(f.home, ".config", "git", "config"), "[core \"sub\"]\nhooksPath = /not/this\n[core]\n  hooksPath = /opt/hooks\n")
	f.env["GIT_CONFIG_COUNT"] = "1"
	f.env["GIT_CONFIG_KEY_0"] = "core.hooksPath"
	f.env["GIT_CONFIG_VALUE_0"] = "/env/hooks"
	e := mustLoad(t, f.opts())
	for _, w := range []string{".husky", filepath.Join(f.repo, ".husky"), filepath.Join(f.home, "global-hooks"), "/opt/hooks", "/env/hooks"} {
		if !slices.Contains(e.DenyWrite, w) {
			t.Errorf("DenyWrite lacks %q: %q", w, e.DenyWrite)
		}
	}
	if slices.Contains(e.DenyWrite, "/not/this") || slices.Contains(e.DenyWrite, placeholderHooksPath) {
		t.Errorf("DenyWrite = %q", e.DenyWrite)
	}
}

func TestWorktreeGitDir(t *testing.T) {
	f := newFixture(t)
	main := filepath.Join(t.TempDir(), "main.git")
	wt := filepath.Join(main, "worktrees", "w")
	write(t, filepath.Join(wt, "commondir"), "../..\n")
	write(t, filepath.Join(main, "config"), "[core]\nhooksPath = hooks2\n")
	if err := os.RemoveAll(filepath.Join(f.repo, ".git")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(f.repo, ".git"), "gitdir: "+wt+"\n")
	e := mustLoad(t, f.opts())
	for _, w := range []string{filepath.Join(main, "hooks"), filepath.Join(main, "config"), filepath.Join(f.repo, "hooks2")} {
		if !slices.Contains(e.DenyWrite, w) {
			t.Errorf("DenyWrite lacks %q: %q", w, e.DenyWrite)
		}
	}
}

func TestHostileGitFilesDoNotBlock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	f := newFixture(t)
	os.RemoveAll(filepath.Join(f.repo, ".git"))
	if err := mkfifo(filepath.Join(f.repo, ".git")); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(f.opts()); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("a FIFO .git: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Load blocked on a FIFO named .git")
	}

	os.Remove(filepath.Join(f.repo, ".git"))
	gitdir := filepath.Join(f.repo, "gd")
	os.MkdirAll(gitdir, 0o755)
	write(t, filepath.Join(f.repo, ".git"), "gitdir: gd\n")
	mkfifo(filepath.Join(gitdir, "commondir"))
	mkfifo(filepath.Join(gitdir, "config"))
	write(t, filepath.Join(f.cwd, ProjectFile), "")
	os.Remove(filepath.Join(f.cwd, ProjectFile))
	mkfifo(filepath.Join(f.cwd, ProjectFile))
	go func() { _, err := Load(f.opts()); done <- err }()
	select {
	case err := <-done:
		var ce *Error
		if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "not a regular file") {
			t.Errorf("a FIFO project file: got %v, want a not-regular error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Load blocked on a FIFO in the git directory or project file")
	}
}

// TestHooksPathGitSyntax: core.hooksPath is found however git's syntax
// spells it (a key on the section's line, a continued value, quotes), and
// the files a config includes are protected as config.
func TestHooksPathGitSyntax(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.repo, ".git", "config"), "[core] hooksPath = \".ho\"\\\n\"oks\" ; x\n[include]\n\tpath = ../team.gitconfig\n")
	write(t, filepath.Join(f.repo, "team.gitconfig"), "[includeIf \"gitdir:/nowhere/\"]\n\tpath = more.gitconfig\n")
	write(t, filepath.Join(f.repo, "more.gitconfig"), "[core]\n\thooksPath = /from/include\n")
	e := mustLoad(t, f.opts())
	for _, w := range []string{".hooks", filepath.Join(f.repo, ".hooks"), "/from/include",
		filepath.Join(f.repo, "team.gitconfig"), filepath.Join(f.repo, "more.gitconfig")} {
		if !slices.Contains(e.DenyWrite, w) {
			t.Errorf("DenyWrite lacks %q: %q", w, e.DenyWrite)
		}
	}
}

func TestFingerprint(t *testing.T) {
	f := newFixture(t)
	a := mustLoad(t, f.opts())
	b := mustLoad(t, f.opts())
	if a.Fingerprint() != b.Fingerprint() || len(a.Fingerprint()) != 16 {
		t.Fatalf("unstable or malformed: %q %q", a.Fingerprint(), b.Fingerprint())
	}
	seen := map[string]string{"base": a.Fingerprint()}
	change := map[string]func(e *Effective){
		"mode":     func(e *Effective) { e.Mode = "strict" },
		"network":  func(e *Effective) { e.NetworkEnabled = false },
		"domain":   func(e *Effective) { e.AllowedDomains = append(e.AllowedDomains, "x.example") },
		"keep":     func(e *Effective) { e.EnvKeep = []string{"A"} },
		"limits":   func(e *Effective) { e.Limits.Processes = 1 },
		"order":    func(e *Effective) { e.AllowWrite[0], e.AllowWrite[1] = e.AllowWrite[1], e.AllowWrite[0] },
		"boundary": func(e *Effective) { e.RulesDeny = []string{"a", "b"}; e.RulesConfirm = nil },
		"boundary2": func(e *Effective) {
			e.RulesDeny = []string{"a"}
			e.RulesConfirm = []string{"b"}
		},
	}
	for name, fn := range change {
		e := mustLoad(t, f.opts())
		fn(e)
		fp := e.Fingerprint()
		for other, ofp := range seen {
			if fp == ofp {
				t.Errorf("%s and %s share fingerprint %s", name, other, fp)
			}
		}
		seen[name] = fp
	}
	// Warnings and sources are not policy.
	c := mustLoad(t, f.opts())
	c.Warnings = []string{"w"}
	c.Sources = nil
	if c.Fingerprint() != a.Fingerprint() {
		t.Error("warnings or sources changed the fingerprint")
	}
}

func TestTOMLRoundTrip(t *testing.T) {
	f := newFixture(t)
	f.userFile(t, "[limits]\ntimeout = \"90s\"\nfile_size = 1024\n[rules]\nallow = [\"make\"]\n")
	e := mustLoad(t, f.opts())
	out, err := e.TOML()
	if err != nil {
		t.Fatal(err)
	}
	path := write(t, filepath.Join(t.TempDir(), "eff.toml"), string(out))
	if err := Validate(path); err != nil {
		t.Fatalf("the effective TOML does not validate: %v\n%s", err, out)
	}
	o := f.opts()
	o.ConfigPath = path
	e2 := mustLoad(t, o)
	e2.DenyWrite = slices.DeleteFunc(e2.DenyWrite, func(s string) bool { return s == path })
	if e2.Fingerprint() != e.Fingerprint() {
		t.Errorf("reloading the effective TOML changed the policy\n%s", out)
	}
	if !strings.Contains(string(out), "# policy fingerprint: "+e.Fingerprint()) {
		t.Errorf("no fingerprint comment:\n%s", out)
	}
}

func TestLoadRejectsRelativeDirs(t *testing.T) {
	if _, err := Load(Options{Cwd: "rel", Home: "/h", Getenv: env{}.get}); err == nil {
		t.Error("relative Cwd accepted")
	}
	if _, err := Load(Options{Cwd: "/", Home: "", Getenv: env{}.get}); err == nil {
		t.Error("empty Home accepted")
	}
}

func BenchmarkLoad(b *testing.B) {
	root := b.TempDir()
	home := filepath.Join(root, "home")
	cwd := filepath.Join(root, "repo", "a", "b")
	os.MkdirAll(filepath.Join(root, "repo", ".git"), 0o755)
	os.MkdirAll(cwd, 0o755)
	os.MkdirAll(filepath.Join(home, ".config", "safeexec"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "safeexec", "config.toml"), []byte("[rules]\nallow = [\"make\"]\n[env]\nkeep = [\"NPM_TOKEN\"]\n"), 0o644)
	os.WriteFile(filepath.Join(root, "repo", ProjectFile), []byte("[rules]\ndeny = [\"npm publish\"]\n"), 0o644)
	o := Options{Cwd: cwd, Home: home, Getenv: env{"XDG_CONFIG_HOME": filepath.Join(home, ".config")}.get}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFingerprint(b *testing.B) {
	e, err := Load(Options{Cwd: b.TempDir(), Home: b.TempDir(), Getenv: env{}.get})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		e.Fingerprint()
	}
}

// unixPaths skips a test whose expectations are Unix paths ("/tmp",
// "/var/tmp/me", slash-separated names), which Windows reads otherwise.
func unixPaths(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("expects Unix paths")
	}
}

func TestEnvKeepTable(t *testing.T) {
	unixPaths(t)
	f := newFixture(t)
	f.userFile(t, `[env]
keep = { "*" = ["CI_TOKEN"], "npx -y @modelcontextprotocol/server-github" = ["GITHUB_TOKEN"], "uvx mcp-server-x" = ["X_KEY", "X_SECRET"] }
`)
	e := mustLoad(t, f.opts())
	if !slices.Equal(e.EnvKeep, []string{"CI_TOKEN"}) {
		t.Errorf("EnvKeep = %q, want the \"*\" entry", e.EnvKeep)
	}
	want := []KeepFor{{Command: "npx -y @modelcontextprotocol/server-github", Names: []string{"GITHUB_TOKEN"}}, {Command: "uvx mcp-server-x", Names: []string{"X_KEY", "X_SECRET"}}}
	if len(e.EnvKeepFor) != len(want) {
		t.Fatalf("EnvKeepFor = %+v, want %+v", e.EnvKeepFor, want)
	}
	for i := range want {
		if e.EnvKeepFor[i].Command != want[i].Command || !slices.Equal(e.EnvKeepFor[i].Names, want[i].Names) {
			t.Errorf("EnvKeepFor[%d] = %+v, want %+v", i, e.EnvKeepFor[i], want[i])
		}
	}
	// The rendering reads back as the same policy.
	out, err := e.TOML()
	if err != nil {
		t.Fatal(err)
	}
	o := f.opts()
	o.ConfigPath = write(t, filepath.Join(t.TempDir(), "eff.toml"), string(out))
	e2 := mustLoad(t, o)
	e2.DenyWrite = slices.DeleteFunc(e2.DenyWrite, func(s string) bool { return s == o.ConfigPath })
	if e2.Fingerprint() != e.Fingerprint() {
		t.Errorf("config show does not read back as the same policy:\n%s", out)
	}

	// A project file keeps nothing for a command, and a "*" entry only
	// narrows what the user keeps.
	proj := write(t, filepath.Join(f.repo, ProjectFile), `[env]
keep = { "*" = ["CI_TOKEN", "AWS_SECRET_ACCESS_KEY"], "make" = ["NPM_TOKEN"], "npx -y @modelcontextprotocol/server-github" = ["GH_TOKEN"] }
`)
	e = mustLoad(t, f.opts())
	if !slices.Equal(e.EnvKeep, []string{"CI_TOKEN"}) || len(e.EnvKeepFor) != 2 || e.EnvKeepFor[0].Names[0] != "GITHUB_TOKEN" {
		t.Errorf("with a project file: EnvKeep %q EnvKeepFor %+v; a project may not keep more", e.EnvKeep, e.EnvKeepFor)
	}
	warned := 0
	for _, w := range e.Warnings {
		if strings.HasPrefix(w, proj+": env.keep: ") {
			warned++
		}
	}
	if warned != 2 {
		t.Errorf("want a warning for the command entries and one for AWS_SECRET_ACCESS_KEY, got %q", e.Warnings)
	}
}

func TestEnvKeepMalformed(t *testing.T) {
	for _, c := range []struct{ keep, msg string }{
		{`5`, `env.keep must be a list of strings, or a table of lists`},
		{`"GITHUB_TOKEN"`, `env.keep must be a list of strings, or a table of lists`},
		{`{ "npx x" = "A" }`, `env.keep."npx x" must be a list of variable names, not a string`},
		{`{ "npx x" = { a = ["A"] } }`, `env.keep."npx x" must be a list of variable names, not a table`},
		{`{ "npx x" = [1] }`, `env.keep."npx x" entry 0 must be a string, not an integer`},
		{`{ "npx x" = ["A B"] }`, `env.keep."npx x" entry "A B": not a variable name`},
		{`{ "" = ["A"] }`, `env.keep key "": names no command`},
		{`{ "npx x; curl y" = ["A"] }`, `env.keep key "npx x; curl y": ";" is shell syntax`},
		{`{ "npx $PKG" = ["A"] }`, `"$" is shell syntax`},
		{`{ "npx x *" = ["A"] }`, `"*" is shell syntax`},
		{`{ "npx 'x" = ["A"] }`, `unbalanced quote`},
	} {
		path := write(t, filepath.Join(t.TempDir(), "c.toml"), "[env]\nkeep = "+c.keep+"\n")
		err := Validate(path)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != "env.keep" || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("keep = %s: error %v, want one about env.keep containing %q", c.keep, err, c.msg)
		}
	}
}
