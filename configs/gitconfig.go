package configs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/safeexec/safeexec/sandbox/gitconf"
)

// maxGitInclude bounds how deep include.path chains are followed.
const maxGitInclude = 5

// hooksPaths returns the deny_write entries for git's hooks outside the
// default ".git/hooks": every core.hooksPath value found in the repository,
// global and system config files and in GIT_CONFIG_KEY_n variables (all of
// them, not only the one git would pick: protecting one too many is
// harmless), the config files those include, and the hooks and config of
// the real git directory when .git is a file (worktrees, submodules).
func hooksPaths(x *expander) []string {
	var files []string
	var out []string
	if x.repoRoot != "" {
		gitDir, common := gitDirs(x.repoRoot)
		if common != "" {
			files = append(files, filepath.Join(common, "config"))
			if gitDir != filepath.Join(x.repoRoot, ".git") {
				out = append(out, filepath.Join(common, "hooks"), filepath.Join(common, "config"))
				if gitDir != common {
					out = append(out, filepath.Join(gitDir, "config.worktree"))
					files = append(files, filepath.Join(gitDir, "config.worktree"))
				}
			}
		}
	}
	if g := x.getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else {
		xdg := x.getenv("XDG_CONFIG_HOME")
		if xdg == "" && x.home != "" {
			xdg = filepath.Join(x.home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if x.home != "" {
			files = append(files, filepath.Join(x.home, ".gitconfig"))
		}
	}
	if s := x.getenv("GIT_CONFIG_SYSTEM"); s != "" {
		files = append(files, s)
	} else {
		files = append(files, "/etc/gitconfig")
	}

	var values, included []string
	for _, f := range files {
		values, included = readHooksPath(f, x.home, values, included, 0)
	}
	out = append(out, included...)
	if n, err := strconv.Atoi(x.getenv("GIT_CONFIG_COUNT")); err == nil && n > 0 && n < 1000 {
		for i := 0; i < n; i++ {
			if strings.EqualFold(x.getenv("GIT_CONFIG_KEY_"+strconv.Itoa(i)), "core.hooksPath") {
				values = append(values, x.getenv("GIT_CONFIG_VALUE_"+strconv.Itoa(i)))
			}
		}
	}
	for _, v := range values {
		out = append(out, resolveHooksPath(v, x)...)
	}
	return out
}

// resolveHooksPath turns one core.hooksPath value into deny_write entries.
// A relative value is relative to where hooks run (the top of the working
// tree): it is kept relative, so it is protected under every writable root,
// and also anchored at the repository root when there is one.
func resolveHooksPath(v string, x *expander) []string {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return nil
	case v == "~" || strings.HasPrefix(v, "~/"):
		if x.home == "" {
			return nil
		}
		return []string{filepath.Join(x.home, strings.TrimPrefix(v, "~"))}
	case filepath.IsAbs(v):
		return []string{filepath.Clean(v)}
	}
	rel := filepath.Clean(v)
	var out []string
	if rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		out = append(out, rel)
	}
	if x.repoRoot != "" {
		out = append(out, filepath.Join(x.repoRoot, rel))
	}
	return out
}

// gitDirs finds the git directory of the repository at root and its common
// directory (where config and hooks live). For an ordinary repository both
// are root/.git; for a worktree or submodule .git is a file naming them.
func gitDirs(root string) (gitDir, common string) {
	dotgit := filepath.Join(root, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return "", ""
	}
	if fi.IsDir() {
		return dotgit, dotgit
	}
	// The repository is untrusted: never block on a FIFO planted as .git
	// or commondir, never read much.
	data, err := readSmall(dotgit, 4096)
	if err != nil {
		return "", ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	dir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", ""
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	gitDir = filepath.Clean(dir)
	common = gitDir
	if c, err := readSmall(filepath.Join(gitDir, "commondir"), 4096); err == nil {
		cd := strings.TrimSpace(string(c))
		if !filepath.IsAbs(cd) {
			cd = filepath.Join(gitDir, cd)
		}
		common = filepath.Clean(cd)
	}
	return gitDir, common
}

// readHooksPath appends the core.hooksPath values of one git config file
// (and of the files it includes) to values, and the files it includes to
// included: git reads them as config, so they are protected too. Every
// include.path and includeIf.*.path is followed, whatever its condition.
// Unreadable files are skipped: git would skip them too. The syntax is
// git's own (gitconf.Parse); where git would refuse the file, what was
// read up to the error still counts.
func readHooksPath(path, home string, values, included []string, depth int) ([]string, []string) {
	data, err := readSmall(path, maxFileSize)
	if err != nil {
		return values, included
	}
	entries, _ := gitconf.Parse(data)
	for _, e := range entries {
		section, _, name := gitconf.Split(e.Key)
		switch {
		case e.Key == "core.hookspath" && e.HasValue:
			values = append(values, e.Value)
		case name == "path" && e.HasValue && e.Value != "" && (e.Key == "include.path" || section == "includeif") && depth < maxGitInclude:
			inc := e.Value
			switch {
			case strings.HasPrefix(inc, "~/"):
				if home == "" {
					continue
				}
				inc = filepath.Join(home, inc[2:])
			case !filepath.IsAbs(inc):
				inc = filepath.Join(filepath.Dir(path), inc)
			}
			inc = filepath.Clean(inc)
			included = append(included, inc)
			values, included = readHooksPath(inc, home, values, included, depth+1)
		}
	}
	return values, included
}
