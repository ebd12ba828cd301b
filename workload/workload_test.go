package workload

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// requireSandbox is set by CI: what would skip fails instead.
var requireSandbox = os.Getenv("SAFEEXEC_REQUIRE_SANDBOX") == "1"

// harness runs scripts bare and under safeexec with the same environment.
type harness struct {
	t   *testing.T
	exe string
	reg *registries
	tmp string
	env []string
}

var (
	buildOnce sync.Once
	built     string
	buildErr  error
	buildDir  string
)

func safeexecBinary(t *testing.T) string {
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "safeexec-workload-")
		if buildErr != nil {
			return
		}
		built = filepath.Join(buildDir, "safeexec")
		cmd := exec.Command("go", "build", "-o", built, "../cmd/safeexec")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// missing skips the test, or fails it where CI must have everything.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if requireSandbox {
		t.Fatalf("SAFEEXEC_REQUIRE_SANDBOX=1 but %s (.ci/run installs it)", msg)
	}
	t.Skip(msg)
}

func needBwrap(t *testing.T) {
	t.Helper()
	path, err := exec.LookPath("bwrap")
	if err != nil {
		missing(t, "bwrap is not installed")
	}
	if out, err := exec.Command(path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--die-with-parent", "--", "true").CombinedOutput(); err != nil {
		missing(t, "bwrap cannot start a sandbox here: %v: %s", err, out)
	}
}

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing(t, "%s is not installed", tool)
		}
	}
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	needBwrap(t)
	h := &harness{t: t, exe: safeexecBinary(t), reg: startRegistries(t), tmp: t.TempDir()}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	// The machine's own home and tools; safeexec's own files and the
	// registries' clients pointed into the test's directory.
	gocache := ""
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		gocache = strings.TrimSpace(string(out))
	}
	h.env = []string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"USER=" + os.Getenv("USER"),
		"LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(h.tmp, "config"),
		"XDG_STATE_HOME=" + filepath.Join(h.tmp, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(h.tmp, "cache"),
		"GOCACHE=" + gocache,
		"GOPROXY=" + h.reg.URL + "/go",
		"GOSUMDB=off",
		"GOTOOLCHAIN=local",
		"GOFLAGS=-buildvcs=false",
		"npm_config_registry=" + h.reg.URL + "/npm/",
		"npm_config_userconfig=/dev/null",
		"npm_config_update_notifier=false",
		"npm_config_fund=false",
		"npm_config_audit=false",
		"PIP_INDEX_URL=" + h.reg.URL + "/simple/",
		"PIP_DISABLE_PIP_VERSION_CHECK=1",
		"PIP_NO_INPUT=1",
		"NO_COLOR=1",
		"CARGO_TERM_COLOR=never",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=init.defaultBranch", "GIT_CONFIG_VALUE_0=main",
		"GIT_CONFIG_KEY_1=advice.detachedHead", "GIT_CONFIG_VALUE_1=false",
		"GIT_AUTHOR_NAME=Work Load", "GIT_AUTHOR_EMAIL=work@example.test", "GIT_AUTHOR_DATE=2024-01-01T00:00:00Z",
		"GIT_COMMITTER_NAME=Work Load", "GIT_COMMITTER_EMAIL=work@example.test", "GIT_COMMITTER_DATE=2024-01-01T00:00:00Z",
	}
	if gocache == "" {
		h.env = h.env[:len(h.env)-1]
	}
	return h
}

// twins writes the same project twice and returns the copy for the bare
// run and the one for safeexec. prepare, if set, runs in each copy with
// the harness's environment (e.g. to make a git repository).
func (h *harness) twins(name string, files map[string]string, prepare string) (bare, sandboxed string) {
	h.t.Helper()
	bare = filepath.Join(h.tmp, "bare", name)
	sandboxed = filepath.Join(h.tmp, "safe", name)
	for _, dir := range []string{bare, sandboxed} {
		for rel, body := range files {
			p := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				h.t.Fatal(err)
			}
			mode := os.FileMode(0o644)
			if strings.HasPrefix(body, "#!") {
				mode = 0o755
			}
			if err := os.WriteFile(p, []byte(body), mode); err != nil {
				h.t.Fatal(err)
			}
		}
		if prepare != "" {
			cmd := exec.Command("bash", "-c", prepare)
			cmd.Dir, cmd.Env = dir, h.env
			if out, err := cmd.CombinedOutput(); err != nil {
				h.t.Fatalf("prepare %s: %v\n%s", name, err, out)
			}
		}
	}
	return bare, sandboxed
}

type result struct {
	code           int
	stdout, stderr []byte
	elapsed        time.Duration
}

