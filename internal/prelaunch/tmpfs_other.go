//go:build !linux

package prelaunch

// isTmpfs: /dev/shm is looked at on Linux only.
func isTmpfs(string) bool { return false }
