package configs

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxGitInclude bounds how deep include.path chains are followed.
const maxGitInclude = 5

// hooksPaths returns the deny_write entries for git's hooks outside the
// default ".git/hooks": every core.hooksPath value found in the repository,
// global and system config files and in GIT_CONFIG_KEY_n variables (all of
// them, not only the one git would pick: protecting one too many is
// harmless), and the hooks and config of the real git directory when .git
// is a file (worktrees, submodules).
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

	var values []string
	for _, f := range files {
		values = readHooksPath(f, x.home, values, 0)
	}
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
// (and of the files it includes) to values. Unreadable files are skipped:
// git would skip them too.
func readHooksPath(path, home string, values []string, depth int) []string {
	data, err := readSmall(path, maxFileSize)
	if err != nil {
		return values
	}
	for _, kv := range parseGitConfig(data) {
		switch {
		case kv.section == "core" && kv.key == "hookspath":
			values = append(values, kv.value)
		case kv.key == "path" && (kv.section == "include" || strings.HasPrefix(kv.section, "includeif.")) && depth < maxGitInclude:
			inc := kv.value
			switch {
			case strings.HasPrefix(inc, "~/"):
				inc = filepath.Join(home, inc[2:])
			case !filepath.IsAbs(inc):
				inc = filepath.Join(filepath.Dir(path), inc)
			}
			values = readHooksPath(inc, home, values, depth+1)
		}
	}
	return values
}

type gitKV struct {
	// section is lower-case; a subsection is appended after a dot as
	// written ("includeif.gitdir:~/work/").
	section, key, value string
}

// parseGitConfig reads the subset of git's config syntax that matters for
// finding a key: sections with optional subsections, key = value lines,
// quoting, escapes, comments and line continuations. Malformed lines are
// skipped.
func parseGitConfig(data []byte) []gitKV {
	var out []gitKV
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxFileSize)
	var pending string
	for sc.Scan() {
		line := sc.Text()
		if pending != "" {
			line = pending + line
			pending = ""
		}
		if strings.HasSuffix(line, `\`) && !strings.HasSuffix(line, `\\`) {
			pending = strings.TrimSuffix(line, `\`)
			continue
		}
		rest := strings.TrimSpace(line)
		if strings.HasPrefix(rest, "[") {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				continue
			}
			section = parseSectionHeader(rest[1:end])
			rest = strings.TrimSpace(rest[end+1:])
		}
		if rest == "" || rest[0] == '#' || rest[0] == ';' {
			continue
		}
		name, value, hasValue := strings.Cut(rest, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" || strings.ContainsAny(name, " \t") {
			continue
		}
		if !hasValue {
			out = append(out, gitKV{section, name, "true"})
			continue
		}
		out = append(out, gitKV{section, name, unquoteGitValue(value)})
	}
	return out
}

func parseSectionHeader(h string) string {
	h = strings.TrimSpace(h)
	if i := strings.IndexByte(h, '"'); i >= 0 {
		name := strings.ToLower(strings.TrimSpace(h[:i]))
		sub := strings.TrimSuffix(h[i+1:], `"`)
		sub = strings.ReplaceAll(sub, `\"`, `"`)
		sub = strings.ReplaceAll(sub, `\\`, `\`)
		return name + "." + sub
	}
	// [section.subsection], the deprecated form, is case-insensitive.
	return strings.ToLower(h)
}

// unquoteGitValue decodes a value: quotes group, backslash escapes,
// an unquoted # or ; starts a comment, surrounding spaces are dropped.
func unquoteGitValue(v string) string {
	var b strings.Builder
	inQuote := false
	trailing := 0 // unquoted trailing spaces, trimmed at the end
	v = strings.TrimLeft(v, " \t")
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				s := b.String()
				if len(s) > 0 {
					b.Reset()
					b.WriteString(s[:len(s)-1])
				}
			default:
				b.WriteByte(v[i])
			}
			trailing = 0
		case c == '"':
			inQuote = !inQuote
			trailing = 0
		case !inQuote && (c == '#' || c == ';'):
			s := b.String()
			return s[:len(s)-trailing]
		case !inQuote && (c == ' ' || c == '\t'):
			b.WriteByte(c)
			trailing++
		default:
			b.WriteByte(c)
			trailing = 0
		}
	}
	s := b.String()
	return s[:len(s)-trailing]
}
