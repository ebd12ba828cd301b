package risk

import (
	"math/rand"
	"strings"
	"testing"
)

// The path lists are prepared into lookups (protectedFor, credentialsFor);
// these compare each lookup with a walk over the list in its order, which
// is what they replace, on paths and lists made to collide: nested
// entries, case variants, characters whose lower case is longer.
var lookupParts = []string{".env", ".ENV", ".Env", "a", "A", "b", ".git", "hooks", "\u023ax", "\u2c65x", "\u212a", "k", "K", ".config", "gh", "x.y"}

func randRel(rng *rand.Rand, n int) string {
	var parts []string
	for k := 1 + rng.Intn(n); k > 0; k-- {
		parts = append(parts, lookupParts[rng.Intn(len(lookupParts))])
	}
	return strings.Join(parts, "/")
}

func TestProtectedLookup(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, platform := range []string{"linux", "darwin", "windows"} {
		for n := 0; n < 300; n++ {
			var list []string
			for k := rng.Intn(12); k > 0; k-- {
				list = append(list, randRel(rng, 3))
			}
			e := newEnv(&Context{Home: "/home/u", Cwd: "/home/u/p", WritableRoots: []string{"/home/u/p"}, ProtectedPaths: list, Platform: platform})
			for m := 0; m < 50; m++ {
				rest := randRel(rng, 4)
				want, wantOK := "", false
				for _, rel := range e.protRel {
					if e.within(rest, rel) {
						want, wantOK = rel, true
						break
					}
				}
				if got, ok := e.protectedRel(rest); got != want || ok != wantOK {
					t.Fatalf("%s %q in %q: protectedRel = %q %v, the list in order says %q %v", platform, rest, list, got, ok, want, wantOK)
				}
			}
		}
	}
}

func TestHoldsHomeLookup(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, platform := range []string{"linux", "darwin", "windows"} {
		home := "/home/u"
		if platform == "windows" {
			home = `C:\Users\u`
		}
		for n := 0; n < 300; n++ {
			var list []string
			for k := 1 + rng.Intn(12); k > 0; k-- {
				list = append(list, "~/"+randRel(rng, 3))
			}
			e := newEnv(&Context{Home: home, Cwd: home, SensitivePaths: list, Platform: platform})
			cr := e.cred
			for m := 0; m < 50; m++ {
				p := e.home + "/" + randRel(rng, 3)
				got, gotOK := e.holdsHome(p)
				// The walk over the list it replaces.
				want, wantOK := "", false
				if h, rest := e.homeSplit(p); h != "" && rest != "" {
					r := rest
					if cr.fold {
						r = strings.ToLower(r)
					}
					for _, orig := range cr.relList {
						k := orig
						if cr.fold {
							k = strings.ToLower(k)
						}
						if under(k, r) {
							want, wantOK = h+"/"+orig, true
							break
						}
					}
					if got != want || gotOK != wantOK {
						t.Fatalf("%s %q in %q: holdsHome = %q %v, the list in order says %q %v", platform, p, list, got, gotOK, want, wantOK)
					}
				}
			}
		}
	}
}

// pathCandidates cuts a word at = : , by hand; this is the cut it
// replaces (strings.FieldsFunc over runes).
func TestPathCandidatesCut(t *testing.T) {
	ref := func(v string) []string {
		if v == "" || strings.Contains(v, "://") || len(v) > 4096 {
			return nil
		}
		if strings.HasPrefix(v, "-") && !strings.ContainsAny(v, "=:") {
			return nil
		}
		var out []string
		if !strings.HasPrefix(v, "-") && (!strings.ContainsAny(v, " \n") || spacedPath(v)) {
			out = append(out, v)
		}
		if strings.ContainsAny(v, "=:,") {
			for _, piece := range strings.FieldsFunc(v, func(r rune) bool { return r == '=' || r == ':' || r == ',' }) {
				if piece != v && (strings.HasPrefix(piece, "/") || strings.HasPrefix(piece, "~") || strings.HasPrefix(piece, ".")) && !strings.ContainsAny(piece, " \n") {
					out = append(out, piece)
				}
			}
		}
		return out
	}
	alphabet := []string{"=", ":", ",", "/", "~", ".", "a", "-", " ", "\n", "é", "\xff", "//"}
	rng := rand.New(rand.NewSource(3))
	for n := 0; n < 20000; n++ {
		var sb strings.Builder
		for k := rng.Intn(10); k > 0; k-- {
			sb.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		v := sb.String()
		got, want := pathCandidates(v, nil), ref(v)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Fatalf("pathCandidates(%q) = %q, want %q", v, got, want)
		}
	}
}

// isCleanRel walks the components once; this is the test it replaces.
func TestIsCleanRel(t *testing.T) {
	ref := func(v string) bool {
		return !(v == "" || v == "." || v == ".." || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasSuffix(v, "/.") || strings.HasSuffix(v, "/..") || strings.Contains(v, "//") || strings.Contains(v, "/./") || strings.Contains(v, "/../"))
	}
	pieces := []string{"/", ".", "..", "a", "...", ".a", "a."}
	rng := rand.New(rand.NewSource(6))
	for n := 0; n < 50000; n++ {
		var sb strings.Builder
		for k := rng.Intn(7); k > 0; k-- {
			sb.WriteString(pieces[rng.Intn(len(pieces))])
		}
		if v := sb.String(); isCleanRel(v) != ref(v) {
			t.Fatalf("isCleanRel(%q) = %v, want %v", v, isCleanRel(v), ref(v))
		}
	}
}
