package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"
	"mvdan.cc/sh/v3/syntax"

	"github.com/safeexec/safeexec"
	"github.com/safeexec/safeexec/configs"
	"github.com/safeexec/safeexec/internal/atomicfile"
)

func (e *env) hookInstallCommand() *cli.Command {
	return &cli.Command{
		Name:      "install",
		Usage:     "print (or with --write merge into the agent's settings) safeexec's hook and shell prefix",
		ArgsUsage: "claude|codex|gemini",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "project", Usage: "the project's settings (./.claude, ./.codex, ./.gemini) instead of your own"},
			&cli.BoolFlag{Name: "write", Usage: "merge into the settings file instead of printing"},
		},
		Action: e.hookInstallAction,
	}
}

// agentSetup is what hook install writes for one agent.
type agentSetup struct {
	name string // for people
	// file is the settings file; event and matcher place the hook in it.
	file           string
	event, matcher string
	// named: the hook entry carries a name (Gemini CLI enables and
	// disables hooks by name).
	named bool
	// prefixEnv is the settings' env variable that makes safeexec the
	// agent's shell prefix; "" when the agent has none.
	prefixEnv string
	note      string
}

func (e *env) agentSetup(agent string, project bool) (*agentSetup, error) {
	base := func(dir, envVar string) string {
		if project {
			return filepath.Join(e.cwd, dir)
		}
		if v := e.getenv(envVar); envVar != "" && v != "" && filepath.IsAbs(v) {
			return v
		}
		return filepath.Join(e.home, dir)
	}
	switch agent {
	case "claude":
		return &agentSetup{name: "Claude Code", file: filepath.Join(base(".claude", "CLAUDE_CONFIG_DIR"), "settings.json"),
			// Bash, and on Windows the PowerShell tool too.
			event: "PreToolUse", matcher: "Bash|PowerShell", prefixEnv: "CLAUDE_CODE_SHELL_PREFIX"}, nil
	case "codex":
		return &agentSetup{name: "Codex", file: filepath.Join(base(".codex", "CODEX_HOME"), "hooks.json"),
			event: "PreToolUse", matcher: "Bash",
			note: "Codex has no shell-prefix setting, so its commands do not run in safeexec's sandbox: the hook judges every command as unconfined and denies what needs confirmation (Codex cannot ask from a hook). Codex asks you to review and trust a new hook before it runs."}, nil
	case "gemini":
		return &agentSetup{name: "Gemini CLI", file: filepath.Join(base(".gemini", ""), "settings.json"),
			event: "BeforeTool", matcher: "run_shell_command", named: true,
			note: "Gemini CLI has no shell-prefix setting (it runs bash -c from PATH, powershell.exe -Command on Windows), so its commands do not run in safeexec's sandbox: the hook judges every command as unconfined and denies what needs confirmation (Gemini CLI cannot ask from a hook)."}, nil
	}
	return nil, fmt.Errorf("hook install needs one of: claude, codex, gemini")
}

func (e *env) hookInstallAction(c *cli.Context) error {
	// The flags may come after the agent too (urfave/cli stops at the
	// first argument).
	project, write := c.Bool("project"), c.Bool("write")
	var rest []string
	for _, a := range c.Args().Slice() {
		switch a {
		case "--project", "-project":
			project = true
		case "--write", "-write":
			write = true
		default:
			rest = append(rest, a)
		}
	}
	if len(rest) != 1 {
		return exitf(safeexec.ExitCodeError, "hook install needs one of: claude, codex, gemini")
	}
	agent := rest[0]
	setup, err := e.agentSetup(agent, project)
	if err != nil {
		return exitf(safeexec.ExitCodeError, "%v", err)
	}
	exe, err := selfPath()
	if err != nil {
		return exitf(safeexec.ExitCodeError, "hook install: find safeexec itself: %v", err)
	}
	hookCmd := hookCommandLine(agent, exe, runtime.GOOS)
	userConfig := e.userConfigPath(c)

	if !write {
		snippet, _, err := mergeAgentSettings(nil, setup, exe, hookCmd)
		if err != nil {
			return exitf(safeexec.ExitCodeError, "%v", err)
		}
		fmt.Fprintf(e.stdout, "# %s: merge this into %s (safeexec hook install %s%s --write does it):\n", setup.name, e.shortPath(setup.file), agent, map[bool]string{true: " --project"}[project])
		e.stdout.Write(snippet)
		if setup.prefixEnv != "" {
			fmt.Fprintf(e.stdout, "# and this into your safeexec config (%s), so that the hook lets safe commands through:\n[agent]\nprefix = [%q]\n", e.shortPath(userConfig), agent)
		} else {
			fmt.Fprintf(e.stdout, "# %s\n", setup.note)
		}
		return nil
	}

	old, err := os.ReadFile(setup.file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return exitf(safeexec.ExitCodeError, "hook install: %v", err)
	}
	merged, changed, err := mergeAgentSettings(old, setup, exe, hookCmd)
	if err != nil {
		return exitf(safeexec.ExitCodeError, "hook install: %s: %v", setup.file, err)
	}
	if changed {
		if err := writeSettings(setup.file, merged); err != nil {
			return exitf(safeexec.ExitCodeError, "hook install: %v (a sandboxed command cannot change agent settings: run hook install on the host)", err)
		}
		what := "the hook"
		if setup.prefixEnv != "" {
			what = "the hook and " + setup.prefixEnv
		}
		fmt.Fprintf(e.stderr, "safeexec: wrote %s to %s\n", what, setup.file)
	} else {
		fmt.Fprintf(e.stderr, "safeexec: %s already has safeexec's hook; nothing changed\n", setup.file)
	}
	if setup.prefixEnv == "" {
		fmt.Fprintf(e.stderr, "safeexec: %s\n", setup.note)
		return nil
	}
	done, err := configs.AddAgentPrefix(userConfig, agent)
	switch {
	case err != nil:
		return exitf(safeexec.ExitCodeError, "%v", err)
	case done:
		fmt.Fprintf(e.stderr, "safeexec: set [agent] prefix for %s in %s: the hook now judges commands as sandboxed\n", agent, userConfig)
	}
	return nil
}

