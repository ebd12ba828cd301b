//go:build !unix

package prelaunch

// SweepRunDirs: run directories are made on Unix only.
func SweepRunDirs() {}
