//go:build !linux

package sandbox

import "io"

// prestart exists only where bwrap does.
type prestart struct{}

func (*prestart) cancel() {}

// StartAhead starts nothing here: only the bwrap backend starts ahead.
func StartAhead(*Launch, io.Reader, io.Writer, io.Writer) *Ahead { return &Ahead{} }

// StartWarm starts nothing here: only the bwrap backend has warm sandboxes.
func StartWarm(*Launch, io.Writer, io.Writer) *Ahead { return &Ahead{} }

// WarmCommand is the command of a warm sandbox's launch.
func WarmCommand() []string { return []string{"/proc/self/fd/7"} }
