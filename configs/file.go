package configs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/safeexec/safeexec/netallow"
)

// Error is a configuration file that cannot be used: unreadable, not TOML,
// an unknown key, a value of the wrong type or an invalid value. Line and
// Column are 1-based and 0 when unknown; Key is the dotted key, or "".
type Error struct {
	Path   string
	Line   int
	Column int
	Key    string
	Msg    string
	// Err is the underlying error, if any (a *fs.PathError for an
	// unreadable file), for errors.Is.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("read config ")
	if e.Path == "" {
		b.WriteString("(built-in defaults)")
	} else {
		b.WriteString(e.Path)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, ": line %d, column %d", e.Line, e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// maxListLen bounds each list: merging is quadratic in list length, and a
// hostile project file must not be able to make every command slow.
const maxListLen = 1024

// maxFileSize bounds what is read from a config file; a project file is
// untrusted and a real config is a few kilobytes.
const maxFileSize = 1 << 20

// fileConfig is one TOML file as written. Pointers tell "not set" from a
// zero value, so that layering only touches the keys a file sets.
type fileConfig struct {
	Mode       *string        `toml:"mode"`
	Sandbox    fileSandbox    `toml:"sandbox"`
	Filesystem fileFilesystem `toml:"filesystem"`
	Network    fileNetwork    `toml:"network"`
	Env        fileEnv        `toml:"env"`
	Rules      fileRules      `toml:"rules"`
	Audit      fileAudit      `toml:"audit"`
	Prompt     filePrompt     `toml:"prompt"`
	Limits     fileLimits     `toml:"limits"`
	Agent      fileAgent      `toml:"agent"`
	Run        fileRun        `toml:"run"`
}

type fileRun struct {
	Shell *string `toml:"shell"`
}

type fileSandbox struct {
	Backend *string `toml:"backend"`
	TmpTTL  any     `toml:"tmp_ttl"`
}

type fileFilesystem struct {
	AllowWrite *[]string `toml:"allow_write"`
	DenyRead   *[]string `toml:"deny_read"`
	DenyWrite  *[]string `toml:"deny_write"`
}

type fileNetwork struct {
	Enabled        *bool     `toml:"enabled"`
	AllowedDomains *[]string `toml:"allowed_domains"`
	DeniedDomains  *[]string `toml:"denied_domains"`
}

type fileEnv struct {
	Strip         *[]string `toml:"strip"`
	StripSuffixes *[]string `toml:"strip_suffixes"`
	// Keep is a list of names (kept for every command) or a table from a
	// command's first words to the names kept for that command.
	Keep any `toml:"keep"`
}

type fileRules struct {
	Allow   *[]string `toml:"allow"`
	Confirm *[]string `toml:"confirm"`
	Deny    *[]string `toml:"deny"`
}

type fileAudit struct {
	Path *string `toml:"path"`
	Sync *bool   `toml:"sync"`
}

type filePrompt struct {
	Channel *string `toml:"channel"`
	Timeout any     `toml:"timeout"`
}

type fileAgent struct {
	// Prefix is true (every agent), false, or a list of agent names
	// (claude, codex, gemini) whose commands reach safeexec as their
	// shell prefix, so a hook may let safe commands through.
	Prefix any `toml:"prefix"`
}

type fileLimits struct {
	Processes  *int64 `toml:"processes"`
	OpenFiles  *int64 `toml:"open_files"`
	FileSize   any    `toml:"file_size"`
	CPUSeconds *int64 `toml:"cpu_seconds"`
	Timeout    any    `toml:"timeout"`
}

// parsed is a decoded and validated file: the raw values plus the
// converted limits, and the source bytes for locating keys in later errors.
type parsed struct {
	path string
	data []byte
	fc   fileConfig

	fileSize *uint64
	timeout  *time.Duration
	// promptTimeout is prompt.timeout; agentPrefix is agent.prefix as
	// agent names ("*" for true), nil when the key is not set.
	promptTimeout *time.Duration
	agentPrefix   *[]string
	tmpTTL        *time.Duration
	// envKeep and envKeepFor are env.keep: the names kept for every
	// command, and those kept for commands starting with given words;
	// both nil when the key is not set.
	envKeep    *[]string
	envKeepFor *[]KeepFor
}

// keyTypes names what each key holds, for type-mismatch messages.
var keyTypes = map[string]string{
	"mode":                    "a string",
	"sandbox.backend":         "a string",
	"sandbox.tmp_ttl":         `a duration such as "24h"`,
	"filesystem.allow_write":  "a list of strings",
	"filesystem.deny_read":    "a list of strings",
	"filesystem.deny_write":   "a list of strings",
	"network.enabled":         "a boolean",
	"network.allowed_domains": "a list of strings",
	"network.denied_domains":  "a list of strings",
	"env.strip":               "a list of strings",
	"env.strip_suffixes":      "a list of strings",
	"env.keep":                `a list of strings, or a table of lists ("npx -y @scope/server" = ["NAME"])`,
	"rules.allow":             "a list of strings",
	"rules.confirm":           "a list of strings",
	"rules.deny":              "a list of strings",
	"audit.path":              "a string",
	"audit.sync":              "a boolean",
	"prompt.channel":          "a string",
	"prompt.timeout":          `a duration such as "30s"`,
	"agent.prefix":            "a boolean or a list of agent names",
	"limits.processes":        "an integer",
	"limits.open_files":       "an integer",
	"limits.file_size":        `an integer or a size such as "512M"`,
	"limits.cpu_seconds":      "an integer",
	"limits.timeout":          `a duration such as "10m"`,
	"sandbox":                 "a table",
	"filesystem":              "a table",
	"network":                 "a table",
	"env":                     "a table",
	"rules":                   "a table",
	"audit":                   "a table",
	"prompt":                  "a table",
	"limits":                  "a table",
	"agent":                   "a table",
}

// mismatchRE reads go-toml's type mismatch message; compiled only when a
// config has such an error.
var mismatchRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`cannot decode TOML (\S+) into`) })

