package prelaunch

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestEncoding(t *testing.T) {
	opts := []string{"--die-with-parent", "--ro-bind", "/", "/", "--chdir", "/p"}
	head := []string{"/bin/bash", "-c"}
	env := []string{"=HOME", "TMPDIR=/tmp", "SAFEEXEC_NESTED=" + Nested + "/outer.sock"}
	b := Encode("/usr/bin/bwrap", opts, head, env)
	path, o, h, e, err := Decode(b)
	if err != nil || path != "/usr/bin/bwrap" || !slices.Equal(o, opts) || !slices.Equal(h, head) || !slices.Equal(e, env) {
		t.Fatalf("round trip: %q %q %q %q %v", path, o, h, e, err)
	}
	if !strings.HasPrefix(string(b), magic) {
		t.Error("magic")
	}
	for i := range b {
		c := bytes.Clone(b)
		c[i] ^= 0x20
		if _, _, _, _, err := Decode(c); err == nil {
			t.Fatalf("a change at byte %d went unnoticed", i)
		}
	}
	for _, cut := range []int{1, len(b) / 2, len(b) - 1} {
		if _, _, _, _, err := Decode(b[:cut]); err == nil {
			t.Fatalf("a memory cut to %d bytes was read", cut)
		}
	}
	// Version 1 (SHA-256) is not read as version 2.
	if _, _, _, _, err := Decode(append([]byte("safeexec-ahead-1\n"), b[len(magic):]...)); err == nil {
		t.Fatal("an older memory was read")
	}
}

func TestFileName(t *testing.T) {
	base := FileName("/s", 1000, "/p", false, []string{"--no-network"})
	if !strings.HasPrefix(base, "/s/ahead/") || len(base) != len("/s/ahead/")+32 {
		t.Fatalf("name %q", base)
	}
	if FileName("/s", 1000, "/p", false, []string{"--no-network"}) != base {
		t.Fatal("not stable")
	}
	for name, other := range map[string]string{
		"user":   FileName("/s", 0, "/p", false, []string{"--no-network"}),
		"cwd":    FileName("/s", 1000, "/q", false, []string{"--no-network"}),
		"script": FileName("/s", 1000, "/p", true, []string{"--no-network"}),
		"flags":  FileName("/s", 1000, "/p", false, nil),
		"split":  FileName("/s", 1000, "/p", false, []string{"--no-net", "work"}),
	} {
		if other == base {
			t.Errorf("another %s, the same file", name)
		}
	}
}

func TestResolve(t *testing.T) {
	opts := []string{"--die-with-parent", "--ro-bind", "/", "/", "--bind", Nested, Nested}
	env := []string{"=HOME", "=TERM", "SAFEEXEC_NESTED=" + Nested + "/outer.sock"}
	b := Encode("/usr/bin/bwrap", opts, []string{"/bin/sh", "-c"}, env)
	environ := []string{"HOME=/first", "TERM=xterm", "HOME=/last"}
	dir := t.TempDir()
	mkdir := func() (string, error) { return os.MkdirTemp(dir, "n-") }

	l, nested, err := Resolve(b, environ, []string{"echo hi"}, false, mkdir)
	if err != nil {
		t.Fatal(err)
	}
	if nested == "" || filepath.Dir(nested) != dir {
		t.Fatalf("nested %q", nested)
	}
	want := slices.Concat([]string{"--die-with-parent", "--ro-bind", "/", "/", "--bind", nested, nested}, suffix, []string{"/bin/sh", "-c", "echo hi"})
	if !slices.Equal(l.Args, want) {
		t.Errorf("args %q", l.Args)
	}
	if !slices.Equal(l.Env, []string{"HOME=/last", "TERM=xterm", "SAFEEXEC_NESTED=" + nested + "/outer.sock"}) {
		t.Errorf("env %q", l.Env)
	}

	// A warm sandbox's launch has no head.
	l, _, err = Resolve(b, environ, []string{"prog"}, true, mkdir)
	if err != nil || !slices.Equal(l.Args[len(l.Args)-2:], []string{"--", "prog"}) {
		t.Errorf("warm: %q %v", l.Args, err)
	}
	// A variable remembered by name and gone now: nothing.
	if _, _, err := Resolve(b, []string{"HOME=/h"}, []string{"x"}, false, mkdir); err == nil {
		t.Error("a launch without one of its variables")
	}
	// A value shaped like a credential is not put in the early sandbox.
	cred := []string{"HOME=/h", "TERM=ghp_" + strings.Repeat("a1B2", 9)}
	if _, _, err := Resolve(b, cred, []string{"x"}, false, mkdir); err == nil {
		t.Error("a credential-shaped value went into a sandbox started ahead")
	}
	// Options a launch started ahead may not have: nothing.
	bad := Encode("/usr/bin/bwrap", []string{"--die-with-parent", "--seccomp", "9"}, nil, nil)
	if _, _, err := Resolve(bad, environ, []string{"x"}, false, mkdir); err == nil {
		t.Error("a launch with its own descriptor")
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	if err := os.WriteFile(good, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(good); err != nil || string(b) != "data" {
		t.Fatalf("read %q %v", b, err)
	}
	shared := filepath.Join(dir, "shared")
	os.WriteFile(shared, []byte("data"), 0o600)
	os.Chmod(shared, 0o620)
	link := filepath.Join(dir, "link")
	os.Symlink(good, link)
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, MaxFile+1), 0o600)
	for _, name := range []string{shared, link, big, dir, filepath.Join(dir, "none")} {
		if _, err := Read(name); err == nil {
			t.Errorf("%s was read", filepath.Base(name))
		}
	}
}

