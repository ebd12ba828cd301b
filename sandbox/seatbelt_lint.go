package sandbox

// seatbeltLint checks a profile the way CI on Linux can, without
// sandbox-exec: it parses the s-expressions and refuses anything that is
// not a deny-by-default profile built from known operations and filters,
// whose parameters are all supplied. seatbelt_darwin.go runs it before
// every sandbox-exec too: a profile that fails it is never used.

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// seatbeltOperations are the operation names the checker accepts.
var seatbeltOperations = map[string]bool{
	"default": true,
	"file*":   true, "file-read*": true, "file-read-data": true, "file-read-metadata": true, "file-read-xattr": true,
	"file-write*": true, "file-write-create": true, "file-write-data": true, "file-write-flags": true,
	"file-write-mode": true, "file-write-owner": true, "file-write-setugid": true, "file-write-times": true,
	"file-write-unlink": true, "file-write-xattr": true, "file-ioctl": true, "file-link": true, "file-clone": true,
	"file-revoke": true, "file-test-existence": true, "file-map-executable": true,
	"ipc-posix-sem": true, "ipc-posix-shm": true, "ipc-posix-shm-read-data": true, "ipc-posix-shm-write-data": true,
	"mach-lookup": true, "mach-register": true,
	"network-outbound": true, "network-inbound": true, "network-bind": true,
	"process-fork": true, "process-exec": true, "process-info*": true, "signal": true,
	"sysctl-read": true, "pseudo-tty": true, "user-preference-read": true,
}

// seatbeltFilters are the filter and combinator names the checker accepts.
var seatbeltFilters = map[string]bool{
	"subpath": true, "literal": true, "regex": true, "param": true,
	"require-all": true, "require-any": true, "require-not": true,
	"global-name": true, "target": true, "remote": true,
}

// sexp is a parsed s-expression: a list, or an atom (symbol, string).
type sexp struct {
	list   []*sexp
	atom   string
	str    bool // atom is a string literal ("…" or #"…")
	isList bool
	line   int
}

func (s *sexp) head() string {
	if !s.isList || len(s.list) == 0 || s.list[0].isList || s.list[0].str {
		return ""
	}
	return s.list[0].atom
}

// parseSexps parses a whole profile: comments run from ';' to the end of
// the line; strings are "…" with backslash escapes or raw #"…".
func parseSexps(src string) ([]*sexp, error) {
	var stack [][]*sexp
	var top []*sexp
	line := 1
	push := func(s *sexp) {
		if len(stack) == 0 {
			top = append(top, s)
		} else {
			stack[len(stack)-1] = append(stack[len(stack)-1], s)
		}
	}
	var openLines []int
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n':
			line++
		case c == ' ' || c == '\t' || c == '\r':
		case c == ';':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i--
		case c == '(':
			stack = append(stack, nil)
			openLines = append(openLines, line)
		case c == ')':
			if len(stack) == 0 {
				return nil, fmt.Errorf("line %d: unbalanced ')'", line)
			}
			l := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			ol := openLines[len(openLines)-1]
			openLines = openLines[:len(openLines)-1]
			push(&sexp{list: l, isList: true, line: ol})
		case c == '"' || (c == '#' && i+1 < len(src) && src[i+1] == '"'):
			raw := c == '#'
			if raw {
				i++
			}
			var sb strings.Builder
			start := line
			closed := false
			for i++; i < len(src); i++ {
				ch := src[i]
				if ch == '\n' {
					line++
				}
				if ch == '"' {
					closed = true
					break
				}
				if ch == '\\' && !raw {
					i++
					if i >= len(src) {
						break
					}
					switch src[i] {
					case 'n':
						sb.WriteByte('\n')
					case 't':
						sb.WriteByte('\t')
					default:
						sb.WriteByte(src[i])
					}
					continue
				}
				sb.WriteByte(ch)
			}
			if !closed {
				return nil, fmt.Errorf("line %d: unterminated string", start)
			}
			push(&sexp{atom: sb.String(), str: true, line: start})
		default:
			j := i
			for j < len(src) && !strings.ContainsRune(" \t\r\n();\"", rune(src[j])) {
				j++
			}
			push(&sexp{atom: src[i:j], line: line})
			i = j - 1
		}
	}
	if len(stack) > 0 {
		return nil, fmt.Errorf("line %d: unbalanced '(' (never closed)", openLines[len(openLines)-1])
	}
	return top, nil
}