// readFile reads a config file, refusing anything that is not a regular
// file (a FIFO would block) or that is unreasonably large.
func readFile(path string) ([]byte, error) {
	data, err := readSmall(path, maxFileSize)
	switch {
	case errors.Is(err, errNotRegular):
		return nil, &Error{Path: path, Msg: "not a regular file"}
	case errors.Is(err, errTooLarge):
		return nil, &Error{Path: path, Msg: fmt.Sprintf("file larger than %d bytes", maxFileSize)}
	case err != nil:
		return nil, &Error{Path: path, Msg: errMsg(err), Err: err}
	}
	return data, nil
}

// errMsg turns an os error into a short message without repeating the path.
func errMsg(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// parse decodes data strictly and checks every value that can be checked
// without the environment.
func parse(path string, data []byte) (*parsed, error) {
	p := &parsed{path: path, data: data}
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&p.fc); err != nil {
		return nil, decodeError(path, err)
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	return p, nil
}

func decodeError(path string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		first := &strict.Errors[0]
		line, col := first.Position()
		key := strings.Join(first.Key(), ".")
		msg := fmt.Sprintf("unknown key %q", key)
		if n := len(strict.Errors) - 1; n > 0 {
			msg += fmt.Sprintf(" (and %d more)", n)
		}
		return &Error{Path: path, Line: line, Column: col, Key: key, Msg: msg}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		key := strings.Join(de.Key(), ".")
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if m := mismatchRE().FindStringSubmatch(msg); m != nil && key != "" {
			want := keyTypes[key]
			if want == "" {
				want = "another type"
			}
			msg = fmt.Sprintf("%s must be %s, not %s %s", key, want, article(m[1]), m[1])
		} else if key != "" && !strings.Contains(msg, key) {
			msg = key + ": " + msg
		}
		return &Error{Path: path, Line: line, Column: col, Key: key, Msg: msg}
	}
	return &Error{Path: path, Msg: err.Error(), Err: err}
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// errorAt builds an *Error for key (and, when index >= 0, the index-th
// element of its array), finding the position in the file.
func (p *parsed) errorAt(key string, index int, format string, args ...any) *Error {
	e := &Error{Path: p.path, Key: key, Msg: fmt.Sprintf(format, args...)}
	e.Line, e.Column = position(p.data, key, index)
	return e
}

// position finds where key (its index-th array element when index >= 0) is
// written in data. It is only used on error paths.
func position(data []byte, key string, index int) (line, col int) {
	want := strings.Split(key, ".")
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = table[:0]
			for it := e.Key(); it.Next(); {
				table = append(table, string(it.Node().Data))
			}
		case unstable.KeyValue:
			full := append([]string(nil), table...)
			var first *unstable.Node
			for it := e.Key(); it.Next(); {
				if first == nil {
					first = it.Node()
				}
				full = append(full, string(it.Node().Data))
			}
			if !equalParts(full, want) || first == nil {
				continue
			}
			at := first.Raw
			if v := e.Value(); index >= 0 && v != nil && v.Kind == unstable.Array {
				i := 0
				for it := v.Children(); it.Next(); i++ {
					if i == index && it.Node().Raw.Length > 0 {
						at = it.Node().Raw
						break
					}
				}
			}
			s := p.Shape(at)
			return s.Start.Line, s.Start.Column
		}
	}
	return 0, 0
}

