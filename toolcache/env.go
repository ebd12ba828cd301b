package toolcache

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Options say what Env works with.
type Options struct {
	// Dir is the project's tool-cache directory (writable in the sandbox).
	Dir string
	// Env is the command's environment, already filtered.
	Env []string
	// Self is the safeexec executable, for GOCACHEPROG. Empty: Go reads
	// only the project's build cache.
	Self string
	// NoExec says the command may not run Self (strict modes that execute
	// only system binaries): no GOCACHEPROG.
	NoExec bool
	// Command is the command's words (its argv, or the shell with its
	// script): the go commands it runs decide whether Go needs the
	// host's build cache (see goKind).
	Command []string
}

// redirected are the variables pointed into Dir, with the subdirectory
// each gets.
var redirected = []struct{ name, sub string }{
	{"GOCACHE", "go-build"},
	{"GOMODCACHE", "go-mod"},
	{"npm_config_cache", "npm"},
	{"YARN_CACHE_FOLDER", "yarn"},
	{"YARN_GLOBAL_FOLDER", "yarn-berry"},
	{"pnpm_config_store_dir", "pnpm-store"},
	{"BUN_INSTALL_CACHE_DIR", "bun"},
	{"PIP_CACHE_DIR", "pip"},
	{"UV_CACHE_DIR", "uv"},
	{"POETRY_CACHE_DIR", "poetry"},
	{"CARGO_HOME", "cargo"},
	{"GRADLE_USER_HOME", "gradle"},
	{"NUGET_PACKAGES", "nuget"},
	{"DENO_DIR", "deno"},
	{"CCACHE_DIR", "ccache"},
	{"SCCACHE_DIR", "sccache"},
	{"XDG_CACHE_HOME", "xdg"},
}

// replaced are variables Env sets from the host's caches; a value the
// environment already has is replaced (or, for MAVEN_OPTS, extended).
var replaced = []string{"GOPROXY", "GOCACHEPROG", "GRADLE_RO_DEP_CACHE", "NUGET_FALLBACK_PACKAGES", "MAVEN_OPTS"}

// Env returns the command's environment with the tools' caches in
// o.Dir and the host's caches as read-only sources (see the package
// documentation). It also links the host's tool settings into the
// per-project homes that need them (Cargo's, Gradle's); a link it cannot
// make is left out.
func Env(o Options) []string {
	dir := filepath.Clean(o.Dir)
	env := o.Env
	h := hostCaches(env)
	out := make([]string, 0, len(env)+len(redirected)+4)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if isRedirected(k) {
			continue
		}
		if contains(replaced, k) {
			if k == "GOCACHEPROG" && o.userGoCacheProg() {
				out = append(out, kv) // the user's own: kept
			}
			continue
		}
		out = append(out, kv)
	}
	for _, v := range redirected {
		out = append(out, v.name+"="+filepath.Join(dir, v.sub))
	}
	set := func(k, v string) { out = append(out, k+"="+v) }

	// Go: modules from the host's module cache first, build results
	// through GOCACHEPROG until the project's cache has what the host's
	// can give this kind of command (sync.go).
	proxy, ok := envValue(env, "GOPROXY")
	if !ok || proxy == "" {
		proxy = "https://proxy.golang.org,direct"
	}
	if dl := filepath.Join(h.goModCache, "cache", "download"); h.goModCache != "" && isDir(dl) && !within(dir, dl) {
		proxy = fileURL(dl) + "," + proxy
	}
	set("GOPROXY", proxy)
	if o.userGoCacheProg() {
		// kept above
	} else if o.Self != "" && !o.NoExec && h.goCache != "" && isDir(h.goCache) && !within(dir, h.goCache) {
		own := filepath.Join(dir, "go-build")
		mark := syncMark(h.goCache, goToolchain(env), goKind(o.Command, env))
		if !synced(own, mark, time.Now()) {
			if prog, ok := joinQuoted(o.Self, "__gocache", own, h.goCache, mark); ok {
				set("GOCACHEPROG", prog)
			}
		}
	}

	// Gradle: its read-only dependency cache, and the user's settings.
	gradle := filepath.Join(dir, "gradle")
	if c := filepath.Join(h.gradleHome, "caches"); h.gradleHome != "" && isDir(filepath.Join(c, "modules-2")) {
		set("GRADLE_RO_DEP_CACHE", c)
	}
	if h.gradleHome != "" {
		linkIn(gradle, h.gradleHome, "gradle.properties", "init.d")
	}

	// Maven: the project's repository, the host's as a read-only tail.
	opts, _ := envValue(env, "MAVEN_OPTS")
	opts = strings.TrimSpace(opts + " -Dmaven.repo.local=" + filepath.Join(dir, "m2"))
	if h.mavenRepo != "" && isDir(h.mavenRepo) {
		opts += " -Dmaven.repo.local.tail=" + h.mavenRepo
	}
	set("MAVEN_OPTS", opts)

	// NuGet: the host's packages as a fallback folder.
	if h.nuget != "" && isDir(h.nuget) {
		set("NUGET_FALLBACK_PACKAGES", h.nuget)
	}

	// Cargo: the user's configuration and installed subcommands.
	if h.cargoHome != "" {
		linkIn(filepath.Join(dir, "cargo"), h.cargoHome, "config.toml", "config", "bin")
	}
	return out
}

