//go:build linux && !amd64

package sandbox

// threadPointer is unknown here (it takes assembly): the opener's fork
// then copies all of safeexec's memory, as it always did.
func threadPointer() uintptr { return 0 }
