package workspace

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
)

// NotProjectError says why a directory cannot be a writable root.
type NotProjectError struct {
	Dir string
	// Why is a short phrase: "the root of the file system", "your home
	// directory", "a system directory", ...
	Why string
	// Cwd is true when Dir is the working directory (".").
	Cwd bool
}

func (e *NotProjectError) Error() string {
	if e.Cwd {
		return fmt.Sprintf("the working directory %s is %s, not a project, and is never made writable; cd into the project directory, or name the directory the command may write with --allow-write DIR (the working directory then stays read-only)", e.Dir, e.Why)
	}
	return fmt.Sprintf("%s is %s and is never made writable; name a project directory with --allow-write DIR instead", e.Dir, e.Why)
}

// systemTrees are directories whose whole subtree belongs to the system,
// per platform; systemExact are directories that hold projects but are
// not one themselves.
var (
	systemTrees = map[string][]string{
		"linux": {"/bin", "/boot", "/dev", "/efi", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc",
			"/run", "/sbin", "/sys", "/usr", "/var/run", "/var/lib", "/var/log", "/var/cache", "/var/spool",
			"/var/mail", "/var/backups", "/snap", "/nix/store"},
		"darwin": {"/System", "/Library", "/bin", "/sbin", "/usr", "/etc", "/private/etc", "/dev", "/cores",
			"/private/var/db", "/var/db", "/opt/homebrew", "/nix/store"},
		"windows": {`c:\windows`, `c:\program files`, `c:\program files (x86)`, `c:\programdata`},
	}
	systemExact = map[string][]string{
		"linux":   {"/home", "/root", "/opt", "/srv", "/var", "/mnt", "/media", "/tmp", "/var/tmp", "/nix", "/usr/local"},
		"darwin":  {"/Users", "/Volumes", "/Applications", "/private", "/private/tmp", "/tmp", "/var", "/private/var", "/opt", "/usr/local"},
		"windows": {`c:\users`},
	}
	// systemTreeExceptions are places inside systemTrees where projects
	// do live (kernel and package sources).
	systemTreeExceptions = map[string][]string{
		"linux": {"/usr/src", "/usr/local/src"},
	}
)

// CheckRoot reports whether dir may be a writable root: an error for the
// root of the file system, a system directory, the home directory and any
// directory containing it. cwd says dir is the working directory, which
// also must not be a directory that only holds projects (/home, /tmp,
// /opt). home is the user's home directory.
func CheckRoot(dir, home string, cwd bool) error {
	return checkRoot(runtime.GOOS, dir, home, cwd)
}

func checkRoot(goos, dir, home string, cwd bool) error {
	fail := func(why string) error { return &NotProjectError{Dir: dir, Why: why, Cwd: cwd} }
	for _, d := range candidates(dir) {
		n := norm(goos, d)
		if isFSRoot(d) || n == "/" || len(n) == 3 && n[1] == ':' && n[2] == '/' {
			return fail("the root of the file system")
		}
		if home != "" {
			for _, h := range candidates(home) {
				hn := norm(goos, h)
				if n == hn {
					return fail("your home directory")
				}
				if within(n, hn) {
					return fail("a directory that contains your home directory")
				}
			}
		}
		if inList(n, systemTrees[goos], goos, true) && !inList(n, systemTreeExceptions[goos], goos, true) ||
			inList(n, systemTreeExceptions[goos], goos, false) {
			return fail("a system directory")
		}
		if cwd && inList(n, systemExact[goos], goos, false) {
			return fail("a directory that holds projects or system files")
		}
	}
	return nil
}

// candidates are dir as written and with its symlinks resolved.
func candidates(dir string) []string {
	c := filepath.Clean(dir)
	out := []string{c}
	if r, err := filepath.EvalSymlinks(c); err == nil && r != c {
		out = append(out, r)
	}
	return out
}

func norm(goos, p string) string {
	p = filepath.ToSlash(filepath.Clean(p))
	if goos == "windows" {
		p = strings.ReplaceAll(p, `\`, "/")
	}
	if goos == "windows" || goos == "darwin" {
		p = strings.ToLower(p)
	}
	return p
}

func inList(n string, list []string, goos string, tree bool) bool {
	for _, s := range list {
		s = norm(goos, s)
		if n == s || tree && within(s, n) {
			return true
		}
	}
	return false
}

// within reports whether p is strictly inside dir (slash paths).
func within(dir, p string) bool {
	if dir == "/" {
		return p != "/" && strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, dir+"/")
}
