//go:build unix

package risk

import "syscall"

// cpuTime is the process's user+system CPU time in nanoseconds: the
// benchmarks report it per operation because wall time on a shared
// machine measures the neighbours.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
