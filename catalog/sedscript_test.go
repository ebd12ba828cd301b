package catalog

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

// sedScriptSplit is SedScript as it was written with strings.FieldsFunc
// and strings.SplitN; SedScript now cuts by hand and must agree.
func sedScriptSplit(script string) (cmds, writes, reads []string) {
	for _, line := range strings.FieldsFunc(script, func(r rune) bool { return r == '\n' || r == ';' }) {
		l := strings.TrimLeft(line, " \t0123456789,$!~")
		for strings.HasPrefix(l, "/") || strings.HasPrefix(l, `\`) {
			d := byte('/')
			if l[0] == '\\' && len(l) > 1 {
				d, l = l[1], l[1:]
			}
			k := strings.IndexByte(l[1:], d)
			if k < 0 {
				break
			}
			l = strings.TrimLeft(l[k+2:], " \t,0123456789$!~I")
		}
		l = strings.TrimLeft(l, "{ \t")
		file := func(rest string) string { return strings.TrimSpace(rest) }
		switch {
		case l == "e":
			cmds = append(cmds, "")
		case strings.HasPrefix(l, "e ") || strings.HasPrefix(l, "e\t"):
			cmds = append(cmds, strings.TrimSpace(l[2:]))
		case len(l) > 1 && (l[0] == 'w' || l[0] == 'W') && (l[1] == ' ' || l[1] == '\t'):
			if f := file(l[2:]); f != "" {
				writes = append(writes, f)
			}
		case len(l) > 1 && (l[0] == 'r' || l[0] == 'R') && (l[1] == ' ' || l[1] == '\t'):
			if f := file(l[2:]); f != "" {
				reads = append(reads, f)
			}
		case len(l) > 3 && (l[0] == 's' || l[0] == 'y'):
			d := l[1]
			parts := strings.SplitN(l[2:], string(d), 3)
			if l[0] == 's' && len(parts) == 3 {
				flags := parts[2]
				if k := strings.IndexByte(flags, 'w'); k >= 0 {
					if f := file(flags[k+1:]); f != "" {
						writes = append(writes, f)
					}
					flags = flags[:k]
				}
				if strings.Contains(flags, "e") {
					cmds = append(cmds, "")
				}
			}
		}
	}
	return cmds, writes, reads
}

func TestSedScriptCut(t *testing.T) {
	pieces := []string{"s", "/", "|", "\xc3", "\x83", "Ã", "a", "e", "w", " ", "f", ";", "\n", "g", "r", "y", "\\", "1", "$", "{", "x.txt", "p"}
	rng := rand.New(rand.NewSource(7))
	for n := 0; n < 100000; n++ {
		var sb strings.Builder
		for k := rng.Intn(12); k > 0; k-- {
			sb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := sb.String()
		c1, w1, r1 := SedScript(s)
		c2, w2, r2 := sedScriptSplit(s)
		if !reflect.DeepEqual([][]string{c1, w1, r1}, [][]string{c2, w2, r2}) {
			t.Fatalf("SedScript(%q) = %q %q %q, want %q %q %q", s, c1, w1, r1, c2, w2, r2)
		}
	}
}
