package configs

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"path/filepath"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

func durationOf(n uint64) time.Duration { return time.Duration(n) }

// lookup returns the value of an environment variable and whether it is
// set; with only Getenv, an empty value counts as unset.
func (o *Options) lookup(name string) (string, bool) {
	if o.LookupEnv != nil {
		return o.LookupEnv(name)
	}
	v := o.Getenv(name)
	return v, v != ""
}

// applyEnv applies SAFEEXEC_ALLOWED_DOMAINS (replaces the allowed list; set
// but empty means no domain is allowed) and SAFEEXEC_EXTRA_ALLOWED_DOMAINS
// (appends).
func (l *loader) applyEnv(o Options) error {
	if v, ok := o.lookup(EnvAllowedDomains); ok {
		list, err := envDomains(EnvAllowedDomains, v)
		if err != nil {
			return err
		}
		l.e.AllowedDomains = list
		l.e.Sources = append(l.e.Sources, Source{Path: EnvAllowedDomains, Kind: KindEnv})
	}
	if v, ok := o.lookup(EnvExtraAllowedDomains); ok && strings.TrimSpace(v) != "" {
		list, err := envDomains(EnvExtraAllowedDomains, v)
		if err != nil {
			return err
		}
		for _, d := range list {
			l.e.AllowedDomains = addUnique(l.e.AllowedDomains, d, eq)
		}
		l.e.Sources = append(l.e.Sources, Source{Path: EnvExtraAllowedDomains, Kind: KindEnv})
	}
	return nil
}

func envDomains(name, v string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if msg := checkEntry(s, domainList); msg != "" {
			return nil, &Error{Path: "$" + name, Key: name, Msg: fmt.Sprintf("entry %q: %s", s, msg)}
		}
		out = addUnique(out, strings.ToLower(s), eq)
	}
	return out, nil
}

// applyFlags applies the command line, the last and most trusted layer.
func (l *loader) applyFlags(f Flags) error {
	used := false
	e := l.e
	if f.Mode != "" {
		if !oneOf(f.Mode, validModes) {
			return fmt.Errorf("invalid --mode %q: want %s", f.Mode, strings.Join(validModes, ", "))
		}
		e.Mode, used = f.Mode, true
	}
	if f.Shell != "" {
		if !oneOf(f.Shell, ValidShells) {
			return fmt.Errorf("invalid --shell %q: want %s", f.Shell, strings.Join(ValidShells, ", "))
		}
		e.Shell, used = f.Shell, true
	}
	if f.Sandbox != "" {
		if !oneOf(f.Sandbox, validBackends) {
			return fmt.Errorf("invalid --sandbox %q: want %s", f.Sandbox, strings.Join(validBackends, ", "))
		}
		e.Backend, used = f.Sandbox, true
	}
	for _, s := range f.AllowWrite {
		if msg := checkEntry(s, pathList); msg != "" || strings.HasPrefix(s, "<") {
			if msg == "" {
				msg = "placeholders are for config files"
			}
			return fmt.Errorf("invalid --allow-write %q: %s", s, msg)
		}
		ps, err := l.x.expand(s, false)
		if err != nil {
			return fmt.Errorf("invalid --allow-write %q: %v", s, err)
		}
		for _, q := range ps {
			e.AllowWrite = addUnique(e.AllowWrite, q, eq)
		}
		used = true
	}
	for _, s := range f.AllowDomains {
		if msg := checkEntry(s, domainList); msg != "" {
			return fmt.Errorf("invalid --allow-domain %q: %s", s, msg)
		}
		e.AllowedDomains = addUnique(e.AllowedDomains, strings.ToLower(strings.TrimSpace(s)), eq)
		used = true
	}
	if f.NoNetwork {
		e.NetworkEnabled, used = false, true
	}
	if f.Timeout < 0 {
		return fmt.Errorf("invalid --timeout %v: must not be negative", f.Timeout)
	}
	if f.Timeout > 0 {
		e.Limits.Timeout, used = f.Timeout, true
	}
	if used {
		e.Sources = append(e.Sources, Source{Kind: KindFlags})
	}
	return nil
}

