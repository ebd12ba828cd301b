package gitconf

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Entry is one key of a config file, as git names it: the section and the
// key's name in lower case, a subsection as written, joined with dots
// ("core.fsmonitor", `diff.My "Driver".textconv`).
type Entry struct {
	Key   string
	Value string
	// HasValue is false for a key written without "=" (an implicit true).
	HasValue bool
}

// ErrSyntax is wrapped by Parse's errors: git refuses such a file.
var ErrSyntax = errors.New("bad config syntax")

// reader is git's config_source over a byte slice: get_next_char turns
// CR LF into LF and reads past the end as an endless run of LFs.
type reader struct {
	b    []byte
	i    int
	eof  bool
	line int
}

func (r *reader) next() byte {
	if r.i >= len(r.b) {
		r.eof = true
		return '\n'
	}
	c := r.b[r.i]
	r.i++
	if c == '\r' && r.i < len(r.b) && r.b[r.i] == '\n' {
		r.i++
		c = '\n'
	}
	if c == '\n' {
		r.line++
	}
	return c
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isKeyChar(c byte) bool {
	return isAlpha(c) || c >= '0' && c <= '9' || c == '-'
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Parse reads a config file with git's syntax. It fails where git would
// refuse the file (git then runs nothing from it, but the caller should
// still treat such a file as suspect).
func Parse(data []byte) ([]Entry, error) {
	r := &reader{b: data}
	var out []Entry
	var section []byte // "core." or `diff.sub.` once a header was read
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		r.i = 3
	}
	comment := false
	for {
		c := r.next()
		if c == '\n' {
			if r.eof {
				return out, nil
			}
			comment = false
			continue
		}
		if comment || isSpace(c) {
			continue
		}
		if c == '#' || c == ';' {
			comment = true
			continue
		}
		if c == '[' {
			name, ok := r.baseVar()
			if !ok || len(name) == 0 {
				return out, r.fail("bad section header")
			}
			section = append(name, '.')
			continue
		}
		if !isAlpha(c) {
			return out, r.fail("a key must start with a letter")
		}
		e, ok := r.value(section, c)
		if !ok {
			return out, r.fail("bad value")
		}
		out = append(out, e)
	}
}

func (r *reader) fail(what string) error {
	return fmt.Errorf("%w: %s at line %d", ErrSyntax, what, r.line+1)
}

// baseVar reads a section header after "[": the name in lower case, and a
// quoted subsection after blanks as written (a backslash takes the next
// character as it is).
func (r *reader) baseVar() ([]byte, bool) {
	var name []byte
	for {
		c := r.next()
		if r.eof {
			return nil, false
		}
		if c == ']' {
			return name, true
		}
		if isSpace(c) {
			return r.extendedBaseVar(name, c)
		}
		if !isKeyChar(c) && c != '.' {
			return nil, false
		}
		name = append(name, lower(c))
	}
}

func (r *reader) extendedBaseVar(name []byte, c byte) ([]byte, bool) {
	for {
		if c == '\n' {
			return nil, false
		}
		c = r.next()
		if !isSpace(c) {
			break
		}
	}
	if c != '"' {
		return nil, false
	}
	name = append(name, '.')
	for {
		c := r.next()
		if c == '\n' {
			return nil, false
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c = r.next(); c == '\n' {
				return nil, false
			}
		}
		name = append(name, c)
	}
	return name, r.next() == ']'
}

// value reads a key whose first letter is c, and its value.
func (r *reader) value(section []byte, c byte) (Entry, bool) {
	key := append(append([]byte(nil), section...), lower(c))
	for {
		c = r.next()
		if r.eof || !isKeyChar(c) {
			break
		}
		key = append(key, lower(c))
	}
	for c == ' ' || c == '\t' {
		c = r.next()
	}
	if c == '\n' {
		return Entry{Key: string(key)}, true
	}
	if c != '=' {
		return Entry{}, false
	}
	v, ok := r.parseValue()
	if !ok {
		return Entry{}, false
	}
	// git hands the value on as a C string: it ends at a NUL byte.
	if i := strings.IndexByte(v, 0); i >= 0 {
		v = v[:i]
	}
	return Entry{Key: string(key), Value: v, HasValue: true}, true
}

func (r *reader) parseValue() (string, bool) {
	var v []byte
	quote, comment := false, false
	space := 0
	for {
		c := r.next()
		if c == '\n' {
			if quote {
				return "", false
			}
			return string(v), true
		}
		if comment {
			continue
		}
		if isSpace(c) && !quote {
			if len(v) > 0 {
				space++
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		for ; space > 0; space-- {
			v = append(v, ' ')
		}
		if c == '\\' {
			switch c = r.next(); c {
			case '\n':
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false
			}
			v = append(v, c)
			continue
		}
		if c == '"' {
			quote = !quote
			continue
		}
		v = append(v, c)
	}
}

// ParseList reads the output of `git config --list --null`: entries end
// with NUL, a newline separates the key from the value, and a key without
// a newline has no value.
func ParseList(out []byte) []Entry {
	var es []Entry
	for len(out) > 0 {
		rec, rest, _ := bytes.Cut(out, []byte{0})
		out = rest
		if len(rec) == 0 {
			continue
		}
		k, v, has := bytes.Cut(rec, []byte{'\n'})
		es = append(es, Entry{Key: string(k), Value: string(v), HasValue: has})
	}
	return es
}

// Split returns a key's section (lower case), subsection (as written, ""
// when there is none) and name (lower case). The subsection may itself
// hold dots: the section ends at the first dot, the name starts after the
// last.
func Split(key string) (section, sub, name string) {
	i := strings.IndexByte(key, '.')
	j := strings.LastIndexByte(key, '.')
	if i < 0 {
		return "", "", strings.ToLower(key)
	}
	section, name = strings.ToLower(key[:i]), strings.ToLower(key[j+1:])
	if j > i {
		sub = key[i+1 : j]
	}
	return section, sub, name
}
