package sandbox

import (
	"errors"
	"io"
	"net"
	"os"
)

// Mode is how tightly a backend confines the command.
type Mode string

const (
	// Strict binds only a minimal read-only system and the first writable
	// root.
	Strict Mode = "strict"
	// Compat (the default) shows the whole filesystem read-only, makes every
	// writable root writable, and masks the deny lists.
	Compat Mode = "compat"
	// Permissive confines writes and secrets weakly; it is labelled as weak
	// everywhere it appears.
	Permissive Mode = "permissive"
)

// Policy is what a backend must enforce. Every path is absolute unless the
// field says otherwise.
type Policy struct {
	Mode Mode
	// Cwd is the working directory of the command, the same path inside
	// and outside the sandbox.
	Cwd string
	// WritableRoots may be written to. The first is the primary root
	// (strict mode keeps only that one).
	WritableRoots []string
	// ReadOnlyRoots are shown read-only as they are on the host, also
	// where the mode would otherwise hide them (a working directory under
	// the host's /tmp, which the private temporary directory covers; outside
	// strict mode's minimal view). Only bwrap hides such places.
	ReadOnlyRoots []string
	// DenyRead are masked: unreadable inside (credential paths, safeexec's
	// own config and state directories).
	DenyRead []string
	// DenyWrite stay read-only inside the writable roots. An absolute entry
	// names one path; a relative entry (".git/hooks", ".env") names that
	// path under every writable root.
	DenyWrite []string
	// Network says whether and how the command may reach the network.
	Network Network
	// Limits bound resources; zero fields mean no limit.
	Limits Limits
	// CacheDir, when set, is safeexec's own tool-cache directory: it is
	// writable inside the sandbox (in every mode) and CacheEnv points the
	// tools' cache variables at it, so the host's caches are never written.
	CacheDir string
	// TempDir, when set, is the project's persistent temporary directory
	// on the host: the command's /tmp (bwrap) or $TMPDIR (the other
	// backends), the same in every run of the project. Unset, each run
	// gets a private temporary directory that is removed afterwards.
	TempDir string
	// Private, when set, is safeexec's directory of every project's
	// caches and temporary directories: hidden inside the sandbox, but
	// for this run's CacheDir (and TempDir, as /tmp), so no project sees
	// another's files. Backends that cannot hide a directory beneath a
	// readable one (seatbelt, Windows) leave it readable.
	Private string
	// SafeexecPath is the safeexec binary, for backends that re-execute
	// it inside the sandbox (the network bridge, the Landlock fallback).
	SafeexecPath string

	// git is the control plane of the roots' git directories, found by
	// the backend when it starts (gitprotect.go).
	git *gitControl
}

// Network is the network part of a Policy.
type Network struct {
	// Enabled false means no network at all: no proxy, no bridge.
	Enabled bool
	// ProxyDir is a host directory holding the proxy's unix sockets
	// (http.sock, socks.sock); backends with a network namespace bind it
	// into the sandbox and run the bridge.
	ProxyDir string
	// ProxyHTTPPort and ProxySOCKSPort are the proxy's loopback TCP ports
	// for backends without a network namespace (Landlock, seatbelt), which
	// may only connect to them.
	ProxyHTTPPort  int
	ProxySOCKSPort int
	// Bridge is the argv prefix that starts the in-sandbox bridge before
	// the command, e.g. [safeexec __bridge <config>] (the backend adds
	// "--" and the command). Required when Enabled on a backend with a
	// network namespace; without the network it may still be set, to
	// supervise the command's terminal (safeexec __bridge --tty).
	Bridge []string
	// Listen, when set, lets a backend that can reach the sandbox's
	// network namespace skip the bridge: it calls Listen with open, which
	// opens a listener on the loopback inside that namespace, and Listen
	// creates the proxy's listeners there at NamespaceHTTPPort and
	// NamespaceSOCKSPort (and any forwards); the command's environment
	// must already name those ports. bwrap reaches the namespace as root
	// by making it itself, and otherwise by entering the one bwrap made
	// (netns_open_linux.go). Backends that cannot use Bridge instead.
	Listen func(open ListenFunc) error

	// ownNetns is set by the bwrap backend when it runs the sandbox in a
	// network namespace it made (Listen), so bwrap must not make another;
	// joinNetns when it opens the listeners in the one bwrap makes.
	ownNetns, joinNetns bool
}

// ListenFunc opens a TCP listener on host ("127.0.0.1" or "::1") and port
// of the sandbox's loopback; network is "tcp4" or "tcp6".
type ListenFunc func(network, host string, port int) (net.Listener, error)

