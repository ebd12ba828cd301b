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
		out, err := exec.Command("go", "build", "-o", *bin, "./cmd/safeexec").CombinedOutput()
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

	se := append([]string{*bin}, strings.Fields(*extra)...)
	se = append(se, "--", "true")
	// The bare command: the same namespaces, mounts and writable root that
	// safeexec sets up, without classification, config, audit or masks.
	bare := []string{"bwrap", "--die-with-parent", "--new-session",
		"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--unshare-cgroup-try",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
		"--bind", work, work, "--chdir", work, "--cap-drop", "ALL", "--", "true"}

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
