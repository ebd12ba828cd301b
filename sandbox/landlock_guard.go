package sandbox

// The protected-path guard of the Landlock backend. Landlock cannot deny a
// path beneath a writable root (a rule on the root covers its whole
// subtree), and withholding rights from the root itself would forbid
// creating any file at the top of the project. So the backend snapshots the
// protected paths (".git/hooks", ".envrc", …) of every writable root before
// the run and, once the command and everything in its session are gone,
// puts back whatever changed: a planted hook or a rewritten .envrc does not
// survive the run. The command can still change them while it runs.

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Guard budgets: protected paths are small (hooks, rc files); beyond these
// the guard still detects a change by size and time but cannot undo it.
const (
	guardMaxFile  = 1 << 20
	guardMaxTotal = 16 << 20
	guardMaxNodes = 4096
)

type guardKind byte

const (
	gMissing guardKind = iota
	gFile
	gDir
	gLink
	gOther
)

type guardNode struct {
	kind guardKind
	mode fs.FileMode
	data []byte // file content, when kept
	kept bool   // data is the whole content
	size int64
	link string
	kids map[string]*guardNode // directory entries, by name
}

// guardItem is one protected path of one root, with the state of each of
// its ancestors below the root (a worktree's .git file, a symlinked dir).
type guardItem struct {
	rel       string
	node      *guardNode
	ancestors []*guardNode
}

type guardRoot struct {
	dir   string
	root  *os.Root
	items []guardItem
}

// protectGuard holds the snapshot of one run.
type protectGuard struct {
	roots  []*guardRoot
	nodes  int
	budget int64
}

// snapshotProtected records the protected paths (denyWrite, relative
// entries under every root and absolute entries inside one) of the roots.
func snapshotProtected(roots, denyWrite []string) (*protectGuard, error) {
	g := &protectGuard{budget: guardMaxTotal}
	for _, dir := range roots {
		rels := protectedRels(dir, denyWrite)
		if len(rels) == 0 {
			continue
		}
		r, err := os.OpenRoot(dir)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			g.close()
			return nil, err
		}
		gr := &guardRoot{dir: dir, root: r}
		for _, rel := range rels {
			it := guardItem{rel: rel}
			parts := strings.Split(rel, "/")
			for i := 1; i < len(parts); i++ {
				it.ancestors = append(it.ancestors, g.shallow(r, strings.Join(parts[:i], "/")))
			}
			it.node = g.snap(r, rel)
			gr.items = append(gr.items, it)
		}
		g.roots = append(g.roots, gr)
	}
	return g, nil
}

