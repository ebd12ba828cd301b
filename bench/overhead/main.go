// Command overhead measures what safeexec adds to a command: it runs
// `safeexec -- true` and the same bare bwrap command alternately, many
// times, and prints both medians and their ratio.
//
//	go run ./bench/overhead -n 200
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 200, "runs of each")
	bin := flag.String("bin", "", "safeexec binary (default: build one)")
	extra := flag.String("flags", "--no-network", "flags given to safeexec before --")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "safeexec-overhead-")
	check(err)
	defer os.RemoveAll(tmp)
	if *bin == "" {
		*bin = filepath.Join(tmp, "safeexec")
		cmd := exec.Command("go", "build", "-o", *bin, "./cmd/safeexec")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			fail("build safeexec: %v\n%s", err, out)
		}
	}
	work := filepath.Join(tmp, "work")
	home := filepath.Join(tmp, "home")
	check(os.MkdirAll(work, 0o755))
	check(os.MkdirAll(home, 0o755))
	env := append(os.Environ(),
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(tmp, "config"),
		"XDG_STATE_HOME="+filepath.Join(tmp, "state"),
		"XDG_CACHE_HOME="+filepath.Join(tmp, "cache"),
	)

	flags := strings.Fields(*extra)
	se := append([]string{*bin}, flags...)
	se = append(se, "--", "true")
	// The bare command is the bwrap command line safeexec itself runs
	// (read from /proc while it runs a sleep), with the same namespaces,
	// mounts and masks, minus the descriptors only safeexec can supply
	// (status, seccomp filter).
	bare, err := bwrapLine(append(append([]string{*bin}, flags...), "--", "sleep", "5"), env, work)
	check(err)
	bare = append(bare, "true")
	fmt.Printf("bare bwrap: %d arguments (the same command line as safeexec's, without its descriptors)\n", len(bare))

	for _, argv := range [][]string{se, bare} { // warm up and check both work
		if out, err := runOnce(argv, env, work); err != nil {
			fail("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
	}
	var a, b []time.Duration
	for i := 0; i < *n; i++ {
		first, second := se, bare
		if i%2 == 1 {
			first, second = bare, se
		}
		d1 := timed(first, env, work)
		d2 := timed(second, env, work)
		if i%2 == 1 {
			d1, d2 = d2, d1
		}
		a, b = append(a, d1), append(b, d2)
	}
	ma, mb := median(a), median(b)
	fmt.Printf("runs:            %d each, alternating\n", *n)
	fmt.Printf("safeexec %s -- true: median %v  p90 %v\n", *extra, ma, pct(a, 0.9))
	fmt.Printf("bare bwrap -- true:   median %v  p90 %v\n", mb, pct(b, 0.9))
	fmt.Printf("ratio (medians):      %.2fx  (+%v)\n", float64(ma)/float64(mb), ma-mb)
}

// bwrapLine starts argv (safeexec running a sleep), reads the command line
// of the bwrap it starts, and returns it up to and including the "--" that
// ends bwrap's options.
func bwrapLine(argv, env []string, dir string) ([]string, error) {
	c := exec.Command(argv[0], argv[1:]...)
	c.Env, c.Dir = env, dir
	if err := c.Start(); err != nil {
		return nil, err
	}
	defer func() { c.Process.Kill(); c.Wait() }()
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
			if len(f) < 2 || f[1] != fmt.Sprint(c.Process.Pid) {
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

func runOnce(argv, env []string, dir string) ([]byte, error) {
	c := exec.Command(argv[0], argv[1:]...)
	c.Env, c.Dir = env, dir
	return c.CombinedOutput()
}

func timed(argv, env []string, dir string) time.Duration {
	c := exec.Command(argv[0], argv[1:]...)
	c.Env, c.Dir = env, dir
	t := time.Now()
	if err := c.Run(); err != nil {
		fail("%s: %v", strings.Join(argv, " "), err)
	}
	return time.Since(t)
}

func median(d []time.Duration) time.Duration { return pct(d, 0.5) }

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
