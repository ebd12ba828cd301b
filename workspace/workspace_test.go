package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFind(t *testing.T) {
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	repo := filepath.Join(home, "src", "repo")
	sub := filepath.Join(repo, "a", "b")
	plain := filepath.Join(home, "plain", "x")
	for _, d := range []string{sub, plain, filepath.Join(repo, ".git"), filepath.Join(home, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	rh, _ := filepath.EvalSymlinks(home)
	rrepo := filepath.Join(rh, "src", "repo")
	cases := []struct{ cwd, want string }{
		{sub, rrepo},
		{repo, rrepo},
		{link, rrepo}, // a symlinked path is the same project
		// A dotfiles repository in the home directory does not make every
		// directory below it one project.
		{plain, filepath.Join(rh, "plain", "x")},
	}
	for _, c := range cases {
		if got := Find(c.cwd, home); got != c.want {
			t.Errorf("Find(%s) = %s, want %s", c.cwd, got, c.want)
		}
	}
}

func TestOpenSeparatesProjects(t *testing.T) {
	base := t.TempDir()
	a, b := Open(base, "/work/app"), Open(base, "/other/app")
	if a.Dir == b.Dir {
		t.Fatalf("two projects share %s", a.Dir)
	}
	if Open(base, "/work/app").Dir != a.Dir {
		t.Fatal("the same project got two directories")
	}
	if !strings.HasPrefix(filepath.Base(a.Dir), "app-") {
		t.Errorf("directory name %s does not start with the project's name", a.Dir)
	}
	if n := filepath.Base(Open(base, "/x/.hidden dir/..").Dir); strings.ContainsAny(n, " /") || strings.HasPrefix(n, ".") {
		t.Errorf("unsafe directory name %q", n)
	}
}

func TestCheckRoot(t *testing.T) {
	cases := []struct {
		goos, dir, home string
		cwd, ok         bool
	}{
		{"linux", "/", "/root", true, false},
		{"linux", "/", "/root", false, false},
		{"linux", "/root", "/root", true, false},
		{"linux", "/home", "/home/u", true, false},
		{"linux", "/home", "/home/u", false, false},
		{"linux", "/home/u", "/home/u", false, false},
		{"linux", "/home/u/src/p", "/home/u", true, true},
		{"linux", "/usr", "/root", true, false},
		{"linux", "/usr/lib/python3", "/root", true, false},
		{"linux", "/etc", "/root", false, false},
		{"linux", "/etc/nginx", "/root", false, false},
		{"linux", "/var/lib/dpkg", "/root", true, false},
		{"linux", "/usr/src/linux", "/root", true, true},
		{"linux", "/usr/src", "/root", true, false},
		{"linux", "/tmp", "/root", true, false},
		{"linux", "/tmp/build", "/root", true, true},
		{"linux", "/opt", "/root", true, false},
		{"linux", "/opt/app", "/root", true, true},
		{"linux", "/srv/site", "/root", true, true},
		{"linux", "/var/www/site", "/root", true, true},
		{"linux", "/var/lib/app", "/root", true, false},
		{"linux", "/work", "/root", true, true},
		{"linux", "/tmp/h/p", "/tmp/h", true, true},
		{"linux", "/tmp", "/tmp/h", true, false}, // contains the home
		{"darwin", "/Users", "/Users/me", true, false},
		{"darwin", "/users/ME", "/Users/me", true, false},
		{"darwin", "/Users/me/code/x", "/Users/me", true, true},
		{"darwin", "/System/Library", "/Users/me", false, false},
		{"windows", `C:\`, `C:\Users\me`, true, false},
		{"windows", `c:\users`, `C:\Users\me`, true, false},
		{"windows", `C:\Users\me`, `C:\Users\me`, true, false},
		{"windows", `C:\Windows\System32`, `C:\Users\me`, false, false},
		{"windows", `C:\Users\me\src\x`, `C:\Users\me`, true, true},
	}
	for _, c := range cases {
		err := checkRoot(c.goos, c.dir, c.home, c.cwd)
		if (err == nil) != c.ok {
			t.Errorf("checkRoot(%s, %q, home %q, cwd %v) = %v, want ok %v", c.goos, c.dir, c.home, c.cwd, err, c.ok)
		}
		var ne *NotProjectError
		if err != nil && !errors.As(err, &ne) {
			t.Errorf("error %v is not a *NotProjectError", err)
		}
	}
}

func TestCheckRootFollowsLinks(t *testing.T) {
	link := filepath.Join(t.TempDir(), "slash")
	if err := os.Symlink("/", link); err != nil {
		t.Fatal(err)
	}
	if err := CheckRoot(link, "/nonexistent-home", true); err == nil {
		t.Fatal("a link to / was accepted as a project")
	}
}

func TestStartSweepClean(t *testing.T) {
	base := t.TempDir()
	root := t.TempDir()
	p := Open(base, root)
	run, err := p.Start()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.TempDir(), "kept"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Read-only directories, as Go's module cache leaves them.
	ro := filepath.Join(p.CacheDir(), "go-mod", "m@v1")
	if err := os.MkdirAll(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ro, "f.go"), []byte("package m"), 0o444)
	os.Chmod(ro, 0o555)

	// A sweep while the run holds the project keeps everything, however old.
	Sweep(base, time.Nanosecond, time.Now().Add(48*time.Hour))
	if _, err := os.Stat(filepath.Join(p.TempDir(), "kept")); err != nil {
		t.Fatalf("sweep removed a running project's temporary file: %v", err)
	}
	if err := p.Clean(); !errors.Is(err, ErrBusy) {
		t.Fatalf("Clean during a run = %v, want ErrBusy", err)
	}
	run.End()

	// The next run finds the file.
	run, err = p.Start()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(p.TempDir(), "kept")); err != nil {
		t.Fatalf("the temporary file did not survive to the next run: %v", err)
	}
	run.End()

	// Idle for less than the ttl: kept. (Sweeps are throttled; clear the stamp.)
	os.Remove(filepath.Join(base, sweepStamp))
	Sweep(base, time.Hour, time.Now().Add(time.Minute))
	if _, err := os.Stat(filepath.Join(p.TempDir(), "kept")); err != nil {
		t.Fatalf("swept before the ttl: %v", err)
	}
	// Idle for longer: the temporary directory goes, the caches stay.
	os.Remove(filepath.Join(base, sweepStamp))
	Sweep(base, time.Hour, time.Now().Add(2*time.Hour))
	if _, err := os.Stat(p.TempDir()); !os.IsNotExist(err) {
		t.Fatalf("temporary directory still there after the ttl: %v", err)
	}
	if _, err := os.Stat(ro); err != nil {
		t.Fatalf("caches removed by the ttl: %v", err)
	}

	if u := p.Size(); u.Cache <= 0 || u.Total < u.Cache {
		t.Errorf("Size = %+v", u)
	}
	if err := p.Clean(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p.Dir); !os.IsNotExist(err) {
		t.Fatalf("Clean left %s: %v", p.Dir, err)
	}
}

func TestSweepRemovesGoneProjects(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(t.TempDir(), "gone")
	os.Mkdir(root, 0o755)
	p := Open(base, root)
	run, err := p.Start()
	if err != nil {
		t.Fatal(err)
	}
	run.End()
	os.Remove(root)
	Sweep(base, time.Hour, time.Now().Add(2*time.Hour))
	if _, err := os.Stat(p.Dir); !os.IsNotExist(err) {
		t.Fatalf("a deleted project's directory stayed: %v", err)
	}
	list, err := List(base)
	if err != nil || len(list) != 0 {
		t.Fatalf("List = %v, %v", list, err)
	}
}
