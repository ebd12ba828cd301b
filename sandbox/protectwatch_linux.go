package sandbox

import (
	"path/filepath"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A protected file is bound read-only onto itself, so a command that
// rewrites it the usual way (a lock or temporary file beside it, renamed
// over it: git config, editors, sed -i) fails with "Device or resource
// busy" or "Read-only file system", which says nothing about the sandbox.
// The directories holding protected files are watched with inotify during
// the run (it sees the sandbox's changes, the files being the host's); a
// lock or temporary file named after a protected file tells which one the
// command tried to change, so the caller can say so after the run. A
// direct write (open for writing) fails before anything happens in the
// directory and is not seen.

// protectWatch watches the directories of protected files.
type protectWatch struct {
	fd    int
	dirs  map[int32]string    // watch descriptor → directory
	files map[string][]string // directory → protected base names
}

// watchProtected starts watching the directories of files; nil when there
// is nothing to watch or inotify is unavailable (the hint is then lost,
// nothing else).
func watchProtected(files []string) *protectWatch {
	if len(files) == 0 {
		return nil
	}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil
	}
	w := &protectWatch{fd: fd, dirs: map[int32]string{}, files: map[string][]string{}}
	for _, f := range files {
		dir, base := filepath.Split(f)
		dir = filepath.Clean(dir)
		if _, ok := w.files[dir]; !ok {
			wd, err := unix.InotifyAddWatch(fd, dir, unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_ONLYDIR|unix.IN_DONT_FOLLOW)
			if err != nil {
				continue
			}
			w.dirs[int32(wd)] = dir
		}
		w.files[dir] = append(w.files[dir], base)
	}
	if len(w.dirs) == 0 {
		unix.Close(fd)
		return nil
	}
	return w
}

// touched reads what happened and returns the protected files the command
// tried to replace, in the order first seen. It closes the watch.
func (w *protectWatch) touched() []string {
	if w == nil {
		return nil
	}
	defer unix.Close(w.fd)
	var out []string
	seen := map[string]bool{}
	bp := getEventBuf()
	defer putEventBuf(bp)
	buf := *bp
	for {
		n, err := unix.Read(w.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			break
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			nameBytes := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			name := strings.TrimRight(string(nameBytes), "\x00")
			dir, ok := w.dirs[ev.Wd]
			if !ok || name == "" {
				continue
			}
			for _, base := range w.files[dir] {
				if besideName(base, name) {
					p := filepath.Join(dir, base)
					if !seen[p] {
						seen[p] = true
						out = append(out, p)
					}
				}
			}
		}
	}
	return out
}

// besideName reports whether name is a lock, temporary or swap file that
// programs create next to base when they rewrite it: base.lock (git),
// base.tmp*, base.new, base~, .base.swp (vim), .base.XXXX.
func besideName(base, name string) bool {
	if name == base {
		return false
	}
	return strings.HasPrefix(name, base+".") || name == base+"~" ||
		!strings.HasPrefix(base, ".") && strings.HasPrefix(name, "."+base+".")
}
