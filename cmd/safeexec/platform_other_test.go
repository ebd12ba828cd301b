//go:build !windows

package main

import "testing"

// platformCommands are the test programs of this platform's scripts.
func platformCommands() map[string]func() { return nil }

// platformMain replaces testscript.Main where it cannot work.
func platformMain(*testing.M, map[string]func()) (int, bool) { return 0, false }
