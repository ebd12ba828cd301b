//go:build linux

package sandbox

// Escape scenarios for the Landlock backend. Each runs a real command in
// the real backend and asserts on the host side that nothing happened: the
// file outside is untouched, the secret never reached stdout, the host
// process is still alive. Paths are plain strings built at run time, as a
// fooled classifier would let them through.

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// escapeHost is the host the scenarios attack.
type escapeHost struct {
	home, root, outside string
	victim              *exec.Cmd // a host process holding a secret in its environment
	tcpPort             int       // a host TCP service that is not the proxy
	unixSock            string    // a host unix socket outside every root
	udp                 *net.UDPConn
	abstract            string // a host abstract unix socket
}

const secret = "S3CRET-escape-value"

func newEscapeHost(t *testing.T) *escapeHost {
	t.Helper()
	h := &escapeHost{home: t.TempDir(), root: t.TempDir(), outside: t.TempDir()}
	writeTree(t, h.home, map[string]string{
		".ssh/id_ed25519":      secret,
		".aws/credentials":     secret,
		".config/gh/hosts.yml": secret,
		".npmrc":               secret,
		".bashrc":              "# host rc\n",
	})
	writeTree(t, h.outside, map[string]string{"file": "outside\n"})
	writeTree(t, h.root, map[string]string{
		".git/hooks/pre-commit.sample": "sample\n",
		".git/config":                  "[core]\n",
		".envrc":                       "export OK=1\n",
		"src/main.go":                  "package main\n",
	})
	h.victim = exec.Command("sleep", "600")
	h.victim.Env = []string{"VICTIM_TOKEN=" + secret}
	if err := h.victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.victim.Process.Kill(); h.victim.Wait() })

	h.tcpPort = listen(t)
	h.unixSock = filepath.Join(h.outside, "host.sock")
	for _, addr := range []string{h.unixSock, "@safeexec-escape-" + strconv.Itoa(os.Getpid())} {
		ln, err := net.Listen("unix", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Write([]byte(secret))
				c.Close()
			}
		}()
	}
	h.abstract = "safeexec-escape-" + strconv.Itoa(os.Getpid())
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { udp.Close() })
	h.udp = udp
	return h
}

func (h *escapeHost) policy(t *testing.T) *Policy {
	p := llPolicy(t, h.root)
	p.DenyRead = []string{h.home + "/.ssh", h.home + "/.aws", h.home + "/.config/gh", h.home + "/.npmrc"}
	p.DenyWrite = []string{".git/hooks", ".git/config", ".envrc", ".env", ".bashrc", ".mcp.json"}
	return p
}

// unchanged fails when a host file no longer has its content.
func unchanged(dir, rel, want string) func() error {
	return func() error {
		if got := readOr(dir, rel); got != want {
			return fmt.Errorf("%s/%s = %q, want %q", dir, rel, got, want)
		}
		return nil
	}
}

func absent(dir, rel string) func() error {
	return func() error {
		if _, err := os.Lstat(filepath.Join(dir, rel)); err == nil {
			return fmt.Errorf("%s/%s exists", dir, rel)
		}
		return nil
	}
}

