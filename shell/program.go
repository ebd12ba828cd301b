package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Program is a script turned into the simple commands it could run.
type Program struct {
	// Commands lists every simple command found, in source order, nested
	// ones (from $(…), sh -c, eval, heredocs fed to a shell, …) included.
	// A command that holds nested code comes before the commands of that
	// code.
	Commands []*Command
	// Issues are the places where the analysis had to give up: parse
	// errors, inputs too large or too deep, exhausted work budget.
	Issues []Issue
	// Wrapper names an agent wrapper shape that was recognised and peeled
	// off ("claude-code", "gemini-cli"); empty otherwise.
	Wrapper string
	// WrapperOutput is the file the recognised wrapper writes for the agent
	// to read back (Claude Code's cwd file), or "".
	WrapperOutput string
	// WrapperCommand is the command the agent was asked to run, as the
	// recognised wrapper holds it (the text Claude Code's hook sees as
	// tool_input.command), or "".
	WrapperCommand string
	// Links maps symbolic links the script creates (ln -s TARGET NAME,
	// absolute NAME) to their absolute targets, so writes through them
	// can be judged by where they land.
	Links map[string]string
}

// IssueKind says why part of a program could not be analysed.
type IssueKind int

const (
	// ParseError: the text is not valid shell (or PowerShell/cmd) syntax.
	ParseError IssueKind = iota + 1
	// TooComplex: the input or its nesting exceeds the analysis bounds.
	TooComplex
)

// Issue is one place where analysis stopped.
type Issue struct {
	Kind   IssueKind
	Detail string
	// Origin is the kind of code in which the issue was found.
	Origin Origin
}

// Dialect is the command language a command was parsed from.
type Dialect int

const (
	// Sh is POSIX shell / bash.
	Sh Dialect = iota
	// PowerShell commands come from pwsh/powershell command lines.
	PowerShell
	// Cmd commands come from cmd.exe command lines.
	Cmd
)

// Origin says how a command was reached.
type Origin int

const (
	Top           Origin = iota // the script itself
	CmdSubst                    // $(…) or `…`
	ProcSubst                   // <(…) or >(…)
	ShellC                      // sh -c STRING (and su -c, flock -c, script -c, watch, …)
	Eval                        // eval STRING
	StdinScript                 // a script fed to a shell on stdin (pipe, heredoc, here-string, file)
	ScriptFile                  // a local script file read through Options.ReadScript
	Wrapped                     // the command run by find -exec, xargs, parallel
	Maybe                       // words judged as a command in case they are one: after a dynamic command name (it may expand to nothing or a wrapper), or in the arguments of a program not known to treat them as data
	Trap                        // trap STRING
	Alias                       // alias NAME=STRING
	ConfigCommand               // a command held in a git -c key or an environment variable such as GIT_SSH_COMMAND
	Encoded                     // decoded from an encoding such as powershell -EncodedCommand
)

var originNames = [...]string{"top", "command substitution", "process substitution", "shell -c", "eval",
	"shell stdin", "script file", "wrapped", "maybe", "trap", "alias", "config command", "encoded"}

func (o Origin) String() string {
	if int(o) < len(originNames) {
		return originNames[o]
	}
	return "origin?"
}

// Taint records where a value's data came from.
type Taint uint8

const (
	// Network data: produced by curl, wget, nc, ssh, Invoke-WebRequest, …
	Network Taint = 1 << iota
	// Decoded data: produced by base64 -d, xxd -r, gunzip, rev, tr, …
	Decoded
	// Downloaded: a file that an earlier command of the script fetched
	// from the network.
	Downloaded
	// Home: the value may be a user's home directory or name, looked up
	// at run time (getent passwd, whoami, /etc/passwd, ~$USER), or a
	// variable picked by name at run time (${!name}, a nameref), which
	// may be HOME.
	Home
)

