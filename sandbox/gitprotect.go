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
// worktrees (.git/worktrees/*) and submodules (.git/modules/**); and what
// git reads or runs for the roots from elsewhere inside them, as the
// repository's config and the host's global and system config name it:
// the files include.path and includeIf.*.path name (all of them, whatever
// the condition), the core.hooksPath directory, init.templateDir (whose
// hooks every new repository gets), and a program a key that runs one
// names by a path (a core.fsmonitor script, a textconv driver in the
// project). The bwrap
// backend binds what exists read-only and watches what does not; the
// Landlock and Windows backends snapshot it and put it back after the run.
// Git directories nested deeper, and those that appear during the run,
// are judged after it by the sweep (gitsweep_linux.go).

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/safeexec/safeexec/sandbox/gitconf"
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
	// Configs are the config files of submodules' git directories, which
	// git submodule update rewrites every time (core.worktree): bwrap
	// leaves them writable and puts the old one back after the run when
	// the new one names a program (restoreConfigs); other backends
	// snapshot them like Paths.
	Configs []string
	// Links are control entries that are symbolic links now (a .git link,
	// a hooks directory that is a link), with their targets: a mount
	// cannot sit on a link itself, so bwrap puts them back after the run
	// when they changed.
	Links map[string]string
	// Dirs are the git directories whose control plane this covers
	// (resolved), and Roots the roots whose .git it covers.
	Dirs  []string
	Roots []string
	// Anchors are the roots' .git entries that are directories: bwrap
	// pins them with a mount, other backends put them back where they
	// were if the run moved them away.
	Anchors []string
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
	var add func(dir string, depth int, module bool)
	add = func(dir string, depth int, module bool) {
		if slices.Contains(gc.Dirs, dir) || !inRoots(dir) || n > maxGitControlDirs {
			return
		}
		n++
		gc.Dirs = append(gc.Dirs, dir)
		for _, name := range gitControlNames {
			p := filepath.Join(dir, name)
			if module && name == "config" {
				if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
					gc.Configs = append(gc.Configs, p)
					continue
				}
			}
			gc.entry(p)
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
			add(c, depth+1, false)
		}
		if ents, err := os.ReadDir(filepath.Join(dir, "worktrees")); err == nil {
			for _, e := range ents {
				if e.IsDir() {
					add(filepath.Join(dir, "worktrees", e.Name()), depth+1, false)
				}
			}
		}
		gc.modules(filepath.Join(dir, "modules"), 0, func(m string) { add(m, depth+1, true) })
	}
	host := readHostGitConfig(homeDir(), nil)
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
			gc.Anchors = append(gc.Anchors, dotgit)
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
		real := ""
		if g != "" {
			if real, err = filepath.EvalSymlinks(g); err == nil {
				add(real, 0, false)
			}
		}
		// What git reads for this worktree from outside its git
		// directory: included config files, hooks paths (a relative one
		// is relative to the worktree's top).
		var cfgs []string
		if real != "" {
			cfgs = append(cfgs, filepath.Join(real, "config"), filepath.Join(real, "config.worktree"))
			if c := gitPointer(filepath.Join(real, "commondir"), real, ""); c != "" {
				cfgs = append(cfgs, filepath.Join(c, "config"))
			}
		}
		refs := readGitConfigs(cfgs, homeDir())
		for _, p := range append(refs.included, host.included...) {
			if inRoots(p) {
				gc.entry(p)
			}
		}
		// Hooks directories, the template directories git init copies
		// hooks from, programs the config names by a path (a
		// core.fsmonitor script, a textconv driver in the project):
		// relative ones are relative to the worktree's top.
		for _, list := range [][]string{refs.hooksPaths, host.hooksPaths, host.templateDirs} {
			for _, h := range list {
				h = expandHome(h, homeDir())
				if h == "" {
					continue
				}
				if !filepath.IsAbs(h) {
					h = filepath.Join(r, h)
				}
				if h = filepath.Clean(h); inRoots(h) && h != r {
					gc.entry(h)
				}
			}
		}
		for _, prog := range append(refs.programs, host.refs.programs...) {
			prog = expandHome(prog, homeDir())
			if !filepath.IsAbs(prog) {
				prog = filepath.Join(r, prog)
			}
			// A program, not a directory a word happened to name.
			if fi, err := os.Stat(prog); (err != nil || !fi.IsDir()) && inRoots(filepath.Clean(prog)) {
				gc.entry(filepath.Clean(prog))
			}
		}
	}
	gc.Paths = dedupe(gc.Paths)
	return gc
}

