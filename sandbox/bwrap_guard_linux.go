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
// file or directory on the host while sandboxes run and removes it after.
// Removing it too early would be a hole: unlinking a mount point on the host
// silently detaches the mount in every sandbox that uses it. So:
//
//   - every bwrap run holds a shared flock on one per-user lock file from
//     before it looks at the file system until its sandbox is gone;
//   - each placeholder is recorded in a per-user registry directory before
//     it is created;
//   - whoever gets the lock exclusively (no sandbox running) removes every
//     recorded placeholder that is still an empty file or directory: the
//     last run to end cleans up for all;
//   - a small watchdog (sh and flock(1)) outlives a safeexec killed with
//     SIGKILL: it waits for the sandbox to be gone (EOF on bwrap's
//     --sync-fd), then for the exclusive lock, and cleans up the same way.
//
// The registry and lock live in a private directory (/run/safeexec for
// root, $XDG_RUNTIME_DIR/safeexec, else $TMPDIR/safeexec-UID), which the
// sandbox cannot see: /run and /tmp are private inside.

// placeholderScript is the watchdog: fd 3 is the lock (shared with the
// run), fd 4 the sync pipe, $1 the registry directory.
const placeholderScript = `read -r _ <&4
exec 4<&-
flock -x 3 || exit 0
for e in "$1"/*; do
	[ -f "$e" ] || continue
	p=$(cat -- "$e") || continue
	case ${e##*/} in
	d-*) rmdir -- "$p" 2>/dev/null ;;
	f-*) if [ -f "$p" ] && [ ! -L "$p" ] && [ ! -s "$p" ]; then rm -f -- "$p"; fi ;;
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
			if err := privateDir(d, uid); err != nil {
				errs = append(errs, err)
				continue
			}
			if err := privateDir(filepath.Join(d, "placeholders"), uid); err != nil {
				errs = append(errs, err)
				continue
			}
			placeholderDirOnce.dir = d
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

type placeholderGuard struct {
	dir      string
	lock     *os.File
	watchdog *exec.Cmd
	created  int
}

// lockPlaceholders takes the shared lock for one run.
func lockPlaceholders() (*placeholderGuard, error) {
	dir, err := placeholderDir()
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("placeholder lock: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_SH)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("placeholder lock: %w", err)
	}
	return &placeholderGuard{dir: dir, lock: f}, nil
}

func (g *placeholderGuard) entry(p placeholder) string {
	sum := sha256.Sum256([]byte(p.Path))
	kind := "f-"
	if p.Dir {
		kind = "d-"
	}
	return filepath.Join(g.dir, "placeholders", kind+hex.EncodeToString(sum[:16]))
}

// create makes the placeholders, recording each before creating it. It
// returns the paths it could not create.
func (g *placeholderGuard) create(ph []placeholder) (failed []string) {
	for _, p := range ph {
		if err := os.WriteFile(g.entry(p), []byte(p.Path), 0o600); err != nil {
			failed = append(failed, p.Path)
			continue
		}
		var err error
		if p.Dir {
			err = os.Mkdir(p.Path, 0o700)
		} else {
			var f *os.File
			f, err = os.OpenFile(p.Path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
			if err == nil {
				f.Close()
			}
		}
		if err != nil {
			// It appeared meanwhile (then the next plan mounts on it as
			// an existing path) or cannot be made at all.
			os.Remove(g.entry(p))
			failed = append(failed, p.Path)
			continue
		}
		g.created++
	}
	return failed
}

// watch starts the watchdog when there is anything to clean up after this
// run: placeholders it created, or earlier ones still recorded.
func (g *placeholderGuard) watch(sync *os.File) {
	reg := filepath.Join(g.dir, "placeholders")
	if g.created == 0 {
		d, err := os.Open(reg)
		if err != nil {
			return
		}
		names, _ := d.Readdirnames(1)
		d.Close()
		if len(names) == 0 {
			return
		}
	}
	cmd := &exec.Cmd{
		Path:        "/bin/sh",
		Args:        []string{"safeexec-placeholder-watchdog", "-c", placeholderScript, "sh", reg},
		Env:         []string{"PATH=/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL=C"},
		ExtraFiles:  []*os.File{g.lock, sync},
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if cmd.Start() == nil {
		g.watchdog = cmd
	}
}

// release ends the run's hold: if no other sandbox is running it removes
// every recorded placeholder now; otherwise the last one out (or a
// watchdog) does.
func (g *placeholderGuard) release() {
	if g == nil || g.lock == nil {
		return
	}
	fd := int(g.lock.Fd())
	if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil {
		removePlaceholders(filepath.Join(g.dir, "placeholders"))
	}
	// Unlock explicitly: the watchdog shares this open file, and closing
	// our descriptor alone would leave its lock in place.
	unix.Flock(fd, unix.LOCK_UN)
	g.lock.Close()
	g.lock = nil
	if w := g.watchdog; w != nil {
		go w.Wait() // it ends as soon as it sees the sandbox gone
	}
}

// removePlaceholders removes every recorded placeholder that is still
// empty; one that a host program has put something into is left alone.
func removePlaceholders(reg string) {
	d, err := os.Open(reg)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		e := filepath.Join(reg, n)
		b, err := os.ReadFile(e)
		if err != nil {
			continue
		}
		p := string(b)
		if filepath.IsAbs(p) {
			switch n[:2] {
			case "d-":
				unix.Rmdir(p)
			case "f-":
				var st unix.Stat_t
				if unix.Lstat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Size == 0 {
					unix.Unlink(p)
				}
			}
		}
		os.Remove(e)
	}
}
