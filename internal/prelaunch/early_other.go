//go:build !linux

package prelaunch

// Early is a sandbox started early: only Linux's bwrap starts one.
type Early struct{}

// StartEarly does nothing here.
func StartEarly(EarlySpec) {}

// TakeEarly has nothing to hand over here.
func TakeEarly(EarlySpec, any, any, any) *Early { return nil }

// CancelEarly has nothing to cancel here.
func CancelEarly() {}
