package sandbox

// What the Windows helper changes in the file system's ACLs for a run,
// portable so that the modes' table is tested on every OS.

import (
	"path/filepath"
	"slices"
	"strings"
)

// Access masks of the helper's ACEs (Windows values, spelled out here so
// that the plan is portable).
const (
	// aclModify is "Modify": read, write, execute and delete, but not
	// FILE_DELETE_CHILD, which would let the command delete (and then
	// recreate) a child whose own ACL denies it that: with DELETE
	// inherited by every child, ordinary deletes need nothing more.
	aclModify uint32 = 0x120089 | 0x120116 | 0x1200a0 | 0x10000
	// aclProtect denies what changes a file or directory: write data,
	// append, write extended attributes and attributes, delete, delete
	// child, change the DACL or the owner. Not READ_CONTROL or
	// SYNCHRONIZE, which every open asks for.
	aclProtect uint32 = 0x2 | 0x4 | 0x10 | 0x100 | 0x10000 | 0x40 | 0x40000 | 0x80000
	// aclPin denies renaming or removing an ancestor of a protected path
	// (and changing its DACL or owner), for that directory alone: "mv .git
	// .g" followed by a new .git/hooks fails.
	aclPin uint32 = 0x10000 | 0x40000 | 0x80000
)

// winPlanInput is what planWindowsACL needs to know about a run.
type winPlanInput struct {
	Mode Mode
	// Roots are the policy's writable roots that exist, the primary first.
	Roots []string
	// TempDir and CacheDir are the run's private temporary directory and
	// the tool cache: writable in strict and compat.
	TempDir, CacheDir string
	// DenyWrite are the policy's protected paths (relative to every root,
	// or absolute); DenyRead the credential paths (absolute).
	DenyWrite, DenyRead []string
	// Known are the user's known folders: "profile", "appdata",
	// "localappdata", "documents" (empty when unknown).
	Known map[string]string
	// WorkspaceSID and RunSID are the run's SIDs.
	WorkspaceSID, RunSID string
	// Exists reports whether a path exists (an ACE needs an object).
	Exists func(string) bool
}

// winGrantedRoots are the roots a mode grants to the workspace SID: the
// seed's table of modes — strict the first writable root only, compat
// every root and %APPDATA% and %LOCALAPPDATA%, permissive none (its token
// has no restricting SIDs, so writes are not confined at all).
func winGrantedRoots(mode Mode, roots []string, known map[string]string) []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		for _, o := range out {
			if strings.EqualFold(filepath.Clean(o), filepath.Clean(p)) {
				return
			}
		}
		out = append(out, p)
	}
	switch mode {
	case Strict:
		if len(roots) > 0 {
			add(roots[0])
		}
	case Compat:
		for _, r := range roots {
			add(r)
		}
		add(known["appdata"])
		add(known["localappdata"])
	}
	return out
}

// winProtectedPaths are the absolute paths the helper protects below the
// granted roots: the policy's deny_write entries, the places the host
// runs code from (winHostRuns) and the credential paths.
func winProtectedPaths(in *winPlanInput, granted []string) []string {
	abs := append(append(append([]string(nil), in.DenyWrite...), hostRunPaths(in.Known)...), in.DenyRead...)
	var out []string
	for _, r := range granted {
		for _, rel := range protectedRels(r, abs) {
			p := filepath.Join(r, filepath.FromSlash(rel))
			if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, p) }) {
				out = append(out, p)
			}
		}
	}
	return out
}

// hostRunPaths are winHostRuns below the known folders.
func hostRunPaths(known map[string]string) []string {
	var out []string
	for _, h := range winHostRuns {
		if base := known[h.Folder]; base != "" {
			out = append(out, filepath.Join(base, filepath.FromSlash(h.Rel)))
		}
	}
	return out
}

// planWindowsACL lists the ACEs of a run, in the order they are applied
// (and journaled): allow ACEs for the granted roots, the temporary
// directory and the cache, then deny ACEs on the protected paths that
// exist below them and pins on the directories between a root and a
// protected path. Permissive mode changes nothing.
func planWindowsACL(in *winPlanInput) []aclChange {
	if in.Mode == Permissive {
		return nil
	}
	granted := winGrantedRoots(in.Mode, in.Roots, in.Known)
	var plan []aclChange
	for _, r := range granted {
		if in.Exists(r) {
			plan = append(plan, aclChange{Op: "allow", Path: r, SID: in.WorkspaceSID, Mask: aclModify})
		}
	}
	for _, d := range []string{in.TempDir, in.CacheDir} {
		if d != "" && in.Exists(d) {
			plan = append(plan, aclChange{Op: "allow", Path: d, SID: in.RunSID, Mask: aclModify})
		}
	}
	var pinned []string
	for _, p := range winProtectedPaths(in, granted) {
		if !in.Exists(p) {
			continue
		}
		plan = append(plan, aclChange{Op: "deny", Path: p, SID: in.WorkspaceSID, Mask: aclProtect})
		for _, a := range ancestorsBelow(granted, p) {
			if !slices.ContainsFunc(pinned, func(o string) bool { return strings.EqualFold(o, a) }) {
				pinned = append(pinned, a)
			}
		}
	}
	for _, a := range pinned {
		plan = append(plan, aclChange{Op: "pin", Path: a, SID: in.WorkspaceSID, Mask: aclPin})
	}
	return plan
}

// ancestorsBelow lists the directories strictly between the granted root
// that contains p and p itself.
func ancestorsBelow(granted []string, p string) []string {
	for _, r := range granted {
		rel, err := filepath.Rel(r, p)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		var out []string
		dir := filepath.Dir(rel)
		for dir != "." && dir != string(filepath.Separator) {
			out = append(out, filepath.Join(r, dir))
			dir = filepath.Dir(dir)
		}
		return out
	}
	return nil
}
