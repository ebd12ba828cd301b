package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// planFixture lays out a user profile with a project, known folders and
// credential directories under a temporary directory, and returns the
// plan input for it.
func planFixture(t *testing.T, mode Mode) (*winPlanInput, string) {
	t.Helper()
	base := tempDir(t)
	prof := filepath.Join(base, "Users", "dev")
	appdata := filepath.Join(prof, "AppData", "Roaming")
	local := filepath.Join(prof, "AppData", "Local")
	for _, d := range []string{
		filepath.Join(prof, "proj", ".git", "hooks"),
		filepath.Join(prof, "other"),
		filepath.Join(prof, ".ssh"),
		filepath.Join(appdata, "Microsoft", "Windows", "Start Menu", "Programs", "Startup"),
		filepath.Join(appdata, "GitHub CLI"),
		filepath.Join(local, "Programs"),
		filepath.Join(local, "Temp", "safeexec-tmp-1"),
		filepath.Join(prof, ".cache", "safeexec", "tools"),
	} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(prof, "proj", ".env"), nil, 0o644)
	return &winPlanInput{
		Mode:      mode,
		Roots:     []string{filepath.Join(prof, "proj"), filepath.Join(prof, "other")},
		TempDir:   filepath.Join(local, "Temp", "safeexec-tmp-1"),
		CacheDir:  filepath.Join(prof, ".cache", "safeexec", "tools"),
		DenyWrite: []string{".env", filepath.Join(".git", "hooks"), ".envrc"},
		DenyRead:  []string{filepath.Join(prof, ".ssh"), filepath.Join(appdata, "GitHub CLI"), filepath.Join(appdata, "gcloud")},
		Known: map[string]string{"profile": prof, "appdata": appdata, "localappdata": local,
			"documents": filepath.Join(prof, "Documents")},
		WorkspaceSID: workspaceSID("u", mode, nil),
		RunSID:       "S-1-15-3-7363-1-2-3-4",
		Exists:       func(p string) bool { _, err := os.Lstat(p); return err == nil },
	}, prof
}

// planLines renders a plan as "op sid-kind path-relative-to-profile".
func planLines(plan []aclChange, prof, ws string) []string {
	var out []string
	for _, c := range plan {
		who := "run"
		if c.SID == ws {
			who = "ws"
		}
		rel, _ := filepath.Rel(prof, c.Path)
		out = append(out, c.Op+" "+who+" "+filepath.ToSlash(rel))
	}
	return out
}

func TestPlanModes(t *testing.T) {
	for _, tc := range []struct {
		mode Mode
		want []string
	}{
		{Strict, []string{
			"allow ws proj",
			"allow run AppData/Local/Temp/safeexec-tmp-1",
			"allow run .cache/safeexec/tools",
			"deny ws proj/.env",
			"deny ws proj/.git/hooks",
			"pin ws proj/.git",
		}},
		{Compat, []string{
			"allow ws proj",
			"allow ws other",
			"allow ws AppData/Roaming",
			"allow ws AppData/Local",
			"allow run AppData/Local/Temp/safeexec-tmp-1",
			"allow run .cache/safeexec/tools",
			"deny ws proj/.env",
			"deny ws proj/.git/hooks",
			"deny ws AppData/Roaming/GitHub CLI",
			"deny ws AppData/Roaming/Microsoft/Windows/Start Menu",
			"deny ws AppData/Local/Programs",
			"deny ws AppData/Local/Temp",
			"pin ws proj/.git",
			"pin ws AppData/Roaming/Microsoft/Windows",
			"pin ws AppData/Roaming/Microsoft",
		}},
		{Permissive, nil},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			in, prof := planFixture(t, tc.mode)
			got := planLines(planWindowsACL(in), prof, in.WorkspaceSID)
			if !slices.Equal(got, tc.want) {
				t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// A home directory as the writable root brings the host's own start-up
// files and credentials under it: they are denied, whatever the mode.
func TestPlanHomeAsRoot(t *testing.T) {
	in, prof := planFixture(t, Strict)
	in.Roots = []string{prof}
	os.MkdirAll(filepath.Join(prof, "Documents", "WindowsPowerShell"), 0o755)
	os.WriteFile(filepath.Join(prof, ".gitconfig"), nil, 0o644)
	got := planLines(planWindowsACL(in), prof, in.WorkspaceSID)
	for _, want := range []string{
		"deny ws .ssh",
		"deny ws .gitconfig",
		"deny ws Documents/WindowsPowerShell",
		"deny ws AppData/Roaming/Microsoft/Windows/Start Menu",
		"deny ws AppData/Roaming/GitHub CLI",
		"deny ws AppData/Local/Programs",
		"pin ws AppData",
		"pin ws AppData/Roaming",
		"pin ws Documents",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("plan lacks %q:\n%s", want, strings.Join(got, "\n"))
		}
	}
	for _, l := range got {
		if strings.HasPrefix(l, "pin ws .") && !strings.Contains(l, "/") && l != "pin ws .cache" {
			t.Errorf("a protected path itself is pinned, not denied: %s", l)
		}
	}
}

func TestGrantedRoots(t *testing.T) {
	known := map[string]string{"appdata": "/p/AppData/Roaming", "localappdata": "/p/AppData/Local"}
	roots := []string{"/w", "/x", "/W"}
	if got := winGrantedRoots(Strict, roots, known); !slices.Equal(got, []string{"/w"}) {
		t.Errorf("strict: %q", got)
	}
	if got := winGrantedRoots(Compat, roots, known); !slices.Equal(got, []string{"/w", "/x", "/p/AppData/Roaming", "/p/AppData/Local"}) {
		t.Errorf("compat: %q", got)
	}
	if got := winGrantedRoots(Permissive, roots, known); got != nil {
		t.Errorf("permissive: %q", got)
	}
	if got := winGrantedRoots(Strict, nil, known); got != nil {
		t.Errorf("strict without roots: %q", got)
	}
}
