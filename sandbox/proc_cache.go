package sandbox

import (
	"path/filepath"
	"strings"
)

// cacheVars are the tool caches pointed at safeexec's own cache directory,
// with the subdirectory each gets.
var cacheVars = []struct{ name, sub string }{
	{"GOCACHE", "go-build"},
	{"GOMODCACHE", "go-mod"},
	{"npm_config_cache", "npm"},
	{"YARN_CACHE_FOLDER", "yarn"},
	{"npm_config_store_dir", "pnpm-store"},
	{"BUN_INSTALL_CACHE_DIR", "bun"},
	{"PIP_CACHE_DIR", "pip"},
	{"UV_CACHE_DIR", "uv"},
	{"POETRY_CACHE_DIR", "poetry"},
	{"CARGO_HOME", "cargo"},
	{"GRADLE_USER_HOME", "gradle"},
	{"DENO_DIR", "deno"},
	{"XDG_CACHE_HOME", "xdg"},
}

// CacheEnv returns env with the tools' cache variables pointed into
// cacheDir, safeexec's own cache directory, which the sandbox makes
// writable (set Policy.CacheDir to the same directory). The host's caches
// are never written from inside; where a tool can read a cache as a plain
// source, it still does: Go downloads modules from the host's module cache
// first (GOPROXY=file://…), read-only.
func CacheEnv(cacheDir string, env []string) []string {
	cacheDir = filepath.Clean(cacheDir)
	hostModCache := goModCache(env)
	out := make([]string, 0, len(env)+len(cacheVars)+1)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if isCacheVar(k) || (k == "GOPROXY" && hostModCache != "") {
			continue
		}
		out = append(out, kv)
	}
	for _, v := range cacheVars {
		out = append(out, v.name+"="+filepath.Join(cacheDir, v.sub))
	}
	if hostModCache != "" && !strings.HasPrefix(hostModCache, cacheDir) {
		proxy, ok := envValue(env, "GOPROXY")
		if !ok || proxy == "" {
			proxy = "https://proxy.golang.org,direct"
		}
		out = append(out, "GOPROXY=file://"+filepath.ToSlash(filepath.Join(hostModCache, "cache", "download"))+","+proxy)
	}
	return out
}

func isCacheVar(k string) bool {
	for _, v := range cacheVars {
		if v.name == k {
			return true
		}
	}
	return false
}

// goModCache is the host's Go module cache as go would find it.
func goModCache(env []string) string {
	if v, ok := envValue(env, "GOMODCACHE"); ok && filepath.IsAbs(v) {
		return v
	}
	if v, ok := envValue(env, "GOPATH"); ok && v != "" {
		first := filepath.SplitList(v)[0]
		if filepath.IsAbs(first) {
			return filepath.Join(first, "pkg", "mod")
		}
	}
	if h, ok := envValue(env, "HOME"); ok && filepath.IsAbs(h) {
		return filepath.Join(h, "go", "pkg", "mod")
	}
	return ""
}
