package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Protected paths that do not exist yet.
//
// A mount needs something to sit on. A placeholder created on the host for
// a missing .envrc or ~/.aws would be seen by every host program while the
// run lasts (git status, a mkdir ~/.aws that fails, a concurrent safeexec
// that cannot read its own config directory), so there is none. A missing
// protected or masked path outside the writable roots needs nothing: the
// command cannot create it. One inside a writable root (a new .envrc,
// .git/hooks in a repository without hooks, ~/.ssh when the working
// directory is $HOME) is left open during the run and looked at once every
// process of the sandbox is gone: whatever is there then is moved into a
// quarantine directory beside the audit log (removed when it cannot be
// moved there), and stderr says so.

// sweepCreated takes away what appeared at the watched paths during the run
// and reports each on w (nil: not reported). It must run only once the
// sandbox's processes are gone: nothing may change the paths it walks.
func sweepCreated(watch []watchPath, w io.Writer) (taken []string) {
	var q quarantine
	return sweepCreatedInto(&q, watch, w)
}

// sweepCreatedInto is sweepCreated with the run's quarantine.
func sweepCreatedInto(q *quarantine, watch []watchPath, w io.Writer) (taken []string) {
	if len(watch) == 0 {
		return nil
	}
	roots := map[string]int{}
	defer func() {
		for _, fd := range roots {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	}()
	for _, wp := range watch {
		rfd, ok := roots[wp.Root]
		if !ok {
			rfd = openNoFollow(wp.Root)
			roots[wp.Root] = rfd
		}
		if rfd < 0 {
			continue
		}
		dfd, name, at, link := createdAt(rfd, wp)
		if dfd < 0 {
			continue
		}
		what := fmt.Sprintf("%s, a protected path", at)
		if link {
			what = fmt.Sprintf("%s, a link to the protected path %s", at, wp.Path())
		}
		dst, err := q.take(dfd, name, at)
		if dfd != rfd {
			unix.Close(dfd)
		}
		taken = append(taken, at)
		if w == nil {
			continue
		}
		switch {
		case err != nil:
			fmt.Fprintf(w, "safeexec: the command created %s, and it could not be moved away (%v): check it before using that directory\n", what, err)
		case dst == "":
			fmt.Fprintf(w, "safeexec: the command created %s; removed it\n", what)
		default:
			fmt.Fprintf(w, "safeexec: the command created %s; moved it to %s\n", what, dst)
		}
	}
	return taken
}

// openNoFollow opens the directory p (absolute) without following a
// symbolic link in any component: a writable root is a resolved path, and
// a command that replaced one of its parents by a link must not send the
// sweep elsewhere. It returns -1 on failure.
func openNoFollow(p string) int {
	fd, err := -1, error(unix.ENOSYS)
	if !testNoOpenat2 {
		fd, err = unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_NO_SYMLINKS,
		})
	}
	if err == nil {
		return fd
	}
	if err != unix.ENOSYS {
		return -1
	}
	// Before Linux 5.6: one component at a time.
	fd, err = unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	for _, c := range strings.Split(strings.Trim(p, "/"), "/") {
		if c == "" {
			continue
		}
		next, err := unix.Openat(fd, c, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return -1
		}
		fd = next
	}
	return fd
}

// testNoOpenat2 makes openNoFollow take its path for kernels without
// openat2, for tests.
var testNoOpenat2 bool

// createdAt walks wp below the root open as rfd without following links.
// It returns the entry to take away, as a directory descriptor (rfd or a
// new one the caller closes) and a name in it, with its host path: wp
// itself when it exists, or a symbolic link on the way to it that leads to
// an existing path (every component existed as a directory, or not at
// all, when the run was planned). dfd is -1 when there is nothing to take.
func createdAt(rfd int, wp watchPath) (dfd int, name, at string, link bool) {
	parts := strings.Split(wp.Rel, "/")
	dfd, at = rfd, wp.Root
	fail := func() (int, string, string, bool) {
		if dfd != rfd {
			unix.Close(dfd)
		}
		return -1, "", "", false
	}
	for i, c := range parts {
		var st unix.Stat_t
		if unix.Fstatat(dfd, c, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return fail()
		}
		at = filepath.Join(at, c)
		if i == len(parts)-1 {
			return dfd, c, at, false
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			next, err := unix.Openat(dfd, c, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if dfd != rfd {
				unix.Close(dfd)
			}
			dfd = next
			if err != nil {
				return -1, "", "", false
			}
		case unix.S_IFLNK:
			// Made during the run: it may lead a host program to a
			// protected path that exists elsewhere.
			if _, err := os.Stat(wp.Path()); err != nil {
				return fail()
			}
			return dfd, c, at, true
		default:
			return fail() // nothing can be below a file
		}
	}
	return fail()
}

// quarantine is the directory of one run's moved paths, made on first use.
type quarantine struct {
	dir string
	err error
}

// quarantineBase returns where quarantine directories are made: beside the
// audit log's default place, in safeexec's state directory
// ($XDG_STATE_HOME/safeexec, else ~/.local/state/safeexec), which the
// default policy masks. Tests replace it.
var quarantineBase = func() (string, error) {
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "safeexec", "quarantine"), nil
}

