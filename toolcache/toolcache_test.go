package toolcache

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func envMap(t *testing.T, env []string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := m[k]; dup {
			t.Errorf("%s set twice", k)
		}
		m[k] = v
	}
	return m
}

func TestEnv(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix paths")
	}
	home := t.TempDir()
	for _, d := range []string{".cache/go-build", "go/pkg/mod/cache/download", ".gradle/caches/modules-2", ".m2/repository", ".cargo/bin"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	os.WriteFile(filepath.Join(home, ".cargo", "config.toml"), []byte("[net]\noffline = true\n"), 0o644)
	dir := filepath.Join(t.TempDir(), "cache")
	got := envMap(t, Env(Options{Dir: dir, Self: "/usr/bin/safeexec", Env: []string{
		"HOME=" + home, "PATH=/usr/bin", "GOPROXY=https://proxy.example", "GOCACHE=" + filepath.Join(home, ".cache", "go-build"),
		"npm_config_cache=/host/npm", "MAVEN_OPTS=-Xmx1g", "CARGO_HOME=" + filepath.Join(home, ".cargo"),
	}}))
	want := map[string]string{
		"GOCACHE": dir + "/go-build", "GOMODCACHE": dir + "/go-mod", "npm_config_cache": dir + "/npm",
		"PIP_CACHE_DIR": dir + "/pip", "XDG_CACHE_HOME": dir + "/xdg", "CARGO_HOME": dir + "/cargo",
		"PATH": "/usr/bin", "GRADLE_USER_HOME": dir + "/gradle",
		"GOPROXY":             "file://" + home + "/go/pkg/mod/cache/download,https://proxy.example",
		"GRADLE_RO_DEP_CACHE": home + "/.gradle/caches",
		"MAVEN_OPTS":          "-Xmx1g -Dmaven.repo.local=" + dir + "/m2 -Dmaven.repo.local.tail=" + home + "/.m2/repository",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	prog := strings.Fields(got["GOCACHEPROG"])
	if len(prog) != 5 || prog[0] != "/usr/bin/safeexec" || prog[1] != "__gocache" || prog[2] != dir+"/go-build" || prog[3] != home+"/.cache/go-build" || len(prog[4]) != 32 {
		t.Errorf("GOCACHEPROG = %q, want safeexec __gocache OWN HOST MARK", got["GOCACHEPROG"])
	}
	// The user's cargo settings are seen through a link.
	if b, err := os.ReadFile(filepath.Join(dir, "cargo", "config.toml")); err != nil || !strings.Contains(string(b), "offline") {
		t.Errorf("cargo config not linked: %v", err)
	}

	// No host caches, strict: no sources, no GOCACHEPROG, Go's default proxy.
	got = envMap(t, Env(Options{Dir: dir, Self: "/usr/bin/safeexec", NoExec: true, Env: []string{"HOME=/nonexistent"}}))
	if got["GOPROXY"] != "https://proxy.golang.org,direct" || got["GOCACHEPROG"] != "" || got["GRADLE_RO_DEP_CACHE"] != "" {
		t.Errorf("without host caches: %v", got)
	}
	// A GOCACHEPROG of the user's own is kept.
	got = envMap(t, Env(Options{Dir: dir, Self: "/usr/bin/safeexec", Env: []string{"HOME=" + home, "GOCACHEPROG=mycache --remote"}}))
	if got["GOCACHEPROG"] != "mycache --remote" {
		t.Errorf("user GOCACHEPROG = %q", got["GOCACHEPROG"])
	}
	// A path with spaces is quoted the way the go command splits it.
	got = envMap(t, Env(Options{Dir: "/c d", Self: "/opt/my tools/safeexec", Env: []string{"HOME=" + home}}))
	if want := "'/opt/my tools/safeexec' __gocache '/c d/go-build' " + home + "/.cache/go-build "; !strings.HasPrefix(got["GOCACHEPROG"], want) {
		t.Errorf("GOCACHEPROG = %q, want %q", got["GOCACHEPROG"], want)
	}
}

// goCacheClient speaks the go command's side of the protocol.
type goCacheClient struct {
	t   *testing.T
	enc *json.Encoder
	dec *json.Decoder
	w   *io.PipeWriter
	id  int64
}

func startServer(t *testing.T, g GoCache) (*goCacheClient, chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- ServeGoCache(g, inR, outW)
		outW.Close()
	}()
	c := &goCacheClient{t: t, enc: json.NewEncoder(inW), dec: json.NewDecoder(bufio.NewReader(outR)), w: inW}
	var hello goCacheResponse
	if err := c.dec.Decode(&hello); err != nil || len(hello.KnownCommands) == 0 {
		t.Fatalf("hello: %+v %v", hello, err)
	}
	return c, done
}

