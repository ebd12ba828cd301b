package sandbox

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// splitCommandLine splits a command line the way the C runtime does
// (CommandLineToArgvW's rules for the arguments after the program name:
// 2n backslashes before a quote are n backslashes and the quote toggles
// quoting, 2n+1 are n and a literal quote; "" inside quotes is a quote).
func splitCommandLine(s string) []string {
	var args []string
	var cur strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				cur.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					cur.WriteByte('"')
				} else {
					quoted = !quoted
				}
			} else {
				cur.WriteString(strings.Repeat(`\`, n))
				i--
			}
			inArg = true
		case c == '"':
			if quoted && i+1 < len(s) && s[i+1] == '"' {
				cur.WriteByte('"')
				i++
			} else {
				quoted = !quoted
			}
			inArg = true
		case (c == ' ' || c == '\t') && !quoted:
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteByte(c)
			inArg = true
		}
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args
}

func TestComposeCommandLineRoundTrip(t *testing.T) {
	for _, argv := range [][]string{
		{"git", "status"},
		{"bash.exe", "-c", `echo "a b" 'c' \"d\" *.go $HOME`},
		{`C:\Program Files\Git\bin\bash.exe`, "-c", `ls C:\dir\ "x\\"`},
		{"prog", "", "trailing\\", `\\server\share\`, "tab\there", `"`, `\"`, `a\\\"b`},
		{"node", "-e", `console.log("hi")`},
	} {
		line := composeCommandLine(argv)
		if got := splitCommandLine(line); !slices.Equal(got, argv) {
			t.Errorf("%q\n  line %s\n  back %q", argv, line, got)
		}
	}
	// Every word is quoted: MSYS2 programs expand wildcards in the others.
	if line := composeCommandLine([]string{"bash", "-c", "ls*"}); line != `"bash" "-c" "ls*"` {
		t.Errorf("line %s", line)
	}
}

func TestComposeCommandLineCmd(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"cmd.exe", "/d", "/s", "/c", `echo "a b" & dir /b`}, `"cmd.exe" /d /s /c "echo "a b" & dir /b"`},
		{[]string{`C:\Windows\System32\CMD.EXE`, "/C", "echo", "hi"}, `"C:\Windows\System32\CMD.EXE" /C echo hi`},
		{[]string{"cmd", "/d", "/c"}, `"cmd" /d /c`},
		{[]string{"cmd", "/k", "set"}, `"cmd" /k set`},
		{[]string{"cmd", "/v:on", "/s", "/c", "echo !x!"}, `"cmd" /v:on /s /c "echo !x!"`},
		// Not cmd: its /c is an ordinary word.
		{[]string{"robocopy", "/c", "a b"}, `"robocopy" "/c" "a b"`},
	} {
		if got := composeCommandLine(tc.argv); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.argv, got, tc.want)
		}
	}
}

func TestCheckBatchArgs(t *testing.T) {
	for _, prog := range []string{`C:\x\npm.cmd`, "build.BAT"} {
		if err := checkBatchArgs(prog, []string{"test", "--flag=a b", "c:\\dir"}); err != nil {
			t.Errorf("%s: %v", prog, err)
		}
		for _, bad := range []string{`"&calc`, "%PATH%", "a\nb", "a\rb"} {
			if err := checkBatchArgs(prog, []string{"ok", bad}); !errors.Is(err, errBatchArg) {
				t.Errorf("%s %q: %v", prog, bad, err)
			}
		}
	}
	if err := checkBatchArgs(`C:\x\node.exe`, []string{`"&calc`, "%x%"}); err != nil {
		t.Errorf("an .exe parses its own arguments: %v", err)
	}
}