func TestLandlockEscapes(t *testing.T) {
	needLandlock(t)
	h := newEscapeHost(t)
	abi := landlockABIVersion()
	py := "/usr/bin/python3"
	hasPy := fileExists(py)
	victim := strconv.Itoa(h.victim.Process.Pid)

	for _, sc := range []struct {
		name  string
		argv  []string // default: sh -c script
		sh    string
		need  string // skip reason when the scenario's condition is unmet
		check func() error
	}{
		// Writes outside the roots.
		{name: "write outside", sh: "echo x > $O/file; echo x > $O/new", check: both(unchanged(h.outside, "file", "outside\n"), absent(h.outside, "new"))},
		{name: "write home rc", sh: "echo evil >> $H/.bashrc", check: unchanged(h.home, ".bashrc", "# host rc\n")},
		{name: "write through a planted symlink", sh: "ln -s $O/file l && echo x > l; ln -s $O d && echo x > d/new", check: both(unchanged(h.outside, "file", "outside\n"), absent(h.outside, "new"))},
		{name: "hard link out then write", sh: "ln $O/file h && echo x >> h", check: unchanged(h.outside, "file", "outside\n")},
		{name: "rename out of the root", sh: "mv src/main.go $O/moved", check: both(absent(h.outside, "moved"), unchanged(h.root, "src/main.go", "package main\n"))},
		{name: "rename into the root", sh: "mv $O/file stolen", check: unchanged(h.outside, "file", "outside\n")},
		{name: "truncate outside", sh: "truncate -s 0 $O/file; : > $O/file", check: unchanged(h.outside, "file", "outside\n")},
		{name: "write through /proc/self/fd", sh: "exec 3< $O/file; echo x > /proc/self/fd/3", check: unchanged(h.outside, "file", "outside\n")},
		{name: "write through /proc/self/root", sh: "echo x > /proc/self/root$O/file", check: unchanged(h.outside, "file", "outside\n")},
		{name: "kernel knob", sh: "echo '|/tmp/x' > /proc/sys/kernel/core_pattern", check: func() error {
			b, _ := os.ReadFile("/proc/sys/kernel/core_pattern")
			if strings.Contains(string(b), "/tmp/x") {
				return fmt.Errorf("core_pattern = %q", b)
			}
			return nil
		}},
		{name: "mount over a root-owned dir", sh: "unshare -rm sh -c 'mount -t tmpfs none $O && echo x > $O/new'", check: absent(h.outside, "new")},

		{name: "plant a set-user-ID binary", sh: "cp /bin/sh rootsh; chmod 4755 rootsh; cp -p /usr/bin/passwd pw; install -m 2755 /bin/sh gsh; python3 -c \"import os; os.close(os.open('o', os.O_CREAT|os.O_WRONLY, 0o4755)); os.mknod('m', 0o104755)\"", check: func() error { return noSetID(h.root) }},

		// Protected paths inside the root (restored after the run).
		{name: "plant a git hook", sh: "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit", check: absent(h.root, ".git/hooks/pre-commit")},
		{name: "rewrite git config", sh: "printf '[core]\\n\\thooksPath = /tmp/evil\\n' > .git/config", check: unchanged(h.root, ".git/config", "[core]\n")},
		{name: "rename .git and rebuild hooks", sh: "mv .git .g && mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit", check: absent(h.root, ".git/hooks/pre-commit")},
		{name: "swap .envrc for a link", sh: "rm .envrc && ln -s /etc/passwd .envrc", check: unchanged(h.root, ".envrc", "export OK=1\n")},
		{name: "new rc file", sh: "echo evil > .bashrc; echo '{}' > .mcp.json", check: both(absent(h.root, ".bashrc"), absent(h.root, ".mcp.json"))},

		// Credential reads: the secret must not reach stdout.
		{name: "read key", sh: "cat $H/.ssh/id_ed25519"},
		{name: "read key via ..", sh: "cat $H/.config/../.ssh/id_ed25519"},
		{name: "read key via /proc/self/root", sh: "cat /proc/self/root$H/.ssh/id_ed25519"},
		{name: "read key via a glob", sh: "cat $H/.ssh/* $H/.aws/*"},
		{name: "read key via a planted symlink", sh: "ln -s $H/.ssh k && cat k/id_ed25519"},
		{name: "copy key into the root", sh: "cp $H/.ssh/id_ed25519 . ; cat id_ed25519"},
		{name: "hard link key into the root", sh: "ln $H/.ssh/id_ed25519 k2; cat k2"},
		{name: "read nested credential", sh: "cat $H/.config/gh/hosts.yml $H/.npmrc"},
		{name: "read key via the parent's root", sh: "cat /proc/$PPID/root$H/.ssh/id_ed25519"},
		{name: "read a raw disk", sh: "for d in /dev/vda /dev/sda /dev/nvme0n1 /dev/xvda; do [ -e $d ] && head -c 4096 $d | strings | grep -q . && echo READ-DISK-" + secret + "; done; true"},
		{name: "read /etc/shadow as root", sh: "cat /etc/shadow && echo " + secret, need: map[bool]string{true: "", false: "not root"}[os.Geteuid() == 0]},

		// Secrets of host processes.
		{name: "read a host process's environment", sh: "cat /proc/" + victim + "/environ"},
		{name: "read the parent's environment", sh: "cat /proc/$PPID/environ | tr '\\0' '\\n' | grep TOKEN"},
		{name: "own environment is filtered", sh: "env"},
		{name: "ptrace a host process", sh: "strace -p " + victim + " -e trace=none 2>&1 & sleep 0.3; kill $!; cat /proc/" + victim + "/maps > /dev/null && echo MAPS-" + secret},

		// Processes.
		{name: "kill a host process", sh: "kill -9 " + victim, need: map[bool]string{true: "", false: "signal scoping needs Landlock ABI 6"}[abi >= 6], check: func() error {
			if err := h.victim.Process.Signal(syscall.Signal(0)); err != nil {
				return fmt.Errorf("host process killed: %v", err)
			}
			return nil
		}},

		// Network.
		{name: "connect to a host TCP service", argv: []string{py, "-c", fmt.Sprintf("import socket; s=socket.create_connection(('127.0.0.1', %d), 2); print('CONNECTED-%s')", h.tcpPort, secret)}, need: needPy(hasPy)},
		{name: "connect to a host abstract socket", argv: []string{py, "-c", fmt.Sprintf("import socket; s=socket.socket(socket.AF_UNIX); s.connect('\\0%s'); print(s.recv(100))", h.abstract)}, need: needAll(needPy(hasPy), map[bool]string{true: "", false: "abstract sockets are scoped from Landlock ABI 6"}[abi >= 6])},
		{name: "send a UDP datagram", argv: []string{py, "-c", fmt.Sprintf("import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM|socket.SOCK_CLOEXEC); s.sendto(b'%s', ('127.0.0.1', %d))", secret, h.udp.LocalAddr().(*net.UDPAddr).Port)}, need: needPy(hasPy), check: func() error {
			h.udp.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			buf := make([]byte, 100)
			if n, _, err := h.udp.ReadFromUDP(buf); err == nil {
				return fmt.Errorf("the host received %q", buf[:n])
			}
			return nil
		}},
		// Landlock's TCP rules cover sockets of protocol TCP only: an MPTCP
		// or SCTP stream socket would connect (and listen) anywhere.
		{name: "connect over MPTCP and SCTP", argv: []string{py, "-c", fmt.Sprintf(`
import socket
for proto in (262, 132):
    for typ in (socket.SOCK_STREAM, socket.SOCK_SEQPACKET):
        for fam, addr in ((socket.AF_INET, '127.0.0.1'), (socket.AF_INET6, '::ffff:127.0.0.1')):
            try:
                s = socket.socket(fam, typ, proto)
            except OSError as e:
                print('socket', proto, typ, e); continue
            s.settimeout(2)
            try:
                s.connect((addr, %d)); print('CONNECTED-%s', proto, typ)
            except OSError as e:
                print('connect', proto, typ, e)
            try:
                l = socket.socket(fam, typ, proto); l.bind((addr, 0)); l.listen(); print('LISTENING-%s', proto, l.getsockname())
            except OSError as e:
                print('listen', proto, typ, e)
`, h.tcpPort, secret, secret)}, need: needPy(hasPy)},
		{name: "other socket families", argv: []string{py, "-c", `
import socket
for fam in (40, 43, 21, 30, 17):
    try:
        socket.socket(fam, socket.SOCK_STREAM, 0); print('OPENED-` + secret + `', fam)
    except OSError as e:
        print(fam, e)
`}, need: needPy(hasPy)},
		{name: "resolve a name over DNS", argv: []string{py, "-c", "import socket; print(socket.getaddrinfo('example.com', 443)); print('" + secret + "')"}, need: needPy(hasPy)},
		{name: "connect to a host unix socket", argv: []string{py, "-c", fmt.Sprintf("import socket; s=socket.socket(socket.AF_UNIX); s.connect(%q); print(s.recv(100))", h.unixSock)}, need: needAll(needPy(hasPy), map[bool]string{true: "", false: "path unix sockets are confined from Landlock ABI 9 or by the seccomp filter, neither is here"}[abi >= 9 || landlockSeccompProgram != nil])},
	} {
		t.Run(sc.name, func(t *testing.T) {
			if sc.need != "" {
				t.Skip(sc.need)
			}
			argv := sc.argv
			if argv == nil {
				s := strings.NewReplacer("$O", h.outside, "$H", h.home).Replace(sc.sh)
				argv = []string{"/bin/sh", "-c", s}
			}
			var out, errb bytes.Buffer
			proc, err := Landlock().Start(h.policy(t), &Command{
				Argv:   argv,
				Env:    []string{"PATH=/usr/bin:/bin", "HOME=" + h.home},
				Stdout: &out,
				Stderr: &errb,
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := proc.Wait(); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out.String(), secret) || strings.Contains(errb.String(), secret) {
				t.Errorf("the secret came out:\nstdout: %s\nstderr: %s", out.String(), errb.String())
			}
			if sc.check != nil {
				if err := sc.check(); err != nil {
					t.Errorf("%v\nstderr: %s", err, errb.String())
				}
			}
		})
	}
}

func both(a, b func() error) func() error {
	return func() error {
		if err := a(); err != nil {
			return err
		}
		return b()
	}
}

func needPy(ok bool) string {
	if ok {
		return ""
	}
	return "no /usr/bin/python3"
}

func needAll(reasons ...string) string {
	return strings.TrimSpace(strings.Join(reasons, " "))
}

// TestLandlockTIOCSTI: a command given the user's terminal cannot push
// keystrokes into it (it is not the command's controlling terminal, and
// the command has no CAP_SYS_ADMIN).
func TestLandlockTIOCSTI(t *testing.T) {
	needLandlock(t)
	py := "/usr/bin/python3"
	if !fileExists(py) {
		t.Skip("no /usr/bin/python3")
	}
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pty:", err)
	}
	defer ptm.Close()
	defer tty.Close()
	root := t.TempDir()
	var out bytes.Buffer
	proc, err := Landlock().Start(llPolicy(t, root), &Command{
		Argv: []string{py, "-c", `
import fcntl, termios, sys
try:
    fcntl.ioctl(0, termios.TIOCSTI, b"x")
    print("INJECTED")
except OSError as e:
    print("refused", e)
`},
		Env:    []string{"PATH=/usr/bin:/bin"},
		Stdin:  tty,
		Stdout: &out,
		Stderr: &out,
	})
	if err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	if !strings.Contains(out.String(), "refused") {
		t.Errorf("TIOCSTI: %s", out.String())
	}
}

