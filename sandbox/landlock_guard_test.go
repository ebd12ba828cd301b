package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readOr(root, rel string) string {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

// rootRemoveWorks probes whether os.Root can remove a file here: Wine does
// not implement what it needs on Windows, and the guard cannot restore
// anything without it.
func rootRemoveWorks(t *testing.T) bool {
	t.Helper()
	d, err := os.MkdirTemp("", "safeexec-probe-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(d)
	f := filepath.Join(d, "f")
	os.WriteFile(f, nil, 0o644)
	defer os.Remove(f)
	r, err := os.OpenRoot(d)
	if err != nil {
		return false
	}
	defer r.Close()
	return r.Remove("f") == nil
}

var guardDeny = []string{".git/hooks", ".git/config", ".envrc", ".env", ".bashrc"}

func TestGuardRestores(t *testing.T) {
	if !rootRemoveWorks(t) {
		t.Skip("os.Root cannot remove files on this system (Wine): the guard cannot restore here")
	}
	for _, tc := range []struct {
		name   string
		before map[string]string
		tamper func(t *testing.T, root string)
		want   map[string]string // rel → content after restore ("<missing>")
	}{{
		name:   "unchanged",
		before: map[string]string{".git/hooks/pre-commit.sample": "s", ".envrc": "ok"},
		tamper: func(t *testing.T, root string) {},
		want:   map[string]string{".git/hooks/pre-commit.sample": "s", ".envrc": "ok"},
	}, {
		name:   "modified, removed and added files",
		before: map[string]string{".git/hooks/a": "a", ".git/config": "[core]", ".envrc": "ok"},
		tamper: func(t *testing.T, root string) {
			writeTree(t, root, map[string]string{".git/hooks/a": "evil", ".git/hooks/pre-commit": "evil", ".git/config": "evil", ".env": "new"})
			os.Remove(filepath.Join(root, ".envrc"))
		},
		want: map[string]string{".git/hooks/a": "a", ".git/hooks/pre-commit": "<missing>", ".git/config": "[core]", ".envrc": "ok", ".env": "<missing>"},
	}, {
		name:   "protected directory replaced by a link",
		before: map[string]string{".git/hooks/a": "a", "elsewhere/pre-commit": "evil"},
		tamper: func(t *testing.T, root string) {
			os.RemoveAll(filepath.Join(root, ".git/hooks"))
			if err := os.Symlink("../elsewhere", filepath.Join(root, ".git/hooks")); err != nil {
				t.Skip("no symlinks:", err)
			}
		},
		want: map[string]string{".git/hooks/a": "a", ".git/hooks/pre-commit": "<missing>", "elsewhere/pre-commit": "evil"},
	}, {
		name:   "ancestor replaced by a link to a planted repository",
		before: map[string]string{".git/hooks/a": "a", ".git/config": "c"},
		tamper: func(t *testing.T, root string) {
			os.Rename(filepath.Join(root, ".git"), filepath.Join(root, ".g"))
			writeTree(t, root, map[string]string{"planted/hooks/pre-commit": "evil", "planted/config": "evil"})
			if err := os.Symlink("planted", filepath.Join(root, ".git")); err != nil {
				t.Skip("no symlinks:", err)
			}
		},
		want: map[string]string{".git/hooks/pre-commit": "<missing>", ".git/config": "<missing>", ".g/config": "c"},
	}, {
		name:   "ancestor renamed away and rebuilt",
		before: map[string]string{".git/hooks/a": "a", ".git/config": "c", ".git/HEAD": "h"},
		tamper: func(t *testing.T, root string) {
			os.Rename(filepath.Join(root, ".git"), filepath.Join(root, ".g"))
			writeTree(t, root, map[string]string{".git/hooks/pre-commit": "evil", ".git/config": "evil"})
		},
		want: map[string]string{".git/hooks/pre-commit": "<missing>", ".git/hooks/a": "a", ".git/config": "c"},
	}, {
		name:   "worktree .git file rewritten",
		before: map[string]string{".git": "gitdir: /repo/.git/worktrees/x"},
		tamper: func(t *testing.T, root string) {
			writeTree(t, root, map[string]string{".git": "gitdir: /tmp/evil"})
		},
		want: map[string]string{".git": "gitdir: /repo/.git/worktrees/x"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tc.before)
			g, err := snapshotProtected([]string{root}, guardDeny)
			if err != nil {
				t.Fatal(err)
			}
			tc.tamper(t, root)
			changed, failed := g.restore()
			if len(failed) > 0 {
				t.Errorf("failed to restore %v", failed)
			}
			if tc.name == "unchanged" && len(changed) > 0 {
				t.Errorf("reported changes %v for an untouched tree", changed)
			}
			if tc.name != "unchanged" && len(changed) == 0 {
				t.Error("reported no change")
			}
			for rel, want := range tc.want {
				if got := readOr(root, rel); got != want {
					t.Errorf("%s = %q, want %q", rel, got, want)
				}
			}
		})
	}
}

func TestGuardModeAndAbsoluteEntries(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no execute bit on Windows")
	}
	root := t.TempDir()
	writeTree(t, root, map[string]string{".git/hooks/pre-commit": "#!/bin/sh\n", ".mcp.json": "{}"})
	hook := filepath.Join(root, ".git/hooks/pre-commit")
	os.Chmod(hook, 0o644)
	g, err := snapshotProtected([]string{root}, []string{".git/hooks", filepath.Join(root, ".mcp.json"), "/elsewhere/x", "../up"})
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(hook, 0o755)
	os.WriteFile(filepath.Join(root, ".mcp.json"), []byte(`{"evil":1}`), 0o644)
	changed, _ := g.restore()
	if fi, _ := os.Stat(hook); fi.Mode().Perm() != 0o644 {
		t.Errorf("hook mode %v, want 0644", fi.Mode().Perm())
	}
	if got := readOr(root, ".mcp.json"); got != "{}" {
		t.Errorf(".mcp.json = %q", got)
	}
	if !slices.Contains(changed, hook) {
		t.Errorf("changed = %v, want the hook listed", changed)
	}
}

func TestProtectedRels(t *testing.T) {
	got := protectedRels("/w/p", []string{".env", "./.env", ".git/hooks/", "/w/p/.mcp.json", "/w/other/x", "../x", "/w/p", ".."})
	want := []string{".env", ".git/hooks", ".mcp.json"}
	if runtime.GOOS == "windows" {
		return // absolute Unix paths mean nothing there
	}
	if !slices.Equal(got, want) {
		t.Errorf("protectedRels = %v, want %v", got, want)
	}
}
