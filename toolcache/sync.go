package toolcache

// When the go command can do without GOCACHEPROG.
//
// A GOCACHEPROG costs the go command a round trip to another process for
// every cache lookup: hundreds for the smallest test, thousands in a real
// module, each a wait for the scheduler on a busy machine. So the cache
// program only runs until the project's cache has what the host's could
// give: it copies every entry it finds only in the host's cache into the
// project's, and a session that found everything in the project's cache
// leaves a mark there. The mark names the host's cache, the go toolchain
// on PATH and the kind of command (goKind). While the mark stands (a
// day), the same kind of command runs with GOCACHE alone, at the speed of
// a bare go command; the next day, or with another toolchain or another
// kind of command, the cache program looks again for what the host's
// cache has gained.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// syncFile holds the marks, in a subdirectory of the project's cache so
// that `go clean -cache`, which removes the subdirectories, removes them
// with the entries.
func syncFile(own string) string { return filepath.Join(own, "00", "safeexec-synced") }

// syncMarks is how many marks a project's cache keeps, the newest.
const syncMarks = 64

// syncAge is how long a mark stands.
const syncAge = 24 * time.Hour

// syncMark names the host's cache, a go toolchain (goToolchain) and a
// kind of command (goKind).
func syncMark(host, toolchain, kind string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s", host, toolchain, kind)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// readMarks returns the marks in own's sync file younger than syncAge.
func readMarks(own string, now time.Time) []string {
	b, err := os.ReadFile(syncFile(own))
	if err != nil || len(b) > 64<<10 {
		return nil
	}
	var marks []string
	for _, line := range strings.Split(string(b), "\n") {
		_, at, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		t, err := strconv.ParseInt(at, 10, 64)
		if err != nil || now.Sub(time.Unix(t, 0)) > syncAge || time.Unix(t, 0).After(now.Add(time.Hour)) {
			continue
		}
		marks = append(marks, line)
	}
	return marks
}

// synced reports whether own holds mark.
func synced(own, mark string, now time.Time) bool {
	for _, line := range readMarks(own, now) {
		if m, _, _ := strings.Cut(line, " "); m == mark {
			return true
		}
	}
	return false
}

// addSyncMark records mark in own. Two sessions that write at once may
// lose one's mark: that costs a later command the cache program again,
// nothing more.
func addSyncMark(own, mark string, now time.Time) error {
	var keep []string
	for _, line := range readMarks(own, now) {
		if m, _, _ := strings.Cut(line, " "); m != mark {
			keep = append(keep, line)
		}
	}
	keep = append(keep, mark+" "+strconv.FormatInt(now.Unix(), 10))
	if len(keep) > syncMarks {
		keep = keep[len(keep)-syncMarks:]
	}
	return writeAtomic(syncFile(own), []byte(strings.Join(keep, "\n")+"\n"))
}

// goSubcommands are the go subcommands that look up the build cache.
var goSubcommands = []string{"build", "test", "vet", "run", "install", "list", "generate", "tool", "mod", "get", "work", "fix"}

// goBuildFlags are the go command's flags that change what it builds
// (and so which cache entries it looks for); goValueFlags among them take
// a value, as -flag=value or as the next word.
var (
	goBuildFlags = []string{"race", "msan", "asan", "cover", "covermode", "coverpkg", "tags", "gcflags", "ldflags", "asmflags",
		"buildmode", "compiler", "gccgoflags", "installsuffix", "linkshared", "mod", "modfile", "overlay", "pgo", "trimpath",
		"buildvcs", "toolexec", "fuzz"}
	goValueFlags = []string{"covermode", "coverpkg", "tags", "gcflags", "ldflags", "asmflags", "buildmode", "compiler",
		"gccgoflags", "installsuffix", "mod", "modfile", "overlay", "pgo", "toolexec", "fuzz"}
)

// goKind is the kind of a command for the sync marks: the words of the
// command that decide which build results the go commands it runs look
// for (go's subcommands, its build flags, assignments to Go's variables)
// and the Go variables of its environment. Words it does not know (test
// names, packages, a make target) are left out, so that `go test -run A`
// and `go test -run B` are one kind; a kind too coarse (a Makefile that
// changed) costs a compile the host's cache could have spared, one too
// fine a session of the cache program.
func goKind(command, env []string) string {
	var words []string
	for _, s := range command {
		words = append(words, strings.FieldsFunc(s, func(r rune) bool {
			return r == ' ' || r == '\t' || r == '\n' || r == '\r' || strings.ContainsRune(";&|()<>'\"`\\", r)
		})...)
	}
	var kind []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if slices.Contains(goSubcommands, w) {
			kind = append(kind, w)
			continue
		}
		if name, _, ok := strings.Cut(w, "="); ok && isGoVar(name) {
			kind = append(kind, w)
			continue
		}
		if !strings.HasPrefix(w, "-") {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if !slices.Contains(goBuildFlags, name) {
			continue
		}
		if !hasValue && slices.Contains(goValueFlags, name) && i+1 < len(words) {
			i++
			w += "=" + words[i]
		}
		kind = append(kind, w)
	}
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); isGoVar(name) {
			kind = append(kind, "env:"+kv)
		}
	}
	slices.Sort(kind)
	return strings.Join(slices.Compact(kind), "\x00")
}

// isGoVar reports whether an environment variable can change what the go
// command builds. The caches' own variables, which safeexec sets, do not.
func isGoVar(name string) bool {
	return (strings.HasPrefix(name, "GO") || strings.HasPrefix(name, "CGO_") || name == "CC" || name == "CXX") &&
		!contains(replaced, name) && !isRedirected(name)
}

// goToolchain identifies the go command that PATH in env finds: its path,
// size and modification time (a new Go release replaces the binary and
// all of the standard library's cache keys). "" when there is none.
func goToolchain(env []string) string {
	path, _ := envValue(env, "PATH")
	name := "go"
	if runtime.GOOS == "windows" {
		name = "go.exe"
		for _, kv := range env {
			if k, v, _ := strings.Cut(kv, "="); strings.EqualFold(k, "PATH") {
				path = v
			}
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return fmt.Sprintf("%s %d %d", p, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return ""
}
