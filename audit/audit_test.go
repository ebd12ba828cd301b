package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func sample() *Record {
	r := NewRecord()
	r.Argv = []string{"npm", "test"}
	r.Tier = "safe"
	r.Decision = DecisionAllowed
	r.Sandbox = Sandbox{Backend: "bwrap", Mode: "compat"}
	r.PolicyFP = "0123456789abcdef"
	r.EnvStripped = []string{"GITHUB_TOKEN"}
	r.Network = Network{Allowed: []string{"registry.npmjs.org:443"}}
	r.DurationMS = 1234
	return r
}

func TestRecordJSON(t *testing.T) {
	r := sample()
	r.Time = time.Date(2026, 3, 4, 5, 6, 7, 891_234_567, time.FixedZone("X", 3600))
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := []string{"ts", "v", "id", "pid", "user", "cwd", "argv", "tier", "reasons", "decision",
		"sandbox", "policy_fp", "env_stripped", "network", "exit_code", "signal", "duration_ms", "timed_out"}
	var got []string
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("keys %q\nwant %q", got, want)
	}
	if m["ts"] != "2026-03-04T04:06:07.891Z" || m["v"] != 1.0 {
		t.Errorf("ts %v v %v", m["ts"], m["v"])
	}
	if !bytes.HasPrefix(b, []byte(`{"ts":`)) {
		t.Errorf("ts is not first: %s", b)
	}
	sb := m["sandbox"].(map[string]any)
	for _, k := range []string{"backend", "mode", "level", "weak"} {
		if _, ok := sb[k]; !ok {
			t.Errorf("sandbox lacks %s", k)
		}
	}
	if s := string(b); !strings.Contains(s, `"reasons":[]`) || !strings.Contains(s, `"denied":[]`) {
		t.Errorf("empty lists must be [] not null: %s", s)
	}

	// Script instead of argv; approved_by when set.
	r.Script = "git status && make"
	r.ApprovedBy = ApprovedByTTY
	b, _ = json.Marshal(r)
	m = nil
	json.Unmarshal(b, &m)
	if _, ok := m["argv"]; ok || m["script"] != "git status && make" || m["approved_by"] != "tty" {
		t.Errorf("script record: %s", b)
	}
	if line, _ := encodeLine(r); !strings.Contains(string(line), `"script":"git status && make"`) {
		t.Errorf("& escaped in the log line: %s", line)
	}
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	e.Encode(r)
	if !strings.Contains(enc.String(), `"script":"git status && make"`) {
		t.Errorf("& escaped by an Encoder without HTML escaping: %s", enc.String())
	}
	// A Record value (not a pointer) encodes the same way.
	bv, _ := json.Marshal(*r)
	if string(bv) != string(b) {
		t.Errorf("value and pointer encodings differ:\n%s\n%s", bv, b)
	}
	// Neither: argv is [].
	r.Script, r.Argv = "", nil
	b, _ = json.Marshal(r)
	if !strings.Contains(string(b), `"argv":[]`) {
		t.Errorf("no command: %s", b)
	}

	var back Record
	r.Argv = []string{"a"}
	b, _ = json.Marshal(r)
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !back.Time.Equal(r.Time.Truncate(time.Millisecond)) || back.ID != r.ID || !slices.Equal(back.Argv, r.Argv) {
		t.Errorf("round trip: %+v", back)
	}
}

func TestNewRecord(t *testing.T) {
	a, b := NewRecord(), NewRecord()
	if a.ID == b.ID || len(a.ID) != 16 || a.PID != os.Getpid() || a.V != 1 || a.User == "" || a.Cwd == "" {
		t.Errorf("%+v %+v", a, b)
	}
}

func TestOpenModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "safeexec")
	path := filepath.Join(dir, "audit.log")
	l, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(sample()); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if runtime.GOOS == "windows" {
		return
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v", fi.Mode().Perm())
	}

	// An existing log readable by others is narrowed.
	os.Chmod(path, 0o644)
	l, err = Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("existing file not narrowed: %v", fi.Mode().Perm())
	}
}

func TestOpenRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, nil, 0o600)
	link := filepath.Join(dir, "audit.log")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, err := Open(link, false); !errors.Is(err, ErrSymlink) {
		t.Errorf("symlink: got %v, want ErrSymlink", err)
	}
	dirPath := filepath.Join(dir, "adir")
	os.Mkdir(dirPath, 0o700)
	if _, err := Open(dirPath, false); err == nil {
		t.Error("a directory was accepted")
	}
}

func TestAppendRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l, err := Open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	base := time.Now().Add(-time.Hour)
	for i := 0; i < 10; i++ {
		r := sample()
		r.Time = base.Add(time.Duration(i) * time.Minute)
		r.ExitCode = i
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	all, err := Read(path, Query{})
	if err != nil || len(all) != 10 {
		t.Fatalf("Read all: %d records, %v", len(all), err)
	}
	for i, r := range all {
		if r.ExitCode != i {
			t.Errorf("record %d has exit %d: order lost", i, r.ExitCode)
		}
	}
	last, _ := Read(path, Query{Last: 3})
	if len(last) != 3 || last[0].ExitCode != 7 || last[2].ExitCode != 9 {
		t.Errorf("Last 3: %+v", exits(last))
	}
	since, _ := Read(path, Query{Since: base.Add(5*time.Minute + time.Second)})
	if got := exits(since); !slices.Equal(got, []int{6, 7, 8, 9}) {
		t.Errorf("Since: %v", got)
	}
	both, _ := Read(path, Query{Since: base.Add(5 * time.Minute), Last: 2})
	if got := exits(both); !slices.Equal(got, []int{8, 9}) {
		t.Errorf("Since+Last: %v", got)
	}

	// A torn last line (a writer died mid-record) and a damaged line in the
	// middle are skipped.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("garbage\n")
	l.Append(sample())
	f.WriteString(`{"ts":"2026-01-01T00:00:00.000Z","v":1,"id":"to`)
	f.Close()
	all, err = Read(path, Query{})
	if err != nil || len(all) != 11 {
		t.Errorf("with torn lines: %d records, %v", len(all), err)
	}
	last, _ = Read(path, Query{Last: 1})
	if len(last) != 1 || last[0].ExitCode != 0 || last[0].ID == "" {
		t.Errorf("Last 1 with a torn tail: %+v", last)
	}

	if recs, err := Read(filepath.Join(t.TempDir(), "none.log"), Query{}); err != nil || recs != nil {
		t.Errorf("missing log: %v %v", recs, err)
	}
}

func exits(rs []Record) []int {
	var out []int
	for _, r := range rs {
		out = append(out, r.ExitCode)
	}
	return out
}

func TestReadTailAcrossChunks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l, _ := Open(path, false)
	defer l.Close()
	big := strings.Repeat("x", 10_000)
	for i := 0; i < 40; i++ {
		r := sample()
		r.Argv = []string{"echo", big}
		r.ExitCode = i
		l.Append(r)
	}
	for _, n := range []int{1, 7, 39, 40, 100} {
		got, err := Read(path, Query{Last: n})
		if err != nil {
			t.Fatal(err)
		}
		want := min(n, 40)
		if len(got) != want || got[len(got)-1].ExitCode != 39 || got[0].ExitCode != 40-want {
			t.Errorf("Last %d: %v", n, exits(got))
		}
	}
}

// TestConcurrentProcesses appends from 30 real processes at once, each
// with a record large enough (200 KiB) that interleaved writes would show.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 30 processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	path := filepath.Join(t.TempDir(), "audit.log")
	const n = 30
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(exe, "-test.run=^TestHelperAppend$", "-test.count=1")
			cmd.Env = append(os.Environ(), "AUDIT_TEST_HELPER_PATH="+path, fmt.Sprintf("AUDIT_TEST_HELPER_N=%d", i))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("helper %d: %v\n%s", i, err, out)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) != n {
		t.Fatalf("%d lines, want %d", len(lines), n)
	}
	seen := map[int]bool{}
	for i, line := range lines {
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("line %d is not a record (%d bytes): %v", i, len(line), err)
		}
		if len(r.Script) != 200<<10 || strings.Trim(r.Script, string(rune('a'+r.ExitCode%26))) != "" {
			t.Fatalf("line %d: script damaged", i)
		}
		seen[r.ExitCode] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct writers, want %d", len(seen), n)
	}
}

// TestHelperAppend is run by TestConcurrentProcesses in child processes.
func TestHelperAppend(t *testing.T) {
	path := os.Getenv("AUDIT_TEST_HELPER_PATH")
	if path == "" {
		t.Skip("helper process only")
	}
	var i int
	fmt.Sscan(os.Getenv("AUDIT_TEST_HELPER_N"), &i)
	l, err := Open(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := sample()
	r.Argv = nil
	r.Script = strings.Repeat(string(rune('a'+i%26)), 200<<10)
	r.ExitCode = i
	if err := l.Append(r); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l, _ := Open(path, false)
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Append(sample()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	l.Close()
	if err := l.Append(sample()); err == nil {
		t.Error("Append after Close succeeded")
	}
	recs, _ := Read(path, Query{})
	if len(recs) != 50 {
		t.Errorf("%d records", len(recs))
	}
}

func TestAppendRedactsAndBounds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l, _ := Open(path, false)
	defer l.Close()
	r := sample()
	tok := "ghp_" + strings.Repeat("A1b2", 9)
	r.Argv = []string{"git", "clone", "https://x:" + tok + "@github.com/o/r"}
	if err := l.Append(r); err != nil {
		t.Fatal(err)
	}
	if r.Argv[2] != "https://x:"+tok+"@github.com/o/r" {
		t.Error("Append modified the caller's record")
	}
	long := sample()
	long.Script = strings.Repeat("y", maxCommandBytes+1000)
	l.Append(long)
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte(tok)) {
		t.Errorf("token written to the log: %s", data)
	}
	recs, _ := Read(path, Query{})
	if len(recs) != 2 || !strings.HasSuffix(recs[1].Script, "[1000 bytes cut]") {
		t.Errorf("long script not cut: %d records", len(recs))
	}
}

