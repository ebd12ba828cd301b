package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// seedAnswer is what the seed's desktop agent reads back from its sandbox
// helper.
type seedAnswer struct {
	ExitCode int    `json:"exit_code"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	TimedOut bool   `json:"timed_out"`
	// safeexec's additions, which a seed client may ignore.
	Error    string `json:"error"`
	Decision string `json:"decision"`
	Tier     string `json:"tier"`
}

// seedClient plays the seed's desktop agent: it runs `<helper> run --mode
// M --cwd DIR --policy-json JSON -- CMD…` and insists on the four fields of
// the answer, so a crashed helper is never read as exit code 0.
type seedClient struct {
	t      *testing.T
	helper []string
	env    []string
}

func (s *seedClient) run(mode, cwd, policy string, argv ...string) (seedAnswer, int) {
	s.t.Helper()
	args := append(append([]string{}, s.helper[1:]...), "run", "--mode", mode, "--cwd", cwd, "--policy-json", policy, "--")
	cmd := exec.Command(s.helper[0], append(args, argv...)...)
	cmd.Env = s.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatalf("start the helper: %v", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(stdout.Bytes(), &raw); err != nil {
		s.t.Fatalf("helper answer is not one JSON object: %v\nstdout: %s\nstderr: %s", err, stdout.Bytes(), stderr.Bytes())
	}
	for _, k := range []string{"exit_code", "stdout", "stderr", "timed_out"} {
		if _, ok := raw[k]; !ok {
			s.t.Fatalf("helper answer has no %q: %s", k, stdout.Bytes())
		}
	}
	var a seedAnswer
	if err := json.Unmarshal(stdout.Bytes(), &a); err != nil {
		s.t.Fatal(err)
	}
	if a.ExitCode != code {
		s.t.Errorf("exit_code %d but the helper exited %d", a.ExitCode, code)
	}
	return a, code
}

func policyJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHelperProtocolAsSeedClient(t *testing.T) {
	needBwrap(t)
	env, work := hermetic(t)
	other := filepath.Join(filepath.Dir(work), "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	// An opaque program the classifier judges like any program: only the
	// sandbox stands between it and the host.
	writer := filepath.Join(work, "write.py")
	os.WriteFile(writer, []byte("import sys\nopen(sys.argv[1], 'w').write('x')\nprint('wrote')\n"), 0o644)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is needed as an opaque program (CI installs it)")
	}
	seed := &seedClient{t: t, helper: []string{binary(t), "helper"}, env: env}
	workspace := func(roots ...string) string {
		return policyJSON(t, map[string]any{
			"type": "workspace-write", "writable_roots": roots, "network_access": false,
			"exclude_tmpdir_env_var": false, "exclude_slash_tmp": false,
		})
	}

	t.Run("writes inside the roots only", func(t *testing.T) {
		seed.t = t
		a, _ := seed.run("compat", work, workspace(work), "python3", "write.py", filepath.Join(work, "inside"))
		if a.ExitCode != 0 || a.Stdout != "wrote\n" || a.TimedOut {
			t.Fatalf("%+v", a)
		}
		if _, err := os.Stat(filepath.Join(work, "inside")); err != nil {
			t.Fatal("the write inside the root did not reach the host")
		}
		a, _ = seed.run("compat", work, workspace(work), "python3", "write.py", filepath.Join(other, "outside"))
		if a.ExitCode == 0 {
			t.Fatalf("a write outside the roots succeeded: %+v", a)
		}
		if _, err := os.Stat(filepath.Join(other, "outside")); err == nil {
			t.Fatal("a write outside the roots reached the host")
		}
	})

	t.Run("read-only means no writable root", func(t *testing.T) {
		seed.t = t
		os.WriteFile(filepath.Join(work, "readme"), []byte("hello\n"), 0o644)
		for _, c := range []struct{ mode, policy string }{
			{"read-only", workspace(work)},
			{"compat", `{"sandbox_mode":"read-only"}`},
			{"strict", `read-only`},
		} {
			a, _ := seed.run(c.mode, work, c.policy, "python3", "write.py", filepath.Join(work, "ro-"+c.mode))
			if a.ExitCode == 0 || !strings.Contains(a.Stderr, "Read-only file system") {
				t.Errorf("%s %s: %+v", c.mode, c.policy, a)
			}
			if _, err := os.Stat(filepath.Join(work, "ro-"+c.mode)); err == nil {
				t.Errorf("%s %s: the write reached the host", c.mode, c.policy)
			}
			a, _ = seed.run(c.mode, work, c.policy, "cat", "readme")
			if a.ExitCode != 0 || a.Stdout != "hello\n" {
				t.Errorf("%s %s: reading the working directory: %+v", c.mode, c.policy, a)
			}
		}
	})

	t.Run("a cwd outside the roots runs in the first root", func(t *testing.T) {
		seed.t = t
		a, _ := seed.run("compat", other, workspace(work, other), "pwd")
		if a.Stdout != other+"\n" {
			t.Errorf("cwd inside the second root: %+v", a)
		}
		a, _ = seed.run("compat", filepath.Dir(work), workspace(work, other), "pwd")
		if a.ExitCode != 0 || a.Stdout != work+"\n" {
			t.Errorf("cwd outside the roots: %+v", a)
		}
	})

	t.Run("unknown fields are ignored", func(t *testing.T) {
		seed.t = t
		a, _ := seed.run("compat", work, `{"writable_roots":["`+work+`"],"future_field":{"x":[1,2]},"network_access":false}`, "echo", "ok")
		if a.ExitCode != 0 || a.Stdout != "ok\n" {
			t.Errorf("%+v", a)
		}
	})

	t.Run("malformed JSON is an error and nothing runs", func(t *testing.T) {
		seed.t = t
		for _, p := range []string{`{"writable_roots":`, `{"writable_roots":"/x"}`, `[]`, ``, `{"network_access":"maybe"}`, `{} {}`, `{"type":"danger-full-access"}`} {
			a, code := seed.run("compat", work, p, "touch", "ran")
			if code != 125 || a.ExitCode != 125 || a.Error == "" {
				t.Errorf("policy %q: exit %d, %+v", p, code, a)
			}
			if _, err := os.Stat(filepath.Join(work, "ran")); err == nil {
				t.Fatalf("policy %q: the command ran", p)
			}
		}
		a, code := seed.run("bogus", work, workspace(work), "touch", "ran")
		if code != 125 || !strings.Contains(a.Error, "--mode") {
			t.Errorf("bad mode: %+v", a)
		}
	})

	t.Run("network only when the policy asks", func(t *testing.T) {
		seed.t = t
		a, _ := seed.run("compat", work, workspace(work), "sh", "-c", "echo ${HTTPS_PROXY:-none}")
		if a.Stdout != "none\n" {
			t.Errorf("network_access false: %+v", a)
		}
		a, _ = seed.run("compat", work, `{"writable_roots":["`+work+`"],"network_access":true}`, "sh", "-c", "echo ${HTTPS_PROXY:-none}")
		if a.ExitCode != 0 || !strings.HasPrefix(a.Stdout, "http://127.0.0.1:") {
			t.Errorf("network_access true: %+v", a)
		}
	})

	t.Run("timeout", func(t *testing.T) {
		seed.t = t
		a, _ := seed.run("compat", work, `{"writable_roots":["`+work+`"],"timeout_ms":300}`, "sleep", "30")
		if !a.TimedOut || a.ExitCode != 124 {
			t.Errorf("%+v", a)
		}
	})

	t.Run("still classified and audited", func(t *testing.T) {
		seed.t = t
		a, _ := seed.run("compat", work, workspace(work), "sudo", "touch", "ran")
		if a.ExitCode != 126 || a.Decision != "blocked" || a.Tier != "risky" {
			t.Errorf("%+v", a)
		}
		log, err := os.ReadFile(filepath.Join(filepath.Dir(work), "state", "safeexec", "audit.log"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(log, []byte(`"argv":["sudo","touch","ran"]`)) || !bytes.Contains(log, []byte(`"argv":["python3","write.py"`)) {
			t.Errorf("helper runs missing from the audit log:\n%s", log)
		}
	})
}

func TestSeedPolicyParsing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("expects Unix paths")
	}
	cwd := "/w"
	tests := []struct {
		json    string
		want    seedPolicy
		wantErr string
	}{
		{`{}`, seedPolicy{roots: []string{"/w"}}, ""},
		{`workspace-write`, seedPolicy{roots: []string{"/w"}}, ""},
		{`read-only`, seedPolicy{readOnly: true}, ""},
		{`{"type":"read-only","writable_roots":["/a"]}`, seedPolicy{readOnly: true, excludeTmpdir: true, excludeSlashTmp: true}, ""},
		{`{"sandbox_mode":"readOnly"}`, seedPolicy{readOnly: true, excludeTmpdir: true, excludeSlashTmp: true}, ""},
		{`{"type":"workspace-write","writable_roots":["/a","b",{"root":"/c","read_only_subpaths":["/c/.git","x"]}],"network_access":true,"exclude_tmpdir_env_var":true}`,
			seedPolicy{roots: []string{"/a", "/w/b", "/c"}, protect: []string{"/c/.git", "/c/x"}, network: true, excludeTmpdir: true}, ""},
		{`{"network_access":"enabled"}`, seedPolicy{roots: []string{"/w"}, network: true}, ""},
		{`{"network_access":"restricted"}`, seedPolicy{roots: []string{"/w"}}, ""},
		{`{"network":{"enabled":true}}`, seedPolicy{roots: []string{"/w"}, network: true}, ""},
		{`{"mode":"strict","sandbox_mode":"permissive"}`, seedPolicy{roots: []string{"/w"}, mode: "strict"}, ""},
		{`{"deny_read":["/s"],"timeout_ms":5}`, seedPolicy{roots: []string{"/w"}, mask: []string{"/s"}, timeoutMS: 5}, ""},
		{`{"type":"danger-full-access"}`, seedPolicy{}, "asks for no sandbox"},
		{`{"type":"external-sandbox","network_access":"enabled"}`, seedPolicy{}, "asks for no sandbox"},
		{`{"type":"everything"}`, seedPolicy{}, "is not one of"},
		{`{"writable_roots":[1]}`, seedPolicy{}, "writable_roots[0]"},
		{`{"writable_roots":[""]}`, seedPolicy{}, "empty path"},
		{`{"network_access":3}`, seedPolicy{}, "network_access"},
		{`{"timeout_ms":-1}`, seedPolicy{}, "negative"},
		{`null`, seedPolicy{}, "not a JSON object"},
		{`{"a":1} x`, seedPolicy{}, "after the object"},
	}
	for _, tt := range tests {
		got, err := parseSeedPolicy(tt.json, cwd)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want %q", tt.json, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.json, err)
			continue
		}
		if !equalPolicy(*got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.json, *got, tt.want)
		}
	}
}

func equalPolicy(a, b seedPolicy) bool {
	eq := func(x, y []string) bool { return strings.Join(x, "\x00") == strings.Join(y, "\x00") }
	return a.readOnly == b.readOnly && a.mode == b.mode && eq(a.roots, b.roots) && eq(a.protect, b.protect) &&
		eq(a.mask, b.mask) && a.network == b.network && a.excludeTmpdir == b.excludeTmpdir &&
		a.excludeSlashTmp == b.excludeSlashTmp && a.timeoutMS == b.timeoutMS
}