func equalParts(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Valid values of the enumerated keys.
var (
	validModes    = []string{ModeStrict, ModeCompat, ModePermissive}
	validBackends = []string{"auto", "bwrap", "landlock", "seatbelt", "windows", "none"}
	validChannels = []string{"tty", "none"}
	// ValidShells are the values of [run] shell and --shell.
	ValidShells = []string{"auto", "bash", "powershell", "pwsh", "cmd"}
)

func oneOf(v string, valid []string) bool {
	for _, s := range valid {
		if v == s {
			return true
		}
	}
	return false
}

// check validates the values of one file.
func (p *parsed) check() error {
	fc := &p.fc
	if fc.Mode != nil && !oneOf(*fc.Mode, validModes) {
		return p.errorAt("mode", -1, "mode %q is not one of %s", *fc.Mode, strings.Join(validModes, ", "))
	}
	if b := fc.Sandbox.Backend; b != nil && !oneOf(*b, validBackends) {
		return p.errorAt("sandbox.backend", -1, "sandbox.backend %q is not one of %s", *b, strings.Join(validBackends, ", "))
	}
	if sh := fc.Run.Shell; sh != nil && !oneOf(*sh, ValidShells) {
		return p.errorAt("run.shell", -1, "run.shell %q is not one of %s", *sh, strings.Join(ValidShells, ", "))
	}
	if c := fc.Prompt.Channel; c != nil && !oneOf(*c, validChannels) {
		if *c == "stdin" {
			return p.errorAt("prompt.channel", -1, `prompt.channel "stdin" is not supported: standard input belongs to the command and may carry a protocol; use "tty" or "none"`)
		}
		return p.errorAt("prompt.channel", -1, "prompt.channel %q is not one of %s", *c, strings.Join(validChannels, ", "))
	}
	lists := []struct {
		key  string
		v    *[]string
		kind listKind
	}{
		{"filesystem.allow_write", fc.Filesystem.AllowWrite, pathList},
		{"filesystem.deny_read", fc.Filesystem.DenyRead, pathList | denyList | patternList},
		{"filesystem.deny_write", fc.Filesystem.DenyWrite, pathList | denyList},
		{"network.allowed_domains", fc.Network.AllowedDomains, domainList},
		{"network.denied_domains", fc.Network.DeniedDomains, domainList | denyList},
		{"env.strip", fc.Env.Strip, nameList | denyList},
		{"env.strip_suffixes", fc.Env.StripSuffixes, nameList | denyList},
		{"rules.allow", fc.Rules.Allow, ruleList},
		{"rules.confirm", fc.Rules.Confirm, ruleList | denyList},
		{"rules.deny", fc.Rules.Deny, ruleList | denyList},
	}
	if fc.Env.Keep != nil {
		if err := p.parseKeep(fc.Env.Keep); err != nil {
			return err
		}
		lists = append(lists, struct {
			key  string
			v    *[]string
			kind listKind
		}{"env.keep", p.envKeep, nameList})
	}
	for _, l := range lists {
		if l.v == nil {
			continue
		}
		if len(*l.v) > maxListLen {
			return p.errorAt(l.key, -1, "%s has %d entries; at most %d are accepted", l.key, len(*l.v), maxListLen)
		}
		for i, s := range *l.v {
			if msg := checkEntry(s, l.kind); msg != "" {
				return p.errorAt(l.key, i, "%s entry %q: %s", l.key, s, msg)
			}
		}
	}
	if a := fc.Audit.Path; a != nil && *a != "" {
		if msg := checkPath(*a); msg != "" {
			return p.errorAt("audit.path", -1, "audit.path %q: %s", *a, msg)
		}
		if plainRelative(*a) || IsNamePattern(*a) {
			return p.errorAt("audit.path", -1, "audit.path %q must be absolute (or start with ~ or $VARIABLE): a relative log would follow the working directory", *a)
		}
	}
	ints := []struct {
		key string
		v   *int64
	}{
		{"limits.processes", fc.Limits.Processes},
		{"limits.open_files", fc.Limits.OpenFiles},
		{"limits.cpu_seconds", fc.Limits.CPUSeconds},
	}
	for _, l := range ints {
		if l.v != nil && *l.v < 0 {
			return p.errorAt(l.key, -1, "%s must not be negative (0 means no limit)", l.key)
		}
	}
	if fc.Limits.FileSize != nil {
		n, err := parseSize(fc.Limits.FileSize)
		if err != nil {
			return p.errorAt("limits.file_size", -1, "limits.file_size: %v", err)
		}
		p.fileSize = &n
	}
	if fc.Sandbox.TmpTTL != nil {
		d, err := parseDuration(fc.Sandbox.TmpTTL, "sandbox.tmp_ttl", "removed after every run")
		if err != nil {
			return p.errorAt("sandbox.tmp_ttl", -1, "sandbox.tmp_ttl: %v", err)
		}
		p.tmpTTL = &d
	}
	if fc.Limits.Timeout != nil {
		d, err := parseTimeout(fc.Limits.Timeout)
		if err != nil {
			return p.errorAt("limits.timeout", -1, "limits.timeout: %v", err)
		}
		p.timeout = &d
	}
	if fc.Prompt.Timeout != nil {
		d, err := parseTimeout(fc.Prompt.Timeout)
		if err != nil {
			return p.errorAt("prompt.timeout", -1, "prompt.timeout: %v", err)
		}
		p.promptTimeout = &d
	}
	if fc.Agent.Prefix != nil {
		names, err := parseAgents(fc.Agent.Prefix)
		if err != nil {
			return p.errorAt("agent.prefix", -1, "agent.prefix: %v", err)
		}
		p.agentPrefix = &names
	}
	return nil
}

// Agents whose hooks and shell prefixes safeexec knows.
var validAgents = []string{"claude", "codex", "gemini"}

// parseAgents reads agent.prefix: true (every agent, "*"), false (none),
// or a list of agent names.
func parseAgents(v any) ([]string, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return []string{"*"}, nil
		}
		return []string{}, nil
	case []any:
		out := []string{}
		for _, e := range x {
			s, ok := e.(string)
			if !ok || !oneOf(s, validAgents) {
				return nil, fmt.Errorf("%v is not one of %s", e, strings.Join(validAgents, ", "))
			}
			out = addUnique(out, s, eq)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("must be %s, not %s", keyTypes["agent.prefix"], tomlKind(v))
	}
}

