// Package startup readies the Go runtime for a short run, before the rest
// of safeexec is initialised: import it first, for its side effects, from
// the command's main package.
//
// A plain run (safeexec -- CMD) does little work of its own and most of it
// in one goroutine, while bwrap builds the sandbox beside it: one
// processor is enough, and a second one costs more than it gives (idle
// threads spinning for work, a scheduler thread each, page faults for
// their caches). Asking for one processor here, before the packages'
// initialisers start goroutines, is cheaper than asking later: there is
// nothing yet to hand back. Runs that serve many commands call Restore.
package startup

import "runtime"

func init() {
	runtime.GOMAXPROCS(1)
	prepareHeap()
}

// Restore gives the run the processors Go would have chosen (the
// GOMAXPROCS variable, the CPU limit), for a process that runs many
// commands at once (serve) or helps one that does.
func Restore() {
	runtime.SetDefaultGOMAXPROCS()
}
