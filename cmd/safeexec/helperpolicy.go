package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// seedPolicy is the --policy-json of `safeexec helper run`: the seed's
// sandbox policy, whose fields follow OpenAI Codex's SandboxPolicy
// ({"type": "workspace-write", "writable_roots": [...], "network_access":
// false, "exclude_tmpdir_env_var": false, "exclude_slash_tmp": false}).
// Several spellings of the same thing are accepted (sandbox_mode, type or
// mode; network_access or network); fields it does not know are ignored.
type seedPolicy struct {
	// readOnly: no writable root at all.
	readOnly bool
	// mode is a safeexec sandbox mode named by the policy (strict, compat,
	// permissive), or "".
	mode string
	// roots are the writable roots, absolute and clean, in order.
	roots []string
	// protect are paths that stay read-only inside the roots
	// (read_only_subpaths, deny_write); mask are unreadable (deny_read).
	protect, mask []string
	network       bool
	// $TMPDIR and /tmp are roots unless excluded (under bwrap both are the
	// command's private temporary directory, never the host's).
	excludeTmpdir, excludeSlashTmp bool
	timeoutMS                      int64
}

// rawSeedPolicy is the JSON as written.
type rawSeedPolicy struct {
	SandboxMode         *string           `json:"sandbox_mode"`
	Type                *string           `json:"type"`
	Mode                *string           `json:"mode"`
	WritableRoots       []json.RawMessage `json:"writable_roots"`
	NetworkAccess       json.RawMessage   `json:"network_access"`
	Network             json.RawMessage   `json:"network"`
	ExcludeTmpdirEnvVar bool              `json:"exclude_tmpdir_env_var"`
	ExcludeSlashTmp     bool              `json:"exclude_slash_tmp"`
	DenyRead            []string          `json:"deny_read"`
	DenyWrite           []string          `json:"deny_write"`
	TimeoutMS           int64             `json:"timeout_ms"`
}

// maxPolicyJSON bounds --policy-json.
const maxPolicyJSON = 1 << 20

// parseSeedPolicy reads --policy-json. Relative paths are taken from cwd.
// Besides a JSON object it accepts the bare preset names "read-only" and
// "workspace-write", as Codex's Windows helper does.
func parseSeedPolicy(s, cwd string) (*seedPolicy, error) {
	if len(s) > maxPolicyJSON {
		return nil, fmt.Errorf("larger than %d bytes", maxPolicyJSON)
	}
	trimmed := strings.TrimSpace(s)
	switch trimmed {
	case "read-only":
		return &seedPolicy{readOnly: true}, nil
	case "workspace-write":
		return &seedPolicy{roots: []string{cwd}}, nil
	}
	if !strings.HasPrefix(trimmed, "{") {
		return nil, errors.New(`not a JSON object (nor "read-only" or "workspace-write")`)
	}
	var raw rawSeedPolicy
	dec := json.NewDecoder(bytes.NewReader([]byte(trimmed)))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if strings.TrimSpace(trimmed[dec.InputOffset():]) != "" {
		return nil, errors.New("invalid JSON: data after the object")
	}
	p := &seedPolicy{excludeTmpdir: raw.ExcludeTmpdirEnvVar, excludeSlashTmp: raw.ExcludeSlashTmp}
	if raw.TimeoutMS < 0 {
		return nil, errors.New("timeout_ms must not be negative")
	}
	p.timeoutMS = raw.TimeoutMS

	for _, f := range []struct {
		key string
		v   *string
	}{{"sandbox_mode", raw.SandboxMode}, {"type", raw.Type}, {"mode", raw.Mode}} {
		if f.v == nil {
			continue
		}
		switch normName(*f.v) {
		case "readonly":
			p.readOnly = true
		case "workspacewrite", "":
		case "strict", "compat", "permissive":
			p.mode = tighter(p.mode, normName(*f.v))
		case "dangerfullaccess", "externalsandbox", "fullaccess", "none":
			return nil, fmt.Errorf("%s %q asks for no sandbox; safeexec's helper always confines the command (use read-only or workspace-write)", f.key, *f.v)
		default:
			return nil, fmt.Errorf("%s %q is not one of read-only, workspace-write", f.key, *f.v)
		}
	}

	for i, r := range raw.WritableRoots {
		root, sub, err := writableRoot(r)
		if err != nil {
			return nil, fmt.Errorf("writable_roots[%d]: %v", i, err)
		}
		root = absIn(cwd, root)
		p.roots = appendNew(p.roots, root)
		for _, s := range sub {
			p.protect = appendNew(p.protect, absIn(root, s))
		}
	}
	if !p.readOnly && len(raw.WritableRoots) == 0 {
		// Codex's workspace-write always includes the working directory.
		p.roots = []string{cwd}
	}
	for _, d := range raw.DenyRead {
		p.mask = appendNew(p.mask, absIn(cwd, d))
	}
	for _, d := range raw.DenyWrite {
		p.protect = appendNew(p.protect, absIn(cwd, d))
	}

	net, err := networkAccess(raw.NetworkAccess, "network_access")
	if err != nil {
		return nil, err
	}
	net2, err := networkAccess(raw.Network, "network")
	if err != nil {
		return nil, err
	}
	// Either spelling may turn it on; absent means off.
	p.network = net || net2
	if p.readOnly {
		p.roots, p.excludeTmpdir, p.excludeSlashTmp = nil, true, true
	}
	return p, nil
}

// normName folds "read-only", "read_only", "readOnly" and "ReadOnly" to
// one spelling.
func normName(s string) string {
	return strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.TrimSpace(s)))
}

// tighter returns the tighter of two sandbox modes ("" is neither).
func tighter(a, b string) string {
	rank := map[string]int{"strict": 0, "compat": 1, "permissive": 2}
	if a == "" {
		return b
	}
	if b == "" || rank[a] <= rank[b] {
		return a
	}
	return b
}

// writableRoot reads one writable_roots entry: a path, or an object with
// "root" and optional "read_only_subpaths" (Codex's WritableRoot).
func writableRoot(raw json.RawMessage) (root string, readOnlySub []string, err error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if s == "" {
			return "", nil, errors.New("empty path")
		}
		return s, nil, nil
	}
	var obj struct {
		Root             *string  `json:"root"`
		ReadOnlySubpaths []string `json:"read_only_subpaths"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil || obj.Root == nil || *obj.Root == "" {
		return "", nil, errors.New(`want a path, or an object with "root"`)
	}
	return *obj.Root, obj.ReadOnlySubpaths, nil
}

// networkAccess reads a network field: absent or null (off), a boolean,
// "enabled"/"restricted" (Codex's NetworkAccess), or {"enabled": bool}.
func networkAccess(raw json.RawMessage, key string) (bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err == nil {
		return b, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		switch normName(s) {
		case "enabled", "on", "allowed", "true":
			return true, nil
		case "restricted", "disabled", "off", "none", "false", "":
			return false, nil
		}
		return false, fmt.Errorf("%s %q is not one of enabled, restricted", key, s)
	}
	var obj struct {
		Enabled *bool `json:"enabled"`
	}
	if err := json.Unmarshal(raw, &obj); err == nil && obj.Enabled != nil {
		return *obj.Enabled, nil
	}
	return false, fmt.Errorf("%s: want a boolean, \"enabled\" or \"restricted\"", key)
}

func absIn(base, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

func appendNew(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}

// inside reports whether p is root or below it.
func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
