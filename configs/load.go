package configs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// UserPath returns the default location of the user's config file:
// $SAFEEXEC_CONFIG, else $XDG_CONFIG_HOME/safeexec/config.toml, else
// ~/.config/safeexec/config.toml.
func UserPath(getenv func(string) string, home string) string {
	if p := getenv(EnvConfig); p != "" {
		return p
	}
	return filepath.Join(configDir(getenv, home), "config.toml")
}

// configDir is safeexec's configuration directory: the directory of the
// default user config file (independent of $SAFEEXEC_CONFIG).
func configDir(getenv func(string) string, home string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "safeexec")
	}
	return filepath.Join(home, ".config", "safeexec")
}

// stateDir is where safeexec keeps its audit log.
func stateDir(getenv func(string) string, home string) string {
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "safeexec")
	}
	return filepath.Join(home, ".local", "state", "safeexec")
}

var defaults struct {
	once sync.Once
	p    *parsed
	err  error
}

// defaultLayer returns the embedded defaults, decoded at build time by
// gen_defaults.go (TestGeneratedDefaults keeps the two in step) and checked
// once per process like any file.
func defaultLayer() (*parsed, error) {
	defaults.once.Do(func() {
		p := &parsed{data: defaultTOML, fc: generatedDefaults()}
		if err := p.check(); err != nil {
			defaults.err = err
			return
		}
		defaults.p = p
	})
	return defaults.p, defaults.err
}

func ptr[T any](v T) *T { return &v }

// Load reads every layer and returns the effective configuration. Any
// error (an unreadable or invalid file, an unset variable in a path, an
// invalid flag) is returned as is: there is no partial result to fall
// back on. Errors about a file are *Error.
func Load(o Options) (*Effective, error) {
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	if o.Cwd == "" || !filepath.IsAbs(o.Cwd) {
		return nil, fmt.Errorf("load config: working directory %q is not absolute", o.Cwd)
	}
	if o.Home == "" || !filepath.IsAbs(o.Home) {
		return nil, fmt.Errorf("load config: home directory %q is not absolute", o.Home)
	}
	o.Cwd = filepath.Clean(o.Cwd)
	o.Home = filepath.Clean(o.Home)

	l := &loader{
		e: &Effective{
			ConfigDir: configDir(o.Getenv, o.Home),
			StateDir:  stateDir(o.Getenv, o.Home),
		},
		x: &expander{cwd: o.Cwd, home: o.Home, getenv: o.Getenv},
	}
	l.x.configDir, l.x.stateDir = l.e.ConfigDir, l.e.StateDir

	def, err := defaultLayer()
	if err != nil {
		return nil, err
	}
	projects, root := findProjectFiles(o.Cwd)
	l.x.repoRoot = root

	if err := l.applyTrusted(def); err != nil {
		return nil, err
	}
	l.e.Sources = append(l.e.Sources, Source{Kind: KindDefault})

	user, err := readUser(o)
	if err != nil {
		return nil, err
	}
	if user != nil {
		if err := l.applyTrusted(user); err != nil {
			return nil, err
		}
		l.e.Sources = append(l.e.Sources, Source{Path: user.path, Kind: KindUser})
		l.e.UserFile = user.path
	}

	for _, path := range projects {
		data, err := readFile(path)
		if err != nil {
			return nil, err
		}
		p, err := parse(path, data)
		if err != nil {
			return nil, err
		}
		if err := l.applyProject(p); err != nil {
			return nil, err
		}
		l.e.Sources = append(l.e.Sources, Source{Path: path, Kind: KindProject})
	}

	if err := l.applyEnv(o); err != nil {
		return nil, err
	}
	if err := l.applyFlags(o.Flags); err != nil {
		return nil, err
	}
	if err := l.finish(); err != nil {
		return nil, err
	}
	return l.e, nil
}

