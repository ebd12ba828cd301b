package gitconf

import "strings"

// A rule names keys by section, subsection and name; when is nil for a key
// that runs whatever its value.
type rule struct {
	section string
	// sub: subNone (section.name), subAny (either form), subSome
	// (section.<sub>.name only).
	sub  int
	name string // "*": any name
	when func(value string, has bool) bool
}

const (
	subNone = iota
	subAny
	subSome
)

// runRules are the keys whose value git (or a command shipped with it)
// runs as a program or a shell command, or which make git read a program,
// a hook or more config from elsewhere, from git-config(1): core, diff,
// merge, filter, alias, pager, credential, gpg, remote, url, submodule,
// sendemail, imap, web, browser, man, mergetool, difftool, guitool,
// instaweb, interactive, trailer, hook, include, includeIf, protocol, init,
// uploadpack, receive, sequence; plus git-lfs and git-svn.
var runRules = []rule{
	// core
	{"core", subNone, "fsmonitor", notBool}, // true/false: git's own daemon
	{"core", subNone, "hookspath", nil},
	{"core", subNone, "sshcommand", nil},
	{"core", subNone, "pager", nil},
	{"core", subNone, "editor", nil},
	{"core", subNone, "askpass", nil},
	{"core", subNone, "gitproxy", nil},
	{"core", subNone, "alternaterefscommand", nil},
	{"sequence", subNone, "editor", nil},
	{"pager", subAny, "*", notBool}, // pager.<cmd>: a boolean, or the pager
	{"alias", subAny, "*", shellAlias},
	{"interactive", subNone, "difffilter", nil},
	{"init", subNone, "templatedir", nil}, // hooks copied into new repositories

	// Drivers and tools.
	{"diff", subNone, "external", nil},
	{"diff", subSome, "command", nil},
	{"diff", subSome, "textconv", nil},
	{"merge", subSome, "driver", nil},
	{"filter", subSome, "clean", nil},
	{"filter", subSome, "smudge", nil},
	{"filter", subSome, "process", nil},
	{"mergetool", subSome, "cmd", nil},
	{"mergetool", subSome, "path", nil},
	{"difftool", subSome, "cmd", nil},
	{"difftool", subSome, "path", nil},
	{"guitool", subSome, "cmd", nil},
	{"trailer", subSome, "command", nil},
	{"trailer", subSome, "cmd", nil},
	{"hook", subSome, "command", nil}, // config-based hooks
	{"web", subNone, "browser", nil},
	{"help", subNone, "browser", nil},
	{"browser", subSome, "cmd", nil},
	{"browser", subSome, "path", nil},
	{"man", subNone, "viewer", nil},
	{"man", subSome, "cmd", nil},
	{"man", subSome, "path", nil},
	{"instaweb", subNone, "httpd", nil},
	{"imap", subNone, "tunnel", nil},

	// Credentials and signing.
	{"credential", subAny, "helper", nil},
	{"gpg", subNone, "program", nil},
	{"gpg", subSome, "program", nil},
	{"gpg", subSome, "defaultkeycommand", nil},

	// Transports: helpers run for a URL, upload/receive-pack commands,
	// rewrites of URLs, and transports git refuses unless allowed.
	{"remote", subSome, "uploadpack", nil},
	{"remote", subSome, "receivepack", nil},
	{"remote", subSome, "vcs", nil}, // git-remote-<vcs>
	{"remote", subSome, "url", helperURL},
	{"remote", subSome, "pushurl", helperURL},
	{"submodule", subSome, "url", helperURL},
	{"submodule", subSome, "update", shellAlias}, // "!command"
	{"url", subSome, "insteadof", nil},
	{"url", subSome, "pushinsteadof", nil},
	{"protocol", subNone, "allow", notNever},
	{"protocol", subSome, "allow", notNever},
	{"uploadpack", subNone, "packobjectshook", nil},
	{"receive", subNone, "procreceiverefs", nil},

	// git send-email.
	{"sendemail", subAny, "sendmailcmd", nil},
	{"sendemail", subAny, "smtpserver", nil}, // an absolute path is run
	{"sendemail", subAny, "tocmd", nil},
	{"sendemail", subAny, "cccmd", nil},
	{"sendemail", subAny, "headercmd", nil},

	// More configuration read from elsewhere.
	{"include", subNone, "path", nil},
	{"includeif", subSome, "path", nil},

	// git-lfs and git-svn.
	{"lfs", subSome, "path", nil}, // lfs.customtransfer.<name>.path
	{"lfs", subSome, "clean", nil},
	{"lfs", subSome, "smudge", nil},
	{"svn", subNone, "authorsprog", nil},
	{"svn-remote", subSome, "authorsprog", nil},
}

