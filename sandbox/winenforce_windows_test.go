//go:build windows

package sandbox

// What the Windows helper enforces, and its journal. The assertions about
// enforcement (a write refused, an ACE gone) need real Windows: Wine
// starts restricted tokens but does not enforce them, and does not keep
// ACLs set with SetNamedSecurityInfo. Under Wine they skip, saying so;
// everything else runs.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

// underWine reports whether the tests run under Wine.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// requireEnforcement skips a test that asserts what only real Windows
// enforces.
func requireEnforcement(t *testing.T) {
	t.Helper()
	if underWine() {
		t.Skip("Wine does not enforce restricted tokens or ACLs: this assertion needs real Windows (the windows-latest workflow)")
	}
}

// ownACEs lists the explicit ACEs of safeexec's SIDs on path.
func ownACEs(t *testing.T, path string) []string {
	t.Helper()
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatalf("read the DACL of %s: %v", path, err)
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		return nil
	}
	var out []string
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			t.Fatal(err)
		}
		if s := aceSID(ace).String(); ace.Header.AceFlags&windows.INHERITED_ACE == 0 && ownSID(s) {
			out = append(out, s)
		}
	}
	return out
}

// journalDir gives a test its own journal directory, for the helper
// (through the policy) and for the backend and RecoverWindowsACL (through
// testJournalDir).
func journalDir(t *testing.T) string {
	t.Helper()
	d := winTempDir(t)
	old := testJournalDir
	testJournalDir = d
	t.Cleanup(func() { testJournalDir = old })
	return d
}

func TestWindowsGrandchildren(t *testing.T) {
	exe, _ := os.Executable()
	dir := winTempDir(t)
	// The write-restricted modes are the ones whose grandchildren used to
	// fail to start.
	for _, mode := range []Mode{Strict, Compat} {
		pol := helperPolicyOf(&Policy{WritableRoots: []string{dir}})
		pol.JournalDir = journalDir(t)
		a := runHelperProcess(t, &helperRequest{Mode: mode, Cwd: dir, Policy: pol, Argv: []string{exe, "__chain", "2"}})
		if a.Error != "" || a.ExitCode != 0 || a.Stdout != "leaf" {
			t.Errorf("%s: children of children did not start: %+v", mode, a)
		}
	}
}

func TestWindowsJournalAfterRun(t *testing.T) {
	exe, _ := os.Executable()
	dir := winTempDir(t)
	jd := journalDir(t)
	pol := helperPolicyOf(&Policy{WritableRoots: []string{dir}})
	pol.JournalDir = jd
	a := runHelperProcess(t, &helperRequest{Mode: Compat, Cwd: dir, Policy: pol, Argv: []string{exe, "__echo", "x", "0"}})
	if a.Error != "" || a.ExitCode != 0 {
		t.Fatalf("%+v", a)
	}
	if files, _ := journalFiles(jd); len(files) != 0 {
		t.Errorf("journal left after a run that ended: %q", files)
	}
	if !underWine() {
		if aces := ownACEs(t, dir); len(aces) != 0 {
			t.Errorf("ACEs left on the root after the run: %q", aces)
		}
	}
}

// A helper killed while its command runs leaves its journal (and, on
// Windows, its ACEs); the next start undoes them.
func TestWindowsKilledHelperRecovered(t *testing.T) {
	exe, _ := os.Executable()
	dir := winTempDir(t)
	os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755)
	jd := journalDir(t)
	pol := helperPolicyOf(&Policy{WritableRoots: []string{dir}, DenyWrite: []string{`.git\hooks`}})
	pol.JournalDir = jd
	pidFile := filepath.Join(dir, "running")
	req := &helperRequest{Mode: Strict, Cwd: dir, Policy: pol, Argv: []string{exe, "__mark", pidFile, "60"}}
	args, err := req.args()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{winHelperArg}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill the helper once its command runs (everything is applied).
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 {
			break
		}
	}
	files, _ := journalFiles(jd)
	if len(files) != 1 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no journal while the run goes on: %q", files)
	}
	cmd.Process.Kill()
	cmd.Wait()
	// The command's job went with the helper.
	assertGone(t, pidFile)
	if left, _ := journalFiles(jd); len(left) != 1 {
		t.Fatalf("a killed helper's journal must stay for the next start: %q", left)
	}
	_, changes, _ := readJournal(files[0])
	var ops []string
	for _, c := range changes {
		ops = append(ops, c.Op)
	}
	if strings.Join(ops, " ") != "allow deny pin" {
		t.Errorf("journaled %q", ops)
	}
	if !underWine() {
		if aces := ownACEs(t, dir); len(aces) == 0 {
			t.Errorf("the killed run's grant is not on the root: nothing to recover")
		}
	}
	var out bytes.Buffer
	RecoverWindowsACL(&out)
	if left, _ := journalFiles(jd); len(left) != 0 {
		t.Errorf("journal still there after recovery: %q (%s)", left, out.String())
	}
	if !strings.Contains(out.String(), "undid the ACL changes of 1 interrupted run") {
		t.Errorf("recovery said %q", out.String())
	}
	if !underWine() {
		for _, p := range []string{dir, filepath.Join(dir, ".git"), filepath.Join(dir, ".git", "hooks")} {
			if aces := ownACEs(t, p); len(aces) != 0 {
				t.Errorf("ACEs left on %s after recovery: %q", p, aces)
			}
		}
	}
}