// readUser reads the user's file. A missing file at the default location is
// fine; a missing file named by --config or $SAFEEXEC_CONFIG is an error.
func readUser(o Options) (*parsed, error) {
	path, explicit := o.ConfigPath, true
	if path == "" {
		if p := o.Getenv(EnvConfig); p != "" {
			path = p
		} else {
			path, explicit = UserPath(o.Getenv, o.Home), false
		}
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(o.Cwd, path)
	}
	data, err := readFile(path)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	return parse(path, data)
}

// findProjectFiles returns the .safeexec.toml files that apply, outermost
// first, and the repository root ("" outside a repository). Inside a
// repository every directory from the working directory up to the root
// (the directory holding .git) is searched; outside one only the working
// directory itself.
func findProjectFiles(cwd string) (files []string, root string) {
	var found []string
	for dir := cwd; ; {
		p := filepath.Join(dir, ProjectFile)
		if _, err := os.Lstat(p); err == nil {
			found = append(found, p)
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			root = dir
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if root == "" {
		if len(found) > 0 && filepath.Dir(found[0]) == cwd {
			return found[:1], ""
		}
		return nil, ""
	}
	for i, j := 0, len(found)-1; i < j; i, j = i+1, j-1 {
		found[i], found[j] = found[j], found[i]
	}
	return found, root
}

// loader accumulates the layers into e.
type loader struct {
	e *Effective
	x *expander

	auditPath string // as written, expanded in finish
	auditFrom *parsed
}

// applyTrusted applies the defaults or the user's file: every key it sets
// wins; deny-type lists accumulate (with "!" removing an entry).
func (l *loader) applyTrusted(p *parsed) error {
	fc, e := &p.fc, l.e
	if fc.Mode != nil {
		e.Mode = *fc.Mode
	}
	if fc.Sandbox.Backend != nil {
		e.Backend = *fc.Sandbox.Backend
	}
	if fc.Run.Shell != nil {
		e.Shell = *fc.Run.Shell
	}
	if p.tmpTTL != nil {
		e.TmpTTL = *p.tmpTTL
	}
	if v := fc.Filesystem.AllowWrite; v != nil {
		paths, err := l.paths(p, "filesystem.allow_write", *v, false)
		if err != nil {
			return err
		}
		e.AllowWrite = dedup(paths)
	}
	var err error
	if e.DenyRead, err = l.denyPaths(p, "filesystem.deny_read", fc.Filesystem.DenyRead, e.DenyRead, false); err != nil {
		return err
	}
	if e.DenyWrite, err = l.denyPaths(p, "filesystem.deny_write", fc.Filesystem.DenyWrite, e.DenyWrite, true); err != nil {
		return err
	}
	if fc.Network.Enabled != nil {
		e.NetworkEnabled = *fc.Network.Enabled
	}
	if v := fc.Network.AllowedDomains; v != nil {
		e.AllowedDomains = dedup(normDomains(*v))
	}
	if v := fc.Network.DeniedDomains; v != nil {
		e.DeniedDomains = mergeDeny(e.DeniedDomains, normDomains(*v), strings.EqualFold)
	}
	if v := fc.Env.Strip; v != nil {
		e.EnvStrip = mergeDeny(e.EnvStrip, *v, strings.EqualFold)
	}
	if v := fc.Env.StripSuffixes; v != nil {
		e.EnvStripSuffixes = mergeDeny(e.EnvStripSuffixes, *v, strings.EqualFold)
	}
	if p.envKeep != nil {
		e.EnvKeep = dedupFold(*p.envKeep)
		e.EnvKeepFor = *p.envKeepFor
	}
	if v := fc.Rules.Allow; v != nil {
		e.RulesAllow = dedup(trimAll(*v))
	}
	if v := fc.Rules.Confirm; v != nil {
		e.RulesConfirm = mergeDeny(e.RulesConfirm, trimAll(*v), eq)
	}
	if v := fc.Rules.Deny; v != nil {
		e.RulesDeny = mergeDeny(e.RulesDeny, trimAll(*v), eq)
	}
	if fc.Audit.Path != nil {
		l.auditPath, l.auditFrom = *fc.Audit.Path, p
	}
	if fc.Audit.Sync != nil {
		e.AuditSync = *fc.Audit.Sync
	}
	if fc.Prompt.Channel != nil {
		e.PromptChannel = *fc.Prompt.Channel
	}
	if p.promptTimeout != nil {
		e.PromptTimeout = *p.promptTimeout
	}
	if p.agentPrefix != nil {
		e.AgentPrefix = *p.agentPrefix
	}
	lim := &fc.Limits
	if lim.Processes != nil {
		e.Limits.Processes = uint64(*lim.Processes)
	}
	if lim.OpenFiles != nil {
		e.Limits.OpenFiles = uint64(*lim.OpenFiles)
	}
	if lim.CPUSeconds != nil {
		e.Limits.CPUSeconds = uint64(*lim.CPUSeconds)
	}
	if p.fileSize != nil {
		e.Limits.FileSize = *p.fileSize
	}
	if p.timeout != nil {
		e.Limits.Timeout = *p.timeout
	}
	return nil
}

func eq(a, b string) bool { return a == b }

// paths expands a list of path entries, reporting errors at the entry.
func (l *loader) paths(p *parsed, key string, entries []string, keepRelative bool) ([]string, error) {
	out := make([]string, 0, len(entries))
	for i, s := range entries {
		ps, err := l.x.expand(s, keepRelative)
		if err != nil {
			return nil, p.errorAt(key, i, "%s entry %q: %v", key, s, err)
		}
		out = append(out, ps...)
	}
	return out, nil
}

// denyPaths merges a deny-type path list into cur: plain entries are
// added, "!entry" removes the matching inherited entry.
func (l *loader) denyPaths(p *parsed, key string, v *[]string, cur []string, keepRelative bool) ([]string, error) {
	if v == nil {
		return cur, nil
	}
	for i, s := range *v {
		remove := strings.HasPrefix(s, "!")
		ps, err := l.x.expand(strings.TrimPrefix(s, "!"), keepRelative)
		if err != nil {
			return nil, p.errorAt(key, i, "%s entry %q: %v", key, s, err)
		}
		for _, q := range ps {
			if remove {
				cur = removeAll(cur, q, eq)
			} else {
				cur = addUnique(cur, q, eq)
			}
		}
	}
	return cur, nil
}

// mergeDeny adds the plain entries of add to cur and removes those named
// with a leading "!".
func mergeDeny(cur, add []string, same func(a, b string) bool) []string {
	for _, s := range add {
		if r, ok := strings.CutPrefix(s, "!"); ok {
			cur = removeAll(cur, r, same)
		} else {
			cur = addUnique(cur, s, same)
		}
	}
	return cur
}

func addUnique(list []string, s string, same func(a, b string) bool) []string {
	for _, v := range list {
		if same(v, s) {
			return list
		}
	}
	return append(list, s)
}

func removeAll(list []string, s string, same func(a, b string) bool) []string {
	out := list[:0:0]
	for _, v := range list {
		if !same(v, s) {
			out = append(out, v)
		}
	}
	return out
}

func dedup(list []string) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		out = addUnique(out, s, eq)
	}
	return out
}

func dedupFold(list []string) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		out = addUnique(out, strings.TrimSpace(s), strings.EqualFold)
	}
	return out
}

func trimAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strings.TrimSpace(s)
	}
	return out
}

// normDomains trims and lower-cases domain entries; validation is the
// network package's job.
func normDomains(list []string) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		s = strings.ToLower(strings.TrimSpace(s))
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// modeRank orders modes from the tightest (0) to the loosest.
func modeRank(m string) int {
	switch m {
	case ModeStrict:
		return 0
	case ModeCompat:
		return 1
	default:
		return 2
	}
}
