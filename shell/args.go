package shell

import (
	"iter"
	"slices"
	"strings"
)

// ArgSpec says how a program reads its command line, well enough to tell
// its options from its operands: which options take a value, which long
// names it knows, and whether it accepts abbreviations of them. The zero
// value (and a nil *ArgSpec) describes a program whose options take no
// values and whose options and operands may come in any order.
type ArgSpec struct {
	// Short lists the one-letter options that take a value: -o FILE,
	// -oFILE, and a cluster ending in one (-xo FILE).
	Short string
	// Long lists the long options (without "--") that take a value:
	// --output FILE, --output=FILE. A long option whose value is optional
	// (--color[=WHEN]) takes only an attached one: list it in Flags.
	Long []string
	// Flags lists the long options that take no value. With Long it is
	// the set an abbreviation is resolved in.
	Flags []string
	// Abbrev says the program accepts any unambiguous prefix of a long
	// option (GNU getopt_long, git's parse-options): --rec is --recursive.
	Abbrev bool
	// Negatable says a long option may be turned off by --no-NAME (git's
	// parse-options): the Arg has the option's name and Negated set.
	Negatable bool
	// InOrder says options end at the first operand (POSIX getopt, and
	// programs that run a command given after their options). Otherwise
	// options may follow operands (GNU): rm x -r is recursive.
	InOrder bool
	// Stop and StopLong are options after which the program runs no
	// command (sudo -l, command -v): see Skip.
	Stop     string
	StopLong []string
	// Positional counts the operands between the options and the command
	// a program runs (timeout DURATION CMD): see Skip.
	Positional int
}

// Arg is one option or operand of a command line, as a program with a
// given ArgSpec reads it.
type Arg struct {
	// At is the index of the word it was read from.
	At int
	// Name is an option's letter or long name (an abbreviation resolved to
	// the full name when the spec knows it); empty for an operand.
	Name string
	// Long is set for a long option.
	Long bool
	// Value is an option's value (HasValue), or the operand itself.
	Value    Word
	HasValue bool
	// Operand is set for an operand.
	Operand bool
	// Partial is set when the word is only partly known at this point
	// (-r"$X", --ou$X): the option's name comes from the word's static
	// beginning, and more options may follow in it at run time.
	Partial bool
	// Ambiguous is set for a long option given as a prefix of several
	// names the spec knows (the program refuses it).
	Ambiguous bool
	// Negated is set for --no-NAME when the spec is Negatable.
	Negated bool
}

// query carries the option names a question asks about: they count as
// known names (an abbreviation of them is resolved) and, for value
// questions, as options that take a value.
type query struct {
	short string
	long  []string
	value bool
}

// Args returns the options and operands of args (args[0] is the program
// name), in order. A cluster of one-letter options yields one Arg per
// letter; "--" ends the options and is not yielded.
func (s *ArgSpec) Args(args []Word) iter.Seq[Arg] {
	return func(yield func(Arg) bool) { s.scan(args, 1, query{}, yield) }
}

// scan walks args[from:] and calls yield for each option and operand.
func (s *ArgSpec) scan(args []Word, from int, q query, yield func(Arg) bool) {
	spec := s
	if spec == nil {
		spec = &noSpec
	}
	opts := true
	for i := from; i < len(args); i++ {
		a := args[i]
		known := a.Value
		if a.Dynamic {
			known = a.Prefix
		}
		if !opts || len(known) < 2 || known[0] != '-' {
			if !yield(Arg{At: i, Value: a, Operand: true}) {
				return
			}
			if spec.InOrder {
				opts = false
			}
			continue
		}
		if known == "--" && !a.Dynamic {
			opts = false
			continue
		}
		if known[1] == '-' {
			name, val, hasVal := strings.Cut(known[2:], "=")
			if a.Dynamic && !hasVal {
				if !yield(Arg{At: i, Name: name, Long: true, Partial: true}) {
					return
				}
				continue
			}
			full, ambiguous := spec.resolve(name, q)
			arg := Arg{At: i, Name: full, Long: true, Ambiguous: ambiguous}
			if rest, ok := strings.CutPrefix(name, "no-"); ok && spec.Negatable && !spec.knows(name, q) && rest != "" {
				arg.Name, arg.Ambiguous = spec.resolve(rest, q)
				arg.Negated = true
			}
			switch {
			case hasVal:
				arg.Value, arg.HasValue = attached(a, 3+len(name), val), true
			case spec.takesLong(full, ambiguous, q) && i+1 < len(args):
				i++
				arg.Value, arg.HasValue = args[i], true
			}
			if !yield(arg) {
				return
			}
			continue
		}
		// A cluster of one-letter options.
		for k := 1; k < len(known); k++ {
			c := known[k]
			arg := Arg{At: i, Name: known[k : k+1], Partial: a.Dynamic && k == len(known)-1}
			if strings.IndexByte(spec.Short, c) >= 0 || q.value && strings.IndexByte(q.short, c) >= 0 {
				arg.Partial = false
				switch {
				case k+1 < len(known) || a.Dynamic:
					arg.Value, arg.HasValue = attached(a, k+1, known[k+1:]), true
				case i+1 < len(args):
					i++
					arg.Value, arg.HasValue = args[i], true
				}
				if !yield(arg) {
					return
				}
				break
			}
			if !yield(arg) {
				return
			}
		}
	}
}