type listKind int

const (
	pathList listKind = 1 << iota
	domainList
	nameList
	ruleList
	denyList    // "!" removes an inherited entry
	patternList // "**/NAME" name patterns are accepted (deny_read)
)

// checkEntry validates one list entry; it returns "" when it is fine.
func checkEntry(s string, kind listKind) string {
	if strings.HasPrefix(s, "!") {
		if kind&denyList == 0 {
			return `"!" (remove an inherited entry) is only valid in deny-type lists`
		}
		s = s[1:]
	}
	if strings.TrimSpace(s) == "" {
		return "empty entry"
	}
	switch {
	case kind&pathList != 0 && IsNamePattern(s):
		if kind&patternList == 0 {
			return "a name pattern (**/NAME) is only accepted in filesystem.deny_read"
		}
		return checkNamePattern(s)
	case kind&pathList != 0:
		return checkPath(s)
	case kind&domainList != 0:
		// The proxy's own parser, so that validate and the proxy agree on
		// every hard case (*.com, 127.1, ports, non-ASCII names).
		if _, err := netallow.ParseEntry(s); err != nil {
			var ee *netallow.EntryError
			if errors.As(err, &ee) && ee.Reason != "" {
				return ee.Reason
			}
			return err.Error()
		}
	case kind&nameList != 0:
		if strings.ContainsAny(s, "= \t\n\x00") {
			return "not a variable name"
		}
	case kind&ruleList != 0:
		if strings.ContainsRune(s, '\x00') {
			return "contains a NUL byte"
		}
		if strings.TrimSpace(s) == "*" {
			return `"*" alone names no command: a rule is a command's words, optionally followed by " *"`
		}
	}
	return ""
}