// take moves the entry name of dfd (host path at) into the quarantine,
// under its host path, and returns where it went; "" when it could only
// be removed.
func (q *quarantine) take(dfd int, name, at string) (string, error) {
	if q.dir == "" && q.err == nil {
		q.dir, q.err = newQuarantineDir()
	}
	if q.err == nil {
		dst := filepath.Join(q.dir, at)
		err := os.MkdirAll(filepath.Dir(dst), 0o700)
		if err == nil {
			err = unix.Renameat(dfd, name, unix.AT_FDCWD, dst)
		}
		if err == nil {
			return dst, nil
		}
		// Another file system (EXDEV), or no room: remove it instead.
	}
	// The descriptor pins the directory that was walked without links.
	if err := os.RemoveAll("/proc/self/fd/" + strconv.Itoa(dfd) + "/" + name); err != nil {
		return "", err
	}
	return "", nil
}

func newQuarantineDir() (string, error) {
	base, err := quarantineBase()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", err
	}
	var st unix.Stat_t
	if err := unix.Lstat(base, &st); err != nil {
		return "", err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Getuid() {
		return "", errors.New(base + " is not a directory of safeexec's user")
	}
	return os.MkdirTemp(base, time.Now().Format("20060102-150405")+"-")
}

// restoreLinks puts back the control entries of git directories that were
// symbolic links when the run started (links maps each path to its
// target), where the run replaced or removed them: a mount cannot make a
// link itself read-only. What the run left there goes to the quarantine.
func restoreLinks(q *quarantine, links map[string]string, w io.Writer) (taken []string) {
	paths := make([]string, 0, len(links))
	for p := range links {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		target := links[p]
		if t, err := os.Readlink(p); err == nil && t == target {
			continue
		}
		dfd := openNoFollow(filepath.Dir(p))
		if dfd < 0 {
			continue // the directory is gone or behind a link: nothing git reads
		}
		name := filepath.Base(p)
		taken = append(taken, p)
		var st unix.Stat_t
		moved := ""
		if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			dst, err := q.take(dfd, name, p)
			if err != nil {
				if w != nil {
					fmt.Fprintf(w, "safeexec: the command replaced %s, a link git follows, and it could not be moved away (%v): check it before running git there\n", p, err)
				}
				unix.Close(dfd)
				continue
			}
			moved = dst
		}
		err := unix.Symlinkat(target, dfd, name)
		unix.Close(dfd)
		if w == nil {
			continue
		}
		switch {
		case err != nil:
			fmt.Fprintf(w, "safeexec: the command replaced %s, a link git follows; could not put it back (%v): check it before running git there\n", p, err)
		case moved != "":
			fmt.Fprintf(w, "safeexec: the command replaced %s, a link git follows; put it back and moved what was there to %s\n", p, moved)
		default:
			fmt.Fprintf(w, "safeexec: the command removed %s, a link git follows; put it back\n", p)
		}
	}
	return taken
}

// configSnap is a git config file as it was when the run started.
type configSnap struct {
	path string
	data []byte
	mode os.FileMode
}

// snapConfigs records the config files bwrap leaves writable (submodules'
// git directories: gitControl.Configs).
func snapConfigs(paths []string) []configSnap {
	var out []configSnap
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		data, err := readNoFollow(p, maxConfigSize)
		if err != nil {
			continue
		}
		out = append(out, configSnap{path: p, data: data, mode: fi.Mode().Perm()})
	}
	return out
}

// restoreConfigs puts back each config the run changed so that it names
// a program (or removed, or replaced by something that is not a file);
// what the run left goes to the quarantine. A change naming nothing (git
// submodule update rewriting core.worktree, git submodule sync a URL)
// stays.
func restoreConfigs(q *quarantine, snaps []configSnap, hostGit func() string, w io.Writer) (taken, unchecked []string) {
	for _, sn := range snaps {
		data, err := readNoFollow(sn.path, maxConfigSize)
		if err == nil && bytes.Equal(data, sn.data) {
			continue
		}
		why := ""
		switch {
		case err != nil:
			why = "removed or replaced"
		default:
			entries, perr := parseGitConfigData(hostGit(), data)
			if perr != nil {
				why = "unreadable to git (" + perr.Error() + ")"
			} else if keys := runKeys(entries); len(keys) > 0 {
				why = "setting " + strings.Join(keys, ", ")
			}
		}
		if why == "" {
			continue
		}
		dfd := openNoFollow(filepath.Dir(sn.path))
		if dfd < 0 {
			unchecked = append(unchecked, sn.path+": could not be restored")
			continue
		}
		name := filepath.Base(sn.path)
		var st unix.Stat_t
		moved := ""
		if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			if moved, err = q.take(dfd, name, sn.path); err != nil {
				unix.Close(dfd)
				unchecked = append(unchecked, sn.path+": could not be restored: "+err.Error())
				continue
			}
		}
		taken = append(taken, sn.path)
		err = writeAt(dfd, name, sn.data, sn.mode)
		unix.Close(dfd)
		if w == nil {
			continue
		}
		if err != nil {
			unchecked = append(unchecked, sn.path+": could not be restored: "+err.Error())
			fmt.Fprintf(w, "safeexec: the command left %s %s, and the old one could not be put back (%v): check it before running git there\n", sn.path, why, err)
			continue
		}
		fmt.Fprintf(w, "safeexec: the command left %s %s (git would run what it names); put the old one back and moved the new one to %s\n", sn.path, why, moved)
	}
	return taken, unchecked
}

// writeAt creates name in the directory dfd with data and mode.
func writeAt(dfd int, name string, data []byte, mode os.FileMode) error {
	fd, err := unix.Openat(dfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(mode))
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
