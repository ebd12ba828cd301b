package configs

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Placeholders for directories that are only known at run time.
const (
	placeholderConfigDir = "<config-dir>"
	placeholderStateDir  = "<state-dir>"
	placeholderHooksPath = "<core.hooksPath>"
)

// expander turns path entries into absolute paths for one Load.
type expander struct {
	cwd, home string
	getenv    func(string) string
	configDir string
	stateDir  string

	// repoRoot is the directory holding .git, or "" outside a repository.
	repoRoot string
	// hooks is the expansion of <core.hooksPath>, computed on first use.
	hooks     []string
	hooksDone bool
}

// lookupVar resolves $NAME inside a path entry. HOME is the home directory
// Load was given; TMPDIR and the XDG base directories (XDG_RUNTIME_DIR
// included) fall back to their documented defaults; any other variable
// must be set.
func (x *expander) lookupVar(name string) (string, bool) {
	if name == "HOME" {
		return x.home, x.home != ""
	}
	if v := x.getenv(name); v != "" {
		return v, true
	}
	switch name {
	case "TMPDIR":
		if runtime.GOOS == "windows" {
			if v := x.getenv("TEMP"); v != "" {
				return v, true
			}
		}
		return "/tmp", true
	case "XDG_CONFIG_HOME":
		return filepath.Join(x.home, ".config"), true
	case "XDG_STATE_HOME":
		return filepath.Join(x.home, ".local", "state"), true
	case "XDG_CACHE_HOME":
		return filepath.Join(x.home, ".cache"), true
	case "XDG_DATA_HOME":
		return filepath.Join(x.home, ".local", "share"), true
	case "XDG_RUNTIME_DIR":
		// Where systemd puts it; a path that does not exist masks nothing.
		return fmt.Sprintf("/run/user/%d", os.Getuid()), true
	}
	return "", false
}

// expandVars replaces $NAME and ${NAME}; an unknown or unset variable is an
// error, never an empty string (which would turn "$X/secrets" into
// "/secrets").
func (x *expander) expandVars(s string) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c != '$' {
			b.WriteByte(c)
			i++
			continue
		}
		var name string
		j := i + 1
		if j < len(s) && s[j] == '{' {
			end := strings.IndexByte(s[j:], '}')
			if end < 0 {
				return "", fmt.Errorf("unterminated ${ in %q", s)
			}
			name = s[j+1 : j+end]
			i = j + end + 1
		} else {
			k := j
			for k < len(s) && (s[k] == '_' || s[k] >= 'A' && s[k] <= 'Z' || s[k] >= 'a' && s[k] <= 'z' || k > j && s[k] >= '0' && s[k] <= '9') {
				k++
			}
			name = s[j:k]
			i = k
		}
		if name == "" {
			return "", fmt.Errorf("a lone $ in %q (write the variable's name)", s)
		}
		v, ok := x.lookupVar(name)
		if !ok {
			return "", fmt.Errorf("variable $%s is not set", name)
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

// expand turns one entry into zero or more paths. With keepRelative a
// plain relative entry (".env", ".git/hooks") stays relative: it names that
// path under every writable root.
func (x *expander) expand(s string, keepRelative bool) ([]string, error) {
	switch s {
	case placeholderConfigDir:
		return []string{x.configDir}, nil
	case placeholderStateDir:
		return []string{x.stateDir}, nil
	case placeholderHooksPath:
		if !x.hooksDone {
			x.hooks = hooksPaths(x)
			x.hooksDone = true
		}
		return x.hooks, nil
	}
	if IsNamePattern(s) {
		// A name pattern names files in every directory: it stays as
		// written (checkEntry validated it).
		return []string{s}, nil
	}
	p, err := x.expandOne(s, keepRelative)
	if err != nil {
		return nil, err
	}
	return []string{p}, nil
}

func (x *expander) expandOne(s string, keepRelative bool) (string, error) {
	orig := s
	fromHome := false
	switch {
	case s == "~":
		s, fromHome = x.home, true
	case strings.HasPrefix(s, "~/") || runtime.GOOS == "windows" && strings.HasPrefix(s, `~\`):
		s, fromHome = joinClean(x.home, s[2:]), true
	case strings.HasPrefix(s, "~"):
		return "", fmt.Errorf("%q: ~user is not supported; write the path out", orig)
	}
	if fromHome && x.home == "" {
		return "", fmt.Errorf("%q: the home directory is unknown", orig)
	}
	expanded, err := x.expandVars(s)
	if err != nil {
		return "", err
	}
	if filepath.IsAbs(expanded) {
		if fromHome && expanded == s {
			return expanded, nil // joinClean's result is clean
		}
		return filepath.Clean(expanded), nil
	}
	if expanded != s || fromHome {
		// A variable that held a relative path: anchor it like any
		// relative entry rather than trusting it to mean "under every root".
		return filepath.Join(x.cwd, expanded), nil
	}
	if keepRelative {
		rel := filepath.Clean(expanded)
		if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", fmt.Errorf("%q: a relative entry names a path under each writable root and must not climb out with ..", orig)
		}
		return rel, nil
	}
	return filepath.Join(x.cwd, expanded), nil
}

// under reports whether path p is root or inside it (lexically).
func under(p, root string) bool {
	if p == root {
		return true
	}
	if root == string(filepath.Separator) {
		return strings.HasPrefix(p, root)
	}
	return strings.HasPrefix(p, root) && len(p) > len(root) && p[len(root)] == filepath.Separator
}

// joinClean is filepath.Join for the common case of a clean absolute dir
// and a simple relative name, without Join's Clean pass.
func joinClean(dir, rel string) string {
	if rel == "" || strings.Contains(rel, "//") || strings.Contains(rel, "/.") || strings.HasPrefix(rel, ".") && (rel == "." || rel == ".." || strings.HasPrefix(rel, "./") || strings.HasPrefix(rel, "../")) || strings.HasSuffix(rel, "/") || filepath.Separator != '/' || strings.HasSuffix(dir, "/") {
		return filepath.Join(dir, rel)
	}
	return dir + "/" + rel
}
