//go:build unix && !linux

package audit

func reserve(fd int, size int64) {}
