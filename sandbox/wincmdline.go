package sandbox

// Windows command lines, portable so that they are tested on every OS. A
// Windows program receives one string and splits it itself: most with the
// C runtime's rules (CommandLineToArgvW), MSYS2 programs such as Git for
// Windows' bash.exe nearly so (but they expand wildcards in words that are
// not quoted), and cmd.exe not at all — it reads everything after /c as a
// script of its own.

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// composeCommandLine turns argv into the command line the program will
// split back into argv:
//
//   - every word is quoted (so an MSYS2 program does not expand wildcards
//     in it), with backslashes doubled before a quote, as the C runtime
//     expects;
//   - for cmd.exe, the words after /c (or /k, /r) are cmd's script: they
//     are joined with spaces as they are, which is how safeexec's
//     classifier reads them too, and wrapped in one pair of quotes when /s
//     is among cmd's switches (cmd then strips exactly that pair).
func composeCommandLine(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if i > 0 && isCmdExe(argv[0]) && cmdSwitch(a) {
			b.WriteString(a)
			if cmdScriptSwitch(a) {
				tail := strings.Join(argv[i+1:], " ")
				if tail == "" {
					return b.String()
				}
				b.WriteByte(' ')
				if cmdHasSwitch(argv[1:i], "/s") {
					b.WriteString(`"` + tail + `"`)
				} else {
					b.WriteString(tail)
				}
				return b.String()
			}
			continue
		}
		quoteArg(&b, a)
	}
	return b.String()
}

// quoteArg writes a in double quotes so that CommandLineToArgvW reads it
// back unchanged.
func quoteArg(b *strings.Builder, a string) {
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(a); i++ {
		c := a[i]
		switch c {
		case '\\':
			slashes++
			continue
		case '"':
			b.WriteString(strings.Repeat(`\`, 2*slashes+1))
		default:
			b.WriteString(strings.Repeat(`\`, slashes))
		}
		slashes = 0
		b.WriteByte(c)
	}
	b.WriteString(strings.Repeat(`\`, 2*slashes))
	b.WriteByte('"')
}

// isCmdExe reports whether a program path names cmd.exe.
func isCmdExe(p string) bool {
	base := strings.ToLower(winBase(p))
	return base == "cmd" || base == "cmd.exe"
}

// winBase is the last element of a Windows or slash path.
func winBase(p string) string {
	if i := strings.LastIndexAny(p, `\/`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// cmdSwitch reports whether a is one of cmd.exe's switches (/c, /d, /q,
// /s, /v:on, /e:off, …).
func cmdSwitch(a string) bool {
	if len(a) < 2 || a[0] != '/' {
		return false
	}
	for _, r := range a[1:] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == ':') {
			return false
		}
	}
	return true
}

// cmdScriptSwitch reports whether a is the switch after which cmd.exe
// reads its script.
func cmdScriptSwitch(a string) bool {
	switch strings.ToLower(a) {
	case "/c", "/k", "/r":
		return true
	}
	return false
}

func cmdHasSwitch(args []string, sw string) bool {
	for _, a := range args {
		if strings.EqualFold(a, sw) {
			return true
		}
	}
	return false
}

// errBatchArg is returned for arguments that cmd.exe would read as code
// when they are passed to a batch file.
var errBatchArg = errors.New("cmd.exe would read this argument of a batch file as code")

// checkBatchArgs refuses the arguments of a batch file (.bat, .cmd) that
// cmd.exe, which runs it, would not keep as one word: a double quote ends
// the quoting and lets the rest run as commands, a % expands variables
// even inside quotes, a line break starts a new command.
func checkBatchArgs(program string, args []string) error {
	ext := strings.ToLower(filepath.Ext(winBase(program)))
	if ext != ".bat" && ext != ".cmd" {
		return nil
	}
	for _, a := range args {
		if strings.ContainsAny(a, "\"%\r\n\x00") {
			return fmt.Errorf("%w: %q (run it as cmd /c … instead, where the classifier reads it as cmd code)", errBatchArg, a)
		}
	}
	return nil
}
