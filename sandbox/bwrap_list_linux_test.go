package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// lstatOnly hides osHostFS's ListDir: every name is looked up by itself.
type lstatOnly struct{ fs osHostFS }

func (l lstatOnly) Lstat(p string) (fs.FileMode, error) { return l.fs.Lstat(p) }
func (l lstatOnly) Readlink(p string) (string, error)   { return l.fs.Readlink(p) }

// countingFS counts the host lookups.
type countingFS struct {
	osHostFS
	lstats, lists int
}

func (c *countingFS) Lstat(p string) (fs.FileMode, error) {
	c.lstats++
	return c.osHostFS.Lstat(p)
}

func (c *countingFS) ListDir(d string) (map[string]fs.FileMode, error) {
	c.lists++
	return c.osHostFS.ListDir(d)
}

// TestBwrapArgsListingSameAsLstat: answering lookups from directory
// listings gives exactly the command line that one lstat per name gives,
// with directories, files, links to directories and files, dangling links,
// link loops and unreadable directories among the names.
func TestBwrapArgsListingSameAsLstat(t *testing.T) {
	p := benchPolicyT(t)
	home := filepath.Dir(p.DenyRead[0])
	mk := func(rel string, dir bool) {
		full := filepath.Join(home, rel)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if dir {
			os.MkdirAll(full, 0o755)
		} else {
			os.WriteFile(full, []byte("x"), 0o600)
		}
	}
	mk(".aws", true)
	mk(".config/gh/hosts.yml", false)
	mk(".kube/config", false)
	mk(".netrc", false)
	other := t.TempDir()
	os.Symlink(other, filepath.Join(home, ".docker"))                      // link to a directory
	os.Symlink(filepath.Join(home, ".netrc"), filepath.Join(home, ".env")) // link to a file
	os.Symlink("/nonexistent/x", filepath.Join(home, ".credentials"))      // dangling
	os.Symlink(".loop", filepath.Join(home, ".loop"))                      // a loop
	os.MkdirAll(filepath.Join(home, ".private"), 0o000)                    // unreadable (not for root)
	for i := 0; i < 30; i++ {
		name := fmt.Sprintf(".tool%d", i)
		if i%3 == 0 {
			mk(name+"/token", false)
		}
		p.DenyRead = append(p.DenyRead, filepath.Join(home, name), filepath.Join(home, name, "token"))
	}
	p.DenyRead = append(p.DenyRead, filepath.Join(home, ".loop", "x"), filepath.Join(home, ".private", "key"),
		filepath.Join(home, ".docker", "config.json"))
	os.WriteFile(filepath.Join(p.Cwd, ".envrc"), []byte("x"), 0o644)

	run := func(h hostFS) *bwrapPlan {
		plan, err := bwrapArgs(p, &bwrapHost{UID: os.Getuid(), GID: os.Getgid(), FS: h}, bwrapFDs{Status: 3}, []string{"true"}, bwEnv)
		if err != nil {
			t.Fatal(err)
		}
		return plan
	}
	c := &countingFS{}
	listed, plain := run(c), run(lstatOnly{})
	if !slices.Equal(listed.Args, plain.Args) {
		t.Errorf("arguments differ:\nlisted %q\nlstat  %q", listed.Args, plain.Args)
	}
	if fmt.Sprint(listed.Watch) != fmt.Sprint(plain.Watch) {
		t.Errorf("watches differ:\nlisted %v\nlstat  %v", listed.Watch, plain.Watch)
	}
	if _, ok := hostFS(lstatOnly{}).(dirLister); ok {
		t.Fatal("lstatOnly lists")
	}
	if c.lists == 0 || c.lstats > len(p.DenyRead) {
		t.Errorf("%d listings and %d lstats for %d deny_read paths: the home directory was not listed", c.lists, c.lstats, len(p.DenyRead))
	}
}

// manyDenyPolicy has as many deny_read entries under the home directory
// as the default configuration (about 170), few of which exist.
func manyDenyPolicy(b testing.TB) *Policy {
	p := benchPolicyT(b)
	home := filepath.Dir(p.DenyRead[0])
	for i := 0; i < 150; i++ {
		sub := ""
		if i%3 == 0 {
			sub = ".config/"
		}
		p.DenyRead = append(p.DenyRead, filepath.Join(home, fmt.Sprintf("%s.cred%d", sub, i)))
	}
	return p
}

func benchPlan(b *testing.B, h hostFS) {
	p := manyDenyPolicy(b)
	host := &bwrapHost{UID: os.Getuid(), GID: os.Getgid(), FS: h}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := bwrapArgs(p, host, bwrapFDs{Status: 3, Seccomp: 4}, []string{"/bin/true"}, bwEnv); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBwrapPlanManyDeny: the plan with a default-sized deny list,
// with directory listings; BenchmarkBwrapPlanManyDenyLstat: one lstat per
// name.
func BenchmarkBwrapPlanManyDeny(b *testing.B)      { benchPlan(b, osHostFS{}) }
func BenchmarkBwrapPlanManyDenyLstat(b *testing.B) { benchPlan(b, lstatOnly{}) }

// TestResolve follows links the way the kernel would, component by
// component: relative and absolute targets, links in the middle, chains,
// loops (missing), and names below a missing directory (missing).
func TestResolve(t *testing.T) {
	f := newFakeFS([]string{"/home/u/.config/gh", "/data/real", "/opt/x"}, []string{"/data/real/key", "/home/u/.netrc"},
		map[string]string{
			"/home/u/.aws":    "/data/real",  // absolute
			"/home/u/cfg":     ".config",     // relative, same directory
			"/home/u/up":      "../u/.netrc", // relative, through ..
			"/home/u/chain":   "cfg",         // a link to a link
			"/home/u/loop1":   "loop2",
			"/home/u/loop2":   "loop1",
			"/home/u/dangle":  "/nowhere/x",
			"/opt/x/backlink": "/home/u",
		})
	b := &bwBuilder{h: &bwrapHost{FS: f}}
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"/home/u/.aws/key", "/data/real/key", true},
		{"/home/u/cfg/gh", "/home/u/.config/gh", true},
		{"/home/u/up", "/home/u/.netrc", true},
		{"/home/u/chain/gh", "/home/u/.config/gh", true},
		{"/home/u/loop1/x", "", false},
		{"/home/u/dangle", "/nowhere/x", false},
		{"/home/u/missing/deeper", "/home/u/missing/deeper", false},
		{"/opt/x/backlink/.aws/key", "/data/real/key", true},
		{"/home/u/./.config//gh/", "/home/u/.config/gh", true},
		{"/", "/", true},
	} {
		got, ok := b.resolve(tc.in)
		if ok != tc.ok || (tc.ok || tc.want != "") && got != tc.want {
			t.Errorf("resolve(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestHostLstatAsOS: the host file system's Lstat gives os.Lstat's mode.
func TestHostLstatAsOS(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	link := filepath.Join(dir, "l")
	if err := os.WriteFile(file, nil, 0o4755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(file, 0o4755|os.ModeSetuid)
	if err := os.Symlink("f", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, file, link, "/dev/null", "/tmp", filepath.Join(dir, "missing")} {
		want, werr := os.Lstat(p)
		got, gerr := osHostFS{}.Lstat(p)
		if (werr == nil) != (gerr == nil) || werr == nil && want.Mode() != got {
			t.Errorf("%s: Lstat %v %v, os.Lstat %v %v", p, got, gerr, want, werr)
		}
	}
}
