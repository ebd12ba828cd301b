package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// usernsCache remembers that the user-namespace probe succeeded, so that a
// run inside a container (where only trying tells, see detectBwrap) does
// not start a probe process every time. The answer holds for the rest of
// the boot, for this user, in these namespaces and under this seccomp
// filter: the key says so, and a key that differs is a miss.
//
// Only success is remembered, and what it lets through is bwrap itself: if
// the namespaces are refused after all, bwrap fails to create the sandbox,
// the run is refused (never run unconfined) and the entry is forgotten, so
// the next run probes again. A forged or stale entry can therefore cost a
// refusal, never confinement.
type usernsCache struct {
	path string // "" when there is nowhere to keep it
	key  []byte
}

// usernsCacheName is the file under the cache directory.
const usernsCacheName = "userns-probe"

// newUsernsCache finds where the entry lives and computes this process's
// key. A key that cannot be computed makes a cache that never hits.
func newUsernsCache() *usernsCache {
	c := &usernsCache{}
	key, ok := usernsKey()
	if !ok {
		return c
	}
	dir := usernsCacheDir()
	if dir == "" {
		return c
	}
	c.path, c.key = filepath.Join(dir, usernsCacheName), key
	return c
}

// usernsKey names the situation the probe's answer belongs to: the boot,
// the user, the user and mount namespaces (another container has others),
// and the seccomp filters on this process (what refuses namespaces in a
// container).
func usernsKey() ([]byte, bool) {
	boot, ok := readSysctl("/proc/sys/kernel/random/boot_id")
	if !ok || boot == "" {
		return nil, false
	}
	var b bytes.Buffer
	b.WriteString("v1 boot=" + boot)
	b.WriteString(" uid=" + strconv.Itoa(os.Getuid()) + " euid=" + strconv.Itoa(os.Geteuid()))
	for _, ns := range []string{"user", "mnt"} {
		var st unix.Stat_t
		if err := unix.Stat("/proc/self/ns/"+ns, &st); err != nil {
			return nil, false
		}
		b.WriteString(" " + ns + "=" + strconv.FormatUint(st.Dev, 10) + ":" + strconv.FormatUint(st.Ino, 10))
	}
	filters, ok := seccompFilters()
	if !ok {
		return nil, false
	}
	b.WriteString(" seccomp=" + filters + "\n")
	return b.Bytes(), true
}

// seccompFilters reads the Seccomp and Seccomp_filters lines of
// /proc/self/status.
func seccompFilters() (string, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "", false
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "Seccomp") {
			out = append(out, strings.Join(strings.Fields(line), ""))
		}
	}
	if len(out) == 0 {
		return "", false
	}
	return strings.Join(out, ","), true
}

// usernsCacheDir is a directory only this user can write: the per-user
// runtime directory (gone at logout and reboot) when there is one,
// otherwise safeexec's directory in the user's cache.
func usernsCacheDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) && ownedDir(d) {
		return filepath.Join(d, "safeexec")
	}
	if d := os.Getenv("XDG_CACHE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "safeexec")
	}
	if h := os.Getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".cache", "safeexec")
	}
	return ""
}

func ownedDir(d string) bool {
	var st unix.Stat_t
	return unix.Stat(d, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && int(st.Uid) == os.Getuid()
}

// hit reports whether the entry exists, is a regular file of this user
// that nobody else can write, and holds this process's key.
func (c *usernsCache) hit() bool {
	if c.path == "" {
		return false
	}
	fd, err := unix.Open(c.path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Getuid() || st.Mode&0o022 != 0 {
		return false
	}
	buf := make([]byte, len(c.key)+1)
	n, err := unix.Read(fd, buf)
	return err == nil && n == len(c.key) && bytes.Equal(buf[:n], c.key)
}

// remember writes the entry (best effort: a run never fails for it).
func (c *usernsCache) remember() {
	if c.path == "" {
		return
	}
	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o700); err != nil || !ownedDir(dir) {
		return
	}
	tmp, err := os.CreateTemp(dir, usernsCacheName+".*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(c.key)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), c.path) != nil {
		os.Remove(tmp.Name())
	}
}

// forget removes the entry, so the next run probes again.
func (c *usernsCache) forget() {
	if c.path != "" {
		if err := os.Remove(c.path); err != nil && !os.IsNotExist(err) {
			// Unremovable: at least make it miss.
			os.WriteFile(c.path, nil, 0o600)
		}
	}
}

// probeRuns counts user-namespace probes, for tests.
var probeRuns int

// probeUserns creates the namespaces bwrap needs in a child that then fails
// to exec "/" on purpose: EACCES from exec means the clone worked.
func probeUserns() error {
	probeRuns++
	_, err := syscall.ForkExec("/", []string{"safeexec-userns-probe"}, &syscall.ProcAttr{
		Sys: &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS |
			syscall.CLONE_NEWPID | syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS},
	})
	if err == syscall.EACCES {
		return nil
	}
	if err == nil {
		return errProbeRan
	}
	return err
}