// Word is one argument after quote removal and static evaluation.
type Word struct {
	// Value is the argument as the command will see it when Dynamic is
	// false. When Dynamic is true it is the source text, for display.
	Value string
	// Prefix is the statically known beginning of the value (all of it
	// when not Dynamic).
	Prefix string
	// Suffix is the statically known end of a Dynamic value: the text
	// after its last part known only at run time ("/.ssh/id_rsa" of
	// "$(getent passwd x | cut -d: -f6)/.ssh/id_rsa").
	Suffix string
	// Content is the text a process substitution word (<(…)) would
	// provide when it could be decided statically; ContentKnown says so.
	Content string
	// Output is set when the whole word is what one simple command
	// prints, known only at run time: "$(brew shellenv)", `cmd`,
	// <(kubectl completion bash). It is that command.
	Output *Command
	// Dynamic is set when part of the value is only known at run time.
	Dynamic bool
	// Glob is set when the word holds unquoted pattern characters that
	// the shell would expand into file names.
	Glob bool
	// Taint says where (part of) the value came from.
	Taint        Taint
	ContentKnown bool
	// Proc is set for a process substitution word.
	Proc bool
}

// Static returns a non-dynamic word.
func Static(s string) Word { return Word{Value: s, Prefix: s} }

// Assign is a NAME=value prefix of a command (or set by env).
type Assign struct {
	Name  string
	Value Word
}

// RedirOp is a redirection operator.
type RedirOp string

// Redirect is one redirection of a command.
type Redirect struct {
	// Op is the operator: ">", ">>", ">|", "&>", "&>>", "<", "<>", "<<",
	// "<<-", "<<<", "<&", ">&".
	Op string
	// Fd is the explicit file descriptor before the operator, or -1.
	Fd int
	// Target is the file (or fd number for <& and >&) after the operator.
	Target Word
	// Text is the content of a heredoc or here-string; TextKnown says it
	// could be decided statically.
	Text      string
	TextKnown bool
}

// Writes reports whether the redirection opens its target for writing.
func (r Redirect) Writes() bool {
	switch r.Op {
	case ">", ">>", ">|", "&>", "&>>", "<>":
		return true
	case ">&":
		// >&file (not a number, not -) writes to a file like &>.
		return !isFdWord(r.Target)
	}
	return false
}

// Reads reports whether the redirection opens its target file for reading.
func (r Redirect) Reads() bool {
	switch r.Op {
	case "<", "<>":
		return true
	case "<&":
		return !isFdWord(r.Target)
	}
	return false
}

