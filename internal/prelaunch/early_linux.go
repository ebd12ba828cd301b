package prelaunch

import (
	"os"
	"slices"
	"sync"
)

// Early is the sandbox a run started while its packages were being
// initialised (StartEarly), with the run's own stdin, stdout and stderr.
type Early struct {
	Spec EarlySpec
	Held *Held
	// Nested is the nested channel's directory made for it ("" if none).
	Nested string
}

var early struct {
	sync.Mutex
	e *Early
}

// StartEarly starts the sandbox of spec's run, as the last run of its
// kind started its own, with os.Stdin, os.Stdout and os.Stderr as its
// command's stdio, for the run to take (TakeEarly) once it knows that it
// is the same run: it does nothing when nothing usable is remembered. Only
// one start is kept; a second call does nothing.
func StartEarly(spec EarlySpec) {
	early.Lock()
	defer early.Unlock()
	if early.e != nil {
		return
	}
	b, err := Read(spec.File)
	if err != nil {
		return
	}
	l, nested, err := Resolve(b, spec.Environ, spec.Tail, false, MakeNested)
	if err != nil {
		return
	}
	if _, _, ok := SplitLaunchArgs(l.Args); !ok || !PathsExist(l.Args) {
		removeNested(nested)
		return
	}
	h, err := StartHeld(l, os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		removeNested(nested)
		return
	}
	// A plain run: safeexec stays off bwrap's processors while bwrap
	// builds the sandbox.
	h.Child.CPUs.PinSelf()
	early.e = &Early{Spec: spec, Held: h, Nested: nested}
}

// TakeEarly hands the early sandbox to the run if it was started for
// spec's run (the same file, command and environment) and stdio: the
// caller then owns it, its nested directory included. Any other early
// sandbox is killed (CancelEarly). nil: none to take.
func TakeEarly(spec EarlySpec, stdin, stdout, stderr any) *Early {
	early.Lock()
	e := early.e
	early.e = nil
	early.Unlock()
	if e == nil {
		return nil
	}
	if e.Spec.File != spec.File || !slices.Equal(e.Spec.Tail, spec.Tail) || !slices.Equal(e.Spec.Environ, spec.Environ) ||
		!sameFile(stdin, os.Stdin) || !sameFile(stdout, os.Stdout) || !sameFile(stderr, os.Stderr) {
		e.cancel()
		return nil
	}
	return e
}

// CancelEarly kills the early sandbox if no run took it, and removes its
// nested directory. Every run calls it before it ends: a sandbox started
// early and never taken waits on its block until safeexec exits, and
// then ends without running anything, but only killed now does it not
// outlive safeexec.
func CancelEarly() {
	early.Lock()
	e := early.e
	early.e = nil
	early.Unlock()
	if e != nil {
		e.cancel()
	}
}

func (e *Early) cancel() {
	e.Held.Kill()
	e.Held.Child.Reap()
	removeNested(e.Nested)
}

func removeNested(dir string) {
	if dir != "" {
		os.RemoveAll(dir)
	}
}

// sameFile reports whether x is f itself.
func sameFile(x any, f *os.File) bool {
	g, ok := x.(*os.File)
	return ok && g == f
}
