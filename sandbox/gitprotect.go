package sandbox

// Git's control plane, found when a run starts.
//
// In a git directory only what git writes in ordinary work may change
// during a run: objects (but not objects/info/alternates), refs, logs, the
// index, HEAD and the other state files, packed-refs, shallow, rebase and
// sequencer state, lock files, info/refs (which git gc writes). Everything
// git reads to configure itself or to find another repository is its
// control plane: config, config.worktree, commondir, gitdir, hooks, the
// files of info (exclude, attributes, sparse-checkout, grafts), remotes
// and branches (remote definitions of old), objects/info/alternates and
// http-alternates, and the .git entry that leads to the directory.
//
// findGitControl lists the control plane of every git directory it can
// find without walking the project: each writable root's .git (a
// directory, a "gitdir:" file or a link), its common directory, its
// worktrees (.git/worktrees/*) and submodules (.git/modules/**). The bwrap
// backend binds what exists read-only and watches what does not; the
// Landlock and Windows backends snapshot it and put it back after the run.
// Git directories nested deeper, and those that appear during the run,
// are judged after it by the sweep (gitsweep_linux.go).

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// gitControlNames are the control entries of a git directory, relative to
// it. info's existing entries (but refs) are added when it exists.
var gitControlNames = []string{
	"config", "config.worktree", "commondir", "gitdir", "hooks", "remotes", "branches",
	"objects/info/alternates", "objects/info/http-alternates",
	"info/exclude", "info/attributes", "info/sparse-checkout", "info/grafts",
}

// gitWritableInfo are the entries of info that git writes in ordinary
// work (git update-server-info, which git gc runs).
var gitWritableInfo = []string{"refs"}

// maxGitControlDirs bounds the worktrees and submodules protected at the
// start; beyond it they are judged after the run only.
const maxGitControlDirs = 256

// gitControl is the control plane of the roots' git directories.
type gitControl struct {
	// Paths are control entries, absolute, existing or not, none a
	// symbolic link.
	Paths []string
	// Links are control entries that are symbolic links now (a .git link,
	// a hooks directory that is a link), with their targets: a mount
	// cannot sit on a link itself, so bwrap puts them back after the run
	// when they changed.
	Links map[string]string
	// Dirs are the git directories whose control plane this covers
	// (resolved), and Roots the roots whose .git it covers.
	Dirs  []string
	Roots []string
}

// findGitControl finds the control plane of the git directories of roots
// (resolved, existing directories) that lie inside roots.
func findGitControl(roots []string) *gitControl {
	gc := &gitControl{Links: map[string]string{}}
	inRoots := func(p string) bool {
		for _, r := range roots {
			if pathWithin(r, p) {
				return true
			}
		}
		return false
	}
	n := 0
	var add func(dir string, depth int)
	add = func(dir string, depth int) {
		if slices.Contains(gc.Dirs, dir) || !inRoots(dir) || n > maxGitControlDirs {
			return
		}
		n++
		gc.Dirs = append(gc.Dirs, dir)
		for _, name := range gitControlNames {
			gc.entry(filepath.Join(dir, name))
		}
		if ents, err := os.ReadDir(filepath.Join(dir, "info")); err == nil {
			for _, e := range ents {
				if !slices.Contains(gitWritableInfo, e.Name()) {
					gc.entry(filepath.Join(dir, "info", e.Name()))
				}
			}
		}
		if depth > 4 {
			return
		}
		if c := gitPointer(filepath.Join(dir, "commondir"), dir, ""); c != "" {
			add(c, depth+1)
		}
		if ents, err := os.ReadDir(filepath.Join(dir, "worktrees")); err == nil {
			for _, e := range ents {
				if e.IsDir() {
					add(filepath.Join(dir, "worktrees", e.Name()), depth+1)
				}
			}
		}
		gc.modules(filepath.Join(dir, "modules"), 0, func(m string) { add(m, depth+1) })
	}
	for _, r := range roots {
		dotgit := filepath.Join(r, ".git")
		fi, err := os.Lstat(dotgit)
		if err != nil {
			continue
		}
		var g string
		switch {
		case fi.IsDir():
			g = dotgit
		case fi.Mode()&os.ModeSymlink != 0:
			if t, err := os.Readlink(dotgit); err == nil {
				gc.Links[dotgit] = t
			}
			g, _ = filepath.EvalSymlinks(dotgit)
		case fi.Mode().IsRegular():
			gc.Paths = append(gc.Paths, dotgit)
			g = gitPointer(dotgit, r, "gitdir:")
		}
		gc.Roots = append(gc.Roots, r)
		if g != "" {
			if real, err := filepath.EvalSymlinks(g); err == nil {
				add(real, 0)
			}
		}
	}
	return gc
}

// entry adds one control entry: a link to Links, anything else (or
// nothing yet) to Paths.
func (gc *gitControl) entry(p string) {
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if t, err := os.Readlink(p); err == nil {
			gc.Links[p] = t
		}
		return
	}
	gc.Paths = append(gc.Paths, p)
}

// modules calls found for each submodule git directory below m: a
// directory with a HEAD, or, for a submodule named with slashes, a
// directory holding such directories.
func (gc *gitControl) modules(m string, depth int, found func(string)) {
	if depth > 8 {
		return
	}
	ents, err := os.ReadDir(m)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(m, e.Name())
		if _, err := os.Lstat(filepath.Join(sub, "HEAD")); err == nil {
			found(sub)
		} else {
			gc.modules(sub, depth+1, found)
		}
	}
}

// gitPointer reads a small pointer file (a .git file after prefix, a
// commondir file) and returns the directory it names, resolved against
// base when relative; "" when it names none.
func gitPointer(p, base, prefix string) string {
	f, err := os.OpenFile(p, os.O_RDONLY|oNonblock|oNoFollow, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	buf := make([]byte, 4096)
	n, _ := f.Read(buf)
	line, _, _ := strings.Cut(string(buf[:max(n, 0)]), "\n")
	line = strings.TrimSpace(line)
	if prefix != "" {
		var ok bool
		if line, ok = strings.CutPrefix(line, prefix); !ok {
			return ""
		}
		line = strings.TrimSpace(line)
	}
	if line == "" {
		return ""
	}
	if !filepath.IsAbs(line) {
		line = filepath.Join(base, line)
	}
	return filepath.Clean(line)
}