// checkPath validates a path entry as far as possible without the
// environment: known placeholders only, no NUL.
func checkPath(s string) string {
	if strings.ContainsRune(s, '\x00') {
		return "contains a NUL byte"
	}
	if strings.HasPrefix(s, "<") || strings.HasSuffix(s, ">") {
		switch s {
		case placeholderConfigDir, placeholderStateDir, placeholderHooksPath:
		default:
			return fmt.Sprintf("unknown placeholder (known: %s, %s, %s)", placeholderConfigDir, placeholderStateDir, placeholderHooksPath)
		}
	}
	return ""
}

// IsNamePattern reports whether a deny_read entry is a name pattern,
// "**/" followed by a relative pattern (**/.env, **/secrets/*.json): it
// names every file whose last path components match, in any directory.
// The classifier judges naming such a file like naming any credential
// path; the sandbox does not mask them (there is no fixed path to mask,
// and a project's own programs load its .env files).
func IsNamePattern(s string) bool {
	return strings.HasPrefix(s, NamePatternPrefix)
}

// NamePatternPrefix starts a name pattern entry of deny_read.
const NamePatternPrefix = "**/"

// checkNamePattern validates a name pattern: components that are valid
// patterns, none empty, "." or "..", no further "**".
func checkNamePattern(s string) string {
	rest := strings.TrimPrefix(s, NamePatternPrefix)
	if rest == "" {
		return "a name pattern needs a name after **/"
	}
	if strings.ContainsRune(rest, '\x00') {
		return "contains a NUL byte"
	}
	for _, c := range strings.Split(rest, "/") {
		switch {
		case c == "" || c == "." || c == "..":
			return "a name pattern's components must be names (no empty, . or .. parts)"
		case strings.Contains(c, "**"):
			return "** may only start a name pattern"
		}
		if _, err := path.Match(c, ""); err != nil {
			return fmt.Sprintf("component %q is not a valid pattern", c)
		}
	}
	return ""
}

// parseSize reads a byte count: a non-negative integer, or a string with
// an optional K, M, G or T suffix (powers of 1024; a trailing "B" or "iB"
// is accepted).
func parseSize(v any) (uint64, error) {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return 0, errors.New("must not be negative (0 means no limit)")
		}
		return uint64(x), nil
	case string:
		s := strings.ToUpper(strings.TrimSpace(x))
		if s == "" {
			return 0, nil
		}
		s = strings.TrimSuffix(strings.TrimSuffix(s, "B"), "I")
		mult := uint64(1)
		if n := len(s); n > 0 {
			switch s[n-1] {
			case 'K':
				mult = 1 << 10
			case 'M':
				mult = 1 << 20
			case 'G':
				mult = 1 << 30
			case 'T':
				mult = 1 << 40
			}
			if mult != 1 {
				s = s[:n-1]
			}
		}
		n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q is not a size (bytes, or a number with K, M, G or T)", x)
		}
		if n > ^uint64(0)/mult {
			return 0, fmt.Errorf("%q is too large", x)
		}
		return n * mult, nil
	default:
		return 0, fmt.Errorf("must be %s, not %s", keyTypes["limits.file_size"], tomlKind(v))
	}
}

// tomlKind names the TOML type of a decoded value for messages.
func tomlKind(v any) string {
	switch v.(type) {
	case bool:
		return "a boolean"
	case float64:
		return "a float"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	case string:
		return "a string"
	case int64:
		return "an integer"
	}
	return "a date or time"
}

// parseTimeout reads a wall-clock limit: a Go duration string ("90s",
// "10m", "1h30m"), "" for none, or an integer number of seconds.
func parseTimeout(v any) (time.Duration, error) {
	return parseDuration(v, "limits.timeout", "none")
}

// parseDuration reads a duration for key: a Go duration string, with "d"
// for days as well ("7d", "1d12h"), "" or 0 (which means zero), or an
// integer number of seconds.
func parseDuration(v any, key, zero string) (time.Duration, error) {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return 0, fmt.Errorf("must not be negative (0 means %s)", zero)
		}
		if x > int64(1<<63-1)/int64(time.Second) {
			return 0, errors.New("too large")
		}
		return time.Duration(x) * time.Second, nil
	case string:
		if strings.TrimSpace(x) == "" {
			return 0, nil
		}
		d, err := parseDays(strings.TrimSpace(x))
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration (e.g. \"90s\", \"10m\", \"1h\")", x)
		}
		if d < 0 {
			return 0, fmt.Errorf("must not be negative (\"\" means %s)", zero)
		}
		return d, nil
	default:
		return 0, fmt.Errorf("must be %s, not %s", keyTypes[key], tomlKind(v))
	}
}

