package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/AlecAivazis/survey/v2/terminal"
	"golang.org/x/term"

	"github.com/safeexec/safeexec"
)

// ttyPrompter asks on the controlling terminal, like sudo: never on stdin,
// which may carry the wrapped command's input or an agent's protocol, and
// never on stdout, which belongs to the command (DESIGN §7).
//
// It reads one key with survey's terminal reader. survey's own prompts ask
// the terminal where the cursor is (ESC [6n) and wait for the answer, which
// only a terminal emulator gives: anything else driving a pseudo-terminal
// (expect, a test, a multiplexer that filters it) would hang there, so
// they are not used.
type ttyPrompter struct{}

func (ttyPrompter) Confirm(q safeexec.Question) (bool, error) {
	in, out, err := openTTY()
	if err != nil {
		return false, fmt.Errorf("%w: %v", safeexec.ErrNoHuman, err)
	}
	defer in.Close()
	if out != in {
		defer out.Close()
	}
	if !term.IsTerminal(int(in.Fd())) {
		return false, fmt.Errorf("%w: %s is not a terminal", safeexec.ErrNoHuman, in.Name())
	}
	return confirm(in, out, q)
}

// confirm shows q on out and reads the answer from in, a terminal: y
// approves; n, Enter, Escape, ^C and ^D (and the end of input) refuse.
func confirm(in terminal.FileReader, out io.Writer, q safeexec.Question) (bool, error) {
	fmt.Fprintf(out, "safeexec: this needs your confirmation (sandbox: %s)\r\n", q.Sandbox)
	fmt.Fprintf(out, "  command: %s\r\n", oneLine(q.Command, 400))
	for _, r := range q.Verdict.Reasons {
		fmt.Fprintf(out, "  - %s [%s]\r\n", oneLine(r.Detail, 300), r.Rule)
	}
	fmt.Fprint(out, "Run it? [y/N] ")

	rr := terminal.NewRuneReader(terminal.Stdio{In: in, Out: nopFileWriter{out}, Err: out})
	if err := rr.SetTermMode(); err != nil {
		return false, err
	}
	defer rr.RestoreTermMode()
	defer flushInput(in)
	for {
		r, _, err := rr.ReadRune()
		if errors.Is(err, io.EOF) {
			fmt.Fprint(out, "no\r\n")
			return false, nil
		}
		if err != nil {
			// An escape sequence (an arrow key) is not an answer.
			continue
		}
		switch r {
		case 'y', 'Y':
			fmt.Fprint(out, "yes\r\n")
			return true, nil
		case 'n', 'N', terminal.KeyEnter, '\n', terminal.KeyEscape, terminal.KeyInterrupt, terminal.KeyEndTransmission:
			fmt.Fprint(out, "no\r\n")
			return false, nil
		}
	}
}

// nopFileWriter gives survey's reader the writer it wants; it writes
// nothing through it (confirm does not echo with it).
type nopFileWriter struct{ io.Writer }

func (nopFileWriter) Fd() uintptr { return ^uintptr(0) }

// oneLine shows s on one line, shortened to at most n bytes.
func oneLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?' // no control characters to the terminal
		}
		return r
	}, s)
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
