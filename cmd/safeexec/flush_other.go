//go:build !linux

package main

import "github.com/AlecAivazis/survey/v2/terminal"

// flushInput leaves pending input alone where TCFLSH is not available.
func flushInput(terminal.FileReader) {}
