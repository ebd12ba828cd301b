package configs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2/unstable"
)

// AddAllowRules adds rules to rules.allow in the user's config file at
// path and returns the ones that were not there yet. The file is edited as
// text: its comments, order and other keys stay as written. A missing file
// (and its directory) is created. The edited file must decode strictly
// and hold the new rules before it replaces the old one (atomically);
// otherwise nothing changes and the error says to edit the file by hand.
//
// Only the user's own file may allow commands: a project file
// (.safeexec.toml) is refused.
func AddAllowRules(path string, rules []string) ([]string, error) {
	if filepath.Base(path) == ProjectFile {
		return nil, fmt.Errorf("add allow rule: %s is a project file; only your own config may allow commands", path)
	}
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("add allow rule: %s is not an absolute path", path)
	}
	for _, r := range rules {
		if msg := checkEntry(r, ruleList); msg != "" || strings.TrimSpace(r) != r {
			return nil, fmt.Errorf("add allow rule %q: not a valid rule", r)
		}
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("add allow rule: %w", err)
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, fmt.Errorf("add allow rule: lock %s: %w", dir, err)
	}
	defer unlock()

	data, err := readFile(path)
	var ce *Error
	switch {
	case err == nil:
	case errors.As(err, &ce) && errors.Is(ce.Err, fs.ErrNotExist):
		data = nil
	default:
		return nil, err
	}
	cur, err := parse(path, data)
	if err != nil {
		return nil, err
	}
	var have []string
	if cur.fc.Rules.Allow != nil {
		have = *cur.fc.Rules.Allow
	}
	var add []string
	for _, r := range rules {
		if !contains(have, r) && !contains(add, r) {
			add = append(add, r)
		}
	}
	if len(add) == 0 {
		return nil, nil
	}
	edited, err := insertAllow(data, add)
	if err != nil {
		return nil, fmt.Errorf("add allow rule to %s: %v; add %s to rules.allow by hand", path, err, quoteRules(add))
	}
	p, err := parse(path, edited)
	if err != nil || p.fc.Rules.Allow == nil || !containsAll(*p.fc.Rules.Allow, add) {
		return nil, fmt.Errorf("add allow rule to %s: the file's layout could not be edited safely; add %s to rules.allow by hand", path, quoteRules(add))
	}
	if err := replaceFile(path, edited); err != nil {
		return nil, fmt.Errorf("add allow rule: %w", err)
	}
	return add, nil
}

func containsAll(list, want []string) bool {
	for _, w := range want {
		if !contains(list, w) {
			return false
		}
	}
	return true
}

func quoteRules(rules []string) string {
	q := make([]string, len(rules))
	for i, r := range rules {
		q[i] = tomlString(r)
	}
	return strings.Join(q, ", ")
}

// tomlString renders s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		case r == utf8.RuneError:
			b.WriteString(`\uFFFD`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// insertAllow returns data with rules added to rules.allow: into the
// existing array, else as a new key under an existing [rules] table, else
// as a new [rules] table at the end.
func insertAllow(data []byte, rules []string) ([]byte, error) {
	var p unstable.Parser
	p.Reset(data)
	var table []string
	rulesHeaderEnd := -1
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = table[:0]
			last := -1
			for it := e.Key(); it.Next(); {
				n := it.Node()
				table = append(table, string(n.Data))
				last = int(n.Raw.Offset + n.Raw.Length)
			}
			if e.Kind == unstable.Table && len(table) == 1 && table[0] == "rules" && last >= 0 {
				rulesHeaderEnd = lineEnd(data, last)
			}
		case unstable.KeyValue:
			full := append([]string(nil), table...)
			for it := e.Key(); it.Next(); {
				full = append(full, string(it.Node().Data))
			}
			if len(full) == 1 && full[0] == "rules" {
				return nil, errors.New("rules is written as an inline table")
			}
			if len(full) != 2 || full[0] != "rules" || full[1] != "allow" {
				continue
			}
			v := e.Value()
			if v == nil || v.Kind != unstable.Array {
				return nil, errors.New("rules.allow is not an array")
			}
			return insertIntoArray(data, e, v, rules)
		}
	}
	if err := p.Error(); err != nil {
		return nil, err
	}
	entry := "allow = [\n"
	for _, r := range rules {
		entry += "  " + tomlString(r) + ",\n"
	}
	entry += "]\n"
	if rulesHeaderEnd >= 0 {
		out := append([]byte(nil), data[:rulesHeaderEnd]...)
		if rulesHeaderEnd == len(data) || data[rulesHeaderEnd-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, entry...)
		return append(out, data[rulesHeaderEnd:]...), nil
	}
	out := append([]byte(nil), data...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	out = append(out, "[rules]\n"...)
	return append(out, entry...), nil
}

// lineEnd is the offset just after the end of the line holding offset i.
func lineEnd(data []byte, i int) int {
	if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(data)
}

