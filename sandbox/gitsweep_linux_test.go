package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// sweepModes runs f with the fanotify watch (when this process may use
// it) and with the listing sweep.
func sweepModes(t *testing.T, f func(t *testing.T)) {
	t.Run("fanotify", func(t *testing.T) {
		fw, err := newFanWatch([]string{t.TempDir()})
		if err != nil {
			t.Skipf("no fanotify watch here: %v", err)
		}
		fw.stop()
		fw.close()
		f(t)
	})
	t.Run("listing", func(t *testing.T) {
		fanDisabled = true
		t.Cleanup(func() { fanDisabled = false })
		f(t)
	})
}

// sweepFixture is a root with an old nested repository; the run is what
// the test does between start and finish.
type sweepFixture struct {
	t    *testing.T
	root string
	s    *gitSweep
	out  bytes.Buffer
}

func newSweepFixture(t *testing.T, before func(root string)) *sweepFixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if before != nil {
		before(root)
	}
	time.Sleep(30 * time.Millisecond)
	p := &Policy{Mode: Compat, Cwd: root, WritableRoots: []string{root}}
	f := &sweepFixture{t: t, root: root}
	f.s = newGitSweep(p, findGitControl(sweptRoots(p)), coarseNow())
	return f
}

func (f *sweepFixture) finish() (taken, unchecked []string) {
	return f.s.finish(&quarantine{}, &f.out)
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	c := exec.Command("git", args...)
	c.Dir = dir
	c.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func writeX(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o755); err != nil {
		t.Fatal(err)
	}
}

func takenHas(taken []string, root, rel string) bool {
	return slices.Contains(taken, filepath.Join(root, rel))
}