// runWrite runs "__write path" (or another test program) in mode and
// reports whether it succeeded.
func runProbe(t *testing.T, mode Mode, pol helperPolicy, cwd string, args ...string) helperAnswer {
	t.Helper()
	exe, _ := os.Executable()
	a := runHelperProcess(t, &helperRequest{Mode: mode, Cwd: cwd, Policy: pol, Argv: append([]string{exe}, args...)})
	if a.Error != "" {
		t.Fatalf("%s %q: %s", mode, args, a.Error)
	}
	return a
}

func TestWindowsEnforcesWrites(t *testing.T) {
	requireEnforcement(t)
	root, second, outside := winTempDir(t), winTempDir(t), winTempDir(t)
	os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755)
	os.MkdirAll(filepath.Join(root, "secrets"), 0o755)
	known := knownFolders()
	type probe struct {
		args []string
		ok   bool
	}
	startup := filepath.Join(known["appdata"], `Microsoft\Windows\Start Menu\Programs\Startup`, "safeexec-test.txt")
	inAppdata := filepath.Join(known["appdata"], "safeexec-test-"+filepath.Base(root)+".txt")
	regKey := "safeexec-test-" + filepath.Base(root)
	t.Cleanup(func() {
		os.Remove(inAppdata)
		os.Remove(startup)
		registry.DeleteKey(registry.CURRENT_USER, `Software\`+regKey)
	})
	for _, tc := range []struct {
		mode   Mode
		probes []probe
	}{
		{Strict, []probe{
			{[]string{"__write", filepath.Join(root, "a")}, true},
			{[]string{"__write", filepath.Join(second, "a")}, false},
			{[]string{"__write", filepath.Join(outside, "a")}, false},
			{[]string{"__write", filepath.Join(root, ".git", "hooks", "pre-commit")}, false},
			{[]string{"__rename", filepath.Join(root, ".git"), filepath.Join(root, ".g")}, false},
			{[]string{"__write", filepath.Join(root, "secrets", "k")}, false},
			{[]string{"__write", inAppdata}, false},
			{[]string{"__regwrite", regKey}, false},
		}},
		{Compat, []probe{
			{[]string{"__write", filepath.Join(root, "b")}, true},
			{[]string{"__write", filepath.Join(second, "b")}, true},
			{[]string{"__write", filepath.Join(outside, "b")}, false},
			{[]string{"__write", filepath.Join(root, ".git", "hooks", "post-checkout")}, false},
			{[]string{"__write", inAppdata}, true},
			{[]string{"__write", startup}, false},
			{[]string{"__regwrite", regKey}, false},
		}},
		{Permissive, []probe{
			{[]string{"__write", filepath.Join(outside, "c")}, true},
		}},
	} {
		pol := helperPolicyOf(&Policy{
			WritableRoots: []string{root, second},
			DenyWrite:     []string{`.git\hooks`},
			DenyRead:      []string{filepath.Join(root, "secrets")},
		})
		pol.JournalDir = journalDir(t)
		for _, p := range tc.probes {
			a := runProbe(t, tc.mode, pol, root, p.args...)
			if got := a.ExitCode == 0; got != p.ok {
				t.Errorf("%s %q: succeeded=%v, want %v (%s)", tc.mode, p.args, got, p.ok, a.Stderr)
			}
		}
		for _, p := range []string{root, second, filepath.Join(root, ".git"), filepath.Join(root, ".git", "hooks"), filepath.Join(root, "secrets")} {
			if aces := ownACEs(t, p); len(aces) != 0 {
				t.Errorf("%s: ACEs left on %s: %q", tc.mode, p, aces)
			}
		}
	}
}

func TestWindowsTokenShape(t *testing.T) {
	requireEnforcement(t)
	var cur windows.Token
	if err := windows.OpenProcessToken(windows.CurrentProcess(), windows.TOKEN_DUPLICATE|windows.TOKEN_QUERY|windows.TOKEN_ASSIGN_PRIMARY|windows.TOKEN_ADJUST_DEFAULT, &cur); err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	ws, _ := windows.StringToSid(workspaceSID("u", Compat, nil))
	rs, _ := newRunSIDString()
	run, _ := windows.StringToSid(rs)
	for _, mode := range []Mode{Strict, Compat, Permissive} {
		tok, err := restrictedToken(cur, mode, ws, run)
		if err != nil {
			t.Fatal(err)
		}
		restricted, err := tok.IsRestricted()
		if err != nil {
			t.Fatal(err)
		}
		if restricted != (mode != Permissive) {
			t.Errorf("%s: restricted=%v", mode, restricted)
		}
		if mode != Permissive {
			var n uint32
			windows.GetTokenInformation(tok, windows.TokenRestrictedSids, nil, 0, &n)
			buf := make([]byte, n)
			if err := windows.GetTokenInformation(tok, windows.TokenRestrictedSids, &buf[0], n, &n); err != nil {
				t.Fatal(err)
			}
			groups := (*windows.Tokengroups)(unsafe.Pointer(&buf[0]))
			var have []string
			for _, g := range groups.AllGroups() {
				have = append(have, g.Sid.String())
			}
			for _, want := range []*windows.SID{ws, run, logonSID(cur)} {
				if want != nil && !strings.Contains(strings.Join(have, " "), want.String()) {
					t.Errorf("%s: restricting SIDs %q lack %s", mode, have, want)
				}
			}
		}
		tok.Close()
	}
}
