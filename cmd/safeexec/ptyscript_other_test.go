//go:build !linux

package main

import "github.com/rogpeppe/go-internal/testscript"

var ptyCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){}
