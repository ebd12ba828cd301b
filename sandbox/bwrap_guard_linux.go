package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Placeholders.
//
// A mount needs an existing path to sit on. For a protected or masked path
// that does not exist yet (a new .envrc, ~/.aws), safeexec creates an empty
// file (a directory for a missing intermediate component) on the host while
// sandboxes use it and removes it after. Removing it too early would be a
// hole: unlinking a mount point on the host silently detaches the mount in
// every sandbox that uses it. So placeholders are recorded per directory in
// an entry file of a per-user registry, and the entry is also their lock:
//
//   - a run that creates a placeholder, or mounts on a path in a directory
//     that has placeholders, holds a shared flock on that directory's entry
//     until its sandbox is gone;
//   - when a run ends it tries to take each of its entries exclusively,
//     without waiting; whoever succeeds is the last user and removes every
//     placeholder the entry records that is still the same, empty file or
//     directory, then the entry;
//   - a small watchdog (sh and flock(1)) inherits the locks and outlives a
//     safeexec killed with SIGKILL: it waits for the sandbox to be gone (EOF
//     on bwrap's --sync-fd) and does the same. When safeexec ends normally
//     it cleans up itself and stops the watchdog.
//
// A run that touches no placeholder takes no lock and starts no watchdog.
// The registry lives in a private directory (/run/safeexec for root,
// $XDG_RUNTIME_DIR/safeexec, else $TMPDIR/safeexec-UID), which the sandbox
// cannot see: /run and /tmp are private inside.

// placeholderScript is the watchdog. fd 3 is the sync pipe; the arguments
// come in threes: lock fd, directory, entry file; or "-", a cgroup
// directory to remove, "-". Entry lines are "kind inode name".
const placeholderScript = `read -r _ <&3
exec 3<&-
while [ $# -ge 3 ]; do
	fd=$1 dir=$2 e=$3
	shift 3
	if [ "$fd" = - ]; then
		for i in 1 2 3 4 5 6 7 8 9 10; do rmdir -- "$dir" 2>/dev/null && break; sleep 0.1; done
		continue
	fi
	flock -xn "$fd" || continue
	[ "$(stat -L -c %h "/dev/fd/$fd" 2>/dev/null)" = 0 ] && continue
	while read -r kind ino name; do
		p=$dir/$name
		[ "$(stat -c %i -- "$p" 2>/dev/null)" = "$ino" ] || continue
		case $kind in
		d) rmdir -- "$p" 2>/dev/null ;;
		f) if [ -f "$p" ] && [ ! -L "$p" ] && [ ! -s "$p" ]; then rm -f -- "$p"; fi ;;
		esac
	done < "$e"
	rm -f -- "$e"
done
`

var placeholderDirOnce struct {
	sync.Once
	dir string
	err error
}

// placeholderDir returns the private registry directory, creating it.
func placeholderDir() (string, error) {
	placeholderDirOnce.Do(func() {
		uid := os.Getuid()
		var cands []string
		if uid == 0 {
			cands = append(cands, "/run/safeexec")
		}
		if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) {
			cands = append(cands, filepath.Join(x, "safeexec"))
		}
		cands = append(cands, filepath.Join(os.TempDir(), "safeexec-"+strconv.Itoa(uid)))
		var errs []error
		for _, d := range cands {
			reg := filepath.Join(d, "placeholders")
			if err := privateDir(d, uid); err != nil {
				errs = append(errs, err)
				continue
			}
			if err := privateDir(reg, uid); err != nil {
				errs = append(errs, err)
				continue
			}
			placeholderDirOnce.dir = reg
			return
		}
		placeholderDirOnce.err = fmt.Errorf("no private directory for placeholders: %w", errors.Join(errs...))
	})
	return placeholderDirOnce.dir, placeholderDirOnce.err
}

