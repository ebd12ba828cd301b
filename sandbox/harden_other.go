//go:build !linux && !darwin

package sandbox

// Harden does nothing on this platform. (On Windows a command under a
// write-restricted token can still open safeexec's process for reading:
// the package's Limits say so.)
func Harden() error { return nil }