// The proxy's ports inside a network namespace made for one sandbox (no
// other program listens there, so fixed ports cannot collide).
const (
	NamespaceHTTPPort  = 3128
	NamespaceSOCKSPort = 1080
)

// Limits are resource bounds applied to the confined process tree.
type Limits struct {
	Processes  uint64 // RLIMIT_NPROC
	OpenFiles  uint64 // RLIMIT_NOFILE
	FileSize   uint64 // RLIMIT_FSIZE, bytes
	CPUSeconds uint64 // RLIMIT_CPU
}

// Command is what to run inside the sandbox.
type Command struct {
	// Argv is the command; Argv[0] is looked up in PATH of Env.
	Argv []string
	// Env is the complete environment of the command (already filtered).
	Env    []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// ExtraFiles are passed through as in os/exec.
	ExtraFiles []*os.File
	// Terminal says Stdin is a terminal safeexec made for this run (a
	// pseudo-terminal relayed to the user's): the command gets it as its
	// controlling terminal, in a session of its own, so editors, pagers
	// and password prompts find /dev/tty.
	Terminal bool
	// Ahead is a sandbox started before the policy was known, used when
	// it is the one this command needs (bwrap only; nil: none).
	Ahead *Ahead
	// BeforeRelease, when set, is called once the sandbox is built and
	// before the command may start, which it does only after this
	// returns (bwrap only: other backends ignore it, and their caller
	// waits for what it waits for before Start). safeexec uses it to let
	// its catching of signals, which must be in place before the command
	// exists, overlap the sandbox's set-up.
	BeforeRelease func()
	// JoinNetns makes bwrap open the proxy's listeners in the network
	// namespace bwrap makes, even where safeexec could make one itself
	// (root): a process that starts sandboxes ahead and keeps them warm
	// (serve) can then, as such a launch is the same from run to run.
	JoinNetns bool
}

// Backend turns a Policy and a Command into a confined, started process.
type Backend interface {
	// Name is "bwrap", "landlock", "seatbelt", "windows" or "none".
	Name() string
	// Start starts cmd confined by p. It fails closed: if the policy
	// cannot be enforced, nothing is started and the error says why
	// (wrapping ErrUnavailable when the backend itself cannot run).
	Start(p *Policy, cmd *Command) (Process, error)
}

// Process is a started, confined command.
type Process interface {
	// Signal delivers sig to the command's process group inside the
	// sandbox, as a terminal would.
	Signal(sig os.Signal) error
	// Kill ends everything the sandbox started.
	Kill() error
	// Wait waits for the command and reports how it ended. After Wait
	// returns nothing the sandbox started is left running.
	Wait() (Status, error)
}

// Status is how a confined command ended.
type Status struct {
	// ExitCode is the command's exit status; 128+Signal when a signal
	// killed it; 127 when it could not be found; 126 when it could not be
	// executed.
	ExitCode int
	// Signal is the number of the signal that killed the command, or 0.
	Signal int
	// Protected lists protected paths the run created or changed and that
	// were taken back afterwards (moved to quarantine, removed, restored),
	// for backends that cannot block them during the run.
	Protected []string
	// Refused lists protected files the command tried to replace (a lock
	// or temporary file appeared beside one) while they were read-only,
	// for backends that block them during the run (bwrap): the likely
	// cause when the command failed.
	Refused []string
	// Unchecked lists what the look after the run could not finish (a
	// directory it could not list, the entry budget it stopped at), with
	// why: git hooks or config planted there were not looked for.
	Unchecked []string
}

// ErrUnavailable is wrapped by errors that mean the backend cannot run on
// this machine (not installed, user namespaces refused, kernel too old).
var ErrUnavailable = errors.New("sandbox unavailable")

// Report describes a backend choice: which, why, and what was checked.
type Report struct {
	Backend string `json:"backend"`
	Version string `json:"version,omitempty"`
	// Reason says why this backend was chosen (or why none could be).
	Reason string `json:"reason"`
	// Level is what the backend reached, for backends with levels
	// (Landlock ABI, "full" or "partial").
	Level  string  `json:"level,omitempty"`
	Checks []Check `json:"checks"`
	// Weak is true when the chosen backend or mode protects little
	// (permissive, none).
	Weak bool `json:"weak,omitempty"`
	// Unenforced says, one sentence each, what this backend cannot
	// enforce in the run's mode on this machine, whatever the policy asks
	// for (it stays advisory, or is left to the classifier): doctor prints
	// it, every audit record repeats it (sandbox.unenforced), and the
	// README lists every sentence. Assess fills it.
	Unenforced []string `json:"unenforced,omitempty"`
}

// Check is one thing Detect looked at.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
	// Fix says what to install or enable when OK is false.
	Fix string `json:"fix,omitempty"`
}
