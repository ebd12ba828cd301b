package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// DefaultTTL is how long a project's temporary directory survives without
// a run in that project.
const DefaultTTL = 24 * time.Hour

// Project is one project and safeexec's directory for it.
type Project struct {
	// Root is the project directory, symlinks resolved.
	Root string
	// Dir is safeexec's directory for the project (see the package doc).
	Dir string
}

// TempDir is the project's persistent temporary directory.
func (p *Project) TempDir() string { return filepath.Join(p.Dir, "tmp") }

// CacheDir is the project's tool-cache directory.
func (p *Project) CacheDir() string { return filepath.Join(p.Dir, "cache") }

func (p *Project) lockPath() string { return filepath.Join(p.Dir, "lock") }

// Base is the directory holding every project's directory:
// $XDG_CACHE_HOME/safeexec/projects, else ~/.cache/safeexec/projects.
// getenv reads the environment safeexec runs in.
func Base(getenv func(string) string, home string) string {
	return filepath.Join(SafeexecCache(getenv, home), "projects")
}

// SafeexecCache is safeexec's own cache directory,
// $XDG_CACHE_HOME/safeexec or ~/.cache/safeexec. Every project's files
// live below it; commands in the sandbox must not see it, except their
// own project's part.
func SafeexecCache(getenv func(string) string, home string) string {
	if v := getenv("XDG_CACHE_HOME"); v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, "safeexec")
	}
	return filepath.Join(home, ".cache", "safeexec")
}

// Find returns the project that the working directory cwd belongs to: the
// nearest directory at or above cwd that holds a .git entry, looking no
// higher than below the home directory and never at "/", or cwd itself.
// Symlinks are resolved first, so every path to a directory names the same
// project.
func Find(cwd, home string) string {
	dir := resolve(cwd)
	stop := ""
	if home != "" {
		stop = resolve(home)
	}
	for d := dir; ; {
		if d == stop || isFSRoot(d) {
			break
		}
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return dir
}

func resolve(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func isFSRoot(p string) bool { return filepath.Dir(p) == p }

// Open returns the project whose directory is root (as Find returns it),
// with its directory below base. It creates nothing.
func Open(base, root string) *Project {
	return &Project{Root: root, Dir: filepath.Join(base, dirName(root))}
}

// dirName is the project directory's name: a readable part from the
// project's base name and a hash of its whole path.
func dirName(root string) string {
	sum := sha256.Sum256([]byte(root))
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, filepath.Base(root))
	name = strings.TrimLeft(name, ".")
	if len(name) > 32 {
		name = name[:32]
	}
	if name == "" || isFSRoot(root) {
		name = "root"
	}
	return name + "-" + hex.EncodeToString(sum[:8])
}

// Run is a run in progress in a project: while it is held, Sweep and
// Clean leave the project's directory alone.
type Run struct {
	p *Project
	f *os.File
}

// Start marks the beginning of a run: it takes the project's lock
// (shared, so runs in one project go on side by side), records the time,
// and creates the project's directories. End must be called when the run
// is over.
func (p *Project) Start() (*Run, error) {
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("project directory: %w", err)
	}
	var f *os.File
	for range 5 {
		var err error
		f, err = os.OpenFile(p.lockPath(), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("project lock: %w", err)
		}
		if err := lockShared(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("project lock: %w", err)
		}
		// A sweep may have removed the directory, lock file included,
		// while this run waited for the lock: then lock the new file.
		if sameFile(f, p.lockPath()) {
			break
		}
		f.Close()
		f = nil
		if err := os.MkdirAll(p.Dir, 0o700); err != nil {
			return nil, fmt.Errorf("project directory: %w", err)
		}
	}
	if f == nil {
		return nil, errors.New("project lock: the lock file keeps being replaced")
	}
	now := time.Now()
	os.Chtimes(p.lockPath(), now, now)
	for _, d := range []struct {
		path string
		perm fs.FileMode
	}{{p.TempDir(), 0o1777}, {p.CacheDir(), 0o700}} {
		err := os.Mkdir(d.path, 0o700)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			f.Close()
			return nil, fmt.Errorf("project directory: %w", err)
		}
		if err == nil && d.perm != 0o700 {
			// Like the host's /tmp: the directory itself is private to
			// the user through the project directory (0700).
			os.Chmod(d.path, d.perm)
		}
	}
	rec := filepath.Join(p.Dir, "project")
	if _, err := os.Lstat(rec); err != nil {
		os.WriteFile(rec, []byte(p.Root+"\n"), 0o600)
	}
	return &Run{p: p, f: f}, nil
}