// finish resolves the audit path and protects safeexec's own files.
func (l *loader) finish() error {
	e := l.e
	if l.auditPath == "" {
		e.AuditPath = filepath.Join(e.StateDir, "audit.log")
	} else {
		ps, err := l.x.expand(l.auditPath, false)
		if err != nil {
			return l.auditFrom.errorAt("audit.path", -1, "audit.path %q: %v", l.auditPath, err)
		}
		if len(ps) != 1 {
			return l.auditFrom.errorAt("audit.path", -1, "audit.path %q: not a single path", l.auditPath)
		}
		e.AuditPath = ps[0]
	}
	// The log and the user's config must stay out of reach of the command
	// even when they live somewhere the command can otherwise see.
	if !coveredPath(e.AuditPath, e.DenyRead) {
		e.DenyRead = append(e.DenyRead, e.AuditPath)
	}
	if !coveredPath(e.AuditPath, absOnly(e.DenyWrite)) {
		e.DenyWrite = append(e.DenyWrite, e.AuditPath)
	}
	if e.UserFile != "" && !coveredPath(e.UserFile, absOnly(e.DenyWrite)) {
		e.DenyWrite = append(e.DenyWrite, e.UserFile)
	}
	if e.AllowWrite == nil {
		e.AllowWrite = []string{}
	}
	return nil
}

func absOnly(list []string) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		if filepath.IsAbs(s) {
			out = append(out, s)
		}
	}
	return out
}

// Fingerprint is a stable hash of the effective policy: 16 hex characters
// of a SHA-256 over every field that changes what a command may do (not
// the sources, warnings or the audit settings). Order matters where it
// matters to enforcement (the first writable root).
func (e *Effective) Fingerprint() string {
	h := sha256.New()
	str := func(s string) {
		writeLen(h, len(s))
		h.Write([]byte(s))
	}
	list := func(l []string) {
		writeLen(h, len(l))
		for _, s := range l {
			str(s)
		}
	}
	str("safeexec-policy-v1")
	str(e.Mode)
	str(e.Backend)
	list(e.AllowWrite)
	list(e.DenyRead)
	list(e.DenyWrite)
	if e.NetworkEnabled {
		str("net")
	} else {
		str("nonet")
	}
	list(e.AllowedDomains)
	list(e.DeniedDomains)
	list(e.EnvStrip)
	list(e.EnvStripSuffixes)
	list(e.EnvKeep)
	writeLen(h, len(e.EnvKeepFor))
	for _, k := range e.EnvKeepFor {
		str(k.Command)
		list(k.Names)
	}
	list(e.RulesAllow)
	list(e.RulesConfirm)
	list(e.RulesDeny)
	str(e.PromptChannel)
	if len(e.AgentPrefix) > 0 {
		// Only when set, so that the fingerprints of existing policies
		// stay the same.
		str("agent.prefix")
		list(e.AgentPrefix)
	}
	if e.Shell != "" && e.Shell != "auto" {
		// Only when chosen, so that fingerprints of policies without a
		// shell stay what they were.
		str("shell:" + e.Shell)
	}
	for _, n := range []uint64{e.Limits.Processes, e.Limits.OpenFiles, e.Limits.FileSize, e.Limits.CPUSeconds, uint64(e.Limits.Timeout)} {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], n)
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

func writeLen(h hash.Hash, n int) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	h.Write(b[:])
}

// out* mirror the file layout for TOML().
type outConfig struct {
	Mode       string        `toml:"mode"`
	Sandbox    outSandbox    `toml:"sandbox"`
	Filesystem outFilesystem `toml:"filesystem"`
	Network    outNetwork    `toml:"network"`
	Env        outEnv        `toml:"env"`
	Rules      outRules      `toml:"rules"`
	Audit      outAudit      `toml:"audit"`
	Prompt     outPrompt     `toml:"prompt"`
	Limits     outLimits     `toml:"limits"`
	Agent      outAgent      `toml:"agent"`
	Run        outRun        `toml:"run"`
}

type outAgent struct {
	Prefix any `toml:"prefix"`
}

type outRun struct {
	Shell string `toml:"shell"`
}

type outSandbox struct {
	Backend string `toml:"backend"`
	TmpTTL  string `toml:"tmp_ttl"`
}

type outFilesystem struct {
	AllowWrite []string `toml:"allow_write,multiline"`
	DenyRead   []string `toml:"deny_read,multiline"`
	DenyWrite  []string `toml:"deny_write,multiline"`
}

type outNetwork struct {
	Enabled        bool     `toml:"enabled"`
	AllowedDomains []string `toml:"allowed_domains,multiline"`
	DeniedDomains  []string `toml:"denied_domains,multiline"`
}

type outEnv struct {
	Strip         []string `toml:"strip,multiline"`
	StripSuffixes []string `toml:"strip_suffixes,multiline"`
	Keep          any      `toml:"keep,multiline"`
}

