package configs

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// applyProject applies an untrusted project file: only what tightens the
// policy is taken; everything else is dropped with a warning naming the
// file and key.
func (l *loader) applyProject(p *parsed) error {
	fc, e := &p.fc, l.e
	warn := func(key, format string, args ...any) {
		e.Warnings = append(e.Warnings, fmt.Sprintf("%s: %s: ignored: %s", p.path, key, fmt.Sprintf(format, args...)))
	}

	if fc.Mode != nil && *fc.Mode != e.Mode {
		if modeRank(*fc.Mode) < modeRank(e.Mode) {
			e.Mode = *fc.Mode
		} else {
			warn("mode", "%q is looser than %q; a project file may only choose a stricter mode", *fc.Mode, e.Mode)
		}
	}
	if b := fc.Sandbox.Backend; b != nil && *b != e.Backend {
		warn("sandbox.backend", "a project file may not choose the sandbox backend")
	}
	if sh := fc.Run.Shell; sh != nil && *sh != e.Shell {
		warn("run.shell", "a project file may not choose the shell that runs your scripts")
	}
	if p.tmpTTL != nil && *p.tmpTTL != e.TmpTTL {
		warn("sandbox.tmp_ttl", "a project file may not change how long temporary files are kept")
	}

	if v := fc.Filesystem.AllowWrite; v != nil {
		paths, err := l.paths(p, "filesystem.allow_write", *v, false)
		if err != nil {
			return err
		}
		var kept []string
		for _, q := range paths {
			if coveredPath(q, e.AllowWrite) {
				kept = addUnique(kept, q, eq)
			} else {
				warn("filesystem.allow_write", "%q is not inside an already writable root; a project file may only narrow the writable roots", q)
			}
		}
		e.AllowWrite = kept
	}
	var err error
	if e.DenyRead, err = l.projectDenyPaths(p, "filesystem.deny_read", fc.Filesystem.DenyRead, e.DenyRead, false, warn); err != nil {
		return err
	}
	if e.DenyWrite, err = l.projectDenyPaths(p, "filesystem.deny_write", fc.Filesystem.DenyWrite, e.DenyWrite, true, warn); err != nil {
		return err
	}

	if v := fc.Network.Enabled; v != nil && *v != e.NetworkEnabled {
		if !*v {
			e.NetworkEnabled = false
		} else {
			warn("network.enabled", "a project file may turn the network off, not on")
		}
	}
	if v := fc.Network.AllowedDomains; v != nil {
		var kept []string
		for _, d := range normDomains(*v) {
			if coveredDomain(d, e.AllowedDomains) {
				kept = addUnique(kept, d, eq)
			} else {
				warn("network.allowed_domains", "%q is not already allowed; a project file may only narrow the allowed domains", d)
			}
		}
		e.AllowedDomains = kept
	}
	addOnly := func(key string, v *[]string, cur []string, same func(a, b string) bool) []string {
		if v == nil {
			return cur
		}
		for _, s := range *v {
			if r, ok := strings.CutPrefix(s, "!"); ok {
				warn(key, "%q would remove %q; a project file may only add entries", s, r)
				continue
			}
			cur = addUnique(cur, s, same)
		}
		return cur
	}
	if v := fc.Network.DeniedDomains; v != nil {
		d := normDomains(*v)
		e.DeniedDomains = addOnly("network.denied_domains", &d, e.DeniedDomains, strings.EqualFold)
	}
	e.EnvStrip = addOnly("env.strip", fc.Env.Strip, e.EnvStrip, strings.EqualFold)
	e.EnvStripSuffixes = addOnly("env.strip_suffixes", fc.Env.StripSuffixes, e.EnvStripSuffixes, strings.EqualFold)
	if p.envKeepFor != nil && len(*p.envKeepFor) > 0 {
		warn("env.keep", "keeping variables for a command would pass stripped variables through; only your own config may keep variables")
	}
	if v := p.envKeep; v != nil {
		var kept []string
		for _, s := range dedupFold(*v) {
			if containsFold(e.EnvKeep, s) {
				kept = append(kept, s)
			} else {
				warn("env.keep", "%q would pass a stripped variable through; only your own config may keep variables", s)
			}
		}
		e.EnvKeep = kept
	}
	if v := fc.Rules.Allow; v != nil && len(*v) > 0 {
		warn("rules.allow", "only your own config may allow commands")
	}
	if v := fc.Rules.Confirm; v != nil {
		t := trimAll(*v)
		e.RulesConfirm = addOnly("rules.confirm", &t, e.RulesConfirm, eq)
	}
	if v := fc.Rules.Deny; v != nil {
		t := trimAll(*v)
		e.RulesDeny = addOnly("rules.deny", &t, e.RulesDeny, eq)
	}
	if fc.Audit.Path != nil {
		warn("audit.path", "a project file may not move the audit log")
	}
	if fc.Audit.Sync != nil && *fc.Audit.Sync != e.AuditSync {
		warn("audit.sync", "a project file may not change how the audit log is written")
	}
	if c := fc.Prompt.Channel; c != nil && *c != e.PromptChannel {
		if *c == "none" {
			// No human channel only ever denies: tighter.
			e.PromptChannel = "none"
		} else {
			warn("prompt.channel", "a project file may only set \"none\"")
		}
	}

	if v := p.agentPrefix; v != nil {
		// Saying the prefix is in place lets a hook allow commands: a
		// project file may only take agents away.
		kept := []string{}
		for _, a := range *v {
			if contains(e.AgentPrefix, "*") || contains(e.AgentPrefix, a) {
				kept = append(kept, a)
			} else {
				warn("agent.prefix", "%q is not in your own agent.prefix; a project file may only take agents away", a)
			}
		}
		if contains(kept, "*") {
			kept = e.AgentPrefix
		}
		e.AgentPrefix = kept
	}

	lower := func(key string, v *uint64, cur *uint64, show func(uint64) string) {
		if v == nil || *v == *cur {
			return
		}
		if *v != 0 && (*cur == 0 || *v < *cur) {
			*cur = *v
			return
		}
		was := "no limit"
		if *cur != 0 {
			was = show(*cur)
		}
		now := "no limit"
		if *v != 0 {
			now = show(*v)
		}
		warn(key, "%s would raise the limit from %s; a project file may only lower limits", now, was)
	}
	num := func(n uint64) string { return strconv.FormatUint(n, 10) }
	lim := &fc.Limits
	lower("limits.processes", u64(lim.Processes), &e.Limits.Processes, num)
	lower("limits.open_files", u64(lim.OpenFiles), &e.Limits.OpenFiles, num)
	lower("limits.cpu_seconds", u64(lim.CPUSeconds), &e.Limits.CPUSeconds, num)
	lower("limits.file_size", p.fileSize, &e.Limits.FileSize, num)
	if p.timeout != nil {
		cur, v := uint64(e.Limits.Timeout), uint64(*p.timeout)
		lower("limits.timeout", &v, &cur, func(n uint64) string { return fmt.Sprint(durationOf(n)) })
		e.Limits.Timeout = durationOf(cur)
	}
	if p.promptTimeout != nil {
		// A prompt that gives up sooner only denies sooner: tighter.
		cur, v := uint64(e.PromptTimeout), uint64(*p.promptTimeout)
		lower("prompt.timeout", &v, &cur, func(n uint64) string { return fmt.Sprint(durationOf(n)) })
		e.PromptTimeout = durationOf(cur)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func u64(v *int64) *uint64 {
	if v == nil {
		return nil
	}
	u := uint64(*v)
	return &u
}

// projectDenyPaths adds a project file's deny entries; "!" removals are
// dropped with a warning.
func (l *loader) projectDenyPaths(p *parsed, key string, v *[]string, cur []string, keepRelative bool, warn func(key, format string, args ...any)) ([]string, error) {
	if v == nil {
		return cur, nil
	}
	for i, s := range *v {
		if strings.HasPrefix(s, "!") {
			warn(key, "%q would remove a protected path; a project file may only add entries", s)
			continue
		}
		ps, err := l.x.expand(s, keepRelative)
		if err != nil {
			return nil, p.errorAt(key, i, "%s entry %q: %v", key, s, err)
		}
		// A relative entry in a project file most likely means "next to
		// this file"; the working directory may be deeper. Denying both
		// readings can only protect more.
		if !keepRelative && plainRelative(s) {
			ps = append(ps, filepath.Join(filepath.Dir(p.path), s))
		}
		for _, q := range ps {
			cur = addUnique(cur, q, eq)
		}
	}
	return cur, nil
}

// plainRelative reports whether a path entry is relative as written: no
// root, no ~, no variable, no placeholder.
func plainRelative(s string) bool {
	return s != "" && !filepath.IsAbs(s) && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "~") &&
		!strings.HasPrefix(s, "$") && !strings.HasPrefix(s, "<") && !IsNamePattern(s)
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// coveredPath reports whether p is inside one of roots.
func coveredPath(p string, roots []string) bool {
	for _, r := range roots {
		if under(p, r) {
			return true
		}
	}
	return false
}

// coveredDomain reports whether every host:port that entry d allows is
// already allowed by one of list, so that keeping d narrows nothing open.
func coveredDomain(d string, list []string) bool {
	h, port := splitDomain(d)
	for _, c := range list {
		ch, cport := splitDomain(c)
		if hostCovers(ch, h) && portCovers(cport, port) {
			return true
		}
	}
	return false
}

// splitDomain splits "host", "host:port", "[v6]:port" into host and port
// ("" for the default 80 and 443).
func splitDomain(d string) (host, port string) {
	d = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(d), "."))
	if strings.HasPrefix(d, "[") {
		end := strings.IndexByte(d, ']')
		if end < 0 {
			return d, ""
		}
		host, rest := d[:end+1], d[end+1:]
		if p, ok := strings.CutPrefix(rest, ":"); ok {
			return host, p
		}
		return host, ""
	}
	if strings.Count(d, ":") == 1 {
		h, p, _ := strings.Cut(d, ":")
		return strings.TrimSuffix(h, "."), p
	}
	return d, ""
}

// hostCovers reports whether pattern c matches every host pattern h
// matches: equal, or c is "*.suffix" and h is under that suffix.
func hostCovers(c, h string) bool {
	if c == h {
		return true
	}
	suffix, ok := strings.CutPrefix(c, "*.")
	if !ok || suffix == "" {
		return false
	}
	h = strings.TrimPrefix(h, "*.")
	return strings.HasSuffix(h, "."+suffix) && len(h) > len(suffix)+1
}

// portCovers reports whether port spec c allows every port spec p allows.
func portCovers(c, p string) bool {
	switch {
	case c == "*":
		return true
	case c == p:
		return true
	case c == "":
		return p == "80" || p == "443"
	}
	return false
}