// attached is the value that follows an option inside its own word: the
// rest of the word from byte n (known is the static part of it).
func attached(a Word, n int, known string) Word {
	if !a.Dynamic {
		return Word{Value: known, Prefix: known, Taint: a.Taint}
	}
	v := ""
	if n <= len(a.Value) {
		v = a.Value[n:]
	}
	return Word{Value: v, Dynamic: true, Prefix: known, Taint: a.Taint}
}

// resolve turns a long option as written into the name the program reads
// it as: itself when known or when abbreviations are not accepted, else
// the one known name it is a prefix of.
func (s *ArgSpec) resolve(name string, q query) (string, bool) {
	if !s.Abbrev || name == "" || s.knows(name, q) {
		return name, false
	}
	found := ""
	for _, list := range [][]string{s.Long, s.Flags, q.long} {
		for _, l := range list {
			if strings.HasPrefix(l, name) && l != found {
				if found != "" {
					return name, true
				}
				found = l
			}
		}
	}
	if found == "" {
		return name, false
	}
	return found, false
}

func (s *ArgSpec) knows(name string, q query) bool {
	for _, list := range [][]string{s.Long, s.Flags, q.long} {
		for _, l := range list {
			if l == name {
				return true
			}
		}
	}
	return false
}

// takesLong reports whether a long option (as resolved) takes the next
// word as its value.
func (s *ArgSpec) takesLong(name string, ambiguous bool, q query) bool {
	if ambiguous {
		return false
	}
	for _, l := range s.Long {
		if l == name {
			return true
		}
	}
	if q.value {
		for _, l := range q.long {
			if l == name {
				return true
			}
		}
	}
	return false
}

// matches reports whether an option is one of the letters in short or
// the long names asked about. An ambiguous abbreviation matches every
// name it could stand for.
func (a Arg) matches(short string, long []string) bool {
	if a.Operand {
		return false
	}
	if !a.Long {
		return len(a.Name) == 1 && strings.IndexByte(short, a.Name[0]) >= 0
	}
	for _, l := range long {
		if a.Name == l || a.Ambiguous && strings.HasPrefix(l, a.Name) {
			return true
		}
	}
	return false
}

// Has reports whether any of the one-letter options in short or the long
// options in long is given (options in words only partly known count
// when their known part shows them; --no-NAME does not).
func (s *ArgSpec) Has(args []Word, short string, long ...string) bool {
	if !mayHave(args, short, long) {
		return false
	}
	found := false
	s.scan(args, 1, query{short: short, long: long}, func(a Arg) bool {
		if a.matches(short, long) && (!a.Partial || !a.Long) && !a.Negated {
			found = true
		}
		return !found
	})
	return found
}

// Set reports whether an option is on at the end of the command line:
// given (by any of its spellings) and not turned off by a later --no-NAME.
func (s *ArgSpec) Set(args []Word, short string, long ...string) bool {
	if !mayHave(args, short, long) {
		return false
	}
	on := false
	s.scan(args, 1, query{short: short, long: long}, func(a Arg) bool {
		if a.matches(short, long) && (!a.Partial || !a.Long) {
			on = !a.Negated
		}
		return true
	})
	return on
}

// Value returns the first value of an option: -s VALUE, -sVALUE, a
// cluster ending in s, --long VALUE or --long=VALUE (short is one letter
// or "", long a name or ""). The option asked about takes a value even
// when the spec does not say so.
func (s *ArgSpec) Value(args []Word, short, long string) (Word, bool) {
	vs := s.Values(args, short, long, 1)
	if len(vs) == 0 {
		return Word{}, false
	}
	return vs[0], true
}

// Values returns up to max values (0: all) of an option, as Value finds
// them.
func (s *ArgSpec) Values(args []Word, short, long string, max int) []Word {
	var out []Word
	q := query{short: short, value: true}
	if long != "" {
		q.long = []string{long}
	}
	if !mayHave(args, short, q.long) {
		return nil
	}
	s.scan(args, 1, q, func(a Arg) bool {
		if a.HasValue && a.matches(short, q.long) {
			out = append(out, a.Value)
		}
		return max == 0 || len(out) < max
	})
	return out
}