func dedupe(list []string) []string {
	var out []string
	for _, p := range list {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
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

// homeDir is the host's home directory, for "~/" in git config: the git
// that reads it later runs in safeexec's environment, not the command's.
func homeDir() string {
	h, _ := os.UserHomeDir()
	return h
}

func expandHome(v, home string) string {
	if strings.HasPrefix(v, "~/") && home != "" {
		return filepath.Join(home, v[2:])
	}
	return v
}

// maxGitConfigSize is the largest config file read by content.
const maxGitConfigSize = 1 << 20

// readGitConfigFile parses a config file git would read (following links,
// as git does, but never blocking on a FIFO or reading much).
func readGitConfigFile(p string) []gitconf.Entry {
	f, err := os.OpenFile(p, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxGitConfigSize {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxGitConfigSize))
	if err != nil {
		return nil
	}
	es, _ := gitconf.Parse(data)
	return es
}

// gitConfigRefs is what config files name that git reads or runs from
// elsewhere.
type gitConfigRefs struct {
	hooksPaths []string // core.hooksPath values
	included   []string // files included (resolved against the including file)
	programs   []string // path-like words of values naming a program (relative: to the worktree)
	templates  []string // init.templateDir values
}

// readGitConfigs reads config files and every file they include.
func readGitConfigs(files []string, home string) gitConfigRefs {
	var refs gitConfigRefs
	seen := map[string]bool{}
	var read func(p string, depth int)
	read = func(p string, depth int) {
		if seen[p] || depth > 8 {
			return
		}
		seen[p] = true
		for _, e := range readGitConfigFile(p) {
			section, _, name := gitconf.Split(e.Key)
			switch {
			case e.Key == "core.hookspath" && e.HasValue:
				refs.hooksPaths = append(refs.hooksPaths, e.Value)
			case e.Key == "init.templatedir" && e.HasValue:
				refs.templates = append(refs.templates, expandHome(e.Value, home))
			case name == "path" && (e.Key == "include.path" || section == "includeif") && e.Value != "":
				inc := expandHome(e.Value, home)
				if !filepath.IsAbs(inc) {
					inc = filepath.Join(filepath.Dir(p), inc)
				}
				inc = filepath.Clean(inc)
				refs.included = append(refs.included, inc)
				read(inc, depth+1)
			case gitconf.Runs(e):
				refs.programs = append(refs.programs, programPaths(e.Value, home)...)
			}
		}
	}
	for _, f := range files {
		read(f, 0)
	}
	return refs
}

// programPaths returns the program a command (as a config value names
// it) runs when it names one by a path: its first word, with a slash.
func programPaths(v, home string) []string {
	v = strings.TrimPrefix(strings.TrimSpace(v), "!")
	f := strings.Fields(v)
	if len(f) == 0 {
		return nil
	}
	w := strings.Trim(f[0], `"'`)
	if !strings.Contains(w, "/") || strings.Contains(w, "://") {
		return nil
	}
	return []string{expandHome(w, home)}
}

// hostGitConfig is what the host's own git configuration (global, system,
// GIT_CONFIG_KEY_n in safeexec's environment) says that matters here.
type hostGitConfig struct {
	// hooksPaths are its core.hooksPath values: a relative one names a
	// hooks directory in every worktree.
	hooksPaths []string
	// included are the config files it includes.
	included []string
	// templates are the template directories git init copies hooks from,
	// those for which trusted says yes; templateDirs all of them.
	templates    []string
	templateDirs []string
	// refs is all the config files name.
	refs gitConfigRefs
}

// readHostGitConfig reads the host's global and system git config, as the
// host's git finds them.
func readHostGitConfig(home string, trusted func(string) bool) *hostGitConfig {
	h := &hostGitConfig{}
	var files []string
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(xdg) && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
	}
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		if f := os.Getenv("GIT_CONFIG_SYSTEM"); f != "" {
			files = append(files, f)
		} else {
			files = append(files, "/etc/gitconfig")
		}
	}
	h.refs = readGitConfigs(files, home)
	h.hooksPaths, h.included = h.refs.hooksPaths, h.refs.included
	templates := append([]string{"/usr/share/git-core/templates"}, h.refs.templates...)
	if t := os.Getenv("GIT_TEMPLATE_DIR"); t != "" {
		templates = append(templates, t)
	}
	if n, err := strconv.Atoi(os.Getenv("GIT_CONFIG_COUNT")); err == nil && n > 0 && n < 1000 {
		for i := range n {
			k := strings.ToLower(os.Getenv("GIT_CONFIG_KEY_" + strconv.Itoa(i)))
			v := os.Getenv("GIT_CONFIG_VALUE_" + strconv.Itoa(i))
			switch k {
			case "core.hookspath":
				h.hooksPaths = append(h.hooksPaths, v)
			case "init.templatedir":
				templates = append(templates, expandHome(v, home))
			}
		}
	}
	h.templateDirs = templates
	if trusted == nil {
		return h
	}
	for _, t := range templates {
		if real, err := filepath.EvalSymlinks(t); err == nil && filepath.IsAbs(real) && trusted(real) {
			h.templates = append(h.templates, real)
		}
	}
	return h
}