func (c *goCacheClient) do(req goCacheRequest, body []byte) goCacheResponse {
	c.id++
	req.ID = c.id
	req.BodySize = int64(len(body))
	if err := c.enc.Encode(req); err != nil {
		c.t.Fatal(err)
	}
	if len(body) > 0 {
		if err := c.enc.Encode(body); err != nil {
			c.t.Fatal(err)
		}
	}
	var res goCacheResponse
	if err := c.dec.Decode(&res); err != nil {
		c.t.Fatal(err)
	}
	if res.ID != req.ID {
		c.t.Fatalf("response %d to request %d", res.ID, req.ID)
	}
	return res
}

func id(s string) []byte { h := sha256.Sum256([]byte(s)); return h[:] }

// hostEntry writes an action entry and its output into dir, in Go's
// layout, with old times.
func hostEntry(t *testing.T, dir, action, output, body string) {
	t.Helper()
	out := id(output)
	for p, data := range map[string]string{
		outputPath(dir, out):       body,
		entryPath(dir, id(action)): fmt.Sprintf("v1 %x %x %20d %20d\n", id(action), out, len(body), 1),
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-48 * time.Hour)
		os.Chtimes(p, old, old)
	}
}

// snapshot is every file under dir with its size, time and content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		m[p] = fmt.Sprintf("%v %d %v %q", fi.Mode(), fi.Size(), fi.ModTime().UnixNano(), b)
		return nil
	})
	return m
}

func TestServeGoCache(t *testing.T) {
	own, host := filepath.Join(t.TempDir(), "own"), t.TempDir()
	hostEntry(t, host, "host action", "host output", "compiled")
	before := snapshot(t, host)

	c, done := startServer(t, GoCache{Own: own, Host: host, Mark: "0123456789abcdef0123456789abcdef"})
	if r := c.do(goCacheRequest{Command: "get", ActionID: id("nothing")}, nil); !r.Miss {
		t.Errorf("get of a missing entry: %+v", r)
	}
	// A host entry is served from a copy in the project's cache.
	r := c.do(goCacheRequest{Command: "get", ActionID: id("host action")}, nil)
	if r.Miss || r.DiskPath != outputPath(own, id("host output")) || r.Size != 8 || !bytes.Equal(r.OutputID, id("host output")) {
		t.Errorf("get of a host entry: %+v", r)
	}
	if b, err := os.ReadFile(r.DiskPath); string(b) != "compiled" {
		t.Errorf("the copied output holds %q (%v)", b, err)
	}
	if e, ok := readEntry(own, id("host action")); !ok || !bytes.Equal(e.output, id("host output")) || e.size != 8 {
		t.Errorf("the copied entry: %+v %v", e, ok)
	}
	r = c.do(goCacheRequest{Command: "put", ActionID: id("new"), OutputID: id("new out")}, []byte("fresh build"))
	if r.Err != "" || !strings.HasPrefix(r.DiskPath, own) {
		t.Fatalf("put: %+v", r)
	}
	if b, _ := os.ReadFile(r.DiskPath); string(b) != "fresh build" {
		t.Errorf("put wrote %q", b)
	}
	r = c.do(goCacheRequest{Command: "get", ActionID: id("new")}, nil)
	if r.Miss || !bytes.Equal(r.OutputID, id("new out")) {
		t.Errorf("get after put: %+v", r)
	}
	// Empty outputs have no body line.
	r = c.do(goCacheRequest{Command: "put", ActionID: id("empty"), OutputID: id("empty out")}, nil)
	if r.Err != "" {
		t.Errorf("empty put: %+v", r)
	}
	if r := c.do(goCacheRequest{Command: "get", ActionID: []byte("short")}, nil); r.Err == "" {
		t.Errorf("a malformed ID was accepted: %+v", r)
	}
	c.do(goCacheRequest{Command: "close"}, nil)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The host's cache was only read.
	if after := snapshot(t, host); !maps.Equal(before, after) {
		t.Errorf("the host cache changed:\n%v\n%v", before, after)
	}
	// This session took an entry from the host: no mark yet.
	if synced(own, "0123456789abcdef0123456789abcdef", time.Now()) {
		t.Error("a session that used the host's cache left a sync mark")
	}

	// The next one finds everything in the project's cache and leaves
	// its mark, even though the host's entry is gone.
	os.RemoveAll(host)
	c, done = startServer(t, GoCache{Own: own, Host: host, Mark: "0123456789abcdef0123456789abcdef"})
	if r := c.do(goCacheRequest{Command: "get", ActionID: id("host action")}, nil); r.Miss || r.DiskPath != outputPath(own, id("host output")) {
		t.Errorf("the copied entry was not found: %+v", r)
	}
	c.do(goCacheRequest{Command: "close"}, nil)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !synced(own, "0123456789abcdef0123456789abcdef", time.Now()) {
		t.Error("a session served from the project's cache alone left no sync mark")
	}
}

