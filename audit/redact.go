package audit

import (
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Mask replaces every redacted secret.
const Mask = "***"

// minSecretLen is the shortest stripped value that is redacted as a
// substring: shorter values ("1", "true", "dev") would mangle ordinary
// text without hiding anything worth hiding.
const minSecretLen = 6

// Redact removes secrets from the command and the reasons: the given
// values (those of the stripped environment variables; values shorter than
// 6 bytes are ignored) wherever they occur, and credential-shaped text:
// GitHub, GitLab, OpenAI/Anthropic, AWS, Slack, Google, npm, Hugging Face,
// PyPI and Stripe tokens, JWTs, private key blocks, "Bearer …",
// Authorization and API-key headers, passwords in URLs
// (https://user:***@host), --password=… style options and their separate
// values, NAME=value assignments whose name says secret, mysql-style
// -p<password> (only for the mysql family of commands), sshpass -p and
// curl -u user:password. Redact is idempotent.
func (r *Record) Redact(secrets []string) {
	s := prepareSecrets(secrets)
	if r.Script != "" {
		r.Script = redactText(r.Script, s)
	}
	if len(r.Argv) > 0 {
		r.Argv = redactArgv(r.Argv, s)
	}
	for i := range r.Reasons {
		r.Reasons[i].Detail = redactText(r.Reasons[i].Detail, s)
		r.Reasons[i].Command = redactText(r.Reasons[i].Command, s)
	}
}

// prepareSecrets keeps the meaningful values, longest first so that a
// value containing another is replaced whole.
func prepareSecrets(secrets []string) []string {
	var out []string
	for _, v := range secrets {
		if len(v) >= minSecretLen && v != Mask {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

func replaceSecrets(s string, secrets []string) string {
	for _, v := range secrets {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Mask)
		}
	}
	return s
}

// A tokenRule masks one shape of credential. pre is a cheap, lower-case
// substring test in front of the regular expression (empty: always run).
type tokenRule struct {
	pre  []string
	re   func() *regexp.Regexp
	repl func(m []string) string
}

// lazyRegexp compiles src the first time it is needed: most records hold
// no credential-shaped text, and a run should not pay for compiling every
// pattern at start-up.
func lazyRegexp(src string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
}

// keep1 keeps the first group (what kind of secret it was) and masks the
// rest of the match.
func keep1(m []string) string { return m[1] + Mask }

// keepPrefix keeps a boundary character matched before the token and the
// token's prefix.
func keepPrefix(m []string) string {
	i := strings.Index(m[0], m[1])
	return m[0][:i] + m[1] + Mask
}

var authSchemes = map[string]bool{
	"bearer": true, "basic": true, "token": true, "digest": true, "bot": true, "apikey": true,
	"negotiate": true, "ntlm": true, "aws4-hmac-sha256": true,
}

var tokenRules = []tokenRule{
	// Passwords in URLs: keep scheme://user: and the @host.
	{[]string{"://"}, lazyRegexp(`([A-Za-z][A-Za-z0-9+.\-]*://[^/?#\s:@'"]*:)[^/?#\s'"]*@`),
		func(m []string) string { return m[1] + Mask + "@" }},
	// Authorization headers: keep the name and the scheme.
	{[]string{"authorization"}, lazyRegexp(`((?i:\b(?:proxy-)?authorization)\s*[:=]\s*)([^\s'"]+)(\s+[^\s'"]+)?`),
		func(m []string) string {
			if authSchemes[strings.ToLower(m[2])] {
				if m[3] == "" {
					return m[0]
				}
				return m[1] + m[2] + " " + Mask
			}
			return m[1] + Mask + m[3]
		}},
	// API-key style headers.
	{[]string{"key", "token", "cookie"}, lazyRegexp(`((?i:\b(?:x-api-key|api-key|x-auth-token|private-token|x-goog-api-key|cookie)\s*:\s*))[^\s'"]+`), keep1},
	{[]string{"bearer"}, lazyRegexp(`((?i:\bbearer)\s+)[A-Za-z0-9._~+/=\-]{8,}`), keep1},
	// Tokens with a recognisable prefix.
	{[]string{"gh", "github_pat_", "glpat-", "sk-", "sk_", "rk_", "xox", "xapp-", "npm_", "hf_", "pypi-", "aiza"},
		lazyRegexp(`(?:^|[^A-Za-z0-9_\-])((?:gh[pousr]_|github_pat_|glpat-|sk-ant-|sk-proj-|sk-|sk_live_|rk_live_|sk_test_|xox[abprs]-|xapp-|npm_|hf_|pypi-|AIza))[A-Za-z0-9_\-]{16,}`),
		keepPrefix},
	{[]string{"akia", "asia"}, lazyRegexp(`(?:^|[^A-Za-z0-9])((?:AKIA|ASIA))[0-9A-Z]{16}\b`),
		keepPrefix},
	// JSON Web Tokens.
	{[]string{"eyj"}, lazyRegexp(`(?:^|[^A-Za-z0-9_\-])(eyJ)[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*`),
		keepPrefix},
	// PEM private keys.
	{[]string{"private key-----"}, lazyRegexp(`(-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)`),
		func(m []string) string { return m[1] + Mask + m[2] }},
}

// redactTokens masks credential-shaped text, keeping what identifies the
// kind of secret.
func redactTokens(s string) string {
	if len(s) < 8 {
		return s
	}
	lower := ""
	for _, rule := range tokenRules {
		if len(rule.pre) > 0 {
			if lower == "" {
				lower = strings.ToLower(s)
			}
			hit := false
			for _, p := range rule.pre {
				if strings.Contains(lower, p) {
					hit = true
					break
				}
			}
			if !hit {
				continue
			}
		}
		re, repl := rule.re(), rule.repl
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			return repl(re.FindStringSubmatch(m))
		})
		lower = ""
	}
	return s
}