// Operands returns the words that are not options or their values.
func (s *ArgSpec) Operands(args []Word) []Word {
	if len(args) > 1 && !anyOption(args) {
		// No word reads as an option: all are operands.
		return append([]Word(nil), args[1:]...)
	}
	// Gathered on the stack, then copied out at their exact size.
	var buf [8]Word
	out := buf[:0]
	s.scan(args, 1, query{}, func(a Arg) bool {
		if a.Operand {
			out = append(out, a.Value)
		}
		return true
	})
	if len(out) == 0 {
		return nil
	}
	return append([]Word(nil), out...)
}

// mayHave reports whether a word of args could be read as one of the
// one-letter options in short or the long options in long, whatever the
// spec: a word of a cluster (-xyz) holding the letter, or --NAME[=…]
// where NAME is a long name, an abbreviation of one, or --no- before one
// of those. It is false only when no spec could find the option, so the
// callers skip reading the words then.
func mayHave(args []Word, short string, long []string) bool {
	for i := 1; i < len(args); i++ {
		known := args[i].Value
		if args[i].Dynamic {
			known = args[i].Prefix
		}
		if len(known) < 2 || known[0] != '-' {
			continue
		}
		if known[1] != '-' {
			if strings.ContainsAny(known[1:], short) {
				return true
			}
			continue
		}
		name, _, _ := strings.Cut(known[2:], "=")
		for _, l := range long {
			if strings.HasPrefix(l, name) || strings.HasPrefix(name, "no-") && strings.HasPrefix(l, name[3:]) {
				return true
			}
		}
	}
	return false
}

// anyOption reports whether a word of args (after the name) starts like
// an option (- and more, -- included).
func anyOption(args []Word) bool {
	for i := 1; i < len(args); i++ {
		known := args[i].Value
		if args[i].Dynamic {
			known = args[i].Prefix
		}
		if len(known) >= 2 && known[0] == '-' {
			return true
		}
	}
	return false
}

// Skip returns the index of the command that a program running one
// (env, nice, sudo) is given after its options and Positional operands,
// or -1 when there is none or an option in Stop or StopLong says the
// program runs none. Options end at the first operand, and at a word
// only known at run time (which is taken as the command).
func (s *ArgSpec) Skip(args []Word) int {
	var spec ArgSpec
	if s != nil {
		spec = *s
	}
	spec.InOrder = true
	at, stop := len(args), false
	spec.scan(args, 1, query{}, func(a Arg) bool {
		switch {
		case a.Operand || args[a.At].Dynamic:
			at = a.At
			return false
		case a.Long && slices.Contains(spec.StopLong, a.Name),
			!a.Long && strings.IndexByte(spec.Stop, a.Name[0]) >= 0:
			stop = true
			return false
		}
		return true
	})
	if stop {
		return -1
	}
	at += spec.Positional
	if at >= len(args) {
		return -1
	}
	return at
}

// WinFlag reports whether one of the /name or -name switches of a Windows
// program is given (case-insensitively; /name:value counts).
func WinFlag(args []Word, names ...string) bool {
	for _, a := range args[1:] {
		v := strings.ToLower(a.Value)
		if len(v) < 2 || (v[0] != '/' && v[0] != '-') {
			continue
		}
		v = v[1:]
		if i := strings.IndexAny(v, ":="); i >= 0 {
			v = v[:i]
		}
		for _, n := range names {
			if v == n {
				return true
			}
		}
	}
	return false
}

// PSParam reports whether a PowerShell switch is given, by any prefix of
// its name of at least min letters, case-insensitively (-Rec, -Recurse:$true).
func PSParam(args []Word, name string, min int) bool {
	for _, a := range args[1:] {
		v := strings.ToLower(a.Value)
		if !strings.HasPrefix(v, "-") || len(v) < 1+min {
			continue
		}
		v = strings.TrimPrefix(v, "-")
		v, _, _ = strings.Cut(v, ":")
		if strings.HasPrefix(name, v) {
			return true
		}
	}
	return false
}

// PSValue returns the value of a PowerShell parameter given by any prefix
// of its name of at least min letters: -Name VALUE or -Name:VALUE.
func PSValue(args []Word, name string, min int) (Word, bool) {
	for i := 1; i < len(args); i++ {
		v := strings.ToLower(args[i].Value)
		if !strings.HasPrefix(v, "-") || len(v) < 1+min {
			continue
		}
		key, val, hasVal := strings.Cut(v[1:], ":")
		if strings.HasPrefix(name, key) {
			if hasVal {
				return Static(val), true
			}
			if i+1 < len(args) {
				return args[i+1], true
			}
		}
	}
	return Word{}, false
}

// noSpec is the nil spec's reading: no option takes a value.
var noSpec ArgSpec

// anyArgs reads options for programs whose options are not described:
// none takes a value unless the question says so.
var anyArgs = &ArgSpec{}
