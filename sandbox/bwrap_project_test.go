package sandbox

import (
	"path"
	"slices"
	"strings"
	"testing"
)

// argIndex returns where the sequence seq starts in args, or -1.
func argIndex(args []string, seq ...string) int {
	for i := 0; i+len(seq) <= len(args); i++ {
		if slices.Equal(args[i:i+len(seq)], seq) {
			return i
		}
	}
	return -1
}

// TestBwrapArgsProject: the project's temporary directory is /tmp, other
// projects' directories are hidden before this project's cache is shown,
// and the safeexec binary (GOCACHEPROG, the bridge) is bound.
func TestBwrapArgsProject(t *testing.T) {
	h := goldenHost(1000)
	fs := h.FS.(*fakeFS)
	for _, d := range []string{"/home/u/.cache/safeexec/projects/proj-1/tmp", "/home/u/.cache/safeexec/projects/proj-1/cache", "/home/u/.cache/safeexec/projects/other-2/tmp"} {
		for p := d; p != "/"; p = path.Dir(p) {
			fs.dirs[p] = true
		}
	}
	fs.files["/usr/local/bin/safeexec"] = true
	fs.dirs["/usr/local/bin"] = true
	p := goldenPolicy(Compat)
	p.CacheDir = "/home/u/.cache/safeexec/projects/proj-1/cache"
	p.TempDir = "/home/u/.cache/safeexec/projects/proj-1/tmp"
	p.Private = "/home/u/.cache/safeexec"
	p.SafeexecPath = "/usr/local/bin/safeexec"
	plan, err := bwrapArgs(p, h, bwrapFDs{}, []string{"true"}, []string{"HOME=/home/u", "TMPDIR=/somewhere"})
	if err != nil {
		t.Fatal(err)
	}
	a := plan.Args
	tmp := argIndex(a, "--bind", p.TempDir, "/tmp")
	if tmp < 0 || argIndex(a, "--tmpfs", "/tmp") >= 0 {
		t.Fatalf("the project's temporary directory is not /tmp: %q", a)
	}
	hide := argIndex(a, "--tmpfs", p.Private)
	cache := argIndex(a, "--bind", p.CacheDir, p.CacheDir)
	if hide < 0 || cache < hide {
		t.Errorf("other projects not hidden before the cache is bound (hide %d, cache %d): %q", hide, cache, a)
	}
	if root := argIndex(a, "--bind", "/home/u/proj", "/home/u/proj"); root < tmp {
		t.Errorf("the project is bound before /tmp: %q", a)
	}
	if argIndex(a, "--ro-bind", "/usr/local/bin/safeexec", "/usr/local/bin/safeexec") < 0 {
		t.Errorf("safeexec itself not bound: %q", a)
	}
	if !slices.Contains(plan.Env, "TMPDIR=/tmp") || slices.Contains(plan.Env, "TMPDIR=/somewhere") {
		t.Errorf("TMPDIR: %q", plan.Env)
	}
	if !slices.Contains(plan.Protected, "/home/u/proj/.git/config") || !slices.Contains(plan.Protected, "/home/u/proj/.env") {
		t.Errorf("protected files to watch: %q", plan.Protected)
	}
	for _, f := range plan.Protected {
		if !strings.HasPrefix(f, "/home/u/proj/") {
			t.Errorf("watching %s, outside the writable roots", f)
		}
	}
}

// TestBwrapArgsHomeUnderTmp: a home directory and $PATH directories under
// the host's /tmp are shown read-only after the project's /tmp is mounted;
// the host's /tmp itself is not.
func TestBwrapArgsHomeUnderTmp(t *testing.T) {
	h := goldenHost(0)
	fs := h.FS.(*fakeFS)
	for _, d := range []string{"/tmp/ci/home/.cargo/bin", "/tmp/ci/go/bin", "/tmp/ci/proj", "/tmp/ci/proj/bin", "/var/tmp/tools/bin", "/tmp/pt"} {
		for p := d; p != "/"; p = path.Dir(p) {
			fs.dirs[p] = true
		}
	}
	p := goldenPolicy(Compat)
	p.Cwd = "/tmp/ci/proj"
	p.WritableRoots = []string{"/tmp/ci/proj", "/tmp"}
	p.TempDir = "/tmp/pt"
	env := []string{"HOME=/tmp/ci/home", "PATH=/tmp/ci/home/.cargo/bin:/tmp/ci/go/bin:/tmp/ci/proj/bin:/var/tmp/tools/bin:/usr/bin:/tmp"}
	plan, err := bwrapArgs(p, h, bwrapFDs{}, []string{"true"}, env)
	if err != nil {
		t.Fatal(err)
	}
	a := plan.Args
	tmp := argIndex(a, "--bind", "/tmp/pt", "/tmp")
	for _, d := range []string{"/tmp/ci/home", "/tmp/ci/go", "/var/tmp/tools"} {
		if i := argIndex(a, "--ro-bind", d, d); i < tmp {
			t.Errorf("%s not shown read-only after /tmp (%d, %d): %q", d, i, tmp, a)
		}
	}
	for _, d := range []string{"/tmp", "/tmp/ci/proj"} {
		if argIndex(a, "--ro-bind", d, d) >= 0 {
			t.Errorf("%s bound read-only: %q", d, a)
		}
	}
	if argIndex(a, "--bind", "/tmp/ci/proj", "/tmp/ci/proj") < tmp {
		t.Errorf("the project is not bound after /tmp: %q", a)
	}
}