// parseDays is time.ParseDuration that also reads a leading number of days.
func parseDays(s string) (time.Duration, error) {
	if i := strings.IndexByte(s, 'd'); i > 0 {
		n, err := strconv.ParseUint(s[:i], 10, 16)
		if err != nil {
			return 0, fmt.Errorf("bad number of days in %q", s)
		}
		d := time.Duration(n) * 24 * time.Hour
		if rest := s[i+1:]; rest != "" {
			r, err := time.ParseDuration(rest)
			if err != nil || r < 0 {
				return 0, fmt.Errorf("bad duration %q", s)
			}
			d += r
		}
		return d, nil
	}
	return time.ParseDuration(s)

}

// Validate decodes one file strictly and checks its values as Load would,
// expanding its paths with this process's environment, home and working
// directory (so an unset $VARIABLE is reported). It returns nil or an
// *Error.
func Validate(path string) error {
	data, err := readFile(path)
	if err != nil {
		return err
	}
	p, err := parse(path, data)
	if err != nil {
		return err
	}
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	if home == "" || cwd == "" {
		return nil // nothing to expand against; the values are checked
	}
	l := &loader{e: &Effective{}, x: &expander{cwd: cwd, home: home, getenv: os.Getenv, hooksDone: true}}
	l.x.configDir, l.x.stateDir = configDir(os.Getenv, home), stateDir(os.Getenv, home)
	if err := l.applyTrusted(p); err != nil {
		return err
	}
	return l.finish()
}

// KeepFor is an env.keep entry for one command: the variables a command
// starting with Command's words keeps (an MCP server's token).
type KeepFor struct {
	Command string
	Names   []string
}

// parseKeep reads env.keep: a list of names, or a table whose keys are
// commands' first words ("*" for every command) and whose values are
// lists of names.
func (p *parsed) parseKeep(v any) error {
	names := func(key string, v any) ([]string, error) {
		list, ok := v.([]any)
		if !ok {
			return nil, p.errorAt("env.keep", -1, "%s must be a list of variable names, not %s", key, tomlKind(v))
		}
		out := make([]string, 0, len(list))
		for i, e := range list {
			s, ok := e.(string)
			if !ok {
				return nil, p.errorAt("env.keep", i, "%s entry %d must be a string, not %s", key, i, tomlKind(e))
			}
			if msg := checkEntry(s, nameList); msg != "" {
				return nil, p.errorAt("env.keep", i, "%s entry %q: %s", key, s, msg)
			}
			out = append(out, s)
		}
		return out, nil
	}
	switch x := v.(type) {
	case []any:
		all, err := names("env.keep", x)
		if err != nil {
			return err
		}
		p.envKeep, p.envKeepFor = &all, &[]KeepFor{}
	case map[string]any:
		all, per := []string{}, []KeepFor{}
		if len(x) > maxListLen {
			return p.errorAt("env.keep", -1, "env.keep has %d entries; at most %d are accepted", len(x), maxListLen)
		}
		for _, cmd := range sortedKeys(x) {
			ns, err := names(fmt.Sprintf("env.keep.%q", cmd), x[cmd])
			if err != nil {
				return err
			}
			if strings.TrimSpace(cmd) == "*" {
				all = append(all, ns...)
				continue
			}
			if msg := checkKeepKey(cmd); msg != "" {
				return p.errorAt("env.keep", -1, "env.keep key %q: %s", cmd, msg)
			}
			per = append(per, KeepFor{Command: strings.TrimSpace(cmd), Names: ns})
		}
		p.envKeep, p.envKeepFor = &all, &per
	default:
		return p.errorAt("env.keep", -1, "env.keep must be %s, not %s", keyTypes["env.keep"], tomlKind(v))
	}
	return nil
}

// checkKeepKey validates an env.keep table key: a command's first words,
// plain (quoted words are fine), since only a plain command keeps names.
func checkKeepKey(k string) string {
	if strings.TrimSpace(k) == "" {
		return "names no command: a key is a command's first words, such as \"npx @scope/server\""
	}
	if i := strings.IndexAny(k, ";&|<>$`(){}*?[\x00\n\r"); i >= 0 {
		return fmt.Sprintf("%q is shell syntax; a key is a command's plain first words (the command keeps names only when it runs alone, words as written)", k[i:i+1])
	}
	if strings.Count(k, "'")%2 != 0 || strings.Count(k, `"`)%2 != 0 {
		return "has an unbalanced quote"
	}
	return ""
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
