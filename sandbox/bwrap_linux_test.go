package sandbox

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bwBackend returns the bwrap backend, skipping the test when bwrap cannot
// run here (failing instead under SAFEEXEC_REQUIRE_SANDBOX=1).
func bwBackend(t testing.TB) Backend {
	t.Helper()
	b, _, err := Detect("bwrap")
	if err != nil {
		if os.Getenv("SAFEEXEC_REQUIRE_SANDBOX") == "1" {
			t.Fatalf("bwrap required: %v", err)
		}
		t.Skipf("bwrap unavailable: %v", err)
	}
	return b
}

// bwPolicy is a compat policy with dir as the working directory and only
// writable root, and home as a fake home with credentials.
func bwPolicy(t testing.TB, dir string) *Policy {
	t.Helper()
	return &Policy{Mode: Compat, Cwd: dir, WritableRoots: []string{dir}}
}

type bwResult struct {
	Status
	stdout, stderr string
}

func bwRun(t testing.TB, p *Policy, argv ...string) bwResult {
	t.Helper()
	return bwRunEnv(t, p, []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + os.Getenv("HOME")}, argv...)
}

func bwRunEnv(t testing.TB, p *Policy, env []string, argv ...string) bwResult {
	t.Helper()
	b := bwBackend(t)
	var out, errb bytes.Buffer
	proc, err := b.Start(p, &Command{Argv: argv, Env: env, Stdout: &out, Stderr: &errb})
	if err != nil {
		t.Fatalf("start %q: %v", argv, err)
	}
	st, err := proc.Wait()
	if err != nil {
		t.Fatalf("wait %q: %v", argv, err)
	}
	return bwResult{st, out.String(), errb.String()}
}

func bwSh(t testing.TB, p *Policy, script string) bwResult {
	t.Helper()
	return bwRun(t, p, "/bin/sh", "-c", script)
}

func TestBwrapSmoke(t *testing.T) {
	dir := t.TempDir()
	r := bwSh(t, bwPolicy(t, dir), "echo hi; id; echo x > f; echo $TMPDIR; exit 3")
	t.Logf("%+v", r)
	if r.ExitCode != 3 || !strings.Contains(r.stdout, "hi") {
		t.Fatalf("got %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "f")); err != nil || string(b) != "x\n" {
		t.Fatalf("write in root: %q %v", b, err)
	}
	_ = errors.New
}
