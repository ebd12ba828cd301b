package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/AlecAivazis/survey/v2"
	"github.com/AlecAivazis/survey/v2/terminal"
	"golang.org/x/term"

	"github.com/safeexec/safeexec"
)

// ttyPrompter asks on the controlling terminal, like sudo: never on stdin,
// which may carry the wrapped command's input or an agent's protocol, and
// never on stdout, which belongs to the command (DESIGN §7).
type ttyPrompter struct{}

func (ttyPrompter) Confirm(q safeexec.Question) (bool, error) {
	in, tty, err := openTTY()
	if err != nil {
		return false, fmt.Errorf("%w: %v", safeexec.ErrNoHuman, err)
	}
	defer in.Close()
	if tty != in {
		defer tty.Close()
	}
	if !term.IsTerminal(int(in.Fd())) {
		return false, fmt.Errorf("%w: %s is not a terminal", safeexec.ErrNoHuman, in.Name())
	}

	fmt.Fprintf(tty, "safeexec: this needs your confirmation (sandbox: %s)\n", q.Sandbox)
	fmt.Fprintf(tty, "  command: %s\n", oneLine(q.Command, 400))
	for _, r := range q.Verdict.Reasons {
		fmt.Fprintf(tty, "  - %s [%s]\n", r.Detail, r.Rule)
	}
	ok := false
	err = survey.AskOne(&survey.Confirm{Message: "Run it?", Default: false}, &ok,
		survey.WithStdio(in, tty, tty))
	if errors.Is(err, terminal.InterruptErr) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return ok, nil
}

// oneLine shows s on one line, shortened to at most n bytes.
func oneLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
