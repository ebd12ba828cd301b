//go:build unix

package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// ruleFor returns the rights granted exactly on path, and whether a rule
// exists.
func ruleFor(p *llPlan, path string) (uint64, bool) {
	for _, r := range p.FS {
		if r.Path == path {
			return r.Access, true
		}
	}
	return 0, false
}

// covered returns the rights that apply to path: the union of the rules on
// it and on its ancestors, as the kernel computes them.
func covered(p *llPlan, path string) uint64 {
	var a uint64
	for _, r := range p.FS {
		if r.Path == path || within(path, r.Path) {
			a |= r.Access
		}
	}
	return a
}

func TestPlanLandlockDeniesBeneathAllowed(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".ssh", ".config/gh", ".config/nvim", "src/app"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	os.WriteFile(filepath.Join(home, ".npmrc"), nil, 0o600)
	os.WriteFile(filepath.Join(home, "notes"), nil, 0o600)
	os.Symlink(".ssh", filepath.Join(home, "sshlink"))
	root := filepath.Join(home, "src")
	req := &llRequest{
		Mode:     Compat,
		Roots:    []string{root},
		DenyRead: []string{home + "/.ssh", home + "/.config/gh", home + "/.npmrc", home + "/.aws"},
	}
	p, err := planLandlock(req, 7, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{home + "/.ssh", home + "/.ssh/id_rsa", home + "/.config/gh/hosts.yml", home + "/.npmrc", home + "/.aws/credentials", "/dev/sda", "/dev/mem"} {
		if a := covered(p, path); a&llReadFile != 0 {
			t.Errorf("%s is readable (%#x)", path, a)
		}
	}
	for _, path := range []string{home + "/notes", home + "/.config/nvim/init.lua", "/usr/bin/env", "/etc/hosts", root + "/app/main.go"} {
		if a := covered(p, path); a&llReadFile == 0 || a&llExecute == 0 {
			t.Errorf("%s is not readable (%#x)", path, a)
		}
	}
	if a := covered(p, home+"/.ssh"); a&llReadDir == 0 {
		t.Errorf("compat: directories are listable everywhere, %s is not", home+"/.ssh")
	}
	if _, ok := ruleFor(p, home+"/sshlink"); ok {
		t.Error("a symbolic link got a rule of its own")
	}
	if _, ok := ruleFor(p, home); ok {
		t.Error("an ancestor of a denied path got a rule, which would cover the denied path")
	}
	// Writes: only the root, and the terminals and null devices.
	for _, path := range []string{root + "/app/x", "/dev/null", "/dev/pts/0", "/dev/shm/x"} {
		if covered(p, path)&llWriteFile == 0 {
			t.Errorf("%s is not writable", path)
		}
	}
	for _, path := range []string{home + "/notes", "/tmp/x", "/etc/passwd", "/dev/sda", "/proc/sys/kernel/core_pattern"} {
		if a := covered(p, path); a&(llWriteFile|llMakeReg|llTruncate|llRemoveFile) != 0 {
			t.Errorf("%s is writable (%#x)", path, a)
		}
	}
	// File rules carry file rights only (the kernel refuses others).
	for _, r := range p.FS {
		if r.File && r.Access&^llFileRights != 0 {
			t.Errorf("file rule %s has directory rights %#x", r.Path, r.Access)
		}
	}
}

func TestPlanLandlockModes(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	req := &llRequest{Roots: []string{a, b}}
	for _, tc := range []struct {
		mode                Mode
		readHome, writeB    bool
		writeTmp, writeShm  bool
		readUsr, listAnyDir bool
	}{
		{Strict, false, false, false, false, true, false},
		{Compat, true, true, false, true, true, true},
		{Permissive, true, true, false, true, true, true},
		{"", true, true, false, true, true, true},
	} {
		req.Mode = tc.mode
		p, err := planLandlock(req, 7, false)
		if err != nil {
			t.Fatal(err)
		}
		check := func(what string, got, want bool) {
			if got != want {
				t.Errorf("mode %q: %s = %v, want %v", tc.mode, what, got, want)
			}
		}
		check("read /home/x/file", covered(p, "/home/x/file")&llReadFile != 0, tc.readHome)
		check("write second root", covered(p, b+"/f")&llWriteFile != 0, tc.writeB)
		check("write first root", covered(p, a+"/f")&llMakeReg != 0, true)
		check("write /tmp", covered(p, "/tmp/f")&llMakeReg != 0, tc.writeTmp)
		check("write /dev/shm", covered(p, "/dev/shm/f")&llMakeReg != 0, tc.writeShm)
		check("exec /usr/bin/git", covered(p, "/usr/bin/git")&llExecute != 0, tc.readUsr)
		check("list /srv", covered(p, "/srv")&llReadDir != 0, tc.listAnyDir)
	}
	req.Mode = "lax"
	if _, err := planLandlock(req, 7, false); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestPlanLandlockABI(t *testing.T) {
	req := &llRequest{Mode: Compat, Roots: []string{t.TempDir()}, Net: true, Ports: []int{3128, 1080}}
	for _, abi := range []int{0, 1, 2, 3} {
		_, err := planLandlock(req, abi, false)
		if !errors.Is(err, ErrUnavailable) {
			t.Errorf("ABI %d: %v, want ErrUnavailable", abi, err)
		}
	}
	p, err := planLandlock(req, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	if p.HandledNet != llNetBindTCP|llNetConnectTCP || !slices.Equal(p.Ports, []uint16{3128, 1080}) {
		t.Errorf("ABI 4 network: handled %#x ports %v", p.HandledNet, p.Ports)
	}
	if p.Scoped != 0 {
		t.Errorf("ABI 4 scoped %#x", p.Scoped)
	}
	for _, r := range p.FS {
		if r.Access&^llHandledFS(4) != 0 {
			t.Errorf("ABI 4: rule %s has rights the ABI does not know: %#x", r.Path, r.Access)
		}
	}
	if p, _ := planLandlock(req, 6, false); p.Scoped != llScopeAbstractUnix|llScopeSignal {
		t.Errorf("ABI 6 scoped %#x", p.Scoped)
	}
	if p, _ := planLandlock(req, 10, false); p.HandledNet&llNetConnectSendUDP == 0 {
		t.Errorf("ABI 10 does not handle UDP: %#x", p.HandledNet)
	}
	req.Net = false
	if p, _ := planLandlock(req, 7, false); len(p.Ports) != 0 || p.HandledNet == 0 {
		t.Errorf("network off: ports %v handled %#x", p.Ports, p.HandledNet)
	}
	req.Net, req.Ports = true, nil
	if _, err := planLandlock(req, 7, false); err == nil {
		t.Error("network on without a port accepted")
	}
	req.Ports = []int{70000}
	if _, err := planLandlock(req, 7, false); err == nil {
		t.Error("port 70000 accepted")
	}
}

func TestPlanLandlockRootSecrets(t *testing.T) {
	req := &llRequest{Mode: Compat, Roots: []string{t.TempDir()}}
	p, err := planLandlock(req, 7, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/etc/shadow"); err == nil && covered(p, "/etc/shadow")&llReadFile != 0 {
		t.Error("as root, /etc/shadow is readable")
	}
	if covered(p, "/etc/hosts")&llReadFile == 0 {
		t.Error("/etc/hosts is not readable")
	}
}

func TestResolveExisting(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	os.Mkdir(real, 0o755)
	os.Symlink(real, filepath.Join(dir, "link"))
	realResolved, _ := filepath.EvalSymlinks(real)
	if got := resolveExisting(filepath.Join(dir, "link", "not", "yet")); got != filepath.Join(realResolved, "not", "yet") {
		t.Errorf("resolveExisting = %s", got)
	}
	denied := expandDenied([]string{filepath.Join(dir, "link", ".aws"), "relative/ignored"})
	if !slices.Contains(denied, filepath.Join(realResolved, ".aws")) || len(denied) != 2 {
		t.Errorf("expandDenied = %v", denied)
	}
}

func TestPrivateTmpSweepsDeadRuns(t *testing.T) {
	parent := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true:", err)
	}
	base, ours := tmpBase(parent)
	if !ours {
		t.Fatalf("fresh base %s not usable", base)
	}
	stale := filepath.Join(base, strconv.Itoa(dead.Process.Pid)+"-left")
	live := filepath.Join(base, strconv.Itoa(os.Getpid())+"-other")
	os.MkdirAll(filepath.Join(stale, "sub"), 0o700)
	os.MkdirAll(live, 0o700)
	pt, err := newPrivateTmp(parent, []string{"/w", "/tmp"}, []string{"TMPDIR=/tmp", "HOME=/h"}, []string{"/tmp"})
	if err != nil {
		t.Fatal(err)
	}
	defer pt.remove()
	if fileExists(stale) {
		t.Error("a dead run's directory survived")
	}
	if !fileExists(live) {
		t.Error("a live run's directory was removed")
	}
	if !slices.Equal(pt.Roots, []string{"/w"}) || !slices.Contains(pt.Env, "TMPDIR="+pt.Dir) || slices.Contains(pt.Env, "TMPDIR=/tmp") {
		t.Errorf("roots %v env %v", pt.Roots, pt.Env)
	}
	// A base planted by someone else (here: a link) is not used.
	planted := t.TempDir()
	os.Symlink(t.TempDir(), filepath.Join(planted, filepath.Base(base)))
	if b, ours := tmpBase(planted); ours || b != planted {
		t.Errorf("planted base used: %s %v", b, ours)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
