package envfilter

import "strings"

// tokenPrefixes are the beginnings of credentials issued by common
// services, with the least number of characters that must follow for the
// string to count as one (so that "sk-" in prose does not).
var tokenPrefixes = []struct {
	prefix string
	min    int
	// upper: the tail is upper-case letters and digits (AWS key IDs).
	upper bool
}{
	{"ghp_", 20, false}, {"gho_", 20, false}, {"ghu_", 20, false},
	{"ghs_", 20, false}, {"ghr_", 20, false}, {"github_pat_", 20, false},
	{"glpat-", 20, false},
	{"sk-", 20, false}, // OpenAI, Anthropic (sk-ant-), DeepSeek, ...
	{"xoxa-", 10, false}, {"xoxb-", 10, false}, {"xoxp-", 10, false},
	{"xoxr-", 10, false}, {"xoxs-", 10, false}, {"xapp-", 10, false},
	{"AKIA", 16, true}, {"ASIA", 16, true},
	{"AIza", 30, false},
	{"npm_", 30, false},
	{"hf_", 30, false},
	{"pypi-", 50, false},
	{"sk_live_", 20, false}, {"rk_live_", 20, false},
}

// secretValue reports whether a variable's value holds a credential: a
// token-shaped word, a bearer or basic authorisation, a private key, or a
// URL with a password.
func secretValue(v string) bool {
	if len(v) < 8 {
		return false
	}
	if strings.Contains(v, "PRIVATE KEY-----") {
		return true
	}
	if urlPassword(v) {
		return true
	}
	if i := indexFold(v, "bearer "); i >= 0 && bearerToken(strings.TrimLeft(v[i+7:], " ")) >= 16 {
		return true
	}
	if indexFold(v, "authorization:") >= 0 {
		return true
	}
	for _, t := range tokenPrefixes {
		for off := 0; ; {
			i := strings.Index(v[off:], t.prefix)
			if i < 0 {
				break
			}
			i += off
			off = i + len(t.prefix)
			if i > 0 && isTokenChar(v[i-1]) {
				continue // inside a longer word: "task-..." is not "sk-..."
			}
			if tokenTail(v[off:], t.upper) >= t.min {
				return true
			}
		}
	}
	return false
}

// bearerToken counts the characters of a bearer token (RFC 6750 b64token)
// at the start of s.
func bearerToken(s string) int {
	n := 0
	for n < len(s) && (isTokenChar(s[n]) || strings.IndexByte("._~+/=", s[n]) >= 0) {
		n++
	}
	return n
}

func isTokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// tokenTail counts the token characters at the start of s.
func tokenTail(s string, upper bool) int {
	n := 0
	for n < len(s) {
		c := s[n]
		if upper {
			if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				break
			}
		} else if !isTokenChar(c) {
			break
		}
		n++
	}
	return n
}

// urlPassword reports whether v contains scheme://user:password@host with
// a non-empty password.
func urlPassword(v string) bool {
	for off := 0; ; {
		i := strings.Index(v[off:], "://")
		if i < 0 {
			return false
		}
		rest := v[off+i+3:]
		off += i + 3
		end := strings.IndexAny(rest, "/?# \t\n")
		if end < 0 {
			end = len(rest)
		}
		auth := rest[:end]
		at := strings.LastIndexByte(auth, '@')
		if at < 0 {
			continue
		}
		if c := strings.IndexByte(auth[:at], ':'); c >= 0 && c+1 < at {
			return true
		}
	}
}

// indexFold is strings.Index ignoring ASCII case for a lower-case needle.
func indexFold(s, lowerNeedle string) int {
	n := len(lowerNeedle)
	first, upper := lowerNeedle[0], lowerNeedle[0]-'a'+'A'
	for i := 0; i+n <= len(s); i++ {
		if c := s[i]; (c == first || c == upper) && strings.EqualFold(s[i:i+n], lowerNeedle) {
			return i
		}
	}
	return -1
}
