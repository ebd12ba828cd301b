package sandbox

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

var updateBwrap = flag.Bool("update-bwrap", false, "rewrite the bwrap golden files")

// fakeFS is a host file system for bwrapArgs: paths to kinds, symlinks to
// their targets.
type fakeFS struct {
	dirs, files map[string]bool
	links       map[string]string
}

func newFakeFS(dirs, files []string, links map[string]string) *fakeFS {
	f := &fakeFS{dirs: map[string]bool{"/": true}, files: map[string]bool{}, links: links}
	for _, d := range dirs {
		for p := d; p != "/"; p = path.Dir(p) {
			f.dirs[p] = true
		}
	}
	for _, p := range files {
		f.files[p] = true
		for d := path.Dir(p); d != "/"; d = path.Dir(d) {
			f.dirs[d] = true
		}
	}
	return f
}

func (f *fakeFS) Lstat(p string) (fs.FileMode, error) {
	switch {
	case f.links[p] != "":
		return fs.ModeSymlink, nil
	case f.dirs[p]:
		return fs.ModeDir, nil
	case f.files[p]:
		return 0, nil
	}
	return 0, fs.ErrNotExist
}

func (f *fakeFS) Readlink(p string) (string, error) {
	if t := f.links[p]; t != "" {
		return t, nil
	}
	return "", errors.New("not a link")
}

// goldenHost is a small Debian-like machine with a user, a project with a
// git repository, and some credentials (one of them a symlink).
func goldenHost(uid int) *bwrapHost {
	return &bwrapHost{UID: uid, GID: uid, FS: newFakeFS(
		[]string{"/usr/bin", "/usr/lib", "/etc/ssh", "/etc/ssl/private", "/opt", "/run/user/1000", "/var/tmp", "/var/log",
			"/home/u/.ssh", "/home/u/.config", "/home/u/proj/.git/hooks", "/home/u/proj/sub",
			"/home/u/dotfiles", "/home/u/.cache/safeexec", "/tmp/safeexec-proxy",
			"/root/.ssh", "/etc/apt/auth.conf.d"},
		[]string{"/etc/shadow", "/etc/passwd", "/var/cache/debconf/passwords.dat", "/home/u/.npmrc-real", "/home/u/proj/.git/config",
			"/home/u/proj/.env", "/home/u/dotfiles/aws-credentials"},
		map[string]string{
			"/bin": "usr/bin", "/lib": "usr/lib", "/var/run": "../run",
			"/home/u/.npmrc":      ".npmrc-real",
			"/home/u/.aws":        "/home/u/dotfiles",
			"/home/u/proj/link":   "/home/u/proj/sub",
			"/home/u/proj/.envrc": "/etc/passwd",
		})}
}

func goldenPolicy(m Mode) *Policy {
	return &Policy{
		Mode:          m,
		Cwd:           "/home/u/proj",
		WritableRoots: []string{"/home/u/proj", "/tmp", "/home/u/proj/sub"},
		DenyRead: []string{"/home/u/.ssh", "/home/u/.aws", "/home/u/.npmrc", "/home/u/.netrc",
			"/home/u/.config/gcloud", "/home/u/.gnupg/private-keys-v1.d"},
		DenyWrite: []string{".git/hooks", ".git/config", ".envrc", ".env", ".bashrc", ".mcp.json", ".husky",
			"/home/u/proj/sub/.safeexec.toml", "/etc/hosts"},
		CacheDir: "/home/u/.cache/safeexec",
	}
}