// privateDir makes sure d is a directory owned by uid that nobody else can
// write or list.
func privateDir(d string, uid int) error {
	if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	var st unix.Stat_t
	if err := unix.Lstat(d, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != uid || st.Mode&0o077 != 0 {
		return fmt.Errorf("%s is not a private directory of uid %d", d, uid)
	}
	return nil
}

// heldGroup is a directory whose placeholder entry this run holds.
type heldGroup struct {
	dir   string
	entry string
	lock  *os.File
}

type placeholderGuard struct {
	reg      string
	held     map[string]*heldGroup // by directory
	created  int
	watchdog chan *exec.Cmd // the watchdog, once started (nil if it never was)
	timer    *time.Timer    // starts the watchdog
	sync     *os.File       // the watchdog's end of bwrap's --sync-fd
}

func newPlaceholderGuard() *placeholderGuard {
	return &placeholderGuard{held: map[string]*heldGroup{}}
}

func (g *placeholderGuard) registry() (string, error) {
	if g.reg == "" {
		d, err := placeholderDir()
		if err != nil {
			return "", err
		}
		g.reg = d
	}
	return g.reg, nil
}

func entryName(dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return hex.EncodeToString(sum[:16])
}

// lockEntry takes a shared lock on an open entry; false when the entry was
// removed meanwhile (its placeholders are gone or going).
func lockEntry(f *os.File) bool {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_SH)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false
		}
		var st unix.Stat_t
		return unix.Fstat(int(f.Fd()), &st) == nil && st.Nlink > 0
	}
}

