package envfilter

import (
	"slices"
	"strings"
	"testing"
)

// FuzzApply: kept entries come from the input in order, no name is both
// kept and stripped, and a name the filter strips by name never survives
// in any spelling of its case.
func FuzzApply(f *testing.F) {
	f.Add("PATH=/bin\x00GITHUB_TOKEN=x\x00github_token=y\x00A=postgres://u:p@h/db", "*_TOKEN_*")
	f.Add("=C:=C:\\x\x00noequals\x00K=ghp_0123456789abcdefghijklmnop", "K*")
	f.Fuzz(func(t *testing.T, env, pattern string) {
		environ := strings.Split(env, "\x00")
		flt := Filter{Names: append(slices.Clone(seed.Names), pattern), Suffixes: seed.Suffixes, Keep: []string{"KEEP_TOKEN"}}
		kept, stripped := flt.Apply(environ)
		i := 0
		for _, kv := range kept {
			for i < len(environ) && environ[i] != kv {
				i++
			}
			if i == len(environ) {
				t.Fatalf("kept %q is not from the input, or out of order", kv)
			}
			i++
			name, _, _ := split(kv)
			if slices.Contains(stripped, name) {
				t.Fatalf("%q both kept and stripped", name)
			}
			if flt.Stripped(name) {
				t.Fatalf("%q kept although its name is stripped", name)
			}
		}
		for _, n := range stripped {
			if strings.EqualFold(n, "KEEP_TOKEN") {
				t.Fatalf("a kept name was stripped")
			}
		}
	})
}
