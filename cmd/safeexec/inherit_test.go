//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// inheritProbe runs inside the sandbox. It finds, at run time, every
// descriptor it holds and every standard one, and tries to open the
// credential named in cred.txt through each (openat on a directory
// descriptor, /proc/self/fd/N/...), then prints what it read.
const inheritProbe = `
import os
rel = open("cred.txt").read().strip()
fds = sorted(int(n) for n in os.listdir("/proc/self/fd"))
print("fds", fds)
for fd in fds:
    for how in ("openat", "proc"):
        try:
            if how == "openat":
                f = os.open(rel, os.O_RDONLY, dir_fd=fd)
            else:
                f = os.open("/proc/self/fd/%d/%s" % (fd, rel), os.O_RDONLY)
            print("read through", fd, how, os.read(f, 100))
        except OSError:
            pass
`

// A parent that leaks descriptors (a directory on $HOME, an O_PATH one on
// ~/.ssh, a file) and even gives a directory as stdin: the command gets
// none of them, under bwrap and Landlock, and cannot read the masked key
// through any.
func TestInheritedDescriptorsClosed(t *testing.T) {
	bin := binary(t)
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("python3 not installed")
	}
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			if backend == "bwrap" {
				needBwrap(t)
			}
			env, dir := hermetic(t)
			home := strings.TrimPrefix(env[1], "HOME=")
			os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
			secret := "-----BEGIN KEY----- inherit-secret"
			os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte(secret), 0o600)
			os.WriteFile(filepath.Join(dir, "cred.txt"), []byte(".ssh/id_ed25519\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "probe.py"), []byte(inheritProbe), 0o644)

			homeFD, err := os.Open(home)
			if err != nil {
				t.Fatal(err)
			}
			defer homeFD.Close()
			fd, err := unix.Open(filepath.Join(home, ".ssh"), unix.O_PATH|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			// Owned by the File from here: closed once, by it (a second
			// close could hit a descriptor reused by another test).
			pathFile := os.NewFile(uintptr(fd), "ssh")
			defer pathFile.Close()
			logFD, err := os.Create(filepath.Join(t.TempDir(), "log"))
			if err != nil {
				t.Fatal(err)
			}
			defer logFD.Close()
			stdinDir, err := os.Open(home)
			if err != nil {
				t.Fatal(err)
			}
			defer stdinDir.Close()

			// Python refuses a directory as stdin: the shell moves it to 9.
			cmd := exec.Command(bin, "--yes", "--sandbox", backend, "--", "sh", "-c", "/usr/bin/python3 probe.py 9<&0 </dev/null")
			cmd.Env, cmd.Dir = env, dir
			cmd.Stdin = stdinDir
			cmd.ExtraFiles = []*os.File{homeFD, pathFile, logFD}
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\n%s%s", err, out.String(), errb.String())
			}
			if strings.Contains(out.String(), "inherit-secret") || strings.Contains(out.String(), "read through") {
				t.Errorf("the command read the key through an inherited descriptor:\n%s", out.String())
			}
			// Python's own listing descriptor and the shell's 9 (stdin,
			// /dev/null now) are the only ones above 2.
			if !strings.Contains(out.String(), "fds [0, 1, 2, 3, 9]") {
				t.Errorf("the command holds more than its three standard descriptors:\n%s", out.String())
			}
		})
	}
}

// ttyAttack runs inside the sandbox with the user's terminal as its stdin
// (and only there): it changes everything a holder of a terminal can,
// through descriptor 0 and through the terminal's path (found at run
// time), tries to inject input, and leaves a process behind to do it all
// again after it exits.
const ttyAttack = `
import fcntl, os, sys, termios, time
def wreck(fd):
    a = termios.tcgetattr(fd)
    a[3] &= ~(termios.ECHO | termios.ICANON | termios.ISIG)
    a[6][termios.VINTR] = 0
    for f in (lambda: termios.tcsetattr(fd, termios.TCSANOW, a),
              lambda: fcntl.ioctl(fd, termios.TIOCEXCL),
              lambda: fcntl.ioctl(fd, termios.TIOCSETD, b"\x0d\x00\x00\x00"),  # N_HDLC
              lambda: termios.tcflow(fd, termios.TCOOFF)):
        try: f()
        except OSError as e: print("refused", e.errno)
    for c in "id\n":
        try: fcntl.ioctl(fd, termios.TIOCSTI, c.encode()); print("INJECTED")
        except OSError: pass
wreck(0)
try:
    wreck(os.open(os.ttyname(0), os.O_RDWR | os.O_NOCTTY))
except OSError as e:
    print("reopen refused", e.errno)
if os.fork() == 0:
    os.setsid()
    time.sleep(0.3)
    wreck(0)
    os._exit(0)
print("wrecked", flush=True)
`