// TestLandlockDaemonsEnd: without a pid namespace, a daemon the command
// starts (setsid, a double fork) would outlive the run, still confined
// but free to plant a hook after the protected paths were restored. Every
// one of them ends with the run.
func TestLandlockDaemonsEnd(t *testing.T) {
	needLandlock(t)
	h := newEscapeHost(t)
	marker := fmt.Sprintf("3%d.%06d", os.Getpid()%100, time.Now().Nanosecond()/1000)
	script := fmt.Sprintf(`setsid -f sleep %[1]s
nohup setsid sleep %[1]s >/dev/null 2>&1 &
setsid -f sh -c 'sleep 1; printf "#!/bin/sh\necho pwned\n" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; echo evil > .envrc' </dev/null >/dev/null 2>&1
( ( sleep %[1]s & ) & )
echo started`, marker)
	var out bytes.Buffer
	proc, err := Landlock().Start(h.policy(t), &Command{
		Argv: []string{"/bin/sh", "-c", script}, Env: []string{"PATH=/usr/bin:/bin"},
		Stdout: &out, Stderr: &out,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := proc.Wait(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "started") {
		t.Fatalf("the command did not run: %q", out.String())
	}
	left := func() []int {
		var pids []int
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err == nil && strings.Contains(string(b), marker) {
				if pid, err := strconv.Atoi(e.Name()); err == nil {
					pids = append(pids, pid)
				}
			}
		}
		return pids
	}
	if pids := left(); len(pids) > 0 {
		for _, pid := range pids {
			cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			t.Logf("left: %d %q", pid, cl)
			syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Errorf("%d processes of the sandbox outlived the run", len(pids))
	}
	time.Sleep(1500 * time.Millisecond)
	if err := both(absent(h.root, ".git/hooks/pre-commit"), unchanged(h.root, ".envrc", "export OK=1\n"))(); err != nil {
		t.Errorf("a daemon wrote after the run: %v", err)
	}
}
