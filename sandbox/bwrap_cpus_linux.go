package sandbox

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// While bwrap builds the sandbox, safeexec works beside it (the plan, the
// judgement, the watches): on a machine of few processors the two slow
// each other down more than their sum, each of safeexec's threads that
// wakes on bwrap's processor preempting it. bwrap is therefore started on
// every processor of safeexec's but the one safeexec runs on, and given
// them all back (it and the sandbox's first process, which starts the
// command) before the command is let go: the command gets the processors
// safeexec had. Measured on a 2-processor virtual machine: 4 ms less CPU
// per plain run, about 1% less wall time, nothing measurable in serve.

// cpuPin is a started bwrap's processors to give back.
type cpuPin struct {
	all unix.CPUSet
}

// pinOthers sets the calling thread's processors to all of its own but
// the one it runs on, for a fork; undo restores them. pin is what the
// child is to get back (nil: nothing was changed: one processor, a
// set-user-ID bwrap that safeexec could not give them back to, or an
// error).
func pinOthers(path string) (pin *cpuPin, undo func()) {
	p := &cpuPin{}
	if unix.SchedGetaffinity(0, &p.all) != nil || p.all.Count() < 2 {
		return nil, func() {}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode()&os.ModeSetuid != 0 && os.Geteuid() != 0 {
		return nil, func() {}
	}
	var cpu uint32
	if _, _, e := syscall.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); e != 0 || !p.all.IsSet(int(cpu)) {
		return nil, func() {}
	}
	others := p.all
	others.Clear(int(cpu))
	runtime.LockOSThread()
	if unix.SchedSetaffinity(0, &others) != nil {
		runtime.UnlockOSThread()
		return nil, func() {}
	}
	return p, func() {
		unix.SchedSetaffinity(0, &p.all)
		runtime.UnlockOSThread()
	}
}

// release gives bwrap and the sandbox's first process their processors
// back: the command, which the latter starts, inherits them.
func (p *cpuPin) release(pids ...int) {
	if p == nil {
		return
	}
	for _, pid := range pids {
		if pid > 0 {
			unix.SchedSetaffinity(pid, &p.all)
		}
	}
}