// run runs script in dir, bare or under safeexec. Each run gets empty
// download caches of its own (as the host sees them), so both go to the
// registries.
func (h *harness) run(dir string, sandboxed bool, script string, stdin []byte) result {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var cmd *exec.Cmd
	if sandboxed {
		cmd = exec.CommandContext(ctx, h.exe, "--allow-domain", fmt.Sprintf("127.0.0.1:%d", h.reg.Port), "-c", script)
	} else {
		cmd = exec.CommandContext(ctx, "bash", "-c", script)
	}
	caches, err := os.MkdirTemp(h.tmp, "caches-")
	if err != nil {
		h.t.Fatal(err)
	}
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), h.env...),
		"GOMODCACHE="+filepath.Join(caches, "gomod"),
		"npm_config_cache="+filepath.Join(caches, "npm"),
		"PIP_CACHE_DIR="+filepath.Join(caches, "pip"),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	start := time.Now()
	err = cmd.Run()
	r := result{stdout: stdout.Bytes(), stderr: stderr.Bytes(), elapsed: time.Since(start), code: cmd.ProcessState.ExitCode()}
	if err != nil && cmd.ProcessState == nil {
		h.t.Fatalf("run: %v", err)
	}
	// Go's module cache is read-only; let t.TempDir remove it.
	filepath.Walk(caches, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	return r
}

var durations = []*regexp.Regexp{
	regexp.MustCompile(`\b\d+(\.\d+)?\s?(ms|s)\b`),
	regexp.MustCompile(`duration_ms:? \d+(\.\d+)?`),
}

// normalize replaces what legitimately differs between the twins: the
// project's path and durations.
func normalize(b []byte, dir string) string {
	s := string(b)
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		s = strings.ReplaceAll(s, real, "$PROJ")
	}
	s = strings.ReplaceAll(s, dir, "$PROJ")
	for _, re := range durations {
		s = re.ReplaceAllString(s, "<t>")
	}
	return s
}

// same runs script bare in one twin and under safeexec in the other and
// fails the test when exit status or output differ.
func (h *harness) same(bare, sandboxed, script string, stdin []byte) (b, s result) {
	h.t.Helper()
	s = h.run(sandboxed, true, script, stdin)
	b = h.run(bare, false, script, stdin)
	if b.code != s.code {
		h.t.Errorf("exit status %d bare, %d under safeexec\nbare stderr:\n%s\nsafeexec stderr:\n%s", b.code, s.code, tail(b.stderr), tail(s.stderr))
	}
	for _, o := range []struct {
		name string
		b, s []byte
	}{{"stdout", b.stdout, s.stdout}, {"stderr", b.stderr, s.stderr}} {
		nb, ns := normalize(o.b, bare), normalize(o.s, sandboxed)
		if nb != ns {
			h.t.Errorf("%s differs\nbare:\n%s\nsafeexec:\n%s", o.name, clip(nb), clip(ns))
		}
	}
	return b, s
}

func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

func clip(s string) string {
	if len(s) > 6000 {
		return s[:3000] + "\n…\n" + s[len(s)-3000:]
	}
	return s
}

func TestGit(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	needTools(t, "git")
	bare, safe := h.twins("git", map[string]string{
		"README":     "a project\n",
		".gitignore": "wt/\n",
	}, "git init -q && git add -A && git commit -q -m init")
	h.same(bare, safe, `set -e
git status --short --branch
echo change >> README && git add README && git commit -q -m change
git branch feature
git switch -q feature
echo feat > feature.txt && git add feature.txt && git commit -q -m feature
git switch -q main
echo more >> README && git commit -q -am more
echo wip >> README
git stash -q
git stash list
git stash pop -q
git commit -q -am wip
git rebase -q feature
git log --oneline --graph --all
git worktree add -q wt/second -b second
git -C wt/second status --short --branch
git worktree list
git status --short --branch
`, nil)
}

func TestGo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	needTools(t, "go")
	sum := goSum(h.reg)
	bare, safe := h.twins("gomod", map[string]string{
		"go.mod":       "module example.test/app\n\ngo 1.20\n\nrequire " + goModule + " " + goVersion + "\n",
		"go.sum":       sum,
		"main.go":      "package main\n\nimport (\n\t\"fmt\"\n\n\t\"" + goModule + "\"\n)\n\nfunc main() { fmt.Println(greet.Hello(\"gopher\")) }\n",
		"main_test.go": "package main\n\nimport (\n\t\"testing\"\n\n\t\"" + goModule + "\"\n)\n\nfunc TestHello(t *testing.T) {\n\tif got := greet.Hello(\"x\"); got != \"hello, x\" {\n\t\tt.Fatal(got)\n\t}\n}\n",
	}, "")
	before := h.reg.Hits("go")
	_, s := h.same(bare, safe, `set -e
go mod download -x 2>&1 | grep -c '^# get' || true
go build ./...
go vet ./...
go test -count=1 ./...
go build -o bin/app . && ./bin/app
`, nil)
	if s.code == 0 && h.reg.Hits("go") <= before {
		t.Error("the module was not downloaded from the module proxy")
	}
}