func insertIntoArray(data []byte, kv, arr *unstable.Node, rules []string) ([]byte, error) {
	start, end := int(kv.Raw.Offset), int(kv.Raw.Offset+kv.Raw.Length)
	if kv.Raw.Length == 0 || end > len(data) || data[end-1] != ']' {
		return nil, errors.New("cannot find the end of rules.allow")
	}
	open := bytes.IndexByte(data[start:end], '[')
	if open < 0 {
		return nil, errors.New("cannot find the start of rules.allow")
	}
	open += start
	multiline := bytes.IndexByte(data[open:end], '\n') >= 0
	lastEnd := -1
	indent := "  "
	for it := arr.Children(); it.Next(); {
		n := it.Node()
		if n.Raw.Length == 0 {
			return nil, errors.New("cannot find an element of rules.allow")
		}
		lastEnd = int(n.Raw.Offset + n.Raw.Length)
		ls := bytes.LastIndexByte(data[:n.Raw.Offset], '\n') + 1
		if ws := data[ls:n.Raw.Offset]; len(bytes.TrimLeft(ws, " \t")) == 0 {
			indent = string(ws)
		}
	}
	var ins strings.Builder
	at := lastEnd
	switch {
	case lastEnd < 0 && multiline:
		at = open + 1
		for _, r := range rules {
			ins.WriteString("\n" + indent + tomlString(r) + ",")
		}
	case lastEnd < 0:
		at = open + 1
		for i, r := range rules {
			if i > 0 {
				ins.WriteString(", ")
			}
			ins.WriteString(tomlString(r))
		}
	case multiline:
		for _, r := range rules {
			ins.WriteString(",\n" + indent + tomlString(r))
		}
	default:
		for _, r := range rules {
			ins.WriteString(", " + tomlString(r))
		}
	}
	out := append([]byte(nil), data[:at]...)
	out = append(out, ins.String()...)
	return append(out, data[at:]...), nil
}

// replaceFile writes data to path through a temporary file in the same
// directory, keeping the old file's permissions (0600 for a new one). A
// path that is a symbolic link (a dotfiles checkout) has its target
// replaced, and stays a link.
func replaceFile(path string, data []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	mode := fs.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// AddAgentPrefix records in the user's config file at path that safeexec
// is agent's shell prefix (agent.prefix), editing the file as
// AddAllowRules does. It reports whether the file changed.
func AddAgentPrefix(path, agent string) (bool, error) {
	if !oneOf(agent, validAgents) {
		return false, fmt.Errorf("set agent.prefix: unknown agent %q", agent)
	}
	if filepath.Base(path) == ProjectFile || !filepath.IsAbs(path) {
		return false, fmt.Errorf("set agent.prefix: %s is not your own config file", path)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("set agent.prefix: %w", err)
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return false, fmt.Errorf("set agent.prefix: lock %s: %w", dir, err)
	}
	defer unlock()
	data, err := readFile(path)
	var ce *Error
	switch {
	case err == nil:
	case errors.As(err, &ce) && errors.Is(ce.Err, fs.ErrNotExist):
		data = nil
	default:
		return false, err
	}
	cur, err := parse(path, data)
	if err != nil {
		return false, err
	}
	if cur.agentPrefix != nil && (contains(*cur.agentPrefix, "*") || contains(*cur.agentPrefix, agent)) {
		return false, nil
	}
	edited, err := setAgentPrefix(data, agent)
	hand := fmt.Sprintf("add %q to agent.prefix ([agent] prefix = [%q]) by hand", agent, agent)
	if err != nil {
		return false, fmt.Errorf("set agent.prefix in %s: %v; %s", path, err, hand)
	}
	p, err := parse(path, edited)
	if err != nil || p.agentPrefix == nil || !contains(*p.agentPrefix, agent) {
		return false, fmt.Errorf("set agent.prefix in %s: the file's layout could not be edited safely; %s", path, hand)
	}
	if err := replaceFile(path, edited); err != nil {
		return false, fmt.Errorf("set agent.prefix: %w", err)
	}
	return true, nil
}

// setAgentPrefix returns data with agent added to agent.prefix.
func setAgentPrefix(data []byte, agent string) ([]byte, error) {
	var p unstable.Parser
	p.Reset(data)
	var table []string
	headerEnd := -1
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = table[:0]
			last := -1
			for it := e.Key(); it.Next(); {
				n := it.Node()
				table = append(table, string(n.Data))
				last = int(n.Raw.Offset + n.Raw.Length)
			}
			if e.Kind == unstable.Table && len(table) == 1 && table[0] == "agent" && last >= 0 {
				headerEnd = lineEnd(data, last)
			}
		case unstable.KeyValue:
			full := append([]string(nil), table...)
			for it := e.Key(); it.Next(); {
				full = append(full, string(it.Node().Data))
			}
			if len(full) == 1 && full[0] == "agent" {
				return nil, errors.New("agent is written as an inline table")
			}
			if len(full) != 2 || full[0] != "agent" || full[1] != "prefix" {
				continue
			}
			v := e.Value()
			if v != nil && v.Kind == unstable.Array {
				return insertIntoArray(data, e, v, []string{agent})
			}
			// false: the whole key = value becomes the list.
			start, end := int(e.Raw.Offset), int(e.Raw.Offset+e.Raw.Length)
			if e.Raw.Length == 0 || end > len(data) {
				return nil, errors.New("cannot find agent.prefix")
			}
			key := string(data[start:])
			if i := strings.IndexByte(key, '='); i >= 0 {
				key = strings.TrimRight(key[:i], " \t")
			}
			out := append([]byte(nil), data[:start]...)
			out = append(out, key+" = ["+tomlString(agent)+"]"...)
			return append(out, data[end:]...), nil
		}
	}
	if err := p.Error(); err != nil {
		return nil, err
	}
	entry := "prefix = [" + tomlString(agent) + "]\n"
	if headerEnd >= 0 {
		out := append([]byte(nil), data[:headerEnd]...)
		if data[headerEnd-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, entry...)
		return append(out, data[headerEnd:]...), nil
	}
	out := append([]byte(nil), data...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	out = append(out, "[agent]\n"...)
	return append(out, entry...), nil
}