// When stdin alone is the user's terminal, the command gets it as it is;
// it cannot leave it changed (echo off, raw mode, ^C disabled, exclusive,
// another line discipline, output stopped) nor push input into it.
func TestHostTerminalRestored(t *testing.T) {
	bin := binary(t)
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("python3 not installed")
	}
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			if backend == "bwrap" {
				needBwrap(t)
			}
			env, dir := hermetic(t)
			os.WriteFile(filepath.Join(dir, "tty.py"), []byte(ttyAttack), 0o644)
			ptm, pts, err := pty.Open()
			if err != nil {
				t.Skipf("no pty: %v", err)
			}
			defer ptm.Close()
			defer pts.Close()
			fd := int(pts.Fd())
			before, err := unix.IoctlGetTermios(fd, unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "--yes", "--sandbox", backend, "--", "/usr/bin/python3", "tty.py")
			cmd.Env, cmd.Dir = env, dir
			cmd.Stdin = pts
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\n%s%s", err, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), "wrecked") {
				t.Fatalf("the attack did not run:\n%s%s", out.String(), errb.String())
			}
			time.Sleep(500 * time.Millisecond) // the left-behind process's turn
			after, err := unix.IoctlGetTermios(fd, unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			if *after != *before {
				t.Errorf("terminal settings changed:\nbefore %+v\nafter  %+v", *before, *after)
			}
			if d, err := unix.IoctlGetInt(fd, unix.TIOCGETD); err != nil || d != 0 {
				t.Errorf("line discipline %d (%v), want N_TTY", d, err)
			}
			if v, err := unix.IoctlGetInt(fd, 0x80045440); err == nil && v != 0 { // TIOCGEXCL
				t.Errorf("the terminal was left in exclusive mode")
			}
			if strings.Contains(out.String(), "INJECTED") {
				t.Errorf("TIOCSTI went through:\n%s", out.String())
			}
			// Output flows (not stopped), and nothing waits as input. (A
			// stopped terminal blocks the write: the goroutine is left.)
			flowed := make(chan string, 1)
			go func() {
				pts.Write([]byte("ping\n"))
				buf := make([]byte, 64)
				n, _ := ptm.Read(buf)
				flowed <- string(buf[:n])
			}()
			select {
			case got := <-flowed:
				if !strings.Contains(got, "ping") {
					t.Errorf("the terminal's output: %q", got)
				}
			case <-time.After(3 * time.Second):
				t.Errorf("the terminal's output is stopped")
			}
			buf := make([]byte, 64)
			syscall.SetNonblock(fd, true)
			if n, _ := syscall.Read(fd, buf); n > 0 {
				t.Errorf("the terminal received input %q", buf[:n])
			}
		})
	}
}

// A command that fills the file system its writable root shares with the
// audit log cannot keep the run's record from being written.
func TestAuditRecordWhenDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small file system")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare not installed")
	}
	bin := binary(t)
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			if backend == "bwrap" {
				needBwrap(t)
			}
			env, _ := hermetic(t)
			d := t.TempDir()
			script := `set -e
mount -t tmpfs -o size=4m tmpfs "$D"
mkdir "$D/state" "$D/work"
cd "$D/work"
export XDG_STATE_HOME="$D/state"
"$BIN" --yes --sandbox "$BACKEND" -c 'cat /dev/zero > fill; echo filled' || true
"$BIN" audit -n 1
`
			cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script)
			cmd.Env = append(env, "D="+d, "BIN="+bin, "BACKEND="+backend)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if !strings.Contains(string(out), "filled") || !strings.Contains(string(out), "cat /dev/zero > fill") {
				t.Errorf("no record of the run that filled the disk:\n%s", out)
			}
		})
	}
}