// seatbeltLint returns an error naming the first problem in profile.
func seatbeltLint(profile string, params map[string]string) error {
	forms, err := parseSexps(profile)
	if err != nil {
		return fmt.Errorf("seatbelt profile: %w", err)
	}
	if len(forms) < 2 || forms[0].head() != "version" || len(forms[0].list) != 2 || forms[0].list[1].atom != "1" {
		return errors.New("seatbelt profile: must start with (version 1)")
	}
	denyDefault := false
	used := map[string]bool{}
	for _, f := range forms[1:] {
		h := f.head()
		if h != "allow" && h != "deny" {
			return fmt.Errorf("seatbelt profile: line %d: top-level form %q (only allow and deny)", f.line, h)
		}
		var ops []string
		var filters []*sexp
		for _, x := range f.list[1:] {
			if !x.isList && !x.str {
				ops = append(ops, x.atom)
				continue
			}
			filters = append(filters, x)
		}
		if len(ops) == 0 {
			return fmt.Errorf("seatbelt profile: line %d: %s without an operation", f.line, h)
		}
		for _, op := range ops {
			if !seatbeltOperations[op] {
				return fmt.Errorf("seatbelt profile: line %d: unknown operation %q", f.line, op)
			}
			if op == "default" {
				if h == "allow" {
					return fmt.Errorf("seatbelt profile: line %d: (allow default) is never acceptable", f.line)
				}
				if len(ops) != 1 || len(filters) != 0 {
					return fmt.Errorf("seatbelt profile: line %d: (deny default) takes nothing else", f.line)
				}
				if f != forms[1] {
					return fmt.Errorf("seatbelt profile: line %d: (deny default) must come right after the version", f.line)
				}
				denyDefault = true
			}
			// Broad operations must be narrowed by a filter.
			if h == "allow" && len(filters) == 0 {
				switch op {
				case "file*", "file-read*", "file-read-data", "file-write*", "file-write-data", "file-write-create", "file-write-unlink",
					"mach-lookup", "mach-register", "network-outbound", "network-inbound", "network-bind", "file-ioctl":
					return fmt.Errorf("seatbelt profile: line %d: (allow %s) without a filter", f.line, op)
				}
			}
			if h == "allow" && (op == "network-outbound" || op == "network-bind" || op == "network-inbound") {
				if err := lintNetwork(filters); err != nil {
					return fmt.Errorf("seatbelt profile: line %d: %w", f.line, err)
				}
			}
		}
		for _, x := range filters {
			if err := lintFilter(x, params, used); err != nil {
				return fmt.Errorf("seatbelt profile: line %d: %w", x.line, err)
			}
		}
	}
	if !denyDefault {
		return errors.New("seatbelt profile: no (deny default)")
	}
	for k := range params {
		if !used[k] {
			return fmt.Errorf("seatbelt profile: parameter %s is supplied but never used", k)
		}
	}
	return nil
}

func lintFilter(x *sexp, params map[string]string, used map[string]bool) error {
	if !x.isList {
		return fmt.Errorf("bare string %q where a filter belongs", x.atom)
	}
	h := x.head()
	if !seatbeltFilters[h] {
		return fmt.Errorf("unknown filter %q", h)
	}
	args := x.list[1:]
	switch h {
	case "require-all", "require-any", "require-not":
		if len(args) == 0 || (h == "require-not" && len(args) != 1) {
			return fmt.Errorf("(%s) with %d arguments", h, len(args))
		}
		for _, a := range args {
			if err := lintFilter(a, params, used); err != nil {
				return err
			}
		}
		return nil
	case "param":
		if len(args) != 1 || !args[0].str {
			return errors.New("(param) takes one string")
		}
		k := args[0].atom
		v, ok := params[k]
		if !ok {
			return fmt.Errorf("parameter %s is referenced but not supplied", k)
		}
		if !path.IsAbs(v) || strings.ContainsRune(v, 0) {
			return fmt.Errorf("parameter %s = %q is not an absolute path", k, v)
		}
		used[k] = true
		return nil
	case "subpath", "literal":
		if len(args) != 1 {
			return fmt.Errorf("(%s) takes one path", h)
		}
		a := args[0]
		if a.isList {
			return lintFilter(a, params, used) // must be a (param …)
		}
		if !a.str || !path.IsAbs(a.atom) {
			return fmt.Errorf("(%s %s): not an absolute path", h, a.atom)
		}
		return nil
	case "regex":
		if len(args) != 1 || !args[0].str || !strings.HasPrefix(args[0].atom, "^/") {
			return errors.New("(regex) takes one anchored pattern")
		}
		return nil
	case "global-name":
		if len(args) != 1 || !args[0].str || args[0].atom == "" {
			return errors.New("(global-name) takes one service name")
		}
		return nil
	case "target":
		if len(args) != 1 || args[0].atom != "same-sandbox" {
			return errors.New("(target) other than same-sandbox")
		}
		return nil
	case "remote":
		return lintNetwork([]*sexp{x})
	}
	return nil
}

// lintNetwork accepts only TCP to a numbered loopback port.
func lintNetwork(filters []*sexp) error {
	if len(filters) == 0 {
		return errors.New("network rule without a filter")
	}
	for _, f := range filters {
		if f.head() != "remote" || len(f.list) != 3 || f.list[1].atom != "tcp" || !f.list[2].str {
			return errors.New(`network allowed other than (remote tcp "localhost:PORT")`)
		}
		host, port, ok := strings.Cut(f.list[2].atom, ":")
		if !ok || host != "localhost" || port == "" || port == "*" || strings.Trim(port, "0123456789") != "" {
			return fmt.Errorf("network allowed to %q (only localhost:PORT)", f.list[2].atom)
		}
	}
	return nil
}
