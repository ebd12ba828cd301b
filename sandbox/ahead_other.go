//go:build !linux

package sandbox

// prestart exists only where bwrap does.
type prestart struct{}

func (*prestart) cancel() {}

// StartAhead starts nothing here: only the bwrap backend starts ahead.
func StartAhead(*Launch) *Ahead { return &Ahead{} }