func isFdWord(w Word) bool {
	if w.Dynamic {
		return false
	}
	v := strings.TrimSuffix(w.Value, "-")
	if v == "" {
		return true
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// InputKind says what feeds a command's standard input.
type InputKind int

const (
	// InputInherited: nothing in the script redirects it.
	InputInherited InputKind = iota
	// InputPipe: the output of earlier commands of a pipeline.
	InputPipe
	// InputFile: a file (< path).
	InputFile
	// InputText: a heredoc or here-string.
	InputText
)

// Input describes a command's standard input.
type Input struct {
	Kind InputKind
	// Text is the input when it could be decided statically (TextKnown).
	Text      string
	TextKnown bool
	// Taint is where the input data comes from.
	Taint Taint
	// Path is the file for InputFile.
	Path Word
	// Upstream are the commands before this one in its pipeline.
	Upstream []*Command
}

// Wrapper is a transparent command that was peeled off, with its own
// arguments (options), e.g. {sudo [-u root]} or {env [-i FOO=1]}.
type Wrapper struct {
	Name string
	Args []Word
}

// Command is one simple command in normalised form.
type Command struct {
	// Args is the command and its arguments after unwrapping; Args[0] is
	// the command name. Empty for a bare redirection or a compound
	// command's redirections.
	Args []Word
	// Assigns are the NAME=value words in front of the command (including
	// those given to env).
	Assigns []Assign
	// Redirs are the command's redirections, and those of the compound
	// commands around it that apply to it.
	Redirs []Redirect
	// Wrappers are the transparent commands peeled off, outermost first.
	Wrappers []Wrapper
	// Stdin is what feeds the command's standard input.
	Stdin Input
	// Dir is the working directory the command runs in (absolute), when
	// DirKnown.
	Dir      string
	DirKnown bool
	// Origin and Parent say how the command was reached: Parent is the
	// command whose argument or input held it (nil at top level).
	Origin Origin
	Parent *Command
	// Depth counts nested code levels (0 for the script itself).
	Depth int
	// Dialect is the language the command was written in.
	Dialect Dialect
	// ExtraArgs is set when more arguments are appended at run time
	// (xargs, find -exec … +).
	ExtraArgs bool
	// FromFile is set for commands read from a script file on disk rather
	// than given on the command line.
	FromFile bool
	// Script describes the program a shell, source or a direct script
	// execution would run, when the command runs one.
	Script *ScriptRun
	// Source is the original source text of the command, when available.
	Source string
}

// ScriptKind says where a shell's program comes from.
type ScriptKind int

const (
	// ScriptString: sh -c STRING, eval STRING.
	ScriptString ScriptKind = iota + 1
	// ScriptPath: sh FILE, source FILE, ./FILE.
	ScriptPath
	// ScriptStdin: a shell reading its program from stdin.
	ScriptStdin
	// ScriptInteractive: a shell reading from the terminal.
	ScriptInteractive
)

// ScriptRun is the code a command hands to a shell.
type ScriptRun struct {
	Kind ScriptKind
	// Path is the script file for ScriptPath (absolute when known).
	Path Word
	// Known is set when the code was available and was parsed: its
	// commands follow in Program.Commands with this command as Parent.
	Known bool
	// Why says why the code could not be read when !Known.
	Why string
	// Taint is where the code comes from.
	Taint Taint
}

// Name is the command name used for matching: the base name of Args[0]
// without a Windows executable suffix, lower-cased for Windows dialects
// and names. Empty when there are no arguments or the name is dynamic.
func (c *Command) Name() string {
	if len(c.Args) == 0 || c.Args[0].Dynamic {
		return ""
	}
	return CommandName(c.Args[0].Value)
}

// CommandName normalises a command word: the base name of a path, with
// .exe/.cmd/.bat/.com removed and lower-cased when it has such a suffix or
// a backslash.
func CommandName(s string) string {
	lower := false
	if i := max(strings.LastIndexByte(s, '/'), strings.LastIndexByte(s, '\\')); i >= 0 {
		if strings.IndexByte(s, '\\') >= 0 {
			lower = true
		}
		s = s[i+1:]
	}
	if n := len(s); n > 4 && s[n-4] == '.' {
		switch strings.ToLower(s[n-4:]) {
		case ".exe", ".cmd", ".bat", ".com":
			return strings.ToLower(s[:n-4])
		}
	}
	if lower {
		return strings.ToLower(s)
	}
	return s
}

// Values returns the argument values (display text for dynamic ones).
func (c *Command) Values() []string {
	out := make([]string, len(c.Args))
	for i, a := range c.Args {
		out[i] = a.Value
	}
	return out
}

// String renders the normalised command for people and the audit log:
// wrappers, assignments, arguments and redirections, each word quoted so
// that it reads back as the same word. Dynamic words are shown as they
// were written.
func (c *Command) String() string {
	var b strings.Builder
	sep := func() {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
	}
	for _, w := range c.Wrappers {
		sep()
		b.WriteString(quote(Static(w.Name)))
		for _, a := range w.Args {
			sep()
			b.WriteString(quote(a))
		}
	}
	if len(c.Args) > 0 {
		for _, a := range c.Assigns {
			sep()
			b.WriteString(a.Name)
			b.WriteByte('=')
			b.WriteString(quote(a.Value))
		}
	}
	for _, a := range c.Args {
		sep()
		b.WriteString(quote(a))
	}
	for _, r := range c.Redirs {
		sep()
		if r.Fd >= 0 {
			b.WriteString(itoa(r.Fd))
		}
		b.WriteString(r.Op)
		switch r.Op {
		case "<<", "<<-":
			b.WriteString("EOF")
		default:
			b.WriteString(quote(r.Target))
		}
	}
	return b.String()
}

func quote(w Word) string {
	if w.Dynamic {
		return w.Value
	}
	if w.Glob && globSafe(w.Value) {
		// Shown unquoted so the pattern reads as a pattern.
		return w.Value
	}
	q, err := syntax.Quote(w.Value, syntax.LangBash)
	if err != nil {
		return strings.ToValidUTF8(strings.ReplaceAll(w.Value, "\x00", `\0`), "?")
	}
	return q
}

func itoa(n int) string {
	if n >= 0 && n < 10 {
		return string(rune('0' + n))
	}
	var buf [20]byte
	i := len(buf)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}

// globSafe reports whether a pattern can be shown unquoted: it holds no
// characters a shell would treat specially other than the pattern ones.
func globSafe(s string) bool {
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("_./~*?[]!^:=+@%,-", c):
		default:
			return false
		}
	}
	return s != ""
}