// TestGitSweepJudges: what the run made runnable is taken, what was the
// user's stays, a directory made a repository is judged whole.
func TestGitSweepJudges(t *testing.T) {
	sweepModes(t, func(t *testing.T) {
		f := newSweepFixture(t, func(root string) {
			gitIn(t, root, "init", "-q", "vendor/x")
			writeX(t, filepath.Join(root, "vendor/x/.git/hooks/pre-push"), "#!/bin/sh\n")
			gitIn(t, root, "init", "-q", "vendor/z")
			// Staged by an earlier run: not yet a git directory.
			writeX(t, filepath.Join(root, "stash/hooks/pre-commit"), "#!/bin/sh\ntouch /tmp/x\n")
			os.WriteFile(filepath.Join(root, "stash/config"), []byte("[core] fsmonitor = touch /tmp/x\n"), 0o644)
			os.WriteFile(filepath.Join(root, "stash/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
			// A config of the user's naming a program, left alone.
			gitIn(t, root, "init", "-q", "vendor/y")
			os.WriteFile(filepath.Join(root, "vendor/y/.git/config"), []byte("[core]\n\tpager = less\n"), 0o644)
		})
		root := f.root
		// A hook added where the user has one: listing, the sweep cannot
		// tell the hooks directory from one moved in (its change time
		// moved either way), so it judges all of it; so plant it in a
		// repository without the user's own.
		writeX(t, filepath.Join(root, "vendor/z/.git/hooks/post-checkout"), "#!/bin/sh\n")
		writeX(t, filepath.Join(root, "vendor/x/.git/notes"), "work\n")
		gitIn(t, root, "init", "-q", "fresh")
		writeX(t, filepath.Join(root, "fresh/.git/hooks/pre-commit"), "#!/bin/sh\n")
		os.Mkdir(filepath.Join(root, "stash/objects"), 0o755)
		os.Mkdir(filepath.Join(root, "stash/refs"), 0o755)
		writeX(t, filepath.Join(root, "vendor/y/notes.txt"), "work\n")
		taken, unchecked := f.finish()
		for _, rel := range []string{"vendor/z/.git/hooks/post-checkout", "fresh/.git/hooks/pre-commit", "stash/hooks/pre-commit", "stash/config"} {
			if !takenHas(taken, root, rel) {
				t.Errorf("%s not taken: %v\n%s", rel, taken, f.out.String())
			}
		}
		for _, rel := range []string{"vendor/x/.git/hooks/pre-push", "vendor/y/.git/config", "fresh/.git/hooks/pre-commit.sample", "fresh/.git/config"} {
			if takenHas(taken, root, rel) {
				t.Errorf("%s taken: %s", rel, f.out.String())
			}
			if _, err := os.Stat(filepath.Join(root, rel)); err != nil {
				t.Errorf("%s: %v", rel, err)
			}
		}
		if len(unchecked) > 0 {
			t.Errorf("unchecked: %v", unchecked)
		}
	})
}

// TestGitSweepConfigSyntax: a key on the section's line, a continued
// value, an include: git's syntax, read by the host's git.
func TestGitSweepConfigSyntax(t *testing.T) {
	sweepModes(t, func(t *testing.T) {
		f := newSweepFixture(t, func(root string) {
			gitIn(t, root, "init", "-q", "a")
			gitIn(t, root, "init", "-q", "b")
			gitIn(t, root, "init", "-q", "c")
			gitIn(t, root, "init", "-q", "d")
			os.WriteFile(filepath.Join(root, "d/.git/config"), []byte("[include]\n\tpath = ../../shared.cfg\n"), 0o644)
			os.WriteFile(filepath.Join(root, "shared.cfg"), []byte("[user]\n\tname = x\n"), 0o644)
		})
		root := f.root
		os.WriteFile(filepath.Join(root, "a/.git/config"), []byte("[core] fsmonitor = evil\n"), 0o644)
		os.WriteFile(filepath.Join(root, "b/.git/config"), []byte("[core]\n\tbare = false\n[ali\"\"]\n[alias]\n\tx = !ev\\\nil\n"), 0o644)
		os.WriteFile(filepath.Join(root, "c/.git/config"), []byte("[core]\n\tbare = false\n\tlogallrefupdates = true\n"), 0o644)
		os.WriteFile(filepath.Join(root, "shared.cfg"), []byte("[core]\n\tsshCommand = evil\n"), 0o644)
		os.WriteFile(filepath.Join(root, "d/.git/index.lock"), nil, 0o644) // something happened in d
		taken, _ := f.finish()
		for _, rel := range []string{"a/.git/config", "b/.git/config", "shared.cfg"} {
			if !takenHas(taken, root, rel) {
				t.Errorf("%s not taken: %v\n%s", rel, taken, f.out.String())
			}
		}
		if takenHas(taken, root, "c/.git/config") || takenHas(taken, root, "d/.git/config") {
			t.Errorf("a config naming nothing was taken: %s", f.out.String())
		}
		if !strings.Contains(f.out.String(), "setting core.fsmonitor") {
			t.Errorf("stderr does not name the key: %s", f.out.String())
		}
	})
}

// TestGitSweepTemplateHooks: a repository made during the run keeps the
// hooks git init copied from the user's template directory.
func TestGitSweepTemplateHooks(t *testing.T) {
	sweepModes(t, func(t *testing.T) {
		tmpl := t.TempDir()
		writeX(t, filepath.Join(tmpl, "hooks/pre-commit"), "#!/bin/sh\necho template\n")
		t.Setenv("GIT_TEMPLATE_DIR", tmpl)
		f := newSweepFixture(t, nil)
		c := exec.Command("git", "init", "-q", "--template="+tmpl, "r")
		c.Dir = f.root
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
		writeX(t, filepath.Join(f.root, "r/.git/hooks/post-checkout"), "#!/bin/sh\n")
		taken, _ := f.finish()
		if takenHas(taken, f.root, "r/.git/hooks/pre-commit") || !takenHas(taken, f.root, "r/.git/hooks/post-checkout") {
			t.Errorf("taken %v\n%s", taken, f.out.String())
		}
	})
}

// TestGitSweepListingStops: the listing sweep says where it stopped, on
// stderr and in what it returns.
func TestGitSweepListingStops(t *testing.T) {
	fanDisabled = true
	defer func() { fanDisabled = false }()
	old := gitSweepBudget
	gitSweepBudget = 20
	defer func() { gitSweepBudget = old }()
	f := newSweepFixture(t, func(root string) {
		for i := range 50 {
			os.WriteFile(filepath.Join(root, "f"+strings.Repeat("x", i)), nil, 0o644)
		}
	})
	_, unchecked := f.finish()
	if len(unchecked) == 0 || !strings.Contains(f.out.String(), "stopped after 20 entries") {
		t.Errorf("unchecked %v, stderr %q", unchecked, f.out.String())
	}
}

// TestGitSweepWatchGivesUp: when the watch cannot account for what
// happened, the roots are listed instead.
func TestGitSweepWatchGivesUp(t *testing.T) {
	old := fanMaxDirs
	fanMaxDirs = 2
	defer func() { fanMaxDirs = old }()
	f := newSweepFixture(t, nil)
	if f.s.fan == nil {
		t.Skip("no fanotify watch here: " + f.s.fanWhy)
	}
	for _, d := range []string{"a", "b", "c", "d"} {
		os.MkdirAll(filepath.Join(f.root, d), 0o755)
		os.WriteFile(filepath.Join(f.root, d, "f"), nil, 0o644)
	}
	gitIn(t, f.root, "init", "-q", "a/r")
	writeX(t, filepath.Join(f.root, "a/r/.git/hooks/pre-commit"), "#!/bin/sh\n")
	taken, _ := f.finish()
	if f.s.fan != nil || !takenHas(taken, f.root, "a/r/.git/hooks/pre-commit") {
		t.Errorf("fan %v (%s) taken %v", f.s.fan, f.s.fanWhy, taken)
	}
}

// TestLandlockNothingMovesInFromCache: a directory made in the tool cache
// or the private temporary directory cannot be renamed into a root (it
// would bring content the git sweep never saw made, with old change
// times); a copy is made instead, as across file systems. Within a root
// renames work.
func TestLandlockNothingMovesInFromCache(t *testing.T) {
	needLandlock(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	root, cache := t.TempDir(), t.TempDir()
	p := llPolicy(t, root)
	p.CacheDir = cache
	r := runLandlock(t, p, "python3", "-c", `
import os, sys
def tryit(name, f):
    try:
        f(); print(name, "ok")
    except OSError as e:
        print(name, e.errno)
c = sys.argv[1]; t = os.environ["TMPDIR"]
for d in (c, t):
    os.makedirs(d + "/d", exist_ok=True)
    open(d + "/d/f", "w").close()
tryit("rename-cache", lambda: os.rename(c + "/d", "fromcache"))
tryit("link-cache", lambda: os.link(c + "/d/f", "linkcache"))
tryit("rename-tmp", lambda: os.rename(t + "/d", "fromtmp"))
os.mkdir("a"); tryit("rename-root", lambda: os.rename("a", "b"))
`, cache)
	// A file may be linked or renamed in: that gives it a new change
	// time, so the sweep judges it as made during the run.
	for _, want := range []string{"rename-cache 18", "rename-tmp 18", "rename-root ok"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("want %q in %q (stderr %q)", want, r.stdout, r.stderr)
		}
	}
}
