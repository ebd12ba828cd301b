package shell

import (
	"math/rand"
	"reflect"
	"testing"
)

// The option questions (Has, Set, Values, Operands) skip reading the words
// when no word can be the option asked about. These are the answers of
// reading them always: the skip must never change one.
func hasByScan(s *ArgSpec, args []Word, short string, long ...string) bool {
	found := false
	s.scan(args, 1, query{short: short, long: long}, func(a Arg) bool {
		if a.matches(short, long) && (!a.Partial || !a.Long) && !a.Negated {
			found = true
		}
		return !found
	})
	return found
}

func setByScan(s *ArgSpec, args []Word, short string, long ...string) bool {
	on := false
	s.scan(args, 1, query{short: short, long: long}, func(a Arg) bool {
		if a.matches(short, long) && (!a.Partial || !a.Long) {
			on = !a.Negated
		}
		return true
	})
	return on
}

func valuesByScan(s *ArgSpec, args []Word, short, long string, max int) []Word {
	var out []Word
	q := query{short: short, value: true}
	if long != "" {
		q.long = []string{long}
	}
	s.scan(args, 1, q, func(a Arg) bool {
		if a.HasValue && a.matches(short, q.long) {
			out = append(out, a.Value)
		}
		return max == 0 || len(out) < max
	})
	return out
}

func operandsByScan(s *ArgSpec, args []Word) []Word {
	var out []Word
	s.scan(args, 1, query{}, func(a Arg) bool {
		if a.Operand {
			out = append(out, a.Value)
		}
		return true
	})
	return out
}

func TestOptionSkipChangesNothing(t *testing.T) {
	vocab := []Word{Static("-r"), Static("-rf"), Static("-fr"), Static("-o"), Static("-ofile"), Static("-xo"), Static("-"),
		Static("--"), Static("--output"), Static("--out"), Static("--output=x"), Static("--out=y"), Static("--no-output"),
		Static("--no-out"), Static("--no-output=x"), Static("--no-out=z"), Static("--no-"), Static("--rec"), Static("--recursive"), Static("--recursive=no"), Static("--force"),
		Static("--f"), Static("--="), Static("--=v"), Static("x"), Static("file.txt"), Static("-1"), Static("--output-dir"),
		{Value: "--ou$X", Prefix: "--ou", Dynamic: true}, {Value: "-r$X", Prefix: "-r", Dynamic: true},
		{Value: "$X", Dynamic: true}, {Value: "--output=$X", Prefix: "--output=", Dynamic: true}, {Value: "-o$X", Prefix: "-o", Dynamic: true}}
	specs := []*ArgSpec{nil, {}, {Short: "o"}, {Short: "o", Long: []string{"output"}, Flags: []string{"recursive", "force"}, Abbrev: true},
		{Short: "x", Long: []string{"output", "output-dir"}, Flags: []string{"recursive"}, Abbrev: true, Negatable: true},
		{Short: "o", InOrder: true, Abbrev: true, Negatable: true, Flags: []string{"out", "output"}}}
	shorts := []string{"", "r", "o", "f", "x", "rR", "1"}
	longs := []string{"", "output", "out", "recursive", "force", "output-dir", "o"}
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 4000; n++ {
		args := []Word{Static("prog")}
		for k := rng.Intn(6); k > 0; k-- {
			args = append(args, vocab[rng.Intn(len(vocab))])
		}
		for _, s := range specs {
			if got, want := s.Operands(args), operandsByScan(s, args); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
				t.Fatalf("Operands(%v) with %+v = %v, reading the words %v", args, s, got, want)
			}
			for _, sh := range shorts {
				for _, l := range longs {
					if got, want := s.Has(args, sh, l), hasByScan(s, args, sh, l); got != want {
						t.Fatalf("Has(%v, %q, %q) with %+v = %v, reading the words %v", args, sh, l, s, got, want)
					}
					if got, want := s.Has(args, sh, l, "recursive"), hasByScan(s, args, sh, l, "recursive"); got != want {
						t.Fatalf("Has(%v, %q, %q, recursive) with %+v = %v, reading the words %v", args, sh, l, s, got, want)
					}
					if got, want := s.Set(args, sh, l), setByScan(s, args, sh, l); got != want {
						t.Fatalf("Set(%v, %q, %q) with %+v = %v, reading the words %v", args, sh, l, s, got, want)
					}
					if got, want := s.Values(args, sh, l, 0), valuesByScan(s, args, sh, l, 0); !reflect.DeepEqual(got, want) {
						t.Fatalf("Values(%v, %q, %q) with %+v = %v, reading the words %v", args, sh, l, s, got, want)
					}
				}
			}
		}
	}
}