// TestGoBuildCacheSteadyState: a go command run again in a project finds
// everything in the project's build cache, which took what it needed
// from the host's, and runs without safeexec's cache program, compiling
// nothing.
func TestGoBuildCacheSteadyState(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	needTools(t, "go")
	if !slices.ContainsFunc(h.env, func(kv string) bool { return strings.HasPrefix(kv, "GOCACHE=") }) {
		t.Skip("the go command has no build cache here")
	}
	_, dir := h.twins("gocache", map[string]string{
		"go.mod":       "module example.test/calc\n\ngo 1.21\n",
		"calc.go":      "package calc\n\nimport \"strings\"\n\nfunc Up(s string) string { return strings.ToUpper(s) }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestUp(t *testing.T) {\n\tif Up(\"a\") != \"A\" {\n\t\tt.Fatal(Up(\"a\"))\n\t}\n}\n",
	}, "")
	const script = `go test -count=1 -x ./... 2>&1 && echo "cache program: [$GOCACHEPROG]"`
	var outs []string
	for i := range 3 {
		r := h.run(dir, true, script, nil)
		if r.code != 0 {
			t.Fatalf("run %d: exit %d\n%s%s", i+1, r.code, tail(r.stdout), tail(r.stderr))
		}
		outs = append(outs, string(r.stdout))
	}
	// The first run compiles the project's package, the standard library
	// comes from the host's cache; the second compiles nothing.
	if !strings.Contains(outs[0], "cache program: [/") {
		t.Errorf("the first run had no cache program:\n%s", tail([]byte(outs[0])))
	}
	if strings.Contains(outs[1], "/compile ") {
		t.Errorf("the second run compiled:\n%s", tail([]byte(outs[1])))
	}
	if !strings.Contains(outs[2], "cache program: []") || strings.Contains(outs[2], "/compile ") {
		t.Errorf("the third run had a cache program or compiled:\n%s", tail([]byte(outs[2])))
	}
	// Another kind of go command takes from the host's cache again.
	r := h.run(dir, true, `go vet ./... && echo "cache program: [$GOCACHEPROG]"`, nil)
	if r.code != 0 || !strings.Contains(string(r.stdout), "cache program: [/") {
		t.Errorf("go vet: exit %d, no cache program:\n%s%s", r.code, tail(r.stdout), tail(r.stderr))
	}
}

// goSum is the go.sum of a module requiring the registry's Go module.
func goSum(r *registries) string {
	h1 := func(files map[string]string) string {
		var lines []string
		for _, name := range sortedKeys(files) {
			sum := sha256.Sum256([]byte(files[name]))
			lines = append(lines, fmt.Sprintf("%x  %s\n", sum, name))
		}
		sort.Strings(lines)
		sum := sha256.Sum256([]byte(strings.Join(lines, "")))
		return "h1:" + base64.StdEncoding.EncodeToString(sum[:])
	}
	zipFiles := map[string]string{
		goModule + "@" + goVersion + "/go.mod":   string(r.goMod),
		goModule + "@" + goVersion + "/greet.go": "package greet\n\n// Hello greets.\nfunc Hello(name string) string { return \"hello, \" + name }\n",
	}
	return fmt.Sprintf("%s %s %s\n%s %s/go.mod %s\n", goModule, goVersion, h1(zipFiles), goModule, goVersion, h1(map[string]string{"go.mod": string(r.goMod)}))
}

