package envfilter

import (
	"strings"
)

// Filter says which variables to remove. The zero Filter still removes
// values shaped like credentials; everything else passes.
type Filter struct {
	// Names are removed. An entry may contain "*" (any run of characters):
	// "AWS_*", "*_API_KEY_*". Case is ignored.
	Names []string
	// Suffixes remove every name ending in one of them ("_TOKEN"). Case is
	// ignored.
	Suffixes []string
	// Keep names pass through whatever else matched. Case is ignored; no
	// patterns.
	Keep []string
}

// malformed is reported in stripped for an entry without "=": its text may
// itself be a secret, so it is not repeated.
const malformed = "<malformed>"

// Apply splits environ ("NAME=value" entries) into the entries to keep, in
// their original order, and the names removed (each once, in order of
// first appearance).
func (f Filter) Apply(environ []string) (kept []string, stripped []string) {
	m := f.compile()
	// First pass: decide each name; any reason to strip one occurrence
	// strips every occurrence of that name.
	strip := make(map[string]bool, 8)
	for _, kv := range environ {
		name, value, ok := split(kv)
		if !ok {
			continue
		}
		if strip[name] {
			continue
		}
		if m.keep(name) {
			continue
		}
		if m.byName(name) || secretValue(value) {
			strip[name] = true
		}
	}
	kept = make([]string, 0, len(environ))
	seen := make(map[string]bool, len(strip))
	for _, kv := range environ {
		name, _, ok := split(kv)
		switch {
		case !ok:
			if !seen[malformed] {
				seen[malformed] = true
				stripped = append(stripped, malformed)
			}
		case strip[name]:
			if !seen[name] {
				seen[name] = true
				stripped = append(stripped, name)
			}
		default:
			kept = append(kept, kv)
		}
	}
	return kept, stripped
}

// Stripped reports whether Apply would remove a variable of this name
// regardless of its value.
func (f Filter) Stripped(name string) bool {
	m := f.compile()
	return !m.keep(name) && m.byName(name)
}

// split parses "NAME=value". A leading "=" belongs to the name (Windows
// keeps per-drive directories as "=C:=C:\dir").
func split(kv string) (name, value string, ok bool) {
	i := strings.IndexByte(kv, '=')
	if i == 0 {
		j := strings.IndexByte(kv[1:], '=')
		if j < 0 {
			return "", "", false
		}
		i = j + 1
	}
	if i <= 0 {
		return "", "", false
	}
	return kv[:i], kv[i+1:], true
}

type matcher struct {
	exact    []string // upper-case
	patterns []string // upper-case, containing "*"
	suffixes []string // upper-case
	keeps    []string
}

func (f Filter) compile() *matcher {
	m := &matcher{keeps: f.Keep}
	for _, n := range f.Names {
		n = strings.ToUpper(strings.TrimSpace(n))
		if n == "" {
			continue
		}
		if strings.Contains(n, "*") {
			m.patterns = append(m.patterns, n)
		} else {
			m.exact = append(m.exact, n)
		}
	}
	for _, s := range f.Suffixes {
		if s = strings.ToUpper(strings.TrimSpace(s)); s != "" {
			m.suffixes = append(m.suffixes, s)
		}
	}
	return m
}

func (m *matcher) keep(name string) bool {
	for _, k := range m.keeps {
		if strings.EqualFold(strings.TrimSpace(k), name) {
			return true
		}
	}
	return false
}

func (m *matcher) byName(name string) bool {
	up := strings.ToUpper(name)
	for _, n := range m.exact {
		if up == n {
			return true
		}
	}
	for _, s := range m.suffixes {
		if strings.HasSuffix(up, s) {
			return true
		}
	}
	for _, p := range m.patterns {
		if glob(p, up) {
			return true
		}
	}
	return false
}

// glob matches s against pattern p where "*" matches any run of
// characters, including none.
func glob(p, s string) bool {
	// Iterative matching with one backtrack point: linear for patterns with
	// a few stars.
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case pi < len(p) && p[pi] == s[si]:
			pi++
			si++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
