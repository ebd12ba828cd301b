package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// errNotFound and errNotExecutable are what lookPathEnv reports; callers turn
// them into the shell's exit codes 127 and 126.
var (
	errNotFound      = errors.New("command not found")
	errNotExecutable = errors.New("permission denied")
)

// envValue returns the last value of key in env, as exec does.
func envValue(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// lookPathEnv resolves name the way execvp would inside the command's
// environment: a name with a slash is taken relative to cwd, any other name
// is searched in env's PATH. It returns the path, and on failure the exit
// code a shell would give (127 not found, 126 found but not executable).
func lookPathEnv(name string, env []string, cwd string) (string, int, error) {
	if name == "" {
		return "", 127, errNotFound
	}
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) && cwd != "" {
			p = filepath.Join(cwd, p)
		}
		switch code := checkExecutable(p); code {
		case 0:
			return p, 0, nil
		case 126:
			return "", code, errNotExecutable
		default:
			return "", code, errNotFound
		}
	}
	path, ok := envValue(env, "PATH")
	if !ok {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	code := 127
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if !filepath.IsAbs(dir) && cwd != "" {
			dir = filepath.Join(cwd, dir)
		}
		p := filepath.Join(dir, name)
		switch checkExecutable(p) {
		case 0:
			return p, 0, nil
		case 126:
			code = 126 // execvp reports EACCES if nothing better is found
		}
	}
	if code == 126 {
		return "", 126, errNotExecutable
	}
	return "", 127, errNotFound
}

// checkExecutable returns 0 when p is an executable regular file, 126 when
// it exists but cannot be executed, 127 when it does not exist.
func checkExecutable(p string) int {
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return 126
		}
		return 127
	}
	if fi.IsDir() || !isExecutable(p, fi) {
		return 126
	}
	return 0
}