// protectedRels lists the protected paths relative to root, without
// duplicates and without any that would leave it.
func protectedRels(root string, denyWrite []string) []string {
	var out []string
	for _, e := range denyWrite {
		if filepath.IsAbs(e) {
			rel, err := filepath.Rel(root, filepath.Clean(e))
			if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
				continue
			}
			e = rel
		}
		e = filepath.ToSlash(filepath.Clean(e))
		if e == "." || e == ".." || strings.HasPrefix(e, "../") || strings.HasPrefix(e, "/") {
			continue
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	sort.Strings(out)
	return out
}

func (g *protectGuard) close() {
	for _, r := range g.roots {
		r.root.Close()
	}
}

// shallow records an ancestor: its kind, and its content when it is a file
// or a link (a worktree's ".git" file names the repository).
func (g *protectGuard) shallow(r *os.Root, rel string) *guardNode {
	fi, err := r.Lstat(rel)
	if err != nil {
		return &guardNode{kind: gMissing}
	}
	if fi.IsDir() {
		return &guardNode{kind: gDir, mode: fi.Mode()}
	}
	return g.snap(r, rel)
}

func (g *protectGuard) snap(r *os.Root, rel string) *guardNode {
	g.nodes++
	fi, err := r.Lstat(rel)
	if err != nil {
		return &guardNode{kind: gMissing}
	}
	n := &guardNode{mode: fi.Mode(), size: fi.Size()}
	switch {
	case fi.Mode().IsRegular():
		n.kind = gFile
		if fi.Size() <= guardMaxFile && fi.Size() <= g.budget {
			if b, err := r.ReadFile(rel); err == nil {
				n.data, n.kept, n.size = b, true, int64(len(b))
				g.budget -= int64(len(b))
			}
		}
	case fi.Mode()&fs.ModeSymlink != 0:
		n.kind = gLink
		n.link, _ = r.Readlink(rel)
	case fi.IsDir():
		n.kind = gDir
		n.kids = map[string]*guardNode{}
		if g.nodes > guardMaxNodes {
			n.kids = nil // too many entries: cannot restore, only detect
			break
		}
		for _, name := range readNames(r, rel) {
			n.kids[name] = g.snap(r, rel+"/"+name)
		}
	default:
		n.kind = gOther
	}
	return n
}

func readNames(r *os.Root, rel string) []string {
	f, err := r.Open(rel)
	if err != nil {
		return nil
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	sort.Strings(names)
	return names
}

// restore puts the protected paths back as they were and returns the
// paths it changed (root-joined), and the ones it could not put back.
func (g *protectGuard) restore() (changed, failed []string) {
	defer g.close()
	for _, gr := range g.roots {
		for _, it := range gr.items {
			c, f := gr.restoreItem(it)
			changed = append(changed, c...)
			failed = append(failed, f...)
		}
	}
	return changed, failed
}

func (gr *guardRoot) restoreItem(it guardItem) (changed, failed []string) {
	parts := strings.Split(it.rel, "/")
	for i, was := range it.ancestors {
		rel := strings.Join(parts[:i+1], "/")
		fi, err := gr.root.Lstat(rel)
		switch {
		case err != nil && was.kind == gMissing:
			return nil, nil // the protected path cannot exist
		case err == nil && fi.IsDir() && (was.kind == gDir || was.kind == gMissing):
			continue
		case was.kind == gDir || was.kind == gMissing:
			// Replaced by a link or a file (or removed): take the new
			// entry away; the protected path then does not exist.
			if err == nil {
				changed = append(changed, filepath.Join(gr.dir, rel))
				if gr.root.RemoveAll(rel) != nil {
					failed = append(failed, filepath.Join(gr.dir, rel))
				}
			}
			return changed, failed
		default:
			// A file or link ancestor (a worktree's .git): put it back.
			return gr.put(rel, was)
		}
	}
	return gr.put(it.rel, it.node)
}

// put makes rel match n, returning what it changed and what it could not.
func (gr *guardRoot) put(rel string, n *guardNode) (changed, failed []string) {
	full := filepath.Join(gr.dir, filepath.FromSlash(rel))
	if gr.same(rel, n) {
		return nil, nil
	}
	if n.kind == gDir && n.kids != nil {
		if fi, err := gr.root.Lstat(rel); err == nil && fi.IsDir() {
			// Same directory: fix its entries one by one.
			if fi.Mode() != n.mode {
				changed = append(changed, full)
				if gr.root.Chmod(rel, n.mode.Perm()) != nil {
					failed = append(failed, full)
				}
			}
			for _, name := range readNames(gr.root, rel) {
				if _, ok := n.kids[name]; !ok {
					changed = append(changed, filepath.Join(full, name))
					if gr.root.RemoveAll(rel+"/"+name) != nil {
						failed = append(failed, filepath.Join(full, name))
					}
				}
			}
			names := make([]string, 0, len(n.kids))
			for name := range n.kids {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				c, f := gr.put(rel+"/"+name, n.kids[name])
				changed = append(changed, c...)
				failed = append(failed, f...)
			}
			return changed, failed
		}
	}
	changed = append(changed, full)
	if err := gr.recreate(rel, n); err != nil {
		failed = append(failed, full)
	}
	return changed, failed
}

// same reports whether rel is exactly as recorded (a directory only by
// kind and mode; its entries are compared one by one by put).
func (gr *guardRoot) same(rel string, n *guardNode) bool {
	fi, err := gr.root.Lstat(rel)
	if err != nil {
		return n.kind == gMissing
	}
	if fi.Mode() != n.mode {
		return false
	}
	switch n.kind {
	case gFile:
		if !n.kept {
			return fi.Size() == n.size // cannot tell more, cannot restore
		}
		b, err := gr.root.ReadFile(rel)
		return err == nil && bytes.Equal(b, n.data)
	case gLink:
		t, err := gr.root.Readlink(rel)
		return err == nil && t == n.link
	case gDir:
		return n.kids == nil // compared entry by entry otherwise
	}
	return true
}

// recreate removes whatever is at rel and rebuilds n there.
func (gr *guardRoot) recreate(rel string, n *guardNode) error {
	if err := gr.root.RemoveAll(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	switch n.kind {
	case gMissing:
		return nil
	case gFile:
		if !n.kept {
			return errors.New("content not kept")
		}
		if err := gr.root.WriteFile(rel, n.data, n.mode.Perm()); err != nil {
			return err
		}
		return gr.root.Chmod(rel, n.mode.Perm())
	case gLink:
		return gr.root.Symlink(n.link, rel)
	case gDir:
		if n.kids == nil {
			return errors.New("entries not kept")
		}
		if err := gr.root.Mkdir(rel, n.mode.Perm()); err != nil {
			return err
		}
		var first error
		for name, kid := range n.kids {
			if err := gr.recreate(rel+"/"+name, kid); err != nil && first == nil {
				first = err
			}
		}
		if err := gr.root.Chmod(rel, n.mode.Perm()); err != nil && first == nil {
			first = err
		}
		return first
	}
	return errors.New("not a file, directory or link")
}
