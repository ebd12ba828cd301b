//go:build !linux

package safeexec

import (
	"github.com/safeexec/safeexec/internal/prelaunch"
	"github.com/safeexec/safeexec/sandbox"
)

// adoptEarly: nothing is started early here (prelaunch.TakeEarly never
// hands anything over).
func adoptEarly(*prelaunch.Early, AheadSpec) (*sandbox.Ahead, string) { return nil, "" }