// End records the end of the run and releases the project's lock.
func (r *Run) End() {
	if r == nil || r.f == nil {
		return
	}
	now := time.Now()
	os.Chtimes(r.p.lockPath(), now, now)
	r.f.Close() // releases the lock
	r.f = nil
}

func sameFile(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// ErrBusy is returned by Clean when a run in the project is going on.
var ErrBusy = errors.New("a command is running in this project")

// Clean removes everything safeexec keeps for the project: its
// temporary directory and its tool caches. It fails with ErrBusy while a
// run in the project holds its lock.
func (p *Project) Clean() error {
	f, err := os.OpenFile(p.lockPath(), os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return removeAll(p.Dir)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	ok, err := tryLockExclusive(f)
	if err != nil {
		return err
	}
	if !ok {
		return ErrBusy
	}
	return removeAll(p.Dir)
}

// Usage is what a project's directory holds, in bytes on disk.
type Usage struct {
	Temp, Cache, Total int64
}

// Size measures the project's directory.
func (p *Project) Size() Usage {
	u := Usage{Temp: diskUsage(p.TempDir()), Cache: diskUsage(p.CacheDir())}
	u.Total = diskUsage(p.Dir)
	return u
}

// List returns every project that has a directory below base, sorted by
// project path. A directory whose project file is unreadable is listed
// with an empty Root.
func List(base string) ([]*Project, error) {
	ents, err := os.ReadDir(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Project
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(base, e.Name())
		p := &Project{Dir: dir}
		if b, err := os.ReadFile(filepath.Join(dir, "project")); err == nil {
			p.Root = strings.TrimSpace(string(b))
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Root < out[j].Root })
	return out, nil
}

// sweepStamp is a file in base whose time says when the last sweep ran.
const sweepStamp = ".swept"

// sweepEvery bounds how often Sweep looks at the projects.
const sweepEvery = 10 * time.Minute

// Sweep removes the temporary directories of projects whose last run
// ended more than ttl ago, and everything of such a project whose
// directory no longer exists. A project with a run going on is left
// alone. It looks at the projects at most every ten minutes (or every
// ttl, when that is shorter), so a run pays one stat for it otherwise.
// It reports whether it looked this time.
func Sweep(base string, ttl time.Duration, now time.Time) (looked bool) {
	stamp := filepath.Join(base, sweepStamp)
	if fi, err := os.Stat(stamp); err == nil {
		if age := now.Sub(fi.ModTime()); age >= 0 && age < min(sweepEvery, ttl) {
			return false
		}
	}
	if f, err := os.OpenFile(stamp, os.O_WRONLY|os.O_CREATE, 0o600); err == nil {
		f.Close()
		os.Chtimes(stamp, now, now)
	}
	ents, err := os.ReadDir(base)
	if err != nil {
		return true
	}
	for _, e := range ents {
		if e.IsDir() {
			sweepOne(&Project{Dir: filepath.Join(base, e.Name())}, ttl, now)
		}
	}
	return true
}

func sweepOne(p *Project, ttl time.Duration, now time.Time) {
	fi, err := os.Stat(p.lockPath())
	if err != nil || now.Sub(fi.ModTime()) <= ttl {
		return
	}
	f, err := os.OpenFile(p.lockPath(), os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if ok, err := tryLockExclusive(f); err != nil || !ok {
		return
	}
	// A run may have ended between the look and the lock.
	if fi, err := f.Stat(); err != nil || now.Sub(fi.ModTime()) <= ttl {
		return
	}
	if b, err := os.ReadFile(filepath.Join(p.Dir, "project")); err == nil {
		root := strings.TrimSpace(string(b))
		if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
			removeAll(p.Dir)
			return
		}
	}
	removeAll(p.TempDir())
}

// ExpireOwn removes the project's temporary directory at once, for a ttl of
// zero (no temporary file outlives its run). Other runs in the project keep
// it.
func (p *Project) ExpireOwn() {
	f, err := os.OpenFile(p.lockPath(), os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if ok, err := tryLockExclusive(f); err == nil && ok {
		removeAll(p.TempDir())
	}
}

// removeAll removes a tree that a sandboxed command wrote, including
// directories it made read-only (Go's module cache does that). It follows
// no symbolic link.
func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		// Called for a directory before it is read: made writable (and
		// readable) here, its entries can be walked and removed.
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// diskUsage sums the space the files below dir take, following no link.
func diskUsage(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			n += allocated(fi)
		}
		return nil
	})
	return n
}
