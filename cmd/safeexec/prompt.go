package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/safeexec/safeexec"
)

// ttyPrompter asks on the controlling terminal, like sudo: never on stdin,
// which may carry the wrapped command's input or an agent's protocol, and
// never on stdout, which belongs to the command (DESIGN §7).
//
// It reads single keys from the terminal in raw mode. It never asks the
// terminal anything (survey's prompts ask where the cursor is and wait for
// the answer, which only a terminal emulator gives: expect, a test or a
// multiplexer that filters it would hang there).
type ttyPrompter struct {
	// getenv reads the environment (nil: os.Getenv).
	getenv func(string) string
}

// ciRun reports whether the environment says this is a CI job: nobody is
// there to answer, so there is never a card.
func ciRun(getenv func(string) string) bool {
	v := strings.ToLower(strings.TrimSpace(getenv("CI")))
	return v == "true" || v == "1"
}

func (tp ttyPrompter) Confirm(q safeexec.Question) (safeexec.Answer, error) {
	getenv := tp.getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if ciRun(getenv) {
		return safeexec.Deny, fmt.Errorf("%w: CI is set, so nobody is asked", safeexec.ErrNoHuman)
	}
	in, out, err := openTTY()
	if err != nil {
		return safeexec.Deny, fmt.Errorf("%w: %v", safeexec.ErrNoHuman, err)
	}
	defer in.Close()
	if out != in {
		defer out.Close()
	}
	if !term.IsTerminal(int(in.Fd())) {
		return safeexec.Deny, fmt.Errorf("%w: %s is not a terminal", safeexec.ErrNoHuman, in.Name())
	}
	return confirm(in, out, q)
}

// promptSignals end a question: the terminal is restored, the command
// denied and recorded, and safeexec then ends as the signal says. Typed on
// the terminal, ^C is a key (raw mode) and simply denies.
var promptSignals = termSignals

// errTimeout is waitKey's timeout.
var errTimeout = errors.New("timed out")

// confirm shows q on out and reads the answer from in, a terminal: y runs
// it once, a always (when offered), s for the session (when offered); n,
// Enter, Escape, ^C and ^D (and the end of input) deny. Keys typed before
// the card is drawn are discarded.
func confirm(in *os.File, out io.Writer, q safeexec.Question) (safeexec.Answer, error) {
	fd := int(in.Fd())
	saved, err := term.MakeRaw(fd)
	if err != nil {
		return safeexec.Deny, fmt.Errorf("%w: %v", safeexec.ErrNoHuman, err)
	}
	defer term.Restore(fd, saved)
	sigc := make(chan os.Signal, 1)
	for _, sig := range promptSignals {
		// One safeexec was started with ignored (nohup's SIGHUP) stays so.
		if !signal.Ignored(sig) {
			signal.Notify(sigc, sig)
		}
	}
	defer signal.Stop(sigc)

	// Like sudo: what was typed before the question was there is not an
	// answer to it. Flushed before the card is drawn, not after: a key
	// typed once the question shows is an answer.
	flushInput(in)
	defer flushInput(in)
	io.WriteString(out, card(q))

	var deadline time.Time
	if q.Timeout > 0 {
		deadline = time.Now().Add(q.Timeout)
	}
	for {
		var wait time.Duration
		if !deadline.IsZero() {
			if wait = time.Until(deadline); wait <= 0 {
				wait = time.Nanosecond
			}
		}
		keys, sig, err := waitKey(in, wait, sigc)
		switch {
		case sig != nil:
			fmt.Fprintf(out, "no (%v)\r\n", sig)
			return safeexec.Deny, &safeexec.InterruptedError{Signal: sig}
		case errors.Is(err, errTimeout):
			fmt.Fprintf(out, "no (no answer within %v)\r\n", q.Timeout)
			return safeexec.Deny, safeexec.ErrNoAnswer
		case errors.Is(err, io.EOF):
			io.WriteString(out, "no\r\n")
			return safeexec.Deny, nil
		case err != nil:
			io.WriteString(out, "no\r\n")
			return safeexec.Deny, err
		}
		if len(keys) > 1 && keys[0] == 0x1b {
			continue // an escape sequence (an arrow key) is not an answer
		}
		switch keys[0] {
		case 'y', 'Y':
			io.WriteString(out, "yes, once\r\n")
			return safeexec.AllowOnce, nil
		case 'a', 'A':
			if len(q.Always) > 0 {
				io.WriteString(out, "yes, always\r\n")
				return safeexec.AllowAlways, nil
			}
		case 's', 'S':
			if q.Session != "" {
				io.WriteString(out, "yes, for this session\r\n")
				return safeexec.AllowSession, nil
			}
		case 'n', 'N', '\r', '\n', 0x1b, 0x03, 0x04:
			io.WriteString(out, "no\r\n")
			return safeexec.Deny, nil
		}
	}
}

// card is the question as shown, lines ended with \r\n (raw mode).
func card(q safeexec.Question) string {
	var b strings.Builder
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteString("\r\n")
	}
	line("safeexec: this command needs your confirmation")
	line("  command: %s", shown(q.Command, 2000))
	line("  tier:    %s", q.Verdict.Tier)
	for i, r := range q.Verdict.Reasons {
		label := "  why:     "
		if i > 0 {
			label = "           "
		}
		s := "- " + oneLine(r.Detail, 300) + " [" + r.Rule + "]"
		if r.Command != "" {
			s += " in `" + oneLine(r.Command, 300) + "`"
		}
		line("%s%s", label, s)
	}
	if q.Sandbox == "none" || q.Sandbox == "" {
		line("  sandbox: none — it runs unconfined, with all your permissions")
	} else {
		line("  sandbox: %s, %s mode", q.Sandbox, q.Mode)
	}
	keys := []string{"y = run it once"}
	choices := "y"
	if len(q.Always) > 0 {
		var rules []string
		for _, r := range q.Always {
			rules = append(rules, fmt.Sprintf("%q", oneLine(r, 300)))
		}
		keys = append(keys, fmt.Sprintf("a = always (adds the allow rule %s to %s)", strings.Join(rules, ", "), oneLine(q.AlwaysFile, 300)))
		choices += "/a"
	}
	if q.Session != "" {
		keys = append(keys, "s = allow it for this session")
		choices += "/s"
	}
	keys = append(keys, "n, Enter, Esc = deny")
	for i, k := range keys {
		label := "  keys:    "
		if i > 0 {
			label = "           "
		}
		line("%s%s", label, k)
	}
	if q.Timeout > 0 {
		line("  (denied without an answer after %v)", q.Timeout)
	}
	fmt.Fprintf(&b, "Run it? [%s/N] ", choices)
	return b.String()
}

// shown is s for the card: control characters replaced, at most n bytes.
func shown(s string, n int) string {
	if len(s) <= n {
		return oneLine(s, n)
	}
	return oneLine(s[:n], n) + fmt.Sprintf("… (%d more bytes not shown)", len(s)-n)
}

// oneLine shows s on one line, shortened to at most n bytes.
func oneLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?' // no control characters to the terminal
		}
		return r
	}, s)
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