func TestBwrapArgsGolden(t *testing.T) {
	fds := bwrapFDs{Status: 3, Seccomp: 4, Sync: 5}
	net := goldenPolicy(Compat)
	net.Network = Network{Enabled: true, ProxyDir: "/tmp/safeexec-proxy", Bridge: []string{"/usr/bin/safeexec", "__bridge", "cfg"}}
	limited := goldenPolicy(Compat)
	limited.Limits = Limits{Processes: 64}
	for _, tc := range []struct {
		name string
		p    *Policy
		uid  int
		fds  bwrapFDs
	}{
		{"compat", goldenPolicy(Compat), 1000, fds},
		{"compat-root", goldenPolicy(Compat), 0, fds},
		{"strict", goldenPolicy(Strict), 1000, fds},
		{"permissive", goldenPolicy(Permissive), 1000, fds},
		{"network", net, 1000, fds},
		{"limits", limited, 1000, bwrapFDs{Status: 3, Seccomp: 4, Sync: 5, Block: 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := bwrapArgs(tc.p, goldenHost(tc.uid), tc.fds, []string{"npm", "test"},
				[]string{"PATH=/usr/bin", "TMPDIR=/home/u/tmp", "SSH_AUTH_SOCK=/run/user/1000/ssh", "HOME=/home/u"})
			if err != nil {
				t.Fatal(err)
			}
			args, env := plan.Args, plan.Env
			var b strings.Builder
			for i := 0; i < len(args); i++ {
				// One option with its operands per line.
				b.WriteString(args[i])
				if strings.HasPrefix(args[i], "--") && args[i] != "--" {
					for n := bwrapArity(args[i]); n > 0 && i+1 < len(args); n-- {
						i++
						b.WriteString(" " + args[i])
					}
				}
				b.WriteString("\n")
			}
			b.WriteString("# watched (root, path below it)\n")
			for _, w := range plan.Watch {
				b.WriteString(w.Root + " " + w.Rel + "\n")
			}
			b.WriteString("# env\n" + strings.Join(env, "\n") + "\n")
			got := b.String()
			file := filepath.Join("testdata", "bwrap", tc.name+".golden")
			if *updateBwrap {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update-bwrap to create it)", err)
			}
			if got != string(want) {
				t.Errorf("bwrap arguments differ from %s (-update-bwrap rewrites it):\n%s", file, got)
			}
		})
	}
}

// bwrapArity is how many operands a bwrap option takes.
func bwrapArity(opt string) int {
	switch opt {
	case "--bind", "--ro-bind", "--ro-bind-try", "--dev-bind", "--symlink":
		return 2
	case "--uid", "--gid", "--proc", "--dev", "--tmpfs", "--perms", "--chdir", "--cap-drop",
		"--json-status-fd", "--seccomp", "--sync-fd", "--block-fd", "--remount-ro":
		return 1
	}
	return 0
}

// TestBwrapArgsProperties checks what must hold for every mode, beyond the
// golden files.
func TestBwrapArgsProperties(t *testing.T) {
	for _, m := range []Mode{Strict, Compat, Permissive} {
		for _, uid := range []int{0, 1000} {
			p := goldenPolicy(m)
			plan, err := bwrapArgs(p, goldenHost(uid), bwrapFDs{Status: 3, Seccomp: 4}, []string{"true"}, []string{"SSH_AUTH_SOCK=/x", "TMPDIR=/home/u/tmp"})
			if err != nil {
				t.Fatal(err)
			}
			args, env := plan.Args, plan.Env
			for _, must := range []string{"--die-with-parent", "--new-session", "--unshare-user", "--unshare-pid",
				"--unshare-ipc", "--unshare-uts", "--unshare-net", "--disable-userns", "--seccomp"} {
				if !slices.Contains(args, must) {
					t.Errorf("%s uid %d: missing %s", m, uid, must)
				}
			}
			if slices.Contains(env, "SSH_AUTH_SOCK=/x") || !slices.Contains(env, "TMPDIR=/tmp") {
				t.Errorf("%s: env %v", m, env)
			}
			// Masks come after every writable bind, so nothing uncovers
			// them.
			lastBind, firstMask := -1, len(args)
			for i, a := range args {
				if a == "--bind" && args[i+1] != "/" {
					lastBind = i
				}
				if (a == "--tmpfs" || a == "--ro-bind") && strings.HasPrefix(args[i+1], "/home/u/.") && firstMask == len(args) {
					firstMask = i
				}
			}
			if lastBind > firstMask {
				t.Errorf("%s: a writable bind (at %d) comes after a mask (at %d)", m, lastBind, firstMask)
			}
			if uid == 0 && !slices.Contains(args, "/proc/sys") {
				t.Errorf("%s as root: /proc/sys not read-only", m)
			}
		}
	}
}