// userGoCacheProg reports whether the environment names a GOCACHEPROG of
// the user's own.
func (o Options) userGoCacheProg() bool {
	v, ok := envValue(o.Env, "GOCACHEPROG")
	return ok && v != ""
}

func isRedirected(k string) bool {
	for _, v := range redirected {
		if v.name == k {
			return true
		}
	}
	return false
}

// hosts are where the user's tools keep their caches outside the sandbox.
type hosts struct {
	goCache, goModCache, gradleHome, mavenRepo, nuget, cargoHome string
}

func hostCaches(env []string) hosts {
	home, _ := envValue(env, "HOME")
	if runtime.GOOS == "windows" {
		if p, ok := envValue(env, "USERPROFILE"); ok {
			home = p
		}
	}
	if !filepath.IsAbs(home) {
		home = ""
	}
	abs := func(k, def string) string {
		if v, ok := envValue(env, k); ok && filepath.IsAbs(v) {
			return filepath.Clean(v)
		}
		return def
	}
	under := func(parts ...string) string {
		if home == "" {
			return ""
		}
		return filepath.Join(append([]string{home}, parts...)...)
	}
	var h hosts
	if uc := userCacheDir(env, home); uc != "" {
		h.goCache = abs("GOCACHE", filepath.Join(uc, "go-build"))
	} else {
		h.goCache = abs("GOCACHE", "")
	}
	h.goModCache = goModCache(env, home)
	h.gradleHome = abs("GRADLE_USER_HOME", under(".gradle"))
	h.mavenRepo = under(".m2", "repository")
	h.nuget = abs("NUGET_PACKAGES", under(".nuget", "packages"))
	h.cargoHome = abs("CARGO_HOME", under(".cargo"))
	return h
}

// userCacheDir is os.UserCacheDir for the command's environment.
func userCacheDir(env []string, home string) string {
	switch runtime.GOOS {
	case "windows":
		if v, ok := envValue(env, "LocalAppData"); ok && filepath.IsAbs(v) {
			return v
		}
		return ""
	case "darwin", "ios":
		if home == "" {
			return ""
		}
		return filepath.Join(home, "Library", "Caches")
	}
	if v, ok := envValue(env, "XDG_CACHE_HOME"); ok && filepath.IsAbs(v) {
		return v
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".cache")
}

// goModCache is the host's Go module cache as go would find it.
func goModCache(env []string, home string) string {
	if v, ok := envValue(env, "GOMODCACHE"); ok && filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	if v, ok := envValue(env, "GOPATH"); ok && v != "" {
		if first := filepath.SplitList(v)[0]; filepath.IsAbs(first) {
			return filepath.Join(first, "pkg", "mod")
		}
	}
	if home != "" {
		return filepath.Join(home, "go", "pkg", "mod")
	}
	return ""
}

// linkIn makes dir/name a symbolic link to host/name for each name that
// exists on the host and is not yet in dir. The links lead to read-only
// places inside the sandbox; a command may replace them, for its own
// project only.
func linkIn(dir, host string, names ...string) {
	made := false
	for _, n := range names {
		target := filepath.Join(host, n)
		if _, err := os.Stat(target); err != nil {
			continue
		}
		if !made {
			if os.MkdirAll(dir, 0o700) != nil {
				return
			}
			made = true
		}
		link := filepath.Join(dir, n)
		if _, err := os.Lstat(link); err == nil {
			continue
		}
		os.Symlink(target, link)
	}
}

// fileURL is a file:// URL for an absolute path (file:///C:/... on
// Windows).
func fileURL(p string) string {
	s := filepath.ToSlash(p)
	if !strings.HasPrefix(s, "/") {
		s = "/" + s
	}
	return "file://" + s
}

// joinQuoted joins words as the go command splits GOCACHEPROG: words with
// spaces in single quotes (or double quotes when they hold a single
// quote). A word with both quotes cannot be written.
func joinQuoted(words ...string) (string, bool) {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case w == "":
			return "", false
		case !strings.ContainsAny(w, " \t\n\r'\""):
			b.WriteString(w)
		case !strings.ContainsRune(w, '\''):
			b.WriteString("'" + w + "'")
		case !strings.ContainsRune(w, '"'):
			b.WriteString(`"` + w + `"`)
		default:
			return "", false
		}
	}
	return b.String(), true
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func envValue(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v, true
		}
	}
	return "", false
}
