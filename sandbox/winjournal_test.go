package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The journal's file format and recovery rules, on every OS; the ACL
// calls themselves are exercised on Windows (helper_windows_test.go).

// tempDir is t.TempDir removed file by file: the Windows build of these
// tests runs under Wine in CI, where os.RemoveAll fails.
func tempDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "safeexec-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var paths []string
		filepath.Walk(d, func(p string, _ os.FileInfo, _ error) error {
			paths = append(paths, p)
			return nil
		})
		for i := len(paths) - 1; i >= 0; i-- {
			os.Remove(paths[i])
		}
	})
	return d
}

func testAbs(t *testing.T, parts ...string) string {
	t.Helper()
	return filepath.Join(append([]string{tempDir(t)}, parts...)...)
}

func TestJournalRoundTrip(t *testing.T) {
	dir := tempDir(t)
	ws := workspaceSID("S-1-5-21-1", Compat, []string{"/w"})
	j, err := createJournal(dir, journalHeader{Run: "r1", PID: 42, Created: 7})
	if err != nil {
		t.Fatal(err)
	}
	a := aclChange{Op: "allow", Path: testAbs(t, "w"), SID: ws, Mask: aclModify}
	d := aclChange{Op: "deny", Path: testAbs(t, "w", ".git", "hooks"), SID: ws, Mask: aclProtect}
	for _, c := range []aclChange{a, d} {
		if err := j.record(c); err != nil {
			t.Fatal(err)
		}
	}
	hdr, changes, err := readJournal(j.path)
	if err != nil {
		t.Fatal(err)
	}
	if hdr.Run != "r1" || hdr.PID != 42 || hdr.Created != 7 || hdr.V != journalVersion {
		t.Errorf("header %+v", hdr)
	}
	if !slices.Equal(changes, []aclChange{a, d}) {
		t.Errorf("changes %+v", changes)
	}
	// A second journal for the same run id is refused: runs never share one.
	if _, err := createJournal(dir, journalHeader{Run: "r1", PID: 43}); err == nil {
		t.Error("second journal of run r1 created")
	}
	for _, bad := range []aclChange{
		{Op: "grant", Path: a.Path, SID: ws},
		{Op: "allow", Path: "relative", SID: ws},
		{Op: "allow", Path: a.Path, SID: "S-1-5-21-1-2-3-1000"}, // the user's own SID
		{Op: "deny", Path: a.Path, SID: "S-1-15-3-7362-1-2-3"},  // too short
	} {
		if err := j.record(bad); err == nil {
			t.Errorf("recorded %+v", bad)
		}
	}
	if err := j.remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(j.path); !os.IsNotExist(err) {
		t.Errorf("journal still there: %v", err)
	}
}