// redactArgv redacts an argument vector word by word, with the command's
// name and the previous word as context.
func redactArgv(argv []string, secrets []string) []string {
	out := make([]string, len(argv))
	w := wordState{}
	for i, a := range argv {
		out[i] = redactTokens(w.word(replaceSecrets(a, secrets)))
	}
	return out
}

// redactText redacts a shell script or a rendered command line: it is split
// into words (quotes respected) so that the word rules apply, and the token
// patterns run over the whole text as well.
func redactText(s string, secrets []string) string {
	if s == "" {
		return s
	}
	s = replaceSecrets(s, secrets)
	var b strings.Builder
	w := wordState{}
	last := 0
	scanWords(s, func(start, end int, sep bool) {
		if sep {
			w = wordState{}
			return
		}
		word := unquote(s[start:end])
		if red := w.word(word); red != word {
			b.WriteString(s[last:start])
			b.WriteString(red)
			last = end
		}
	})
	if last > 0 {
		b.WriteString(s[last:])
		s = b.String()
	}
	return redactTokens(s)
}

// wordState tracks the words seen so far within one simple command.
type wordState struct {
	mysql, curl, sshpass bool // such a command word was seen
	// sepP: "-p VALUE" is a password (sshpass, mongo, docker login, ...);
	// dashA: "-a VALUE" is (redis-cli).
	sepP, dashA bool
	registry    bool // docker, podman, helm, ... (their "login -p" is a password)
	prev        string
	maskNext    bool // the previous word was an option whose value is secret
}

// mysqlFamily take -p<password> glued to the option.
var mysqlFamily = map[string]bool{
	"mysql": true, "mysqldump": true, "mysqladmin": true, "mysqlimport": true, "mysqlshow": true,
	"mysqlcheck": true, "mysqlpump": true, "mysqlsh": true, "mysqlbinlog": true, "mysqlslap": true,
	"mariadb": true, "mariadb-dump": true, "mariadb-admin": true, "mariadb-import": true,
	"mariadb-show": true, "mariadb-check": true,
}

