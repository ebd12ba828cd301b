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
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Placeholders.
//
// A mount needs an existing path to sit on. For a protected or masked path
// that does not exist yet (a new .envrc, ~/.aws), safeexec creates an empty
// file or directory on the host while sandboxes use it and removes it after.
// Removing it too early would be a hole: unlinking a mount point on the host
// silently detaches the mount in every sandbox that uses it. So each
// placeholder has an entry file in a per-user registry, and the entry is
// also its lock:
//
//   - a run that creates a placeholder, or mounts on a path that is one,
//     holds a shared flock on its entry until its sandbox is gone;
//   - when a run ends it tries to take each of its entries exclusively,
//     without waiting; whoever succeeds is the last user, removes the
//     placeholder if it is still an empty file or directory, and unlinks
//     the entry;
//   - a small watchdog (sh and flock(1)) inherits the locks and outlives a
//     safeexec killed with SIGKILL: it waits for the sandbox to be gone (EOF
//     on bwrap's --sync-fd) and does the same.
//
// A run that mounts on no placeholder takes no lock and starts no watchdog.
// The registry lives in a private directory (/run/safeexec for root,
// $XDG_RUNTIME_DIR/safeexec, else $TMPDIR/safeexec-UID), which the sandbox
// cannot see: /run and /tmp are private inside.