func TestNode(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	needTools(t, "node", "npm", "npx")
	lock := `{
  "name": "app",
  "version": "1.0.0",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": {"name": "app", "version": "1.0.0", "dependencies": {"` + npmPackage + `": "` + npmVersion + `"}},
    "node_modules/` + npmPackage + `": {
      "version": "` + npmVersion + `",
      "resolved": "` + h.reg.npmTarballURL() + `",
      "integrity": "` + h.reg.npmIntegrity() + `",
      "bin": {"` + npmPackage + `": "bin.js"}
    }
  }
}
`
	bare, safe := h.twins("node", map[string]string{
		"package.json":         `{"name":"app","version":"1.0.0","private":true,"dependencies":{"` + npmPackage + `":"` + npmVersion + `"},"scripts":{"test":"node --test"}}` + "\n",
		"package-lock.json":    lock,
		"test/greet.test.js":   "const test = require('node:test');\nconst assert = require('node:assert');\nconst { hello } = require('" + npmPackage + "');\ntest('greets', () => assert.strictEqual(hello('x'), 'hello, x'));\n",
		"test/nothing.test.js": "require('node:test')('runs', () => {});\n",
	}, "")
	before := h.reg.Hits("npm")
	_, s := h.same(bare, safe, `set -e
npm ci --no-audit --no-fund
npm test 2>&1 | grep -E '^(# (tests|pass|fail)|> )'
npx `+npmPackage+` sandbox
node --test 2>&1 | grep -E '^# (tests|pass|fail)'
ls node_modules/.bin
`, nil)
	if s.code == 0 && h.reg.Hits("npm") <= before {
		t.Error("the package was not fetched from the npm registry")
	}
}

func TestPython(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	needTools(t, "python3")
	if err := exec.Command("python3", "-c", "import venv, ensurepip").Run(); err != nil {
		missing(t, "python3 has no venv or ensurepip (python3-venv)")
	}
	bare, safe := h.twins("python", map[string]string{
		"tests/__init__.py":   "",
		"tests/test_greet.py": "import unittest\n\nimport tinygreet\n\n\nclass TestGreet(unittest.TestCase):\n    def test_hello(self):\n        self.assertEqual(tinygreet.hello('x'), 'hello, x')\n\n\ndef test_pytest_style():\n    assert tinygreet.hello('y') == 'hello, y'\n",
	}, "")
	before := h.reg.Hits("files")
	_, s := h.same(bare, safe, `set -e
python3 -m venv --system-site-packages .venv
.venv/bin/pip install -q `+pyPackage+`
.venv/bin/python -c 'import tinygreet; print(tinygreet.hello("sandbox"))'
.venv/bin/python -m unittest -q 2>&1 | grep -v '^$'
if .venv/bin/python -c 'import pytest' 2>/dev/null; then .venv/bin/python -m pytest -q -p no:cacheprovider 2>&1 | tail -n 1; fi
`, nil)
	if s.code == 0 && h.reg.Hits("files") <= before {
		t.Error("the wheel was not fetched from the index")
	}
}

func TestRust(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	needTools(t, "cargo", "rustc")
	bare, safe := h.twins("rust", map[string]string{
		"Cargo.toml":  "[package]\nname = \"hello\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
		"src/main.rs": "fn greet(n: &str) -> String { format!(\"hello, {}\", n) }\n\nfn main() { println!(\"{}\", greet(\"crab\")); }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn greets() { assert_eq!(super::greet(\"x\"), \"hello, x\"); }\n}\n",
	}, "")
	h.same(bare, safe, `set -e
cargo build --offline -q
cargo test --offline -q 2>&1 | grep -E '^test result'
./target/debug/hello
`, nil)
}

func TestMakeAndFreshBinary(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	needTools(t, "make", "cc")
	bare, safe := h.twins("make", map[string]string{
		"Makefile": "hello: hello.c\n\tcc -o hello hello.c\n",
		"hello.c":  "#include <stdio.h>\nint main(void) { puts(\"hello from make\"); return 0; }\n",
	}, "")
	h.same(bare, safe, `set -e
make
./hello
make
cat > fresh.c <<'EOF'
#include <stdio.h>
int main(int argc, char **argv) { printf("fresh binary, %d args\n", argc); return 3; }
EOF
cc -o fresh fresh.c && ./fresh a b
`, nil)
}

func TestLargeOutputAndInput(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	needTools(t, "seq", "sha256sum")
	bare, safe := h.twins("io", map[string]string{"README": "io\n"}, "")
	b, s := h.same(bare, safe, `seq 3000000`, nil)
	if n := bytes.Count(s.stdout, []byte("\n")); n != 3000000 {
		t.Errorf("under safeexec %d lines, want 3000000", n)
	}
	t.Logf("3 million lines: %v bare, %v under safeexec", b.elapsed, s.elapsed)

	in := make([]byte, 1<<20)
	rand.New(rand.NewSource(1)).Read(in)
	sum := sha256.Sum256(in)
	_, s = h.same(bare, safe, `cat > in.bin && wc -c < in.bin && sha256sum < in.bin`, in)
	if want := fmt.Sprintf("1048576\n%x  -\n", sum); string(s.stdout) != want {
		t.Errorf("under safeexec stdin arrived as %q, want %q", s.stdout, want)
	}
}
