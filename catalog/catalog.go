package catalog

import (
	"github.com/safeexec/safeexec/shell"
)

// Tool is what safeexec knows about one program. The embedded shell.Tool
// is what the parser needs (how it reads its options, what it runs, where
// its output comes from, what it writes); the rest is what the
// classifier asks about the files it reads and writes.
type Tool struct {
	shell.Tool
	// Targets are the files and directories the command changes other
	// than by writing their content: deletes, creates empty, changes the
	// mode, owner or times of (rm, mkdir, chmod, touch).
	Targets func(c *shell.Command) []shell.Word
	// HomeWrites are the files under the home directory (relative to it)
	// that the command changes without naming them: the stores of
	// credentials and settings that login and config commands write.
	HomeWrites func(c *shell.Command) []string
	// Reads are files the command reads or sends that are not among its
	// operands (curl -d @FILE).
	Reads func(c *shell.Command) []shell.Word
	// TreeReads are the directories whose whole tree the command reads
	// (tar c DIR, grep -r PATTERN DIR, cp -r DIR).
	TreeReads func(c *shell.Command) []shell.Word
}

// families are the per-family tables, in the order of the files. A
// program is in at most one (TestFamilies); they are not merged into one
// table at start-up, which cost every run a millisecond of building it for
// the handful of names a command line looks up.
// (Set in init: the tables' own functions look programs up.)
var families []map[string]*Tool

func init() {
	families = []map[string]*Tool{
		wrapperTools, runnerTools, gitTools, fetchTools, codecTools, fileTools, archiveTools,
		remoteTools, buildTools, interpreterTools, editorTools, terminalTools, sedTools,
		containerTools, cloudTools, secretTools, systemTools, dataTools, accountTools,
	}
}

// find returns a program's entry, or nil.
func find(name string) *Tool {
	for _, fam := range families {
		if t := fam[name]; t != nil {
			return t
		}
	}
	return nil
}

// Lookup returns what is known about a program by its exact name (as
// shell.CommandName gives it), or nil.
func Lookup(name string) *Tool {
	return find(name)
}

// Tools is Lookup for the parser: shell.Options.Tools.
func Tools(name string) *shell.Tool {
	if t := find(name); t != nil {
		return &t.Tool
	}
	return nil
}

// Args returns how a program reads its options (nil when not known: no
// option takes a value).
func Args(name string) *shell.ArgSpec {
	if t := find(name); t != nil {
		return t.Args
	}
	return nil
}

// word is a word with value v whose dynamic part and taint come from the
// word it was cut from.
func word(v string, dynamic bool, t shell.Taint) shell.Word {
	w := shell.Word{Value: v, Dynamic: dynamic, Taint: t}
	if !dynamic {
		w.Prefix = v
	}
	return w
}

// after is the part of w after its first n bytes (an option's attached
// value), dynamic when w is.
func after(w shell.Word, n int) shell.Word {
	if !w.Dynamic {
		return word(w.Value[min(n, len(w.Value)):], false, w.Taint)
	}
	pre := ""
	if len(w.Prefix) > n {
		pre = w.Prefix[n:]
	}
	return shell.Word{Value: w.Value[min(n, len(w.Value)):], Dynamic: true, Prefix: pre, Taint: w.Taint}
}

// hasWord reports whether any argument is one of the words (static).
func hasWord(args []shell.Word, set ...string) bool {
	for _, a := range args[1:] {
		if !a.Dynamic {
			for _, s := range set {
				if a.Value == s {
					return true
				}
			}
		}
	}
	return false
}

// anyArgs reads the options of a program whose options are not known:
// none takes a value unless the question says so.
var anyArgs = &shell.ArgSpec{}

// operands are the command's operands, read with its own ArgSpec.
func operands(c *shell.Command) []shell.Word {
	return Args(c.Name()).Operands(c.Args)
}

// SubWords returns a command's first n operands (its subcommands, as in
// "gh auth token"), read with the command's own options so that an
// option's value is not taken for one; it stops at a word only known at
// run time.
func SubWords(c *shell.Command, n int) []string {
	var words []string
	for a := range Args(c.Name()).Args(c.Args) {
		if !a.Operand {
			continue
		}
		if a.Value.Dynamic || len(words) == n {
			break
		}
		if words == nil {
			words = make([]string, 0, min(n, 8))
		}
		words = append(words, a.Value.Value)
	}
	return words
}