func TestBwrapArgsRejects(t *testing.T) {
	h := goldenHost(1000)
	for name, p := range map[string]*Policy{
		"relative cwd":       {Mode: Compat, Cwd: "proj"},
		"relative root":      {Mode: Compat, Cwd: "/home/u/proj", WritableRoots: []string{"proj"}},
		"relative deny_read": {Mode: Compat, Cwd: "/home/u/proj", DenyRead: []string{"~/.ssh"}},
		"unknown mode":       {Mode: "lax", Cwd: "/home/u/proj"},
		"missing cwd":        {Mode: Compat, Cwd: "/home/u/nothere"},
		"strict, cwd hidden": {Mode: Strict, Cwd: "/home/u/proj/sub", WritableRoots: []string{"/home/u/dotfiles", "/home/u/proj"}},
		"network, no bridge": {Mode: Compat, Cwd: "/home/u/proj", Network: Network{Enabled: true, ProxyDir: "/tmp/safeexec-proxy"}},
		"network, no dir":    {Mode: Compat, Cwd: "/home/u/proj", Network: Network{Enabled: true, Bridge: []string{"x"}}},
	} {
		if _, err := bwrapArgs(p, h, bwrapFDs{}, []string{"true"}, nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := bwrapArgs(goldenPolicy(Compat), h, bwrapFDs{}, nil, nil); err == nil {
		t.Errorf("empty argv accepted")
	}
}

func TestDetectNoneAndUnknown(t *testing.T) {
	b, r, err := Detect("none")
	if err != nil || b.Name() != "none" || !r.Weak {
		t.Errorf("none: %v %+v %v", b, r, err)
	}
	if _, _, err := Detect("bogus"); err == nil {
		t.Errorf("unknown backend accepted")
	}
	if _, _, err := Detect("auto"); err != nil && !errors.Is(err, ErrUnavailable) {
		t.Errorf("auto: error does not wrap ErrUnavailable: %v", err)
	}
	if r := Assess(Report{Backend: "bwrap"}, Permissive); !r.Weak {
		t.Errorf("permissive not weak")
	}
	if r := Assess(Report{Backend: "bwrap"}, Compat); r.Weak {
		t.Errorf("compat weak")
	}
}

func TestDetectFallbackIsReported(t *testing.T) {
	saveB, saveL := bwrapDetect, landlockDetect
	t.Cleanup(func() { bwrapDetect, landlockDetect = saveB, saveL })
	bwrapDetect = func() (Backend, Report, error) {
		return nil, Report{Backend: "bwrap", Checks: []Check{{Name: "bwrap installed", Fix: "apt-get install bubblewrap"}}},
			errors.New("sandbox bwrap: bwrap not found: " + ErrUnavailable.Error())
	}
	landlockDetect = func() (Backend, Report, error) { return None(), Report{Backend: "landlock", Level: "abi 7"}, nil }
	if _, _, err := Detect("auto"); err != nil && runtime.GOOS == "linux" {
		t.Fatalf("auto with landlock: %v", err)
	}
	if runtime.GOOS != "linux" {
		return
	}
	_, r, _ := Detect("auto")
	if r.Backend != "landlock" || !strings.Contains(r.Reason, "fallback") {
		t.Errorf("fallback not reported: %+v", r)
	}
	found := false
	for _, c := range r.Checks {
		if c.Name == "fallback" && !c.OK && strings.Contains(c.Fix, "bubblewrap") {
			found = true
		}
	}
	if !found {
		t.Errorf("no fallback check with a fix: %+v", r.Checks)
	}
	landlockDetect = func() (Backend, Report, error) {
		return nil, Report{Backend: "landlock"}, errors.New("no landlock")
	}
	_, r, err := Detect("auto")
	if err == nil || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "bubblewrap") && !strings.Contains(err.Error(), "bwrap") {
		t.Errorf("nothing available: %v %+v", err, r)
	}
}

// TestBwrapArgsFileRoot: a writable root that is a file (an agent's state
// file in the host's /tmp) is bound on its own, after the private /tmp.
func TestBwrapArgsFileRoot(t *testing.T) {
	h := goldenHost(1000)
	h.FS.(*fakeFS).files["/tmp/claude-ab12-cwd"] = true
	p := goldenPolicy(Compat)
	p.WritableRoots = append(p.WritableRoots, "/tmp/claude-ab12-cwd")
	plan, err := bwrapArgs(p, h, bwrapFDs{}, []string{"true"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := strings.Join(plan.Args, " ")
	bind := "--bind /tmp/claude-ab12-cwd /tmp/claude-ab12-cwd"
	if !strings.Contains(a, bind) || strings.Index(a, bind) < strings.Index(a, "--tmpfs /tmp") {
		t.Errorf("file root not bound after the private /tmp: %s", a)
	}
	for _, w := range plan.Watch {
		if strings.HasPrefix(w.Path(), "/tmp/claude-ab12-cwd/") {
			t.Errorf("watched path under a file root: %s", w.Path())
		}
	}
}
