package audit

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxShown bounds the command shown by Format, in runes.
const maxShown = 160

// Format writes one line for a person: local time, decision, tier, how the
// command ended, the command and the first reason. Control characters in
// logged text are escaped so a record cannot drive the terminal.
func Format(w io.Writer, r *Record) error {
	var b strings.Builder
	b.WriteString(r.Time.Local().Format("2006-01-02 15:04:05"))
	fmt.Fprintf(&b, "  %-9s  %-18s  %-8s  ", r.Decision, r.Tier, outcome(r))
	b.WriteString(shown(command(r)))
	if len(r.Reasons) > 0 {
		re := r.Reasons[0]
		b.WriteString("  # ")
		b.WriteString(shown(re.Rule))
		if re.Detail != "" {
			b.WriteString(": ")
			b.WriteString(shown(re.Detail))
		}
		if n := len(r.Reasons) - 1; n > 0 {
			fmt.Fprintf(&b, " (+%d)", n)
		}
	}
	if r.Sandbox.Weak {
		b.WriteString("  [weak sandbox]")
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// outcome says how the command ended: "-" when it did not run.
func outcome(r *Record) string {
	switch {
	case r.Kind == KindHook || r.Kind == KindCheck:
		return r.Kind
	case r.Decision == DecisionDenied || r.Decision == DecisionBlocked:
		return "-"
	case r.TimedOut:
		return "timeout"
	case r.Signal != 0:
		return "sig " + strconv.Itoa(r.Signal)
	default:
		return "exit " + strconv.Itoa(r.ExitCode)
	}
}

func command(r *Record) string {
	if r.Script != "" {
		return r.Script
	}
	q := make([]string, len(r.Argv))
	for i, a := range r.Argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// shellQuote quotes a word for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for _, c := range s {
		if !(c == '_' || c == '-' || c == '.' || c == '/' || c == ':' || c == '=' || c == '@' || c == '%' || c == '+' || c == ',' ||
			c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shown makes logged text safe and short for a terminal line: newlines and
// tabs become visible escapes, other control characters and invalid UTF-8
// are escaped, and the result is cut to maxShown runes.
func shown(s string) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		if n >= maxShown {
			b.WriteString("…")
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r):
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
		i += size
		n++
	}
	return b.String()
}