// TestEnvSync: GOCACHEPROG is left out once a session of the same kind of
// command found everything in the project's cache, and comes back for
// another kind of command, another go toolchain, and after a day.
func TestEnvSync(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("unix paths")
	}
	home := t.TempDir()
	host := filepath.Join(home, ".cache", "go-build")
	hostEntry(t, host, "std", "std out", "archive")
	bin := t.TempDir()
	gobin := filepath.Join(bin, "go")
	os.WriteFile(gobin, []byte("#!/bin/sh\n"), 0o755)
	dir := filepath.Join(t.TempDir(), "cache")
	own := filepath.Join(dir, "go-build")
	env := []string{"HOME=" + home, "PATH=/nonexistent:" + bin + ":/usr/bin", "GOFLAGS=-mod=mod"}
	prog := func(command ...string) (mark string) {
		t.Helper()
		v := envMap(t, Env(Options{Dir: dir, Self: "/usr/bin/safeexec", Env: env, Command: command}))["GOCACHEPROG"]
		if v == "" {
			return ""
		}
		f := strings.Fields(v)
		return f[len(f)-1]
	}
	test := []string{"go", "test", "-count=1", "./..."}
	mark := prog(test...)
	if mark == "" {
		t.Fatal("no GOCACHEPROG for a new project")
	}
	if err := addSyncMark(own, mark, time.Now()); err != nil {
		t.Fatal(err)
	}
	if m := prog(test...); m != "" {
		t.Errorf("GOCACHEPROG (%s) although the project's cache has caught up", m)
	}
	if m := prog("go", "test", "-run", "TestX", "-v", "./pkg/..."); m != "" {
		t.Error("another test name or package is another kind of command")
	}
	if m := prog("bash", "-c", "cd sub && go test -count=1 ./... 2>&1 | tail -3"); m != "" {
		t.Error("the same go command in a script is another kind of command")
	}
	for _, other := range [][]string{
		{"go", "test", "-race", "./..."},
		{"go", "vet", "./..."},
		{"go", "build", "-tags", "integration", "./..."},
		{"bash", "-c", "GOOS=windows go test ./..."},
	} {
		if prog(other...) == "" {
			t.Errorf("%q: no GOCACHEPROG for a new kind of command", other)
		}
	}
	env = append(env, "CGO_ENABLED=0")
	if prog(test...) == "" {
		t.Error("no GOCACHEPROG after a Go variable changed")
	}
	env = env[:len(env)-1]

	// A new go release.
	later := time.Now().Add(time.Minute)
	os.Chtimes(gobin, later, later)
	m := prog(test...)
	if m == "" || m == mark {
		t.Errorf("GOCACHEPROG mark %q after the go toolchain changed (was %s)", m, mark)
	}
	// A mark older than a day does not count.
	if err := addSyncMark(own, m, time.Now().Add(-syncAge-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if prog(test...) == "" {
		t.Error("a mark older than a day still counts")
	}
	// go clean -cache removes the subdirectories, and the marks with them.
	addSyncMark(own, m, time.Now())
	if prog(test...) != "" {
		t.Fatal("a fresh mark does not count")
	}
	os.RemoveAll(filepath.Join(own, "00"))
	if prog(test...) == "" {
		t.Error("no GOCACHEPROG after the project's cache was cleaned")
	}
	// Strict modes never run safeexec as GOCACHEPROG.
	if v := envMap(t, Env(Options{Dir: dir, Self: "/usr/bin/safeexec", NoExec: true, Env: env, Command: test}))["GOCACHEPROG"]; v != "" {
		t.Errorf("GOCACHEPROG %q in a strict mode", v)
	}
}

func TestGoKind(t *testing.T) {
	same := [][2]string{
		{"go test ./...", "go test -run 'TestA|TestB' -v -count=1 ./pkg/foo"},
		{"go build -tags=integration ./...", "go build -tags integration ."},
		{"go test -race ./...", "cd x && go test -race -json ./... | tee log"},
		{"go vet ./...", "go vet -json ./cmd/..."},
		{"go test ./...", `go test ./... && echo "GOCACHE=$GOCACHE GOCACHEPROG=$GOCACHEPROG"`},
	}
	for _, c := range same {
		if a, b := goKind([]string{"sh", "-c", c[0]}, nil), goKind([]string{"sh", "-c", c[1]}, nil); a != b {
			t.Errorf("%q (%q) and %q (%q) are different kinds", c[0], a, c[1], b)
		}
	}
	differ := [][2]string{
		{"go test ./...", "go test -race ./..."},
		{"go test ./...", "go vet ./..."},
		{"go build ./...", "go build -tags integration ./..."},
		{"go build -tags a ./...", "go build -tags b ./..."},
		{"go build ./...", "GOOS=windows go build ./..."},
		{"go test ./...", "go test -cover ./..."},
		{"go build ./...", "go build -gcflags=all=-N ./..."},
		{"go test ./...", "go test -fuzz FuzzX ./..."},
	}
	for _, c := range differ {
		if a, b := goKind([]string{"sh", "-c", c[0]}, nil), goKind([]string{"sh", "-c", c[1]}, nil); a == b {
			t.Errorf("%q and %q are the same kind (%q)", c[0], c[1], a)
		}
	}
	if a, b := goKind([]string{"go", "build"}, []string{"GOFLAGS=-race"}), goKind([]string{"go", "build"}, nil); a == b {
		t.Error("GOFLAGS in the environment does not change the kind")
	}
	if a, b := goKind([]string{"go", "build"}, []string{"GOCACHE=/x", "GOPROXY=off", "HOME=/h"}), goKind([]string{"go", "build"}, nil); a != b {
		t.Error("variables safeexec sets, or that Go does not build with, change the kind")
	}
}

// TestGoCacheProgWithGo runs the real go command with the server as its
// GOCACHEPROG (this test binary re-executed): a second project finds
// what the host cache holds and writes only to its own.
func TestGoCacheProgWithGo(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "m.go"), []byte("package m\n\nfunc Answer() int { return 42 }\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "m_test.go"), []byte("package m\n\nimport \"testing\"\n\nfunc TestAnswer(t *testing.T) {\n\tif Answer() != 42 {\n\t\tt.Fatal(Answer())\n\t}\n}\n"), 0o644)

	// The host cache is the machine's own: warming a new one would
	// compile the standard library.
	gocache, err := exec.Command(gobin, "env", "GOCACHE").Output()
	host := strings.TrimSpace(string(gocache))
	if err != nil || !filepath.IsAbs(host) {
		t.Skipf("no build cache: %v", err)
	}
	run := func(env ...string) string {
		cmd := exec.Command(gobin, "test", "-count=1", "-x", ".")
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), append([]string{"GOFLAGS=", "GOTOOLCHAIN=local"}, env...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go test: %v\n%s", err, out)
		}
		return string(out)
	}
	// Warm the host cache the ordinary way.
	run("GOCACHE=" + host)
	own := filepath.Join(t.TempDir(), "own")
	const mark = "0123456789abcdef0123456789abcdef"
	prog, _ := joinQuoted(exe, "-test.run=^TestHelperGoCache$", "--", own, host, mark)
	for i := range 2 {
		out := run("GOCACHE="+own, "GOCACHEPROG="+prog, "SAFEEXEC_TEST_GOCACHE=1")
		// With the host's results available nothing is compiled again.
		if strings.Contains(out, "/compile ") {
			t.Errorf("session %d: packages were compiled again although the host cache has them:\n%s", i+1, out)
		}
		// The first session took the standard library from the host's
		// cache; the second found it in the project's and left its mark.
		if got := synced(own, mark, time.Now()); got != (i == 1) {
			t.Errorf("after session %d: sync mark %v", i+1, got)
		}
	}
	// The project's cache alone now has what this command needs: the go
	// command without GOCACHEPROG compiles nothing either.
	if out := run("GOCACHE=" + own); strings.Contains(out, "/compile ") {
		t.Errorf("without GOCACHEPROG, packages were compiled:\n%s", out)
	}
}

// TestHelperGoCache is the GOCACHEPROG of TestGoCacheProgWithGo.
func TestHelperGoCache(t *testing.T) {
	if os.Getenv("SAFEEXEC_TEST_GOCACHE") != "1" {
		t.Skip("helper process")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(RunGoCache(args))
}

func countFiles(t *testing.T, dir string) int {
	n := 0
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n++
		}
		return nil
	})
	return n
}