type outRules struct {
	Allow   []string `toml:"allow,multiline"`
	Confirm []string `toml:"confirm,multiline"`
	Deny    []string `toml:"deny,multiline"`
}

type outAudit struct {
	Path string `toml:"path"`
	Sync bool   `toml:"sync"`
}

type outPrompt struct {
	Channel string `toml:"channel"`
	Timeout string `toml:"timeout"`
}

type outLimits struct {
	Processes  uint64 `toml:"processes"`
	OpenFiles  uint64 `toml:"open_files"`
	FileSize   uint64 `toml:"file_size"`
	CPUSeconds uint64 `toml:"cpu_seconds"`
	Timeout    string `toml:"timeout"`
}

func durationString(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return d.String()
}

// prefixValue renders agent.prefix as it would be written.
func prefixValue(agents []string) any {
	switch {
	case len(agents) == 0:
		return false
	case len(agents) == 1 && agents[0] == "*":
		return true
	}
	return agents
}

// shortDuration writes 24h rather than 24h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// TOML renders the effective configuration in the config file's format,
// headed by comments naming the sources, the fingerprint and any warnings.
// Every path is expanded, so it shows what is enforced.
func (e *Effective) TOML() ([]byte, error) {
	body, err := toml.Marshal(e.document())
	if err != nil {
		return nil, fmt.Errorf("render effective config: %w", err)
	}
	var b strings.Builder
	b.WriteString("# safeexec effective configuration\n")
	for _, s := range e.Sources {
		if s.Path == "" {
			fmt.Fprintf(&b, "# source: %s\n", s.Kind)
		} else {
			fmt.Fprintf(&b, "# source: %s %s\n", s.Kind, commentSafe(s.Path))
		}
	}
	fmt.Fprintf(&b, "# policy fingerprint: %s\n", e.Fingerprint())
	for _, w := range e.Warnings {
		fmt.Fprintf(&b, "# warning: %s\n", commentSafe(w))
	}
	b.WriteString("\n")
	b.Write(body)
	return []byte(b.String()), nil
}

// document is the effective configuration in the config file's shape.
func (e *Effective) document() outConfig {
	timeout := ""
	if e.Limits.Timeout > 0 {
		timeout = e.Limits.Timeout.String()
	}
	oc := outConfig{
		Mode:    e.Mode,
		Sandbox: outSandbox{Backend: e.Backend, TmpTTL: shortDuration(e.TmpTTL)},
		Run:     outRun{Shell: e.Shell},
		Filesystem: outFilesystem{
			AllowWrite: nonNil(e.AllowWrite),
			DenyRead:   nonNil(e.DenyRead),
			DenyWrite:  nonNil(e.DenyWrite),
		},
		Network: outNetwork{
			Enabled:        e.NetworkEnabled,
			AllowedDomains: nonNil(e.AllowedDomains),
			DeniedDomains:  nonNil(e.DeniedDomains),
		},
		Env: outEnv{
			Strip:         nonNil(e.EnvStrip),
			StripSuffixes: nonNil(e.EnvStripSuffixes),
			Keep:          keepValue(e.EnvKeep, e.EnvKeepFor),
		},
		Rules: outRules{
			Allow:   nonNil(e.RulesAllow),
			Confirm: nonNil(e.RulesConfirm),
			Deny:    nonNil(e.RulesDeny),
		},
		Audit:  outAudit{Path: e.AuditPath, Sync: e.AuditSync},
		Prompt: outPrompt{Channel: e.PromptChannel, Timeout: durationString(e.PromptTimeout)},
		Agent:  outAgent{Prefix: prefixValue(e.AgentPrefix)},
		Limits: outLimits{
			Processes:  e.Limits.Processes,
			OpenFiles:  e.Limits.OpenFiles,
			FileSize:   e.Limits.FileSize,
			CPUSeconds: e.Limits.CPUSeconds,
			Timeout:    timeout,
		},
	}
	return oc
}

// commentSafe keeps a path or message on one comment line.
func commentSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

// keepValue is env.keep as written: a list, or a table when some names
// are kept for given commands ("*": every command).
func keepValue(all []string, per []KeepFor) any {
	if len(per) == 0 {
		return nonNil(all)
	}
	m := map[string][]string{}
	if len(all) > 0 {
		m["*"] = all
	}
	for _, k := range per {
		m[k.Command] = append(m[k.Command], k.Names...)
	}
	return m
}
