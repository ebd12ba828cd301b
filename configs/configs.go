package configs

import (
	_ "embed"
	"time"
)

//go:generate go run gen_defaults.go

//go:embed default.toml
var defaultTOML []byte

// DefaultTOML returns the embedded default configuration, comments included.
// The caller may modify the returned slice.
func DefaultTOML() []byte {
	return append([]byte(nil), defaultTOML...)
}

// Modes, from the tightest to the loosest.
const (
	ModeStrict     = "strict"
	ModeCompat     = "compat"
	ModePermissive = "permissive"
)

// Source kinds.
const (
	KindDefault = "default"
	KindUser    = "user"
	KindProject = "project"
	KindEnv     = "env"
	KindFlags   = "flags"
)

// Names of the environment variables Load reads.
const (
	EnvConfig              = "SAFEEXEC_CONFIG"
	EnvAllowedDomains      = "SAFEEXEC_ALLOWED_DOMAINS"
	EnvExtraAllowedDomains = "SAFEEXEC_EXTRA_ALLOWED_DOMAINS"
)

// ProjectFile is the name of the untrusted per-project configuration file.
const ProjectFile = ".safeexec.toml"

// Flags are the command-line settings that override every file. Zero values
// mean "not given".
type Flags struct {
	// Mode replaces the mode (--mode).
	Mode string
	// Sandbox replaces the backend (--sandbox).
	Sandbox string
	// AllowWrite appends writable roots (--allow-write), expanded like the
	// config's paths.
	AllowWrite []string
	// AllowDomains appends allowed domains (--allow-domain).
	AllowDomains []string
	// NoNetwork turns the network off (--no-network).
	NoNetwork bool
	// Timeout replaces limits.timeout (--timeout).
	Timeout time.Duration
	// Shell replaces run.shell (--shell).
	Shell string
}

// Options say where Load looks.
type Options struct {
	// Cwd is the absolute working directory; "." and relative paths start
	// there and the project file search begins there.
	Cwd string
	// Home is the absolute home directory.
	Home string
	// Getenv reads the environment (os.Getenv in production).
	Getenv func(string) string
	// LookupEnv, when set, is used instead of Getenv so that an explicitly
	// empty SAFEEXEC_ALLOWED_DOMAINS ("none allowed") can be told from an
	// unset one (os.LookupEnv in production). With Getenv alone an empty
	// value counts as unset.
	LookupEnv func(string) (string, bool)
	// ConfigPath is --config; "" means the default location.
	ConfigPath string
	// Flags are applied last.
	Flags Flags
}

// Source is one layer that contributed to an Effective configuration.
type Source struct {
	// Path is the file, or the variable name for KindEnv, or "" for the
	// embedded defaults and for flags.
	Path string `json:"path,omitempty"`
	// Kind is KindDefault, KindUser, KindProject, KindEnv or KindFlags.
	Kind string `json:"kind"`
}

// Limits bound the command's resources. Zero means no limit.
type Limits struct {
	Processes  uint64
	OpenFiles  uint64
	FileSize   uint64 // bytes
	CPUSeconds uint64
	Timeout    time.Duration
}

// Effective is the configuration after every layer was applied: the policy
// one run enforces. Paths are absolute, except relative DenyWrite entries,
// which name a path under every writable root.
type Effective struct {
	// Sources are the layers actually used, in the order applied.
	Sources []Source
	// Warnings name what was dropped and why (a project file trying to
	// loosen the policy), one line each, "file: key: why".
	Warnings []string

	Mode    string // strict | compat | permissive
	Backend string // auto | bwrap | landlock | seatbelt | windows | none
	// Shell runs -c scripts: auto | bash | powershell | pwsh | cmd.
	Shell string
	// TmpTTL is how long a project's temporary directory is kept without
	// a run in the project; zero: removed after every run.
	TmpTTL time.Duration

	AllowWrite []string
	DenyRead   []string
	DenyWrite  []string

	NetworkEnabled bool
	// AllowedDomains and DeniedDomains are entries as written (trimmed,
	// lower-cased); the network package validates them.
	AllowedDomains []string
	DeniedDomains  []string

	EnvStrip         []string
	EnvStripSuffixes []string
	EnvKeep          []string
	// EnvKeepFor keeps variables for commands starting with given words
	// (an MCP server and its token); only from the user's own file.
	EnvKeepFor []KeepFor

	// RulesAllow come only from the user's own file.
	RulesAllow   []string
	RulesConfirm []string
	RulesDeny    []string

	// AuditPath is absolute: audit.path, or StateDir/audit.log.
	AuditPath string
	AuditSync bool

	// PromptChannel is "tty" or "none".
	PromptChannel string
	// PromptTimeout denies a question nobody answered in that time; 0
	// waits for an answer.
	PromptTimeout time.Duration

	// AgentPrefix names the agents (claude, codex, gemini; "*" for every
	// one) whose commands reach safeexec as their shell prefix: only for
	// them may a hook judge as if the command were sandboxed.
	AgentPrefix []string

	Limits Limits

	// ConfigDir is the directory of the default user config file; StateDir
	// is $XDG_STATE_HOME/safeexec (~/.local/state/safeexec).
	ConfigDir string
	StateDir  string
	// UserFile is the user config file that was read, or "".
	UserFile string
}

// PrefixFor reports whether the configuration says agent's commands run
// through safeexec as its shell prefix (agent.prefix).
func (e *Effective) PrefixFor(agent string) bool {
	for _, a := range e.AgentPrefix {
		if a == "*" || a == agent {
			return true
		}
	}
	return false
}
