package safeexec

// Starting the sandbox ahead of the plan.
//
// Most of a plain run's time is bwrap building the sandbox, and most of
// safeexec's own work (loading the policy, judging the command, planning
// the mounts) does not need it: the two could overlap, but the sandbox
// depends on that work. A run therefore remembers how it started bwrap
// (its options and environment, not its command), per working directory
// and set of flags, and the next such run starts bwrap that way at once,
// before it has loaded anything (sandbox.Ahead). bwrap stops before the
// command as it always does; the run uses it only when the launch it
// then computes is the remembered one, byte for byte, and kills it
// otherwise. Nothing the memory says can make a command run that the
// run itself would not have started in exactly that sandbox.
//
// The command line's runs start it earlier still, while Go initialises
// safeexec's packages (cmd/safeexec/internal/early, on internal/prelaunch,
// which holds the memory's format and bwrap's start); StartAhead takes
// that sandbox when it was started for this very run, and it is then
// judged like any other started ahead.
//
// What is remembered lives in safeexec's state directory, which the
// sandbox masks (a sandboxed command cannot write it), in files only the
// user can write, with a checksum. It holds no command and no value of
// the user's environment: a variable passed on unchanged is remembered by
// name, and its value taken from the next run's own environment; the
// nested channel's directory, made anew by each run, is remembered as a
// placeholder and made by the run that starts ahead.

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/safeexec/safeexec/internal/atomicfile"
	"github.com/safeexec/safeexec/internal/prelaunch"
	"github.com/safeexec/safeexec/sandbox"
)

// Ahead is a run's sandbox started ahead (or the place to remember this
// run's launch for the next one). The zero value and nil do nothing.
type Ahead struct {
	file   string
	memory *AheadMemory
	tail   []string
	sb     *sandbox.Ahead
	// nested is the nested channel's directory made for the early
	// sandbox; nestedTaken once the run uses it.
	nested      string
	nestedTaken bool
	// ready is closed once the memory was read and the sandbox started
	// (sb, nested set).
	ready chan struct{}
	saved chan struct{}
	// warm: a warm sandbox (StartWarm), whose command is not the run's.
	warm bool
}

// AheadSpec says which run is starting: its kind is the working
// directory, the user, the flags and whether the command is a script;
// Tail is the command as given (argv, or the script and its arguments).
type AheadSpec struct {
	// StateDir is safeexec's state directory, where launches are
	// remembered; Memory, when set, keeps them instead (a process that
	// runs many commands: serve).
	StateDir string
	Memory   *AheadMemory
	Cwd      string
	Flags    []string
	Script   bool
	Tail     []string
	Environ  []string
	// The command's stdio, as the run will give it (the sandbox started
	// ahead is used only if it is the same).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Now starts the sandbox before StartAhead returns (a run with one
	// processor, where a goroutine would wait for the run to block:
	// bwrap, the longest part of the run, would start late); otherwise
	// in the background.
	Now bool
}

// AheadMemory keeps the launches of a process's runs, for its later runs.
type AheadMemory struct {
	mu sync.Mutex
	m  map[string][]byte
}

// aheadMemoryMax bounds what an AheadMemory keeps.
const aheadMemoryMax = 64

// Len is the number of launches kept.
func (m *AheadMemory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.m)
}

func (m *AheadMemory) get(key string) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.m[key]
}

func (m *AheadMemory) put(key string, b []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string][]byte{}
	}
	if _, ok := m.m[key]; !ok && len(m.m) >= aheadMemoryMax {
		for k := range m.m { // forget one
			delete(m.m, k)
			break
		}
	}
	m.m[key] = b
}

// StartAhead starts the sandbox of a run of spec's kind as the last one
// started it, if there was one (see above). Call Close when the run is
// over, whether or not it started a command.
func StartAhead(spec AheadSpec) *Ahead {
	if runtime.GOOS != "linux" || len(spec.Tail) == 0 {
		return nil
	}
	if spec.Memory == nil && (spec.StateDir == "" || !filepath.IsAbs(spec.StateDir)) {
		return nil
	}
	a := &Ahead{file: aheadFile(spec), memory: spec.Memory, tail: spec.Tail, ready: make(chan struct{})}
	if spec.Memory == nil {
		// The sandbox may have been started already, while the packages
		// were initialised (cmd/safeexec's early package): the same run's
		// if it was started for the same file, command, environment and
		// stdio.
		es := prelaunch.EarlySpec{File: a.file, Tail: spec.Tail, Environ: spec.Environ}
		if e := prelaunch.TakeEarly(es, spec.Stdin, spec.Stdout, spec.Stderr); e != nil {
			a.sb, a.nested = adoptEarly(e, spec)
			close(a.ready)
			return a
		}
	}
	start := func() {
		defer close(a.ready)
		if l, err := a.load(spec.Environ); err == nil {
			a.sb = sandbox.StartAhead(l, spec.Stdin, spec.Stdout, spec.Stderr)
		}
	}
	if spec.Now {
		start()
	} else {
		go start()
	}
	return a
}