func TestRunDir(t *testing.T) {
	own := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", own)
	d, err := MakeRunDir("x-")
	if err != nil || filepath.Dir(d) != own {
		t.Fatalf("with XDG_RUNTIME_DIR: %q %v", d, err)
	}
	if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode: %v %v", fi, err)
	}
	os.Remove(d)
	t.Setenv("XDG_RUNTIME_DIR", "")
	want := os.TempDir()
	if isTmpfs(shm) {
		want = shm
	}
	if got := RuntimeDir(); got != want {
		t.Fatalf("without XDG_RUNTIME_DIR: %q, want %q", got, want)
	}
	d, err = MakeNested()
	if err != nil || filepath.Dir(d) != want || !strings.HasPrefix(filepath.Base(d), "safeexec-nested-") {
		t.Fatalf("nested: %q %v", d, err)
	}
	// A tmpfs directory not open to all (a private one) is not taken
	// for /dev/shm.
	if want == shm {
		if isTmpfs(d) {
			t.Error("a 0700 directory taken for a shared tmpfs")
		}
	}
	os.Remove(d)
}

// The directories of runs that are gone are swept; a live run's, another
// kind's, a link and names without a process id are left.
func TestSweepRunDirs(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	t.Setenv("TMPDIR", t.TempDir())
	mine, err := MakeNested()
	if err != nil {
		t.Fatal(err)
	}
	if pid, ok := runDirPID(filepath.Base(mine)); !ok || pid != os.Getpid() {
		t.Fatalf("name %q: pid %d %v", mine, pid, ok)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone := strconv.Itoa(dead.Process.Pid)
	keep := []string{mine, filepath.Join(dir, "safeexec-nested-123456789"), filepath.Join(dir, "other-"+gone+"-1")}
	swept := []string{filepath.Join(dir, nestedPrefix+gone+"-1"), filepath.Join(dir, NetPrefix+gone+"-2")}
	for _, d := range append(slices.Clone(keep[1:]), swept...) {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "outer.sock"), nil, 0o600)
	}
	target := t.TempDir()
	link := filepath.Join(dir, nestedPrefix+gone+"-3")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	keep = append(keep, link, target)

	SweepRunDirs()
	for _, d := range keep {
		if _, err := os.Lstat(d); err != nil {
			t.Errorf("%s was removed", filepath.Base(d))
		}
	}
	for _, d := range swept {
		if _, err := os.Lstat(d); err == nil {
			t.Errorf("%s was left", filepath.Base(d))
		}
	}
}
