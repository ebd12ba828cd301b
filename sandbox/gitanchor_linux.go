package sandbox

// A root's .git directory, held from the start of a run, for backends
// that cannot pin it with a mount (Landlock): a command that moves it away
// and puts something else at .git has it moved back after the run, before
// the protected paths are restored, and what it put there goes to the
// quarantine.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

type gitAnchor struct {
	path string // where it belongs
	fd   int    // O_PATH of the directory itself
	dev  uint64
	ino  uint64
}

// holdAnchors opens the anchors (directories, no link followed).
func holdAnchors(paths []string) []gitAnchor {
	var out []gitAnchor
	for _, p := range paths {
		fd, err := unix.Open(p, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil {
			unix.Close(fd)
			continue
		}
		out = append(out, gitAnchor{path: p, fd: fd, dev: st.Dev, ino: st.Ino})
	}
	return out
}

// restoreAnchors moves each anchor back to its path if the run moved it
// (still inside its root), and closes them all.
func restoreAnchors(anchors []gitAnchor, roots []string, q *quarantine, w io.Writer) (taken, unchecked []string) {
	for _, a := range anchors {
		func() {
			defer unix.Close(a.fd)
			var st unix.Stat_t
			if unix.Lstat(a.path, &st) == nil && st.Dev == a.dev && st.Ino == a.ino {
				return
			}
			now, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(a.fd))
			inRoot := false
			for _, r := range roots {
				if err == nil && pathWithin(r, now) && !strings.HasSuffix(now, " (deleted)") {
					inRoot = true
				}
			}
			if !inRoot {
				unchecked = append(unchecked, a.path+": the git directory was removed by the command")
				if w != nil {
					fmt.Fprintf(w, "safeexec: the command removed the git directory %s: check the repository before running git there\n", a.path)
				}
				return
			}
			dfd := openNoFollow(filepath.Dir(a.path))
			if dfd < 0 {
				return
			}
			defer unix.Close(dfd)
			name := filepath.Base(a.path)
			moved := ""
			if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
				if moved, err = q.take(dfd, name, a.path); err != nil {
					unchecked = append(unchecked, a.path+": could not be put back: "+err.Error())
					return
				}
			}
			taken = append(taken, a.path)
			sfd := openNoFollow(filepath.Dir(now))
			if sfd < 0 {
				unchecked = append(unchecked, a.path+": could not be put back")
				return
			}
			err = unix.Renameat(sfd, filepath.Base(now), dfd, name)
			unix.Close(sfd)
			if w == nil {
				return
			}
			switch {
			case err != nil:
				unchecked = append(unchecked, a.path+": could not be put back: "+err.Error())
				fmt.Fprintf(w, "safeexec: the command moved the git directory %s to %s, and it could not be moved back (%v): check the repository before running git there\n", a.path, now, err)
			case moved != "":
				fmt.Fprintf(w, "safeexec: the command moved the git directory %s to %s; moved it back, and what the command put in its place to %s\n", a.path, now, moved)
			default:
				fmt.Fprintf(w, "safeexec: the command moved the git directory %s to %s; moved it back\n", a.path, now)
			}
		}()
	}
	return taken, unchecked
}
