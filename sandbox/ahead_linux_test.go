package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/safeexec/safeexec/internal/prelaunch"
)

// The test binary doubles as a run that starts a sandbox ahead and then
// ends without using it: argv[1] == aheadTestParentArg, argv[2] the file
// with the launch (one argument per line, then "=", then the
// environment), argv[3] "exit" (end at once) or "wait" (until killed).
const aheadTestParentArg = "__ahead_test_parent"

func init() {
	if len(os.Args) > 3 && os.Args[1] == aheadTestParentArg {
		os.Exit(aheadTestParent(os.Args[2], os.Args[3]))
	}
}

func aheadTestParent(file, how string) int {
	b, err := os.ReadFile(file)
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	args, env, _ := strings.Cut(string(b), "\n=\n")
	l := &Launch{Path: "", Args: strings.Split(args, "\n"), Env: strings.Split(env, "\n")}
	l.Path, l.Args = l.Args[0], l.Args[1:]
	a := StartAhead(l, os.Stdin, os.Stdout, os.Stderr)
	pre := a.pre
	if pre == nil {
		fmt.Println("error nothing started")
		return 1
	}
	<-pre.done
	if pre.err != nil {
		fmt.Println("error", pre.err)
		return 1
	}
	// Once bwrap has reported the sandbox's first process, that process
	// exists and waits on the block (or is on its way to it).
	if _, err := bufio.NewReader(pre.statusR).ReadString('\n'); err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("started", pre.child.Pid)
	switch how {
	case "wait":
		select {}
	case "exit":
		// bwrap has built the sandbox by now and waits on the block.
		time.Sleep(300 * time.Millisecond)
	}
	return 0
}

// aheadLaunch is the launch of a run of /bin/true in a compat sandbox of
// dir, as Start reports it, with its command replaced by argv.
func aheadLaunch(t *testing.T, dir string, argv ...string) *Launch {
	t.Helper()
	b := bwBackend(t)
	a := &Ahead{}
	proc, err := b.Start(bwPolicy(t, dir), &Command{Argv: []string{"/bin/true"}, Env: bwEnv,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Ahead: a})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := proc.Wait(); err != nil || st.ExitCode != 0 {
		t.Fatalf("true: %v %v", st, err)
	}
	if a.Hit || a.Launch == nil {
		t.Fatalf("a start with nothing ahead reported hit %v, launch %v", a.Hit, a.Launch)
	}
	opts, command, ok := prelaunch.SplitLaunchArgs(a.Launch.Args)
	if !ok || !slices.Equal(command, []string{"/bin/true"}) {
		t.Fatalf("launch not reusable: %q", a.Launch.Args)
	}
	args, err := prelaunch.JoinLaunchArgs(opts, argv)
	if err != nil {
		t.Fatal(err)
	}
	return &Launch{Path: a.Launch.Path, Args: args, Env: a.Launch.Env}
}

// aheadNeverRan checks, for a while, that the marker file does not exist.
func aheadNeverRan(t *testing.T, marker string) {
	t.Helper()
	time.Sleep(300 * time.Millisecond)
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("the command of a sandbox started ahead ran: %s holds %q", marker, b)
	}
}

// aheadGroupGone waits until no live process is left in process group
// pgid (zombies waiting for init aside).
func aheadGroupGone(t *testing.T, pgid int) {
	t.Helper()
	alive := func() []string {
		var left []string
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if err != nil {
				continue
			}
			// pid (comm) state ppid pgrp ...
			s := string(b)
			f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
			if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
				left = append(left, strconv.Itoa(pid))
			}
		}
		return left
	}
	if !bwEventually(3*time.Second, func() bool { return len(alive()) == 0 }) {
		left := alive()
		var why []string
		for _, pid := range left {
			st, _ := os.ReadFile("/proc/" + pid + "/status")
			cmd, _ := os.ReadFile("/proc/" + pid + "/cmdline")
			wchan, _ := os.ReadFile("/proc/" + pid + "/wchan")
			why = append(why, fmt.Sprintf("%s %q wchan %s\n%s", pid, cmd, wchan, st))
		}
		t.Fatalf("processes of the sandbox started ahead still alive: %v", why)
	}
}