// userConfigPath is the user's own safeexec config: --config, else
// $SAFEEXEC_CONFIG, else the default location.
func (e *env) userConfigPath(c *cli.Context) string {
	p := c.String("config")
	if p == "" {
		p = configs.UserPath(e.getenv, e.home)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.cwd, p)
	}
	return p
}

// selfPath is how agents should call this safeexec: an absolute path, not
// resolved through symbolic links (a package manager's link survives
// upgrades).
func selfPath() (string, error) {
	p := os.Args[0]
	if !strings.Contains(p, string(filepath.Separator)) {
		lp, err := exec.LookPath(p)
		if err != nil {
			return os.Executable()
		}
		p = lp
	}
	return filepath.Abs(p)
}

// hookCommandLine is the command an agent's settings run for safeexec's
// hook. The agents run it through a shell: Claude Code through bash (Git
// for Windows' on Windows), Codex and Gemini CLI through PowerShell on
// Windows, where a quoted path alone is a string, not a command (the hook
// would silently never run), so it is called with &. On Windows a path
// that needs no quoting is written with forward slashes, the one form
// bash, PowerShell and cmd.exe all run.
func hookCommandLine(agent, exe, goos string) string {
	if goos != "windows" {
		return shellQuote(exe) + " hook " + agent
	}
	p := strings.ReplaceAll(exe, `\`, "/")
	switch {
	case plainWord(p):
		return p + " hook " + agent
	case agent == "claude":
		return shellQuote(p) + " hook " + agent
	}
	return "& '" + strings.ReplaceAll(p, "'", "''") + "' hook " + agent
}

// plainWord reports whether s means itself unquoted in bash, PowerShell
// and cmd.exe.
func plainWord(s string) bool {
	if s == "" || s[0] == '-' || s[0] == '~' {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("/._-:+", r):
		default:
			return false
		}
	}
	return true
}

func shellQuote(s string) string {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return "'" + s + "'"
	}
	return q
}

// mergeAgentSettings adds safeexec's hook (and shell prefix) to the
// agent's settings (JSON, nil for none) and reports whether anything
// changed. Everything else stays, in its order.
func mergeAgentSettings(data []byte, s *agentSetup, exe, hookCmd string) ([]byte, bool, error) {
	root, err := parseObject(data)
	if err != nil {
		return nil, false, err
	}
	changed := false
	hooksRaw, _ := root.get("hooks")
	hooks, err := parseObject(hooksRaw)
	if err != nil {
		return nil, false, fmt.Errorf("hooks: %v", err)
	}
	groupsRaw, _ := hooks.get(s.event)
	groups, ch, err := mergeHookGroups(groupsRaw, s, hookCmd)
	if err != nil {
		return nil, false, fmt.Errorf("hooks.%s: %v", s.event, err)
	}
	if ch {
		changed = true
		hooks.set(s.event, groups)
		root.set("hooks", hooks.marshal())
	}
	if s.prefixEnv != "" {
		envRaw, _ := root.get("env")
		env, err := parseObject(envRaw)
		if err != nil {
			return nil, false, fmt.Errorf("env: %v", err)
		}
		cur, ok := env.get(s.prefixEnv)
		var v string
		if ok {
			if err := json.Unmarshal(cur, &v); err != nil {
				return nil, false, fmt.Errorf("env.%s is not a string", s.prefixEnv)
			}
		}
		switch {
		case v == exe:
		case v != "" && !isSafeexecProgram(v):
			return nil, false, fmt.Errorf("env.%s is already %q; remove it first, or make it run safeexec", s.prefixEnv, v)
		default:
			env.set(s.prefixEnv, jsonString(exe))
			root.set("env", env.marshal())
			changed = true
		}
	}
	out, err := root.indent(indentOf(data))
	return out, changed, err
}

// mergeHookGroups adds safeexec's hook to the event's matcher groups
// unless one of them already runs it (a hook run by another safeexec path
// is pointed at this one). A group that runs it under another matcher (an
// older install's "Bash" for Claude Code, which now also has a PowerShell
// tool) gets the matcher safeexec needs; when the group holds other hooks
// too, safeexec's hook moves to a group of its own instead.
func mergeHookGroups(raw json.RawMessage, s *agentSetup, hookCmd string) (json.RawMessage, bool, error) {
	var groups []json.RawMessage
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &groups); err != nil {
			return nil, false, errors.New("not a list")
		}
	}
	for gi, g := range groups {
		group, err := parseObject(g)
		if err != nil {
			continue
		}
		hraw, _ := group.get("hooks")
		var handlers []json.RawMessage
		if json.Unmarshal(hraw, &handlers) != nil {
			continue
		}
		var matcher string
		mraw, _ := group.get("matcher")
		json.Unmarshal(mraw, &matcher)
		for hi, h := range handlers {
			handler, err := parseObject(h)
			if err != nil {
				continue
			}
			craw, _ := handler.get("command")
			var cmd string
			if json.Unmarshal(craw, &cmd) != nil {
				continue
			}
			if cmd != hookCmd && !isSafeexecHook(cmd, hookCmd) {
				continue
			}
			if cmd == hookCmd && matcher == s.matcher {
				return raw, false, nil
			}
			handler.set("command", jsonString(hookCmd))
			handlers[hi] = handler.marshal()
			if matcher != s.matcher {
				if len(handlers) > 1 {
					// Leave the other hooks their matcher.
					handlers = append(handlers[:hi:hi], handlers[hi+1:]...)
					hb, _ := json.Marshal(handlers)
					group.set("hooks", hb)
					groups[gi] = group.marshal()
					var own object
					own.set("matcher", jsonString(s.matcher))
					own.set("hooks", json.RawMessage("["+string(handler.marshal())+"]"))
					groups = append(groups, own.marshal())
					out, err := json.Marshal(groups)
					return out, true, err
				}
				group.set("matcher", jsonString(s.matcher))
			}
			hb, _ := json.Marshal(handlers)
			group.set("hooks", hb)
			groups[gi] = group.marshal()
			out, err := json.Marshal(groups)
			return out, true, err
		}
	}
	var handler object
	if s.named {
		handler.set("name", jsonString("safeexec"))
	}
	handler.set("type", jsonString("command"))
	handler.set("command", jsonString(hookCmd))
	var group object
	group.set("matcher", jsonString(s.matcher))
	group.set("hooks", json.RawMessage("["+string(handler.marshal())+"]"))
	groups = append(groups, group.marshal())
	out, err := json.Marshal(groups)
	return out, true, err
}

// isSafeexecHook reports whether cmd runs some safeexec's hook for the
// same agent as want does (in any of the forms hookCommandLine writes).
func isSafeexecHook(cmd, want string) bool {
	i := strings.LastIndex(want, " hook ")
	if i < 0 || !strings.HasSuffix(cmd, want[i:]) {
		return false
	}
	prog := strings.TrimSpace(strings.TrimSuffix(cmd, want[i:]))
	prog = strings.TrimSpace(strings.TrimPrefix(prog, "& "))
	return isSafeexecProgram(strings.Trim(prog, `'"`))
}

// isSafeexecProgram reports whether p names a safeexec executable
// (safeexec, or safeexec.exe in any case on Windows).
func isSafeexecProgram(p string) bool {
	base := p[strings.LastIndexAny(p, `/\`)+1:]
	return base == "safeexec" || strings.EqualFold(base, "safeexec.exe")
}

func jsonString(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// object is a JSON object that keeps its members' order.
type object []member

type member struct {
	key string
	val json.RawMessage
}

// parseObject reads a JSON object; empty input is an empty object.
func parseObject(data []byte) (object, error) {
	o, err := parseObjectRaw(data)
	if err != nil {
		return nil, fmt.Errorf("not a plain JSON object (%v); comments and other extensions cannot be merged safely: edit the file by hand", err)
	}
	return o, nil
}

func parseObjectRaw(data []byte) (object, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return object{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("no object")
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("a key is not a string")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the object")
	}
	return o, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

func (o *object) set(key string, v json.RawMessage) {
	for i := range *o {
		if (*o)[i].key == key {
			(*o)[i].val = v
			return
		}
	}
	*o = append(*o, member{key, v})
}

func (o object) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonString(m.key))
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func (o object) indent(indent string) ([]byte, error) {
	var compact, out bytes.Buffer
	if err := json.Compact(&compact, o.marshal()); err != nil {
		return nil, err
	}
	if err := json.Indent(&out, compact.Bytes(), "", indent); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// indentOf is the indentation a JSON file uses (two spaces by default).
func indentOf(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n"))[1:] {
		ws := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
		if len(ws) > 0 && len(ws) < len(line) {
			return string(ws)
		}
	}
	return "  "
}

// writeSettings replaces path with data atomically, keeping its mode; a
// symbolic link stays one (its target is replaced).
func writeSettings(path string, data []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	mode := fs.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return atomicfile.Write(path, data, mode)
}