// KeyRuns reports whether git may run a program named by key, or read
// hooks or more configuration from where it points, for some value: the
// question a classifier asks of `git config KEY VALUE` when the value is
// not known. key is as Parse and git name it (section and name in any
// case).
func KeyRuns(key string) bool {
	_, ok := match(key)
	return ok
}

// Runs reports whether e makes git run a program or read hooks or config
// from elsewhere.
func Runs(e Entry) bool {
	r, ok := match(e.Key)
	return ok && (r.when == nil || r.when(e.Value, e.HasValue))
}

func match(key string) (rule, bool) {
	section, sub, name := Split(key)
	for _, r := range runRules {
		if r.section != section || (r.name != "*" && r.name != name) {
			continue
		}
		switch {
		case r.sub == subNone && sub != "", r.sub == subSome && sub == "":
			continue
		}
		return r, true
	}
	return rule{}, false
}

// notBool: git reads true, false, yes, no, on, off, 1, 0 (and an implicit
// true) as booleans; any other value is a program.
func notBool(v string, has bool) bool {
	if !has {
		return false
	}
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "1", "0", "":
		return false
	}
	return true
}

// shellAlias: "!command" runs a shell command (git trims no blanks before
// it, the parser already dropped them).
func shellAlias(v string, _ bool) bool { return strings.HasPrefix(v, "!") }

func notNever(v string, _ bool) bool { return !strings.EqualFold(v, "never") }

// helperURL: a URL git hands to a remote helper it looks up in PATH
// ("helper::address", "ext::command", or a scheme git does not speak
// itself, for which git-remote-<scheme> runs).
func helperURL(v string, _ bool) bool {
	if strings.Contains(v, "::") {
		return true
	}
	scheme, _, ok := strings.Cut(v, "://")
	if !ok {
		return false // a path or scp-like user@host:path
	}
	switch strings.ToLower(scheme) {
	case "http", "https", "ftp", "ftps", "ssh", "git", "file", "git+ssh", "ssh+git":
		return false
	}
	return true
}

// Suspect reports whether data might hold a key that Runs. It never
// misses one (a false "true" only costs a closer look), so a caller can
// skip parsing a file for which it is false.
//
// Section and key names are runs of letters, digits and dashes in the
// file, written out whole: git allows no escape, quote or line
// continuation in them. So each name a rule needs (or, for alias.* and
// pager.*, its section) must appear as such a run. A helper URL needs
// "::" or "://" after an unknown scheme in its value; a value's
// characters can only be kept apart in the file by quotes and line
// continuations, which are removed first (escapes make no colon or
// slash).
func Suspect(data []byte) bool {
	s := strings.ToLower(string(data))
	s = strings.ReplaceAll(s, "\\\r\n", "")
	s = strings.ReplaceAll(s, "\\\n", "")
	s = strings.ReplaceAll(s, `"`, "")
	for i := 0; i < len(s); {
		if !isKeyChar(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isKeyChar(s[j]) {
			j++
		}
		if w, ok := suspectWords[s[i:j]]; ok && (!w || urlSuspect(s)) {
			return true
		}
		i = j
	}
	return false
}

// suspectWords are the names of runRules (the section for "*" names),
// true for those that run only with a helper URL as their value.
var suspectWords = func() map[string]bool {
	m := map[string]bool{}
	for _, r := range runRules {
		w := r.name
		if w == "*" {
			w = r.section
		}
		url := r.name == "url" || r.name == "pushurl"
		if prev, ok := m[w]; ok {
			url = url && prev
		}
		m[w] = url
	}
	return m
}()

// urlSuspect reports whether s holds "::" or "://" after a scheme git does
// not handle itself.
func urlSuspect(s string) bool {
	if strings.Contains(s, "::") {
		return true
	}
	for rest := s; ; {
		i := strings.Index(rest, "://")
		if i < 0 {
			return false
		}
		j := i
		for j > 0 && (isKeyChar(rest[j-1]) || rest[j-1] == '+' || rest[j-1] == '.') {
			j--
		}
		if helperURL(rest[j:i]+"://", true) {
			return true
		}
		rest = rest[i+3:]
	}
}
