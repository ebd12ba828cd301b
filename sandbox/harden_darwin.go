package sandbox

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Harden puts safeexec out of reach of what it starts: no debugger may
// attach to it (PT_DENY_ATTACH). The seatbelt profile already keeps
// signals and process inspection within the sandbox.
func Harden() error {
	if err := unix.PtraceDenyAttach(); err != nil && !errors.Is(err, unix.ENOTSUP) {
		return fmt.Errorf("deny debugger attach: %w", err)
	}
	return nil
}