// word applies the rules that depend on a word's place in a command
// (the token patterns are applied by the caller).
func (w *wordState) word(a string) string {
	defer func() { w.prev = a }()

	if w.maskNext {
		w.maskNext = false
		if a != "" && !strings.HasPrefix(a, "-") {
			return Mask
		}
	}
	if !strings.HasPrefix(a, "-") {
		switch base := strings.TrimSuffix(path.Base(strings.ReplaceAll(a, `\`, "/")), ".exe"); {
		case mysqlFamily[base]:
			w.mysql = true
		case base == "curl":
			w.curl = true
		case base == "sshpass":
			w.sshpass, w.sepP = true, true
		case base == "mongo" || base == "mongosh":
			w.sepP = true
		case base == "redis-cli":
			w.dashA = true
		case registryTools[base]:
			w.registry = true
		case base == "login" && w.registry:
			w.sepP = true
		}
	}
	// openssl's -passin/-passout pass:SECRET.
	if v, ok := strings.CutPrefix(a, "pass:"); ok && v != "" && v != Mask {
		return "pass:" + Mask
	}
	// Secret-named assignments wherever they appear: TOKEN=x cmd,
	// env API_KEY=x cmd, make PASSWORD=x, docker run -e GITHUB_TOKEN=x.
	if name, value, ok := strings.Cut(a, "="); ok && isVarName(name) && value != "" && secretName(name) {
		return name + "=" + Mask
	}
	if strings.HasPrefix(a, "--") {
		name, value, hasValue := strings.Cut(a[2:], "=")
		if secretOption(name) {
			if !hasValue {
				w.maskNext = true
				return a
			}
			if value == "" {
				return a
			}
			return "--" + name + "=" + Mask
		}
		if hasValue && (name == "user" || name == "proxy-user") && w.curl {
			return "--" + name + "=" + maskUserPass(value)
		}
	} else if strings.HasPrefix(a, "-") && len(a) > 2 {
		switch {
		case a[1] == 'p' && (w.mysql || w.sshpass):
			return "-p" + Mask
		case a[1] == 'u' && w.curl:
			return "-u" + maskUserPass(a[2:])
		}
	}
	switch {
	case w.prev == "-p" && w.sepP, w.prev == "-a" && w.dashA:
		if a != "" && !strings.HasPrefix(a, "-") {
			return Mask
		}
	case secretWord(w.prev) && !strings.HasPrefix(a, "-"):
		// aws configure set aws_secret_access_key VALUE
		return Mask
	case (w.prev == "-u" || w.prev == "--user" || w.prev == "-U" || w.prev == "--proxy-user") && w.curl:
		return maskUserPass(a)
	}
	return a
}

// registryTools take "login -p PASSWORD".
var registryTools = map[string]bool{
	"docker": true, "podman": true, "nerdctl": true, "buildah": true, "skopeo": true, "helm": true, "oras": true, "crane": true,
}

// secretWord reports whether a bare word names a secret setting whose
// value follows as the next word: aws_secret_access_key, GITHUB_TOKEN.
func secretWord(w string) bool {
	return len(w) >= 8 && isVarName(w) && strings.Contains(w, "_") && secretName(w)
}

// maskUserPass turns "user:password" into "user:***".
func maskUserPass(v string) string {
	user, pass, ok := strings.Cut(v, ":")
	if !ok || pass == "" {
		return v
	}
	return user + ":" + Mask
}

func isVarName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// secretName reports whether a variable's name says it holds a secret.
func secretName(name string) bool {
	n := strings.ToUpper(name)
	for _, s := range []string{"_KEY", "_SECRET", "_SECRETS", "_TOKEN", "PASSWORD", "PASSWD", "_PWD", "_PASS",
		"_PASSPHRASE", "_CREDENTIAL", "_CREDENTIALS", "_APIKEY", "_AUTH", "SSHPASS"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	for _, s := range []string{"_API_KEY_", "_SECRET_", "_TOKEN_", "_PASSWORD_"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return n == "PASSWORD" || n == "TOKEN" || n == "SECRET" || n == "API_KEY" || n == "APIKEY"
}

// secretOption reports whether a long option's value is a secret:
// --password, --db-password, --api-key, --token, --client-secret, ...
func secretOption(name string) bool {
	n := strings.ToLower(name)
	if strings.HasSuffix(n, "-file") || strings.HasSuffix(n, "_file") || strings.HasSuffix(n, "-env") || strings.HasSuffix(n, "-stdin") {
		return false // names a place, not the secret itself
	}
	parts := strings.FieldsFunc(n, func(r rune) bool { return r == '-' || r == '_' })
	for i, p := range parts {
		switch p {
		case "password", "passwd", "pass", "passphrase", "secret", "token", "apikey", "credential", "credentials":
			return true
		case "key":
			if i > 0 && (parts[i-1] == "api" || parts[i-1] == "access" || parts[i-1] == "secret" || parts[i-1] == "private") {
				return true
			}
		}
	}
	return false
}

// scanWords calls fn for each shell word of s (start, end offsets, quotes
// kept) and for each command separator (; | & newline parentheses), which
// start a new simple command.
func scanWords(s string, fn func(start, end int, sep bool)) {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
			continue
		case c == ';' || c == '|' || c == '&' || c == '\n' || c == '(' || c == ')' || c == '{' || c == '}' || c == '`':
			fn(i, i+1, true)
			i++
			continue
		case c == '$' && i+1 < len(s) && s[i+1] == '(':
			fn(i, i+2, true)
			i += 2
			continue
		}
		start := i
		for i < len(s) {
			c := s[i]
			if c == ' ' || c == '\t' || c == ';' || c == '|' || c == '&' || c == '\n' || c == ')' || c == '`' {
				break
			}
			switch c {
			case '\\':
				i += 2
				continue
			case '\'':
				if j := strings.IndexByte(s[i+1:], '\''); j >= 0 {
					i += j + 2
					continue
				}
			case '"':
				j := i + 1
				for j < len(s) && s[j] != '"' {
					if s[j] == '\\' {
						j++
					}
					j++
				}
				if j < len(s) {
					i = j + 1
					continue
				}
			}
			i++
		}
		if i > len(s) {
			i = len(s)
		}
		fn(start, i, false)
	}
}

// unquote removes shell quoting from a word, as far as it matters for
// matching: single and double quotes and backslashes.
func unquote(w string) string {
	if !strings.ContainsAny(w, `'"\`) {
		return w
	}
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		switch c := w[i]; c {
		case '\'':
			j := strings.IndexByte(w[i+1:], '\'')
			if j < 0 {
				b.WriteString(w[i+1:])
				return b.String()
			}
			b.WriteString(w[i+1 : i+1+j])
			i += j + 1
		case '"':
			j := i + 1
			for ; j < len(w) && w[j] != '"'; j++ {
				if w[j] == '\\' && j+1 < len(w) {
					j++
				}
				b.WriteByte(w[j])
			}
			i = j
		case '\\':
			if i+1 < len(w) {
				i++
				b.WriteByte(w[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