// StartWarm starts a warm sandbox (sandbox.StartWarm) for the next run of
// spec's kind, whatever its command, as the last run of that kind started
// its own: a process that runs many commands (serve) starts one while it
// waits for the next. spec.Tail is not used, nor spec.Stdin (the command
// gets none); spec.Memory must be set. Give it to that run with For; Close
// it if no run takes it.
func StartWarm(spec AheadSpec) *Ahead {
	if runtime.GOOS != "linux" || spec.Memory == nil {
		return nil
	}
	a := &Ahead{file: aheadFile(spec), memory: spec.Memory, tail: sandbox.WarmCommand(), ready: make(chan struct{}), warm: true}
	defer close(a.ready)
	if l, err := a.load(spec.Environ); err == nil {
		a.sb = sandbox.StartWarm(l, spec.Stdout, spec.Stderr)
	}
	return a
}

// For makes a warm sandbox the one of a run whose command (as in
// AheadSpec.Tail) is tail: that run's launch is remembered if the
// sandbox is not used.
func (a *Ahead) For(tail []string) *Ahead {
	if a != nil {
		a.tail = slices.Clone(tail)
	}
	return a
}

// Used reports whether the run's command ran in the sandbox started
// ahead (or warm), once the run is over.
func (a *Ahead) Used() bool {
	if a == nil {
		return false
	}
	<-a.ready
	return a.sb != nil && a.sb.Hit
}

// aheadFile names the memory of spec's kind of run.
func aheadFile(spec AheadSpec) string {
	return prelaunch.FileName(spec.StateDir, os.Geteuid(), spec.Cwd, spec.Script, spec.Flags)
}

// load reads the remembered launch and makes it this run's: the command,
// the environment's values, the nested channel's directory.
func (a *Ahead) load(environ []string) (*sandbox.Launch, error) {
	var b []byte
	var err error
	if a.memory != nil {
		if b = a.memory.get(a.file); b == nil {
			return nil, errors.New("ahead: nothing remembered")
		}
	} else if b, err = prelaunch.Read(a.file); err != nil {
		return nil, err
	}
	l, nested, err := prelaunch.Resolve(b, environ, a.tail, a.warm, prelaunch.MakeNested)
	if err != nil {
		return nil, err
	}
	a.nested = nested
	return l, nil
}

// sandboxAhead is what the sandbox backend gets (nil: nothing).
func (a *Ahead) sandboxAhead() *sandbox.Ahead {
	if a == nil {
		return nil
	}
	<-a.ready
	if a.sb == nil {
		a.sb = &sandbox.Ahead{}
	}
	return a.sb
}

// joinNetns says the run's sandbox is to be one a later run can start
// ahead or keep warm even with the network on as root (see
// sandbox.Command.JoinNetns): so in a process that keeps its launches in
// memory (serve).
func (a *Ahead) joinNetns() bool { return a != nil && a.memory != nil }

// takeNested hands the nested channel's directory made for the early
// sandbox to the run ("" if none was made).
func (a *Ahead) takeNested() string {
	if a == nil {
		return ""
	}
	<-a.ready
	if a.nested == "" || a.nestedTaken {
		return ""
	}
	a.nestedTaken = true
	return a.nested
}

// remember keeps the run's launch for the next run of its kind, in the
// background (Close waits for it): when the backend reported one, it did
// not come from the memory, and it can be remembered whole.
func (a *Ahead) remember(environ []string, nested string) {
	if a == nil {
		return
	}
	<-a.ready
	if a.sb == nil || a.sb.Hit || a.sb.Launch == nil {
		return
	}
	l := a.sb.Launch
	a.saved = make(chan struct{})
	go func() {
		defer close(a.saved)
		b := a.encode(l, environ, nested)
		switch {
		case b == nil:
		case a.memory != nil:
			a.memory.put(a.file, b)
		default:
			writeAheadFile(a.file, b)
		}
	}()
}

// encode turns a launch into what is remembered, or nil when it cannot be
// (its command does not end with the run's, options not allowed ahead).
func (a *Ahead) encode(l *sandbox.Launch, environ []string, nested string) []byte {
	opts, command, ok := prelaunch.SplitLaunchArgs(l.Args)
	if !ok || len(command) < len(a.tail) {
		return nil
	}
	head := command[:len(command)-len(a.tail)]
	for i, s := range a.tail {
		if command[len(head)+i] != s {
			return nil
		}
	}
	host := make(map[string]bool, len(environ))
	for _, kv := range environ {
		host[kv] = true
	}
	env := make([]string, len(l.Env))
	for i, kv := range l.Env {
		if host[kv] {
			name, _, _ := strings.Cut(kv, "=")
			env[i] = "=" + name
		} else {
			env[i] = kv
		}
	}
	opts = append([]string(nil), opts...)
	head = append([]string(nil), head...)
	for _, list := range [][]string{opts, head, env} {
		for i, s := range list {
			if strings.Contains(s, "\x00") || strings.Contains(s, prelaunch.Nested) {
				return nil
			}
			if nested != "" {
				list[i] = strings.ReplaceAll(s, nested, prelaunch.Nested)
			}
		}
	}
	return prelaunch.Encode(l.Path, opts, head, env)
}

// writeAheadFile replaces name with b, readable and writable by the user
// alone.
func writeAheadFile(name string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(name, b, 0o600)
}

// Close ends what StartAhead began: the early sandbox, if the run did not
// use it, is killed; the nested channel's directory made for it is removed
// if the run did not take it; the run's launch is written.
func (a *Ahead) Close() {
	if a == nil {
		return
	}
	<-a.ready
	if a.sb != nil {
		a.sb.Cancel()
	}
	if a.nested != "" && !a.nestedTaken {
		os.RemoveAll(a.nested)
	}
	if a.saved != nil {
		<-a.saved
	}
}