// placeholderScript is the watchdog. fd 3 is the sync pipe; the arguments
// come in fours: lock fd, kind (d or f), placeholder path, entry path; or
// "-", "c", a cgroup directory to remove, "-".
const placeholderScript = `read -r _ <&3
exec 3<&-
while [ $# -ge 4 ]; do
	fd=$1 kind=$2 p=$3 e=$4
	shift 4
	if [ "$kind" = c ]; then
		for i in 1 2 3 4 5 6 7 8 9 10; do rmdir -- "$p" 2>/dev/null && break; sleep 0.1; done
		continue
	fi
	flock -xn "$fd" || continue
	[ "$(stat -L -c %h "/dev/fd/$fd" 2>/dev/null)" = 0 ] && continue
	case $kind in
	d) rmdir -- "$p" 2>/dev/null ;;
	f) if [ -f "$p" ] && [ ! -L "$p" ] && [ ! -s "$p" ]; then rm -f -- "$p"; fi ;;
	esac
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

// heldEntry is a placeholder this run relies on, with its locked entry.
type heldEntry struct {
	lock  *os.File
	ph    placeholder
	entry string
}

type placeholderGuard struct {
	dir      string
	held     map[string]*heldEntry // by placeholder path
	watchdog *exec.Cmd
}

func newPlaceholderGuard() *placeholderGuard {
	return &placeholderGuard{held: map[string]*heldEntry{}}
}

func (g *placeholderGuard) registry() (string, error) {
	if g.dir == "" {
		d, err := placeholderDir()
		if err != nil {
			return "", err
		}
		g.dir = d
	}
	return g.dir, nil
}

func entryName(p string) string {
	sum := sha256.Sum256([]byte(p))
	return hex.EncodeToString(sum[:16])
}

// lockEntry takes a shared lock on an open entry; false when the entry was
// removed meanwhile (its placeholder is gone or going).
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

// hold locks the entries of targets that are registered placeholders. It
// reports whether one of them vanished meanwhile, in which case the caller
// must plan again.
func (g *placeholderGuard) hold(targets []string) (changed bool) {
	dir, err := g.registry()
	if err != nil {
		return false // no registry: no placeholders can exist
	}
	for _, t := range targets {
		if g.held[t] != nil {
			continue
		}
		e := filepath.Join(dir, entryName(t))
		f, err := os.OpenFile(e, os.O_RDWR|syscall.O_NOFOLLOW, 0)
		if err != nil {
			continue // not a placeholder
		}
		if !lockEntry(f) {
			f.Close()
			changed = true
			continue
		}
		fi, err := os.Lstat(t)
		if err != nil {
			f.Close()
			changed = true
			continue
		}
		g.held[t] = &heldEntry{lock: f, ph: placeholder{Path: t, Dir: fi.IsDir()}, entry: e}
	}
	return changed
}

// create makes the placeholders, each under a locked entry. It returns
// the paths it could not create at all, and whether the caller must plan
// again because another run got there first.
func (g *placeholderGuard) create(ph []placeholder) (failed []string, again bool, err error) {
	if len(ph) == 0 {
		return nil, false, nil
	}
	dir, err := g.registry()
	if err != nil {
		return nil, false, err
	}
	for _, p := range ph {
		if g.held[p.Path] != nil {
			continue
		}
		e := filepath.Join(dir, entryName(p.Path))
		f, err := os.OpenFile(e, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		fresh := err == nil
		if errors.Is(err, fs.ErrExist) {
			f, err = os.OpenFile(e, os.O_RDWR|syscall.O_NOFOLLOW, 0)
			if errors.Is(err, fs.ErrNotExist) {
				again = true // removed meanwhile
				continue
			}
		}
		if err != nil {
			return nil, false, fmt.Errorf("placeholder registry: %w", err)
		}
		if !lockEntry(f) {
			f.Close()
			again = true
			continue
		}
		if p.Dir {
			err = os.Mkdir(p.Path, 0o700)
		} else {
			var pf *os.File
			pf, err = os.OpenFile(p.Path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
			if err == nil {
				pf.Close()
			}
		}
		switch {
		case err == nil:
			g.held[p.Path] = &heldEntry{lock: f, ph: p, entry: e}
		case errors.Is(err, fs.ErrExist):
			// Another run made it (then the entry was there before us and
			// we share it), or the host did (then it is not a placeholder
			// and must never be removed): plan again either way.
			if fi, lerr := os.Lstat(p.Path); !fresh && lerr == nil && fi.IsDir() == p.Dir {
				g.held[p.Path] = &heldEntry{lock: f, ph: p, entry: e}
			} else {
				g.drop(f, e)
			}
			again = true
		default:
			g.drop(f, e)
			failed = append(failed, p.Path)
		}
	}
	return failed, again, nil
}

// drop gives up an entry, removing it when nobody else holds it.
func (g *placeholderGuard) drop(f *os.File, e string) {
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
		os.Remove(e)
	}
	f.Close()
}

// watch starts the watchdog when this run holds placeholders or has a
// cgroup to remove.
func (g *placeholderGuard) watch(sync *os.File, cgroup string) {
	if len(g.held) == 0 && cgroup == "" {
		return
	}
	args := []string{"safeexec-placeholder-watchdog", "-c", placeholderScript, "sh"}
	files := []*os.File{sync}
	if cgroup != "" {
		args = append(args, "-", "c", cgroup, "-")
	}
	for _, h := range g.held {
		kind := "f"
		if h.ph.Dir {
			kind = "d"
		}
		args = append(args, strconv.Itoa(3+len(files)), kind, h.ph.Path, h.entry)
		files = append(files, h.lock)
	}
	cmd := &exec.Cmd{
		Path:        "/bin/sh",
		Args:        args,
		Env:         []string{"PATH=/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL=C"},
		ExtraFiles:  files,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if cmd.Start() == nil {
		g.watchdog = cmd
	}
}

// release ends this run's hold on its placeholders: the last user of each
// removes it.
func (g *placeholderGuard) release() {
	if g == nil {
		return
	}
	for path, h := range g.held {
		fd := int(h.lock.Fd())
		if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil {
			var st unix.Stat_t
			if unix.Fstat(fd, &st) == nil && st.Nlink > 0 {
				removePlaceholder(h.ph)
				os.Remove(h.entry)
			}
		}
		// Unlock explicitly: the watchdog shares this open file, and
		// closing our descriptor alone would keep its lock.
		unix.Flock(fd, unix.LOCK_UN)
		h.lock.Close()
		delete(g.held, path)
	}
	if w := g.watchdog; w != nil {
		// safeexec is alive and has cleaned up: the watchdog, there for
		// the case where it is not, has nothing left to do.
		g.watchdog = nil
		w.Process.Kill()
		go w.Wait()
	}
}

// removePlaceholder removes p if it is still an empty directory or file;
// one that a host program has put something into is left alone.
func removePlaceholder(p placeholder) {
	if p.Dir {
		unix.Rmdir(p.Path)
		return
	}
	var st unix.Stat_t
	if unix.Lstat(p.Path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Size == 0 {
		unix.Unlink(p.Path)
	}
}
