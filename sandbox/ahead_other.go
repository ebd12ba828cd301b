//go:build !linux

package sandbox

import "io"

// prestart exists only where bwrap does.
type prestart struct{}

func (*prestart) cancel() {}

// StartAhead starts nothing here: only the bwrap backend starts ahead.
func StartAhead(*Launch, io.Reader, io.Writer, io.Writer) *Ahead { return &Ahead{} }
