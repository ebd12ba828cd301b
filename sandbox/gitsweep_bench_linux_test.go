package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchTree makes a project of files files in directories of 10, in
// groups of 20 directories, with a few nested git repositories: the tree
// the after-run sweep looks at.
func benchTree(b *testing.B, files int) string {
	b.Helper()
	root := b.TempDir()
	for i := 0; i < files/10; i++ {
		d := filepath.Join(root, fmt.Sprintf("g%04d", i/20), fmt.Sprintf("d%02d", i%20))
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := 0; j < 10; j++ {
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%d.go", j)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	for i := 0; i < 10; i++ {
		g := filepath.Join(root, fmt.Sprintf("g%04d", i), "vendor", ".git")
		for _, d := range []string{"objects", "refs/heads", "hooks"} {
			os.MkdirAll(filepath.Join(g, d), 0o755)
		}
		os.WriteFile(filepath.Join(g, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
		os.WriteFile(filepath.Join(g, "config"), []byte("[core]\n\tbare = false\n"), 0o644)
	}
	return root
}

func benchSweep(b *testing.B, files int, listing bool) {
	root := benchTree(b, files)
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	if listing {
		fanDisabled = true
		defer func() { fanDisabled = false }()
	}
	p := &Policy{Mode: Compat, Cwd: root, WritableRoots: []string{root}}
	changed := filepath.Join(root, "g0003", "d07", "f1.go")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := newGitSweep(p, findGitControl(sweptRoots(p)), coarseNow())
		for try := 0; !listing && s.fan == nil && strings.Contains(s.fanWhy, "too many open files") && try < 200; try++ {
			// The kernel frees a closed fanotify group a moment
			// later, and counts it against the user's groups
			// (max_user_groups) until then: thousands of runs a second
			// outpace it, real ones do not.
			b.StopTimer()
			time.Sleep(5 * time.Millisecond)
			b.StartTimer()
			s = newGitSweep(p, findGitControl(sweptRoots(p)), coarseNow())
		}
		if !listing && s.fan == nil {
			b.Skipf("no fanotify watch here: %s", s.fanWhy)
		}
		// The run: one file written.
		os.WriteFile(changed, []byte{byte(i)}, 0o644)
		taken, unchecked := s.finish(&quarantine{}, nil)
		if len(taken) > 0 || len(unchecked) > 0 {
			b.Fatalf("taken %v unchecked %v", taken, unchecked)
		}
	}
	b.ReportMetric(float64(files), "files")
}

// BenchmarkGitSweep200kFanotify is the whole after-run look (watch set up
// before the run, drained and judged after) in a 200 000-file project
// where the run wrote one file: its cost follows what changed.
func BenchmarkGitSweep200kFanotify(b *testing.B) { benchSweep(b, 200000, false) }

// BenchmarkGitSweep200kListing is the same without fanotify (safeexec not
// run by root): every directory is listed.
func BenchmarkGitSweep200kListing(b *testing.B) { benchSweep(b, 200000, true) }

// BenchmarkGitSweepSmallFanotify is the look in a 100-file project.
func BenchmarkGitSweepSmallFanotify(b *testing.B) { benchSweep(b, 100, false) }
