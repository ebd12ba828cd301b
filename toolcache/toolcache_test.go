package toolcache

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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
		"GOCACHEPROG":         "/usr/bin/safeexec __gocache " + dir + "/go-build " + home + "/.cache/go-build",
		"GRADLE_RO_DEP_CACHE": home + "/.gradle/caches",
		"MAVEN_OPTS":          "-Xmx1g -Dmaven.repo.local=" + dir + "/m2 -Dmaven.repo.local.tail=" + home + "/.m2/repository",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
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
	if want := "'/opt/my tools/safeexec' __gocache '/c d/go-build' " + home + "/.cache/go-build"; got["GOCACHEPROG"] != want {
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

func startServer(t *testing.T, own, host string) (*goCacheClient, chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- ServeGoCache(own, host, inR, outW)
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

func TestServeGoCache(t *testing.T) {
	own, host := filepath.Join(t.TempDir(), "own"), t.TempDir()
	// A host entry, in Go's layout.
	out := id("host output")
	os.MkdirAll(filepath.Dir(entryPath(host, id("host action"))), 0o755)
	os.MkdirAll(filepath.Dir(outputPath(host, out)), 0o755)
	os.WriteFile(outputPath(host, out), []byte("compiled"), 0o644)
	os.WriteFile(entryPath(host, id("host action")), []byte(fmt.Sprintf("v1 %x %x %20d %20d\n", id("host action"), out, 8, 1)), 0o644)

	c, done := startServer(t, own, host)
	if r := c.do(goCacheRequest{Command: "get", ActionID: id("nothing")}, nil); !r.Miss {
		t.Errorf("get of a missing entry: %+v", r)
	}
	r := c.do(goCacheRequest{Command: "get", ActionID: id("host action")}, nil)
	if r.Miss || r.DiskPath != outputPath(host, out) || r.Size != 8 {
		t.Errorf("get of a host entry: %+v", r)
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
	if n := countFiles(t, host); n != 2 {
		t.Errorf("the host cache changed: %d files", n)
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
	prog, _ := joinQuoted(exe, "-test.run=^TestHelperGoCache$", "--", own, host)
	out := run("GOCACHE="+own, "GOCACHEPROG="+prog, "SAFEEXEC_TEST_GOCACHE=1")
	// With the host's results available nothing is compiled again.
	if strings.Contains(out, "/compile ") {
		t.Errorf("packages were compiled again although the host cache has them:\n%s", out)
	}
	// The test itself ran (-count=1) and its binary went to the project's cache.
	if n := countFiles(t, own); n == 0 {
		t.Error("nothing was written to the project's cache")
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