// aheadKillLeft kills what is left of sandboxes whose command line names
// dir (a test's own temporary directory).
func aheadKillLeft(dir string) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil &&
			strings.HasPrefix(string(b), "bwrap\x00") && strings.Contains(string(b), dir) {
			unix.Kill(pid, unix.SIGKILL)
		}
	}
}

func TestAheadUsed(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	script := "echo ran > " + marker
	l := aheadLaunch(t, dir, "/bin/sh", "-c", script)
	a := StartAhead(l, os.Stdin, os.Stdout, os.Stderr)
	if a.pre == nil {
		t.Fatal("nothing started ahead")
	}
	proc, err := bwBackend(t).Start(bwPolicy(t, dir), &Command{Argv: []string{"/bin/sh", "-c", script}, Env: bwEnv,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Ahead: a})
	if err != nil {
		t.Fatal(err)
	}
	st, err := proc.Wait()
	if err != nil || st.ExitCode != 0 {
		t.Fatalf("run: %v %v", st, err)
	}
	if !a.Hit || a.Launch != nil {
		t.Errorf("hit %v, launch %v: the sandbox started ahead was not used", a.Hit, a.Launch)
	}
	if b, err := os.ReadFile(marker); err != nil || string(b) != "ran\n" {
		t.Errorf("marker: %q %v", b, err)
	}
	a.Cancel() // after use: nothing to do
}

// TestAheadCapturedOutput: a sandbox started ahead with writers that are
// not files (serve's capture) is used when the run has the same ones, and
// what the command prints reaches them only once it is.
func TestAheadCapturedOutput(t *testing.T) {
	dir := t.TempDir()
	var out bwLockedBuffer
	l := aheadLaunch(t, dir, "/bin/sh", "-c", "echo out; echo err >&2")
	a := StartAhead(l, nil, &out, &out)
	if a.pre == nil {
		t.Fatal("nothing started ahead")
	}
	proc, err := bwBackend(t).Start(bwPolicy(t, dir), &Command{Argv: []string{"/bin/sh", "-c", "echo out; echo err >&2"},
		Env: bwEnv, Stdout: &out, Stderr: &out, Ahead: a})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := proc.Wait(); err != nil || st.ExitCode != 0 {
		t.Fatalf("run: %v %v", st, err)
	}
	if !a.Hit {
		t.Error("the sandbox started ahead was not used")
	}
	if got := out.String(); got != "out\nerr\n" {
		t.Errorf("output: %q", got)
	}
	// Another writer: not used, and nothing of it reaches either.
	var other, mine bwLockedBuffer
	a = StartAhead(l, nil, &other, &other)
	proc, err = bwBackend(t).Start(bwPolicy(t, dir), &Command{Argv: []string{"/bin/sh", "-c", "echo out; echo err >&2"},
		Env: bwEnv, Stdout: &mine, Stderr: &mine, Ahead: a})
	if err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	if a.Hit || mine.String() != "out\nerr\n" || other.String() != "" {
		t.Errorf("hit %v, run's output %q, early one's %q", a.Hit, mine.String(), other.String())
	}
}

