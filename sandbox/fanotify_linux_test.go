package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// needFanWatch starts a watch on dir's file system, or skips.
func needFanWatch(t *testing.T, dir string) *fanWatch {
	t.Helper()
	fw, err := newFanWatch([]string{dir})
	if err != nil {
		t.Skipf("no fanotify watch here: %v", err)
	}
	return fw
}

// TestFanWatchBatches: a run that changes something every millisecond
// wakes the reader a few times per pause, not once per event, and every
// directory it changed is recorded, with the directories it made, up to
// the last change before stop.
func TestFanWatchBatches(t *testing.T) {
	oldBatch, oldBytes := fanBatch, fanBatchBytes
	fanBatch, fanBatchBytes = 40*time.Millisecond, 1<<30
	defer func() { fanBatch, fanBatchBytes = oldBatch, oldBytes }()
	root := t.TempDir()
	fw := needFanWatch(t, root)
	defer fw.close()
	start := time.Now()
	var made []string
	for i := 0; time.Since(start) < 5*fanBatch; i++ {
		d := filepath.Join(root, fmt.Sprintf("d%03d", i))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		made = append(made, d)
		time.Sleep(time.Millisecond)
	}
	// The reader keeps reading while the run goes on (the queue does not
	// grow until stop): it gets to every directory written in, and after
	// a quiet spell (a drain that finds nothing), to the next.
	caughtUp := func(want int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			fw.mu.Lock()
			n := len(fw.dirs)
			fw.mu.Unlock()
			if n >= want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the reader has %d of %d directories", n, want)
			}
		}
	}
	caughtUp(len(made) + 1)
	fw.mu.Lock()
	wakeups, elapsed := fw.wakeups, time.Since(start)
	fw.mu.Unlock()
	time.Sleep(3 * fanBatch)
	later := filepath.Join(root, "later")
	writeX(t, filepath.Join(later, "f"), "x")
	made = append(made, later)
	caughtUp(len(made) + 1)
	last := filepath.Join(root, "last")
	os.Mkdir(last, 0o755)
	made = append(made, last)
	fw.stop()
	changed, why := fw.changed()
	if changed == nil {
		t.Fatalf("the watch gave up: %s", why)
	}
	// Of three wake-ups in a row, two are at least a pause apart (a
	// drain that finds the queue empty ends a pause, and the next event
	// may wake the reader at once).
	if limit := 2 * (1 + int(elapsed/fanBatch)); wakeups > limit {
		t.Errorf("the reader woke %d times in %v (batches of %v: at most %d)", wakeups, elapsed, fanBatch, limit)
	}
	if changed[root] == nil {
		t.Fatalf("%s: nothing recorded", root)
	}
	for _, d := range made {
		if !changed[root].made[filepath.Base(d)] {
			t.Errorf("%s: not recorded as made in %s", d, root)
		}
		if d != last && changed[d] == nil {
			t.Errorf("%s: the file written there is not recorded", d)
		}
	}
	t.Logf("%d directories made in %v, %d wake-ups", len(made), elapsed, wakeups)
}

// TestGitSweepBetweenBatches: what a run plants while the reader lets
// events gather is found: stop reads the rest of the queue.
func TestGitSweepBetweenBatches(t *testing.T) {
	old := fanBatch
	fanBatch = time.Hour
	defer func() { fanBatch = old }()
	f := newSweepFixture(t, nil)
	if f.s.fan == nil {
		t.Skip("no fanotify watch here: " + f.s.fanWhy)
	}
	// Wake the reader once, and wait until it has drained the queue and
	// sleeps for the rest of the batch.
	os.WriteFile(filepath.Join(f.root, "first"), nil, 0o644)
	for deadline := time.Now().Add(10 * time.Second); ; {
		f.s.fan.mu.Lock()
		n, seen := f.s.fan.wakeups, len(f.s.fan.dirs)
		f.s.fan.mu.Unlock()
		if n > 0 && seen > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the reader never woke")
		}
		time.Sleep(time.Millisecond)
	}
	gitIn(t, f.root, "init", "-q", "deep/r")
	writeX(t, filepath.Join(f.root, "deep/r/.git/hooks/pre-commit"), "#!/bin/sh\n")
	// A stop that waited for the batch to end would hang here.
	taken, unchecked := f.finish()
	if f.s.fan == nil || !takenHas(taken, f.root, "deep/r/.git/hooks/pre-commit") || len(unchecked) > 0 {
		t.Errorf("fan %v (%s) taken %v unchecked %v\n%s", f.s.fan, f.s.fanWhy, taken, unchecked, f.out.String())
	}
}

// TestFanNextPause: the pause shortens as events come faster, so the
// queue holds about fanBatchBytes, within fanBatchMin and fanBatch.
func TestFanNextPause(t *testing.T) {
	for _, c := range []struct {
		pause time.Duration
		n     int
		want  time.Duration
	}{
		{fanBatch, 100, fanBatch},                        // a trickle: the longest pause
		{fanBatch, fanBatchBytes, fanBatch},              // just enough
		{fanBatch, 4 * fanBatchBytes, fanBatch / 4},      // four times too much
		{fanBatch / 4, fanBatchBytes / 2, fanBatch / 2},  // slower again
		{fanBatchMin, 1000 * fanBatchBytes, fanBatchMin}, // a flood: the shortest
		{fanBatch / 100, fanBatchBytes / 1000, fanBatch}, // quiet after a flood
	} {
		if got := nextPause(c.pause, c.n); got != c.want {
			t.Errorf("nextPause(%v, %d) = %v, want %v", c.pause, c.n, got, c.want)
		}
	}
}
