//go:build linux

// Command overhead measures what safeexec adds to a command: it runs
// `safeexec -- true` and the same bare bwrap command in interleaved rounds
// (A B, B A, A B, ...), and prints the median of the per-round ratios A/B
// next to both medians. Pairing each run with its neighbour keeps the ratio
// meaningful while the machine's speed drifts under other load. It does so
// in a small project and, in the same rounds, in a large one (a git
// repository of about 5 000 directories and 50 000 files with nested
// repositories), so that a cost growing with the project shows as a
// higher ratio there; it prints the large ratio over the small one.
//
//	go run ./bench/overhead -n 200
//	go run ./bench/overhead -user nobody -flags ""      # non-root, network on (the bridge)
//	go run ./bench/overhead -rss 20                      # safeexec's own peak RSS (VmHWM)
//	go run ./bench/overhead -serve                       # safeexec serve, per command
//	go run ./bench/overhead -serve -gap 40ms             # with 40 ms after each command
//	go run ./bench/overhead -work -n 30                  # go test and npm test, bare against safeexec
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 200, "rounds (each runs safeexec once and bare bwrap once)")
	bin := flag.String("bin", "", "safeexec binary (default: build one the way the README says)")
	extra := flag.String("flags", "--no-network", "flags given to safeexec before --")
	as := flag.String("user", "", "run both as this user (name or uid; needs root), e.g. nobody")
	serve := flag.Bool("serve", false, "measure `safeexec serve` running a stream of true commands (create, wait_for_exit, release) instead of one safeexec process per command")
	rss := flag.Int("rss", 0, "also measure safeexec's peak RSS (VmHWM, read from /proc as it exits) over this many runs")
	largeDirs := flag.Int("large-dirs", 5000, "directories of the large project (10 files each); 0: the small project only")
	gap := flag.Duration("gap", 0, "with -serve: pause this long after each command, serve's and bare bwrap's alike (a client's think time, in which serve builds the next command's sandbox; without it that work overlaps the bare bwrap run it is compared with)")
	workMode := flag.Bool("work", false, "measure real work instead: `go test` of a small module and `npm test` of a small package, bare (no sandbox) against under safeexec")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "safeexec-overhead-")
	check(err)
	defer os.RemoveAll(tmp)
	defer func() {
		for _, d := range nestedDirs {
			os.RemoveAll(d)
		}
	}()
	check(os.Chmod(tmp, 0o755))
	if *bin == "" {
		*bin = filepath.Join(tmp, "safeexec")
		build(*bin, "./cmd/safeexec", "urfave_cli_no_docs")
		build(filepath.Join(tmp, "safeexec-bridge"), "./cmd/safeexec-bridge", "")
	}
	var cred *syscall.Credential
	if *as != "" {
		cred = credential(*as)
		// The binary must be where the user can run it.
		if !strings.HasPrefix(*bin, tmp+"/") {
			b := filepath.Join(tmp, "safeexec")
			copyFile(*bin, b)
			*bin = b
		}
		for _, sib := range []string{"safeexec-bridge"} {
			if src := filepath.Join(filepath.Dir(*bin), sib); exists(src) {
				copyFile(src, filepath.Join(tmp, sib))
			}
		}
	}

	work := filepath.Join(tmp, "work")
	home := filepath.Join(tmp, "home")
	env := append(os.Environ(),
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "config"),
		"XDG_STATE_HOME="+filepath.Join(tmp, "state"),
		"XDG_CACHE_HOME="+filepath.Join(tmp, "cache"),
		"XDG_RUNTIME_DIR=",
	)
	for _, d := range []string{work, home, filepath.Join(tmp, "config"), filepath.Join(tmp, "state"), filepath.Join(tmp, "cache")} {
		check(os.MkdirAll(d, 0o755))
		if cred != nil {
			check(os.Chown(d, int(cred.Uid), int(cred.Gid)))
		}
	}
	r := &runner{env: env, dir: work, cred: cred}

	flags := strings.Fields(*extra)
	if *workMode {
		fmt.Printf("load:       %s\n", loadavg())
		runWork(tmp, r, *bin, flags, *n)
		return
	}
	se := append([]string{*bin}, flags...)
	se = append(se, "--", "true")
	// The bare command is the bwrap command line safeexec itself runs
	// (read from /proc while it runs a sleep), with the same namespaces,
	// mounts and masks, minus the descriptors only safeexec can supply
	// (status, seccomp filter) and the binds of its per-run proxy
	// directory, which is gone by then.
	bare, err := r.bwrapLine(append(append([]string{*bin}, flags...), "--", "sleep", "5"))
	check(err)
	bare = append(bare, "true")
	who := "root"
	if cred != nil {
		who = fmt.Sprintf("uid %d", cred.Uid)
	}
	fmt.Printf("load:       %s\n", loadavg())
	fmt.Printf("bare bwrap: %d arguments (safeexec's command line without its descriptors), as %s\n", len(bare), who)

	for _, argv := range [][]string{se, bare} { // warm up and check both work
		if out, err := r.output(argv); err != nil {
			fail("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
	}

	if *serve {
		s := startServe(r, *bin, flags)
		defer s.close()
		s.run("true") // warm up
		paused := func(f func() time.Duration) func() time.Duration {
			return func() time.Duration {
				d := f()
				time.Sleep(*gap)
				return d
			}
		}
		a, b := interleave(*n, paused(func() time.Duration { return s.run("true") }), paused(func() time.Duration { return r.timed(bare) }))
		name := fmt.Sprintf("safeexec %s serve, per true command", *extra)
		if *gap > 0 {
			name += fmt.Sprintf(" (%v after each command)", *gap)
		}
		report(name, a, b)
		return
	}
	if *largeDirs <= 0 {
		a, b := interleave(*n, func() time.Duration { return r.timed(se) }, func() time.Duration { return r.timed(bare) })
		report(fmt.Sprintf("safeexec %s -- true", *extra), a, b)
	} else {
		large := filepath.Join(tmp, "large")
		dirs, files := makeLarge(large, *largeDirs, cred)
		rl := &runner{env: env, dir: large, cred: cred}
		bareL, err := rl.bwrapLine(append(append([]string{*bin}, flags...), "--", "sleep", "5"))
		check(err)
		bareL = append(bareL, "true")
		for _, argv := range [][]string{se, bareL} {
			if out, err := rl.output(argv); err != nil {
				fail("%s: %v\n%s", strings.Join(argv, " "), err, out)
			}
		}
		// One round runs both projects, the small one first in even
		// rounds; within a project, safeexec first in even rounds.
		var a, b, al, bl []time.Duration
		pair := func(i int, r *runner, se, bare []string) (x, y time.Duration) {
			if i%2 == 0 {
				x = r.timed(se)
				y = r.timed(bare)
			} else {
				y = r.timed(bare)
				x = r.timed(se)
			}
			return x, y
		}
		for i := 0; i < *n; i++ {
			if i%2 == 0 {
				x, y := pair(i, r, se, bare)
				a, b = append(a, x), append(b, y)
				x, y = pair(i, rl, se, bareL)
				al, bl = append(al, x), append(bl, y)
			} else {
				x, y := pair(i, rl, se, bareL)
				al, bl = append(al, x), append(bl, y)
				x, y = pair(i, r, se, bare)
				a, b = append(a, x), append(b, y)
			}
		}
		fmt.Println("small project:")
		rs := report(fmt.Sprintf("safeexec %s -- true", *extra), a, b)
		fmt.Printf("large project (%d directories, %d files, a git repository with nested ones):\n", dirs, files)
		rl2 := report(fmt.Sprintf("safeexec %s -- true", *extra), al, bl)
		fmt.Printf("large ratio / small ratio: %.3f (the target is at most 1.10)\n", rl2/rs)
	}

	if *rss > 0 {
		var peaks []int
		for i := 0; i < *rss; i++ {
			kb, err := r.peakRSS(se)
			check(err)
			peaks = append(peaks, kb)
		}
		sort.Ints(peaks)
		fmt.Printf("peak RSS of safeexec (VmHWM at exit, %d runs): median %.1f MiB, max %.1f MiB\n",
			len(peaks), float64(peaks[len(peaks)/2])/1024, float64(peaks[len(peaks)-1])/1024)
	}
}

// interleave runs a and b n times each, alternating which goes first.
func interleave(n int, a, b func() time.Duration) (da, db []time.Duration) {
	for i := 0; i < n; i++ {
		var x, y time.Duration
		if i%2 == 0 {
			x = a()
			y = b()
		} else {
			y = b()
			x = a()
		}
		da, db = append(da, x), append(db, y)
	}
	return da, db
}

// bareName names the command report compares with.
var bareName = "bare bwrap -- true"

// report prints the medians and the median of the per-round ratios, which
// it returns.
func report(name string, a, b []time.Duration) float64 {
	ratios := make([]float64, len(a))
	diffs := make([]time.Duration, len(a))
	for i := range a {
		ratios[i] = float64(a[i]) / float64(b[i])
		diffs[i] = a[i] - b[i]
	}
	sort.Float64s(ratios)
	fmt.Printf("rounds:               %d, alternating order\n", len(a))
	fmt.Printf("%s: median %v  p90 %v\n", name, pct(a, 0.5), pct(a, 0.9))
	fmt.Printf("%s: median %v  p90 %v\n", bareName, pct(b, 0.5), pct(b, 0.9))
	fmt.Printf("ratio (median of per-round ratios): %.2fx  [p25 %.2fx, p75 %.2fx]  (+%v per command)\n",
		ratios[len(ratios)/2], ratios[len(ratios)/4], ratios[len(ratios)*3/4], pct(diffs, 0.5))
	fmt.Printf("load:       %s\n", loadavg())
	return ratios[len(ratios)/2]
}

// makeLarge makes a git repository of dirs directories with 10 files each
// and a nested repository in every hundredth, owned by cred's user when
// set; it returns the directories and files it made.
func makeLarge(dir string, dirs int, cred *syscall.Credential) (nd, nf int) {
	for i := 0; i < dirs; i++ {
		d := filepath.Join(dir, fmt.Sprintf("pkg%03d", i/50), fmt.Sprintf("mod%02d", i%50))
		check(os.MkdirAll(d, 0o755))
		nd++
		for j := 0; j < 10; j++ {
			check(os.WriteFile(filepath.Join(d, fmt.Sprintf("file%d.go", j)), []byte("package x\n"), 0o644))
			nf++
		}
		if i%100 == 0 {
			g := filepath.Join(d, "vendored", ".git")
			for _, sub := range []string{"objects", "refs/heads", "hooks"} {
				check(os.MkdirAll(filepath.Join(g, sub), 0o755))
				nd++
			}
			check(os.WriteFile(filepath.Join(g, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
			check(os.WriteFile(filepath.Join(g, "config"), []byte("[core]\n\tbare = false\n"), 0o644))
			nf += 2
		}
	}
	nd += dirs / 50
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		fail("git init %s: %v\n%s", dir, err, out)
	}
	if cred != nil {
		check(filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, int(cred.Uid), int(cred.Gid))
		}))
	}
	return nd, nf
}