func TestFollow(t *testing.T) {
	old := followPoll
	followPoll = 10 * time.Millisecond
	defer func() { followPoll = old }()

	path := filepath.Join(t.TempDir(), "audit.log")
	l, _ := Open(path, false)
	pre := sample()
	pre.ExitCode = 99
	l.Append(pre) // history: not reported

	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan Record, 10)
	done := make(chan error, 1)
	go func() { done <- Follow(ctx, path, func(r Record) { got <- r }) }()
	time.Sleep(50 * time.Millisecond)

	for i := 1; i <= 2; i++ {
		r := sample()
		r.ExitCode = i
		l.Append(r)
	}
	for i := 1; i <= 2; i++ {
		select {
		case r := <-got:
			if r.ExitCode != i {
				t.Errorf("got exit %d, want %d", r.ExitCode, i)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Follow did not report a new record")
		}
	}
	// A half-written line is held back until it is complete.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	line, _ := encodeLine(&Record{Time: time.Now(), V: 1, ExitCode: 3})
	f.Write(line[:10])
	time.Sleep(50 * time.Millisecond)
	f.Write(line[10:])
	f.Close()
	select {
	case r := <-got:
		if r.ExitCode != 3 {
			t.Errorf("split line: exit %d", r.ExitCode)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("split line not reported")
	}
	// Truncation (rotation) starts over.
	l.Close()
	os.Truncate(path, 0)
	time.Sleep(50 * time.Millisecond)
	l, _ = Open(path, false)
	r := sample()
	r.ExitCode = 4
	l.Append(r)
	l.Close()
	select {
	case r := <-got:
		if r.ExitCode != 4 {
			t.Errorf("after truncation: exit %d", r.ExitCode)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("record after truncation not reported")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Follow returned %v after cancel", err)
	}
}

func TestFormat(t *testing.T) {
	r := sample()
	r.Time = time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
	r.Argv = []string{"git", "commit", "-m", "it's \x1b[31mred\x1b[0m\nline"}
	r.Reasons = []Reason{{Rule: "git.reset_hard", Detail: "discards changes"}, {Rule: "x"}}
	r.Decision, r.Tier, r.ExitCode = DecisionConfirmed, "needs_confirmation", 1
	var b bytes.Buffer
	Format(&b, r)
	s := b.String()
	for _, want := range []string{"2026-01-02 03:04:05", "confirmed", "needs_confirmation", "exit 1", `git commit -m 'it'\''s \x1b[31mred\x1b[0m\nline'`, "# git.reset_hard: discards changes (+1)"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q lacks %q", s, want)
		}
	}
	if strings.Count(s, "\n") != 1 || strings.ContainsRune(s, 0x1b) {
		t.Errorf("not one safe line: %q", s)
	}

	r.Decision = DecisionBlocked
	r.Argv = []string{"sudo", strings.Repeat("z", 500)}
	b.Reset()
	Format(&b, r)
	if !strings.Contains(b.String(), "blocked") || !strings.Contains(b.String(), "…") || len(b.String()) > 400 {
		t.Errorf("blocked/long: %q", b.String())
	}
}

func BenchmarkAppend(b *testing.B) {
	for _, sync := range []bool{false, true} {
		b.Run(fmt.Sprintf("sync=%v", sync), func(b *testing.B) {
			l, err := Open(filepath.Join(b.TempDir(), "audit.log"), sync)
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			r := sample()
			r.Reasons = []Reason{{Rule: "rm.recursive", Detail: "recursive delete", Command: "rm -rf build"}}
			b.ReportAllocs()
			for b.Loop() {
				if err := l.Append(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkOpenAppendClose(b *testing.B) {
	path := filepath.Join(b.TempDir(), "audit.log")
	r := sample()
	for b.Loop() {
		l, err := Open(path, false)
		if err != nil {
			b.Fatal(err)
		}
		l.Append(r)
		l.Close()
	}
}