// group returns the held entry of dir, opening (and with create, making)
// and locking it first. nil means dir has no placeholders (create false)
// or the entry vanished while we waited (again).
func (g *placeholderGuard) group(dir string, create bool) (h *heldGroup, again bool, err error) {
	if h := g.held[dir]; h != nil {
		return h, false, nil
	}
	reg, err := g.registry()
	if err != nil {
		if create {
			return nil, false, err
		}
		return nil, false, nil // no registry: no placeholders can exist
	}
	e := filepath.Join(reg, entryName(dir))
	flags := os.O_RDWR | os.O_APPEND | syscall.O_NOFOLLOW
	if create {
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(e, flags, 0o600)
	if err != nil {
		if !create && errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("placeholder registry: %w", err)
	}
	if !lockEntry(f) {
		f.Close()
		return nil, true, nil
	}
	h = &heldGroup{dir: dir, entry: e, lock: f}
	g.held[dir] = h
	return h, false, nil
}

// hold locks the entries of the directories of targets that have
// placeholders. It reports whether a target vanished meanwhile, in which
// case the caller must plan again.
func (g *placeholderGuard) hold(targets []string) (changed bool) {
	locked := false
	for _, t := range targets {
		h, again, _ := g.group(filepath.Dir(t), false)
		changed = changed || again
		locked = locked || h != nil
	}
	if locked {
		for _, t := range targets {
			if _, err := os.Lstat(t); err != nil {
				changed = true
			}
		}
	}
	return changed
}

// create makes the placeholders, each recorded under its directory's
// locked entry. It returns the paths it could not create at all, and
// whether the caller must plan again because something appeared meanwhile.
func (g *placeholderGuard) create(ph []placeholder) (failed []string, again bool, err error) {
	for _, p := range ph {
		dir, name := filepath.Split(p.Path)
		dir = filepath.Clean(dir)
		if strings.ContainsAny(name, "\n\r") || name == "" {
			failed = append(failed, p.Path)
			continue
		}
		h, a, err := g.group(dir, true)
		if err != nil {
			return nil, false, err
		}
		if a {
			again = true
			continue
		}
		var ino uint64
		kind := "f"
		if p.Dir {
			kind = "d"
			err = unix.Mkdir(p.Path, 0o700)
		} else {
			var fd int
			fd, err = unix.Open(p.Path, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
			if err == nil {
				var st unix.Stat_t
				if unix.Fstat(fd, &st) == nil {
					ino = st.Ino
				}
				unix.Close(fd)
			}
		}
		switch {
		case err == nil:
			if p.Dir {
				var st unix.Stat_t
				if unix.Lstat(p.Path, &st) == nil {
					ino = st.Ino
				}
			}
			if _, werr := h.lock.WriteString(kind + " " + strconv.FormatUint(ino, 10) + " " + name + "\n"); werr != nil {
				removePlaceholder(p, ino)
				return nil, false, fmt.Errorf("placeholder registry: %w", werr)
			}
			g.created++
		case errors.Is(err, unix.EEXIST):
			again = true // plan again and mount on what is there now
		default:
			failed = append(failed, p.Path)
		}
	}
	return failed, again, nil
}

// watchdogDelay is how long a run lasts before its watchdog starts. A
// process start costs about as much as bwrap's own, so short runs (most
// commands) never pay for it; a safeexec killed before then leaves its
// placeholders to the next run that uses the same directories, which
// removes them (they are recorded, and nobody holds them).
var watchdogDelay = 50 * time.Millisecond

// watch arranges for the watchdog when this run holds placeholders or has
// a cgroup to remove. It owns sync from here on.
func (g *placeholderGuard) watch(sync *os.File, cgroup string) {
	if len(g.held) == 0 && cgroup == "" {
		sync.Close()
		return
	}
	args := []string{"safeexec-placeholder-watchdog", "-c", placeholderScript, "sh"}
	files := []*os.File{sync}
	if cgroup != "" {
		args = append(args, "-", cgroup, "-")
	}
	for _, h := range g.held {
		args = append(args, strconv.Itoa(3+len(files)), h.dir, h.entry)
		files = append(files, h.lock)
	}
	cmd := &exec.Cmd{
		Path:        "/bin/sh",
		Args:        args,
		Env:         []string{"PATH=/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL=C"},
		ExtraFiles:  files,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	g.watchdog = make(chan *exec.Cmd, 1)
	g.sync = sync
	g.timer = time.AfterFunc(watchdogDelay, func() {
		if cmd.Start() != nil {
			cmd = nil
		}
		g.watchdog <- cmd
	})
}

// release ends this run's hold on its placeholders: the last user of each
// directory removes them.
func (g *placeholderGuard) release() {
	if g == nil {
		return
	}
	var w *exec.Cmd
	if g.watchdog != nil {
		// The watchdog shares our locks: it must have started (or
		// failed to) before we let go of them, unless it never will.
		if g.timer.Stop() {
			close(g.watchdog)
		}
		w = <-g.watchdog
		g.watchdog = nil
		g.sync.Close()
	}
	for dir, h := range g.held {
		fd := int(h.lock.Fd())
		if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil {
			var st unix.Stat_t
			if unix.Fstat(fd, &st) == nil && st.Nlink > 0 {
				removeRecorded(h)
				os.Remove(h.entry)
			}
		}
		// Unlock explicitly: the watchdog shares this open file, and
		// closing our descriptor alone would keep its lock.
		unix.Flock(fd, unix.LOCK_UN)
		h.lock.Close()
		delete(g.held, dir)
	}
	if w != nil {
		// safeexec is alive and has cleaned up: the watchdog, there for
		// the case where it is not, has nothing left to do.
		w.Process.Kill()
		go w.Wait()
	}
}

// removeRecorded removes the placeholders an entry records.
func removeRecorded(h *heldGroup) {
	b, err := os.ReadFile(h.entry)
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, " ", 3)
		if len(parts) != 3 {
			continue
		}
		ino, err := strconv.ParseUint(parts[1], 10, 64)
		if err != nil {
			continue
		}
		removePlaceholder(placeholder{Path: filepath.Join(h.dir, parts[2]), Dir: parts[0] == "d"}, ino)
	}
}

// removePlaceholder removes p if it is still the same (inode ino), empty
// directory or file; one that a host program has put something into, or
// replaced, is left alone.
func removePlaceholder(p placeholder, ino uint64) {
	var st unix.Stat_t
	if unix.Lstat(p.Path, &st) != nil || st.Ino != ino {
		return
	}
	switch {
	case p.Dir && st.Mode&unix.S_IFMT == unix.S_IFDIR:
		unix.Rmdir(p.Path)
	case !p.Dir && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Size == 0:
		unix.Unlink(p.Path)
	}
}