// bwLockedBuffer is a buffer two goroutines may write.
type bwLockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *bwLockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *bwLockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestAheadOtherLaunchNeverRuns: a sandbox started ahead that is not the
// one the run needs (another command, another environment, other stdio)
// is killed before its command could run, and the run's own runs.
func TestAheadOtherLaunchNeverRuns(t *testing.T) {
	dir := t.TempDir()
	early := filepath.Join(dir, "early")
	late := filepath.Join(dir, "late")
	// Run with LATE set, the script writes late; without, early.
	script := "if test -n \"$LATE\"; then echo x > " + late + "; else echo x > " + early + "; fi"
	cases := []struct {
		name  string
		cmd   func(*Command)
		later bool // the launch can be remembered for a later run
	}{
		{"command", func(c *Command) { c.Argv = []string{"/bin/sh", "-c", "echo x > " + late} }, true},
		{"environment", func(c *Command) { c.Env = append(slices.Clone(bwEnv), "LATE=1") }, true},
		{"stdout", func(c *Command) {
			c.Argv = []string{"/bin/sh", "-c", "echo x > " + late}
			c.Stdout = &strings.Builder{}
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(early)
			os.Remove(late)
			a := StartAhead(aheadLaunch(t, dir, "/bin/sh", "-c", script), os.Stdin, os.Stdout, os.Stderr)
			if a.pre == nil {
				t.Fatal("nothing started ahead")
			}
			c := &Command{Argv: []string{"/bin/sh", "-c", script}, Env: bwEnv,
				Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Ahead: a}
			tc.cmd(c)
			proc, err := bwBackend(t).Start(bwPolicy(t, dir), c)
			if err != nil {
				t.Fatal(err)
			}
			if st, err := proc.Wait(); err != nil || st.ExitCode != 0 {
				t.Fatalf("run: %v %v", st, err)
			}
			if a.Hit || (a.Launch != nil) != tc.later {
				t.Errorf("hit %v, launch %v", a.Hit, a.Launch)
			}
			if _, err := os.Stat(late); err != nil {
				t.Errorf("the run's own command did not run: %v", err)
			}
			aheadNeverRan(t, early)
		})
	}
}

// TestAheadCancelNeverRuns: a run that starts no command kills the
// sandbox started ahead; its command never runs and nothing is left.
func TestAheadCancelNeverRuns(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	a := StartAhead(aheadLaunch(t, dir, "/bin/sh", "-c", "echo ran > "+marker), os.Stdin, os.Stdout, os.Stderr)
	if a.pre == nil {
		t.Fatal("nothing started ahead")
	}
	<-a.pre.done
	if a.pre.err != nil {
		t.Fatal(a.pre.err)
	}
	pid := a.pre.child.Pid
	time.Sleep(200 * time.Millisecond) // bwrap is waiting on the block by now
	a.Cancel()
	a.Cancel()
	aheadNeverRan(t, marker)
	aheadGroupGone(t, pid)
}

// TestAheadParentDiesNeverRuns: when the run that started a sandbox ahead
// ends without releasing it (exits, or is killed with SIGKILL), the
// sandbox's command never runs and bwrap does not linger. (One that ends
// while bwrap still builds the sandbox, "early", can leave bwrap's first
// process inside waiting for ever: bwrap arms its parent-death signal
// only once the sandbox is built. Its command never runs either.)
func TestAheadParentDiesNeverRuns(t *testing.T) {
	for _, how := range []string{"exit", "wait", "early"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			marker := filepath.Join(dir, "marker")
			l := aheadLaunch(t, dir, "/bin/sh", "-c", "echo ran > "+marker)
			spec := filepath.Join(dir, "launch")
			text := strings.Join(append([]string{l.Path}, l.Args...), "\n") + "\n=\n" + strings.Join(l.Env, "\n")
			if err := os.WriteFile(spec, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(exe, aheadTestParentArg, spec, how)
			cmd.Stderr = os.Stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line := bwReadLine(t, bufio.NewReader(out))
			pid, err := strconv.Atoi(strings.TrimPrefix(line, "started "))
			if err != nil {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("helper: %q", line)
			}
			if how == "wait" {
				time.Sleep(200 * time.Millisecond)
				cmd.Process.Signal(syscall.SIGKILL)
			}
			cmd.Wait()
			aheadNeverRan(t, marker)
			if how != "early" {
				aheadGroupGone(t, pid)
			} else {
				aheadKillLeft(dir)
			}
		})
	}
}