// nestedDirs are the directories bwrapLine made; main removes them.
var nestedDirs []string

type runner struct {
	env  []string
	dir  string
	cred *syscall.Credential
}

func (r *runner) command(argv []string) *exec.Cmd {
	c := exec.Command(argv[0], argv[1:]...)
	c.Env, c.Dir = r.env, r.dir
	if r.cred != nil {
		c.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	}
	return c
}

func (r *runner) output(argv []string) ([]byte, error) { return r.command(argv).CombinedOutput() }

func (r *runner) timed(argv []string) time.Duration {
	c := r.command(argv)
	t := time.Now()
	if err := c.Run(); err != nil {
		fail("%s: %v", strings.Join(argv, " "), err)
	}
	return time.Since(t)
}

// bwrapLine starts argv (safeexec running a sleep), reads the command line
// of the bwrap it starts, and returns it up to and including the "--" that
// ends bwrap's options.
func (r *runner) bwrapLine(argv []string) ([]string, error) {
	c := r.command(argv)
	if err := c.Start(); err != nil {
		return nil, err
	}
	// Ended as a user would end it, once its command runs: SIGTERM, which
	// safeexec forwards. A SIGKILL while bwrap is still setting up can
	// leave bwrap's first child waiting forever for its killed parent
	// (bwrap sets its parent-death signal only later).
	defer func() {
		time.Sleep(300 * time.Millisecond)
		c.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			c.Process.Kill()
			<-done
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if err != nil {
				continue
			}
			// pid (comm) state ppid ...
			s := string(stat)
			i := strings.LastIndexByte(s, ')')
			if i < 0 || !strings.Contains(s[:i], "(bwrap") {
				continue
			}
			f := strings.Fields(s[i+1:])
			if len(f) < 2 || f[1] != strconv.Itoa(c.Process.Pid) {
				continue
			}
			raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err != nil {
				continue
			}
			args := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
			var out []string
			for j := 0; j < len(args); j++ {
				switch args[j] {
				case "--json-status-fd", "--seccomp", "--add-seccomp-fd", "--sync-fd", "--block-fd", "--info-fd":
					j++
					continue
				case "--ro-bind", "--bind", "--ro-bind-try", "--bind-try":
					if j+2 < len(args) && strings.Contains(args[j+1], "safeexec-net-") {
						j += 2 // the run's proxy sockets, gone when it ends
						continue
					}
					if j+2 < len(args) && strings.Contains(args[j+1], "safeexec-nested-") && args[j+1] == args[j+2] {
						// The run's nested channel, removed when it ends:
						// a directory of the same kind instead.
						d, err := os.MkdirTemp("", "safeexec-nested-")
						if err != nil {
							return nil, err
						}
						nestedDirs = append(nestedDirs, d)
						if r.cred != nil {
							os.Chown(d, int(r.cred.Uid), int(r.cred.Gid))
						}
						out = append(out, args[j], d, d)
						j += 2
						continue
					}
				case "--":
					return append(out, "--"), nil
				}
				out = append(out, args[j])
			}
			return nil, fmt.Errorf("no -- in bwrap's command line %q", args)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil, fmt.Errorf("safeexec started no bwrap within 10s")
}

// peakRSS runs argv under ptrace, stops it when it exits (PTRACE_EVENT_EXIT,
// while its memory still exists) and reads VmHWM from /proc: the peak
// resident set of safeexec itself, without the floor a measuring tool's
// own fork would add to ru_maxrss.
func (r *runner) peakRSS(argv []string) (int, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := r.command(argv)
	if c.SysProcAttr == nil {
		c.SysProcAttr = &syscall.SysProcAttr{}
	}
	c.SysProcAttr.Ptrace = true
	if err := c.Start(); err != nil {
		return 0, err
	}
	pid := c.Process.Pid
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil { // the exec stop
		return 0, err
	}
	const traceClone, traceExit = 0x8, 0x40 // PTRACE_O_TRACECLONE, PTRACE_O_TRACEEXIT
	if err := syscall.PtraceSetOptions(pid, traceClone|traceExit); err != nil {
		return 0, err
	}
	syscall.PtraceCont(pid, 0)
	peak := 0
	for {
		const wall = 0x40000000 // __WALL: the threads too
		wpid, err := syscall.Wait4(-1, &ws, wall, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return peak, err
		}
		if ws.Exited() || ws.Signaled() {
			if wpid == pid {
				c.Process.Release()
				if peak == 0 {
					return 0, fmt.Errorf("no exit stop seen")
				}
				return peak, nil
			}
			continue
		}
		if !ws.Stopped() {
			continue
		}
		sig := ws.StopSignal()
		if sig == syscall.SIGTRAP && ws.TrapCause() == 6 { // PTRACE_EVENT_EXIT
			if kb := vmHWM(pid); kb > peak {
				peak = kb
			}
			sig = 0
		} else if sig == syscall.SIGTRAP || sig == syscall.SIGSTOP {
			sig = 0 // clone events, new threads' first stop
		}
		syscall.PtraceCont(wpid, int(sig))
	}
}

func vmHWM(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return kb
		}
	}
	return 0
}

func credential(name string) *syscall.Credential {
	uid, err := strconv.Atoi(name)
	gid := uid
	if err != nil {
		u, err := user.Lookup(name)
		check(err)
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}
}

// build builds pkg the way the README's install section does.
func build(out, pkg, tags string) {
	cmd := exec.Command("go", "build", "-tags", tags, "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		fail("build %s: %v\n%s", pkg, err, b)
	}
}

func copyFile(src, dst string) {
	b, err := os.ReadFile(src)
	check(err)
	check(os.WriteFile(dst, b, 0o755))
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func pct(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(float64(len(s)-1)*p)]
}

func check(err error) {
	if err != nil {
		fail("%v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "overhead: "+format+"\n", args...)
	os.Exit(1)
}
