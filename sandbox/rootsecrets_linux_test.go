//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rootHomeSecret plants a root-only file in root's home directory, for a
// run by root whose $HOME and working directory are elsewhere (sudo
// keeping the user's $HOME).
func rootHomeSecret(t *testing.T) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("only meaningful when safeexec runs as root")
	}
	if fi, err := os.Stat(rootHome); err != nil || !fi.IsDir() {
		t.Skip("no " + rootHome)
	}
	dir, err := os.MkdirTemp(rootHome, ".safeexec-roothome-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	f := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(f, []byte(escSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestRootHomeMaskedBwrap: run by root with $HOME elsewhere, the command
// (an unprivileged uid mapped onto root, the owner of root's files) cannot
// read root's home directory.
func TestRootHomeMaskedBwrap(t *testing.T) {
	bwBackend(t)
	secret := rootHomeSecret(t)
	dir := t.TempDir()
	env := append(append([]string(nil), bwEnv...), "HOME="+dir)
	r := bwRunEnv(t, bwPolicy(t, dir), env, "/bin/sh", "-c", `cat "$1"; cat /proc/self/root"$1"; ls -a "$(dirname "$1")"`, "sh", secret)
	if strings.Contains(r.stdout+r.stderr, escSecret) || strings.Contains(r.stdout, "id_ed25519") {
		t.Errorf("root's home was readable: stdout %q stderr %q", r.stdout, r.stderr)
	}
	// With $HOME in root's home it stays visible (the deny list covers
	// its credentials), so everyday tools installed there keep working.
	if got := rootSecretsFor("/root", dir); len(got) != len(rootSecrets) {
		t.Errorf("with HOME=/root, root's home is masked")
	}
	if got := rootSecretsFor("/home/u", "/root/proj"); len(got) != len(rootSecrets) {
		t.Errorf("with the project in root's home, root's home is masked")
	}
}

// TestRootHomeMaskedLandlock: the same under Landlock, where the command
// is root itself without capabilities.
func TestRootHomeMaskedLandlock(t *testing.T) {
	needLandlock(t)
	secret := rootHomeSecret(t)
	dir := t.TempDir()
	var out, errb bytes.Buffer
	proc, err := Landlock().Start(llPolicy(t, dir), &Command{
		Argv:   []string{"/bin/sh", "-c", `cat "$1"; cat /proc/self/root"$1"; cp "$1" ./copy; cat ./copy`, "sh", secret},
		Env:    []string{"PATH=/usr/bin:/bin", "HOME=" + dir},
		Stdout: &out, Stderr: &errb,
	})
	if err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	if strings.Contains(out.String()+errb.String(), escSecret) {
		t.Errorf("root's home was readable: stdout %q stderr %q", out.String(), errb.String())
	}
}

// TestRootSecretsLandlock: the root-only files Landlock hides as root are
// the same list bwrap masks.
func TestRootSecretsLandlock(t *testing.T) {
	req := &llRequest{Mode: Compat, Roots: []string{t.TempDir()}, Home: "/home/u"}
	p, err := planLandlock(req, 7, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(rootSecrets, rootHome) {
		if _, err := os.Stat(s); err == nil && covered(p, s)&llReadFile != 0 {
			t.Errorf("as root, %s is readable", s)
		}
	}
}
