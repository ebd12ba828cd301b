//go:build linux && !amd64

package sandbox

// warmExecELF: no warm sandbox's program for this architecture yet
// (warmexec/amd64.S is amd64's), so no warm sandboxes.
var warmExecELF []byte
