package approval

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

func TestGrantConsume(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := Store{Dir: t.TempDir(), Now: func() time.Time { return now }}
	if _, ok := s.Consume("/w", "rm -rf build"); ok {
		t.Fatal("an approval nobody left was found")
	}
	if err := s.Grant("/w", "rm -rf build", "claude", time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cwd, cmd string }{{"/w", "rm -rf build "}, {"/w/", "rm -rf build"}, {"/x", "rm -rf build"}} {
		if _, ok := s.Consume(c.cwd, c.cmd); ok {
			t.Errorf("approval of rm -rf build in /w taken by %q in %q", c.cmd, c.cwd)
		}
	}
	agent, ok := s.Consume("/w", "rm -rf build")
	if !ok || agent != "claude" {
		t.Fatalf("Consume = %q, %v", agent, ok)
	}
	if _, ok := s.Consume("/w", "rm -rf build"); ok {
		t.Error("an approval was used twice")
	}
	// Expired.
	s.Grant("/w", "make clean", "claude", time.Minute)
	now = now.Add(time.Minute)
	if _, ok := s.Consume("/w", "make clean"); ok {
		t.Error("an expired approval was used")
	}
}

func TestConsumeOnce(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	s.Grant("/w", "x", "claude", time.Minute)
	var wg sync.WaitGroup
	var mu sync.Mutex
	took := 0
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := s.Consume("/w", "x"); ok {
				mu.Lock()
				took++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if took != 1 {
		t.Errorf("%d runs took one approval", took)
	}
}

func TestUntrustedFiles(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("modes")
	}
	dir := t.TempDir()
	s := Store{Dir: dir}
	s.Grant("/w", "x", "claude", time.Minute)
	name := filepath.Join(dir, "approvals", Key("/w", "x"))
	// Readable by others: not honoured.
	os.Chmod(name, 0o644)
	if _, ok := s.Consume("/w", "x"); ok {
		t.Error("a file others could write or read was honoured")
	}
	// A symbolic link to a valid approval: not honoured.
	s.Grant("/w", "y", "claude", time.Minute)
	real := filepath.Join(dir, "approvals", Key("/w", "y"))
	os.Rename(real, filepath.Join(dir, "elsewhere"))
	os.Symlink(filepath.Join(dir, "elsewhere"), real)
	if _, ok := s.Consume("/w", "y"); ok {
		t.Error("a symbolic link was honoured")
	}
	// A directory others may write: nothing in it is honoured.
	s.Grant("/w", "z", "claude", time.Minute)
	os.Chmod(filepath.Join(dir, "approvals"), 0o777)
	if _, ok := s.Consume("/w", "z"); ok {
		t.Error("an approval in a directory others may write was honoured")
	}
	if err := s.Grant("/w", "z", "claude", time.Minute); err == nil {
		t.Error("granted into a directory others may write")
	}
}

func TestSession(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := Store{Dir: t.TempDir(), Now: func() time.Time { return now }}
	if s.SessionAllows("conv-1", "/w", "x") {
		t.Fatal("allowed before anything was recorded")
	}
	if err := s.AllowInSession("conv-1", "/w", "x", time.Hour); err != nil {
		t.Fatal(err)
	}
	if !s.SessionAllows("conv-1", "/w", "x") || !s.SessionAllows("conv-1", "/w", "x") {
		t.Error("not allowed (twice) in its session")
	}
	for _, c := range [][3]string{{"conv-2", "/w", "x"}, {"", "/w", "x"}, {"conv-1", "/v", "x"}, {"conv-1", "/w", "x "}} {
		if s.SessionAllows(c[0], c[1], c[2]) {
			t.Errorf("allowed for %q", c)
		}
	}
	if err := s.AllowInSession("", "/w", "x", time.Hour); err == nil {
		t.Error("recorded without a session")
	}
	now = now.Add(time.Hour)
	if s.SessionAllows("conv-1", "/w", "x") {
		t.Error("still allowed after it expired")
	}
	// Writing prunes expired sessions.
	s.AllowInSession("conv-3", "/w", "y", time.Hour)
	ents, _ := os.ReadDir(filepath.Join(s.Dir, "sessions"))
	if len(ents) != 1 {
		t.Errorf("%d session directories after pruning, want 1", len(ents))
	}
}