// writeJournal writes a journal file by hand, as a killed helper leaves it.
func writeJournal(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name+journalExt)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestJournalCutShort(t *testing.T) {
	dir := tempDir(t)
	ws := workspaceSID("u", Strict, []string{"/w"})
	root := testAbs(t, "w")
	line := func(op, p string) string {
		return `{"op":"` + op + `","path":"` + strings.ReplaceAll(p, `\`, `\\`) + `","sid":"` + ws + `","mask":1}`
	}
	// The last change was being written when the helper died: it was not
	// applied, and it is not undone.
	p := writeJournal(t, dir, "cut", `{"v":1,"run":"cut","pid":9,"created":1}`+"\n"+
		line("allow", root)+"\n"+line("deny", filepath.Join(root, "x"))[:20])
	_, changes, err := readJournal(p)
	if err != nil || len(changes) != 1 || changes[0].Path != root {
		t.Fatalf("changes %+v, %v", changes, err)
	}
	// Lines that are not changes of ours are skipped; a foreign SID never
	// reaches undo.
	p = writeJournal(t, dir, "odd", `{"v":1,"run":"odd","pid":9}`+"\n"+
		`{"op":"allow","path":"`+strings.ReplaceAll(root, `\`, `\\`)+`","sid":"S-1-5-32-544","mask":1}`+"\n"+
		`not json`+"\n"+line("pin", root)+"\n")
	_, changes, err = readJournal(p)
	if err != nil || len(changes) != 1 || changes[0].Op != "pin" {
		t.Fatalf("changes %+v, %v", changes, err)
	}
	for _, bad := range []string{"", `{"v":2,"run":"x","pid":1}` + "\n", `{"v":1,"run":"x","pid":0}` + "\n", `{"v":1,"run":"x","pid":1}`} {
		p := writeJournal(t, dir, "bad", bad)
		if _, _, err := readJournal(p); err == nil {
			t.Errorf("header %q accepted", bad)
		}
	}
}

func TestJournalRecovery(t *testing.T) {
	dir := tempDir(t)
	ws := workspaceSID("u", Compat, []string{"/w"})
	other := workspaceSID("u", Compat, []string{"/other"})
	root, hooks, shared := testAbs(t, "w"), testAbs(t, "w", ".git", "hooks"), testAbs(t, "cache")

	dead, err := createJournal(dir, journalHeader{Run: "dead", PID: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []aclChange{
		{Op: "allow", Path: root, SID: ws, Mask: aclModify},
		{Op: "allow", Path: shared, SID: ws, Mask: aclModify},
		{Op: "deny", Path: hooks, SID: ws, Mask: aclProtect},
		{Op: "pin", Path: filepath.Dir(hooks), SID: ws, Mask: aclPin},
	} {
		if err := dead.record(c); err != nil {
			t.Fatal(err)
		}
	}
	dead.f.Close()
	live, err := createJournal(dir, journalHeader{Run: "live", PID: 200})
	if err != nil {
		t.Fatal(err)
	}
	// A live run of the same workspace holds the cache's ACE: it stays.
	if err := live.record(aclChange{Op: "allow", Path: strings.ToUpper(shared[:1]) + shared[1:], SID: ws, Mask: aclModify}); err != nil {
		t.Fatal(err)
	}
	// The same path for another workspace's SID is another ACE.
	if err := live.record(aclChange{Op: "allow", Path: root, SID: other, Mask: aclModify}); err != nil {
		t.Fatal(err)
	}
	writeJournal(t, dir, "garbage", "{")

	alive := func(h journalHeader) bool { return h.PID == 200 }
	var undone []string
	undo := func(c aclChange) error {
		undone = append(undone, c.Op+" "+c.Path)
		return nil
	}
	recovered, errs := recoverJournals(dir, "", alive, undo)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	// Last applied, first undone; the live run's ACE is left alone.
	want := []string{"pin " + filepath.Dir(hooks), "deny " + hooks, "allow " + root}
	if !slices.Equal(undone, want) {
		t.Errorf("undone %q, want %q", undone, want)
	}
	if len(recovered) != 2 {
		t.Errorf("recovered %q, want the dead run and the garbage", recovered)
	}
	files, _ := journalFiles(dir)
	if len(files) != 1 || filepath.Base(files[0]) != "live"+journalExt {
		t.Errorf("journals left: %q", files)
	}

	// The live run ends: its own ACEs go, all of them now.
	undone = nil
	if errs := finishJournal(dir, live, alive, undo); len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(undone) != 2 {
		t.Errorf("finish undid %q", undone)
	}
	if files, _ := journalFiles(dir); len(files) != 0 {
		t.Errorf("journals left: %q", files)
	}
}

func TestJournalKeptWhenUndoFails(t *testing.T) {
	dir := tempDir(t)
	ws := workspaceSID("u", Strict, []string{"/w"})
	j, err := createJournal(dir, journalHeader{Run: "r", PID: 5})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.record(aclChange{Op: "allow", Path: testAbs(t, "w"), SID: ws, Mask: aclModify}); err != nil {
		t.Fatal(err)
	}
	j.f.Close()
	fail := func(aclChange) error { return os.ErrPermission }
	recovered, errs := recoverJournals(dir, "", func(journalHeader) bool { return false }, fail)
	if len(recovered) != 0 || len(errs) != 1 {
		t.Errorf("recovered %q errs %v", recovered, errs)
	}
	if files, _ := journalFiles(dir); len(files) != 1 {
		t.Errorf("the journal must stay for the next start: %q", files)
	}
}

func TestWorkspaceSID(t *testing.T) {
	a := workspaceSID("S-1-5-21-9-1001", Compat, []string{`C:\Work\Proj`, `C:\Users\dev\AppData\Roaming`})
	if !ownSID(a) || !strings.HasPrefix(a, "S-1-15-3-7362-") {
		t.Errorf("workspace SID %s", a)
	}
	if b := workspaceSID("S-1-5-21-9-1001", Compat, []string{`c:\work\PROJ`, `C:\Users\dev\AppData\Roaming`}); b != a {
		t.Errorf("case changes the SID: %s vs %s", a, b)
	}
	for _, other := range []string{
		workspaceSID("S-1-5-21-9-1002", Compat, []string{`C:\Work\Proj`, `C:\Users\dev\AppData\Roaming`}),
		workspaceSID("S-1-5-21-9-1001", Strict, []string{`C:\Work\Proj`, `C:\Users\dev\AppData\Roaming`}),
		workspaceSID("S-1-5-21-9-1001", Compat, []string{`C:\Work\Proj`}),
	} {
		if other == a {
			t.Errorf("same SID %s for another user, mode or roots", a)
		}
	}
	r, err := newRunSIDString()
	if err != nil || !ownSID(r) || !strings.HasPrefix(r, "S-1-15-3-7363-") {
		t.Errorf("run SID %s %v", r, err)
	}
	for _, s := range []string{"S-1-5-18", "S-1-15-3-1024-1-2-3-4", "S-1-15-3-7362-1-2-3-x", "S-1-15-3-7362-1-2-3-4-5"} {
		if ownSID(s) {
			t.Errorf("%s taken for one of safeexec's SIDs", s)
		}
	}
}