// TestAheadLaunchShape: only launches whose sandbox waits on the block
// before the command are started ahead, or remembered.
func TestAheadLaunchShape(t *testing.T) {
	good := []string{"--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/", "--chdir", "/"}
	args, err := prelaunch.JoinLaunchArgs(good, []string{"true"})
	if err != nil {
		t.Fatal(err)
	}
	if o, c, ok := prelaunch.SplitLaunchArgs(args); !ok || !slices.Equal(o, good) || !slices.Equal(c, []string{"true"}) {
		t.Fatalf("round trip: %q %q %v", o, c, ok)
	}
	for _, opts := range [][]string{
		{"--unshare-pid", "--die-with-parent"},                  // not first
		{"--die-with-parent", "--bind-data", "7", "/etc/x"},     // a descriptor
		{"--die-with-parent", "--ro-bind", "/"},                 // a value short
		{"--die-with-parent", "--symlink", "/x", "/home/u/.rc"}, // writes beyond mount points
		{"--die-with-parent", "--block-fd", "9"},
		{"--die-with-parent", "--setenv"}, // would take our suffix as its values
	} {
		if _, err := prelaunch.JoinLaunchArgs(opts, []string{"true"}); err == nil {
			t.Errorf("options %q accepted", opts)
		}
	}
	for _, args := range [][]string{
		{"--die-with-parent", "--", "true"},
		{"--die-with-parent", "--json-status-fd", "3", "--seccomp", "4", "--", "true"},
		{"--die-with-parent", "--json-status-fd", "3", "--block-fd", "5", "--seccomp", "4", "--"},
	} {
		if _, _, ok := prelaunch.SplitLaunchArgs(args); ok {
			t.Errorf("launch %q accepted", args)
		}
	}
	// StartAhead itself refuses such a launch: nothing starts.
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	a := StartAhead(&Launch{Path: "/usr/bin/bwrap", Args: []string{"--die-with-parent", "--ro-bind", "/", "/", "--",
		"/bin/sh", "-c", "echo ran > " + marker}}, os.Stdin, os.Stdout, os.Stderr)
	if a.pre != nil {
		t.Fatal("a launch without the block was started ahead")
	}
	// And one with a missing source is not tried.
	l := aheadLaunch(t, dir, "/bin/sh", "-c", "echo ran > "+marker)
	l.Args = append([]string{l.Args[0], "--ro-bind", filepath.Join(dir, "missing"), "/mnt"}, l.Args[1:]...)
	if a := StartAhead(l, os.Stdin, os.Stdout, os.Stderr); a.pre != nil {
		a.Cancel()
		t.Fatal("a launch with a missing source was started ahead")
	}
}

// TestAheadMissingDestination: a remembered launch that masks a path no
// longer there (a file removed since) is not started ahead: bwrap would
// make the path, on the host when it lies in a writable root, even in a
// sandbox killed unused.
func TestAheadMissingDestination(t *testing.T) {
	dir := t.TempDir()
	l := aheadLaunch(t, dir, "/bin/true")
	opts, command, ok := prelaunch.SplitLaunchArgs(l.Args)
	if !ok {
		t.Fatal("launch not reusable")
	}
	gone := filepath.Join(dir, "gone.env")
	args, err := prelaunch.JoinLaunchArgs(append(slices.Clone(opts), "--ro-bind", "/dev/null", gone), command)
	if err != nil {
		t.Fatal(err)
	}
	l.Args = args
	a := StartAhead(l, os.Stdin, os.Stdout, os.Stderr)
	time.Sleep(300 * time.Millisecond) // a bwrap would have built the sandbox by now
	a.Cancel()
	if a.pre != nil {
		t.Error("started ahead with a destination that does not exist")
	}
	if _, err := os.Lstat(gone); err == nil {
		t.Fatalf("%s was made on the host", gone)
	}

	// With the file there, it starts (and is killed, nothing made).
	if err := os.WriteFile(gone, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a = StartAhead(l, os.Stdin, os.Stdout, os.Stderr)
	if a.pre == nil {
		t.Fatal("nothing started ahead with every path there")
	}
	pid := a.pre.child.Pid
	a.Cancel()
	aheadGroupGone(t, pid)
}
