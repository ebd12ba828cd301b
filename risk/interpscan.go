package risk

import (
	"slices"
	"strconv"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// The interpreter scanner reads code of other languages just well enough
// to find the commands it runs and the files it deletes, writes or
// reads. It is a scanner, not a parser: it skips strings and comments to
// find calls, splits call arguments at top-level commas, and understands
// string literals, list literals and simple concatenations of literals.

// expr is one call argument.
type expr struct {
	text    string // source text, trimmed
	str     string // the value, when the argument is a string literal
	isStr   bool
	list    []expr // the items, when the argument is a list literal
	isList  bool
	dynamic bool // neither a literal string nor a list of them
}

// call is a function call found in the code.
type call struct {
	name string // the called name, qualified as written: os.system
	args []expr
	raw  string // the argument text
	// recv is the call whose result this method is called on
	// (Path("x").write_text(…)), or nil.
	recv *call
	end  int // index of the closing bracket
}

// scanner walks code of one language.
type scanner struct {
	l       lang
	code    string
	lits    []string // every string literal seen
	evalRef bool     // eval/exec passed around as a value (.then(eval))
	// redirs are awk's output redirections to literal files (print > "f").
	redirs []string
	// aliases map names the code binds to what they stand for (import
	// shutil as s: s → shutil; from os import system: system →
	// os.system); stars are modules whose names are all imported.
	aliases map[string]string
	stars   []string
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdent(c byte) bool {
	return isIdentStart(c) || (c >= '0' && c <= '9')
}

// skipString returns the index after the string literal starting at i
// (code[i] is a quote), and its decoded value.
func (s *scanner) skipString(i int) (int, string, bool) {
	code := s.code
	q := code[i]
	// Python triple quotes.
	if s.l == langPython && strings.HasPrefix(code[i:], string([]byte{q, q, q})) {
		end := strings.Index(code[i+3:], string([]byte{q, q, q}))
		if end < 0 {
			return len(code), code[i+3:], false
		}
		return i + 3 + end + 3, code[i+3 : i+3+end], true
	}
	var sb strings.Builder
	interp := false
	j := i + 1
	for j < len(code) {
		c := code[j]
		if c == '\\' && j+1 < len(code) && (q != '\'' || s.l != langPerl && s.l != langRuby && s.l != langPHP || code[j+1] == '\'' || code[j+1] == '\\') {
			e := code[j+1]
			switch e {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			default:
				sb.WriteByte(e)
			}
			j += 2
			continue
		}
		if c == q {
			return j + 1, sb.String(), !interp
		}
		if q == '`' && c == '$' && j+1 < len(code) && code[j+1] == '{' {
			interp = true
		}
		if q == '"' && (s.l == langPerl || s.l == langRuby || s.l == langPHP) && (c == '$' || c == '@' || c == '#' && j+1 < len(code) && code[j+1] == '{') {
			interp = true
		}
		if q == '\n' {
			break
		}
		sb.WriteByte(c)
		j++
	}
	return j, sb.String(), false
}

// isQuote reports whether code[i] opens a string literal.
func (s *scanner) isQuote(i int) bool {
	c := s.code[i]
	switch c {
	case '"', '\'':
		return true
	case '`':
		return s.l == langJS || s.l == langPerl || s.l == langRuby || s.l == langPHP
	}
	return false
}

// comment returns the index after a comment starting at i, or i.
func (s *scanner) comment(i int) int {
	code := s.code
	switch {
	case code[i] == '#' && s.l != langJS && s.l != langLua:
	case strings.HasPrefix(code[i:], "//") && (s.l == langJS || s.l == langPHP):
	case strings.HasPrefix(code[i:], "--") && s.l == langLua:
	case strings.HasPrefix(code[i:], "/*") && (s.l == langJS || s.l == langPHP):
		end := strings.Index(code[i+2:], "*/")
		if end < 0 {
			return len(code)
		}
		return i + 2 + end + 2
	default:
		return i
	}
	end := strings.IndexByte(code[i:], '\n')
	if end < 0 {
		return len(code)
	}
	return i + end
}

// balanced returns the index of the bracket closing the one at i.
func (s *scanner) balanced(i int) int {
	code := s.code
	open := code[i]
	closer := map[byte]byte{'(': ')', '[': ']', '{': '}'}[open]
	depth := 0
	for j := i; j < len(code); j++ {
		c := code[j]
		if s.isQuote(j) {
			end, _, _ := s.skipString(j)
			j = end - 1
			continue
		}
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				if c != closer {
					return j
				}
				return j
			}
		}
	}
	return len(code)
}

// scan finds calls, backtick commands and string literals.
func (s *scanner) scan() (calls []call, shells []expr) {
	code := s.code
	for i := 0; i < len(code); {
		c := code[i]
		if k := s.comment(i); k > i {
			i = k
			continue
		}
		if c == '>' && s.l == langAwk {
			k := i + 1
			if k < len(code) && code[k] == '>' {
				k++
			}
			for k < len(code) && (code[k] == ' ' || code[k] == '\t') {
				k++
			}
			if k < len(code) && s.isQuote(k) {
				end, val, static := s.skipString(k)
				if static && val != "" {
					s.redirs = append(s.redirs, val)
				}
				s.lits = append(s.lits, val)
				i = end
				continue
			}
		}
		if s.isQuote(i) {
			end, val, static := s.skipString(i)
			if static {
				s.lits = append(s.lits, val)
			}
			if c == '`' && s.l != langJS {
				shells = append(shells, expr{text: code[i:end], str: val, isStr: static, dynamic: !static})
			}
			if s.l == langAwk {
				shells = append(shells, s.awkPipe(end, val, static)...)
			}
			i = end
			continue
		}
		if c == '%' && s.l == langRuby && i+2 < len(code) && code[i+1] == 'x' && strings.IndexByte("{[(<|!/", code[i+2]) >= 0 {
			k := i + 2
			end := s.balanced(k)
			if code[k] == '/' || code[k] == '|' || code[k] == '!' {
				end = strings.IndexByte(code[k+1:], code[k]) + k + 1
			}
			if end > k && end <= len(code) {
				body := code[k+1 : end]
				dyn := strings.Contains(body, "#{")
				shells = append(shells, expr{text: body, str: body, isStr: !dyn, dynamic: dyn})
				i = end
				continue
			}
		}
		if !isIdentStart(c) || (i > 0 && isIdent(code[i-1])) {
			i++
			continue
		}
		if i > 0 && code[i-1] == '.' && (i < 2 || (code[i-2] != ')' && code[i-2] != ']' && code[i-2] != '\'' && code[i-2] != '"')) {
			i++
			continue
		}
		j := i
		for j < len(code) && (isIdent(code[j]) || code[j] == '.' || (code[j] == ':' && j+1 < len(code) && code[j+1] == ':')) {
			if code[j] == ':' {
				j++
			}
			j++
		}
		name := s.resolve(code[i:j])
		if i > 0 && code[i-1] == '.' {
			name = "." + name
		}
		k := j
		for k < len(code) && (code[k] == ' ' || code[k] == '\t') {
			k++
		}
		switch {
		case k < len(code) && code[k] == '(':
			end := s.balanced(k)
			raw := ""
			if end > k {
				raw = code[k+1 : min(end, len(code))]
			}
			cl := call{name: name, raw: raw, args: s.splitArgs(raw), end: end}
			if strings.HasPrefix(name, ".") && i >= 2 && code[i-2] == ')' {
				for r := len(calls) - 1; r >= 0 && r >= len(calls)-64; r-- {
					if calls[r].end == i-2 {
						recv := calls[r]
						recv.recv = nil
						cl.recv = &recv
						break
					}
				}
			}
			calls = append(calls, cl)
			i = k + 1
			continue
		case (name == "qx" || name == "%x") && k < len(code) && strings.IndexByte("{[(/|!<", code[k]) >= 0:
			end := s.balanced(k)
			if code[k] == '/' || code[k] == '|' || code[k] == '!' {
				end = strings.IndexByte(code[k+1:], code[k]) + k + 1
			}
			if end > k && end <= len(code) {
				body := code[k+1 : end]
				shells = append(shells, expr{text: body, str: body, isStr: !strings.ContainsAny(body, "$@"), dynamic: strings.ContainsAny(body, "$@")})
				i = end
				continue
			}
		case s.l == langPerl && name == "open" && k < len(code) && k > j && code[k] != '(' && code[k] != '=':
			// open my $f, ">", "path" without parentheses.
			end := k
			for end < len(code) && code[end] != ';' && code[end] != '\n' && code[end] != '}' {
				if s.isQuote(end) {
					e, _, _ := s.skipString(end)
					end = e
					continue
				}
				end++
			}
			raw := code[k:min(end, len(code))]
			calls = append(calls, call{name: name, raw: raw, args: s.splitArgs(raw)})
			i = k
			continue
		case (s.l == langPerl || s.l == langRuby) && k < len(code) && k > j && (code[k] == '$' || code[k] == '@') && callKind(s.l, name) != kindNone:
			// system @ARGV, exec $cmd: arguments only known at run time.
			calls = append(calls, call{name: name, raw: code[k:], args: []expr{{text: code[k:], dynamic: true}}})
			i = k
			continue
		case (s.l == langPerl || s.l == langRuby || s.l == langAwk || s.l == langPHP || s.l == langAppleScript) && k < len(code) && k > j && (code[k] == '"' || code[k] == '\'') && callKind(s.l, name) != kindNone:
			// system "cmd" without parentheses, up to the end of the statement.
			end := k
			for end < len(code) && code[end] != ';' && code[end] != '\n' && code[end] != '}' {
				if s.isQuote(end) {
					e, _, _ := s.skipString(end)
					end = e
					continue
				}
				end++
			}
			raw := code[k:min(end, len(code))]
			calls = append(calls, call{name: name, raw: raw, args: s.splitArgs(raw)})
			i = k
			continue
		case (name == "eval" || name == ".eval" || name == "exec") && s.l == langJS:
			s.evalRef = true
		case s.l == langAppleScript && name == "do":
			rest := strings.TrimSpace(code[j:])
			if strings.HasPrefix(rest, "shell script") {
				k2 := len(code) - len(rest) + len("shell script")
				calls = append(calls, call{name: "do shell script", raw: code[k2:], args: s.splitArgs(strings.SplitN(code[k2:], "\n", 2)[0])})
			} else if strings.HasPrefix(rest, "script") {
				// tell application "Terminal" to do script "…"
				k2 := len(code) - len(rest) + len("script")
				calls = append(calls, call{name: "do script", raw: code[k2:], args: s.splitArgs(strings.SplitN(code[k2:], "\n", 2)[0])})
			}
		case s.l == langAppleScript && (name == "keystroke" || name == "write"):
			if strings.Contains(code, "System Events") || strings.Contains(code, "iTerm") || strings.Contains(code, "Terminal") {
				calls = append(calls, call{name: "do script", raw: code[j:]})
			}
		}
		i = j
	}
	return calls, shells
}

// awkPipe handles awk's "cmd" | getline and print … | "cmd" after the
// string literal ending at end.
func (s *scanner) awkPipe(end int, val string, static bool) []expr {
	code := s.code
	k := end
	for k < len(code) && (code[k] == ' ' || code[k] == '\t') {
		k++
	}
	if k >= len(code) || code[k] != '|' || (k+1 < len(code) && code[k+1] == '|') {
		return nil
	}
	rest := strings.TrimLeft(code[k+1:], " \t")
	if strings.HasPrefix(rest, "getline") {
		return []expr{{text: val, str: val, isStr: static, dynamic: !static}}
	}
	if rest == "" || (rest[0] != '"' && rest[0] != '\'') {
		return nil
	}
	_, cmd, ok := s.skipString(len(code) - len(rest))
	out := []expr{{text: cmd, str: cmd, isStr: ok, dynamic: !ok}}
	if f := strings.Fields(cmd); len(f) == 1 && shell.IsShell(shell.CommandName(f[0])) {
		// print "code" | "sh": the printed text is the script.
		out = append(out, expr{text: val, str: val, isStr: static, dynamic: !static})
	}
	return out
}

// splitArgs splits call arguments at top-level commas.
func (s *scanner) splitArgs(raw string) []expr {
	sub := &scanner{l: s.l, code: raw}
	var out []expr
	start := 0
	depth := 0
	for i := 0; i < len(raw); i++ {
		if sub.isQuote(i) {
			end, _, _ := sub.skipString(i)
			i = end - 1
			continue
		}
		switch raw[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, sub.expr(strings.TrimSpace(raw[start:i])))
				start = i + 1
			}
		}
	}
	if t := strings.TrimSpace(raw[start:]); t != "" {
		out = append(out, sub.expr(t))
	}
	return out
}

// expr evaluates a literal argument: a string (with concatenations of
// strings), or a list of them.
func (s *scanner) expr(t string) expr {
	e := expr{text: t}
	if t == "" {
		e.dynamic = true
		return e
	}
	if s.l == langPython || s.l == langRuby {
		// name=value (Python) and name: value (Ruby) keyword arguments:
		// the value counts.
		k := 0
		for k < len(t) && isIdent(t[k]) {
			k++
		}
		if k > 0 && k+1 < len(t) && (t[k] == '=' && t[k+1] != '=' || s.l == langRuby && t[k] == ':' && t[k+1] == ' ') {
			v := s.expr(strings.TrimSpace(t[k+1:]))
			v.text = t
			return v
		}
	}
	if (t[0] == '[' && t[len(t)-1] == ']') || (s.l == langPython && t[0] == '(' && t[len(t)-1] == ')' && strings.Contains(t, ",")) {
		e.isList = true
		e.list = s.splitArgs(t[1 : len(t)-1])
		return e
	}
	if s.l == langPerl && strings.HasPrefix(t, "qw") && len(t) > 3 {
		e.isList = true
		for _, w := range strings.Fields(t[3 : len(t)-1]) {
			e.list = append(e.list, expr{text: w, str: w, isStr: true})
		}
		return e
	}
	// "a" + "b", "a" . "b", 'a' "b"
	sub := &scanner{l: s.l, code: t}
	var sb strings.Builder
	i := 0
	// Python string prefixes: r, b, u; f-strings are dynamic.
	for i < len(t) {
		for i < len(t) && (t[i] == ' ' || t[i] == '+' || (t[i] == '.' && s.l != langJS) || t[i] == '\t') {
			i++
		}
		if i >= len(t) {
			break
		}
		if s.l == langPython && i+1 < len(t) && strings.IndexByte("rRbBuU", t[i]) >= 0 && (t[i+1] == '"' || t[i+1] == '\'') {
			i++
		}
		if s.l == langPython && i+1 < len(t) && (t[i] == 'f' || t[i] == 'F') && (t[i+1] == '"' || t[i+1] == '\'') {
			e.dynamic = true
			return e
		}
		if !sub.isQuote(i) {
			e.dynamic = true
			return e
		}
		end, val, static := sub.skipString(i)
		if !static {
			e.dynamic = true
			return e
		}
		sb.WriteString(val)
		i = end
	}
	e.str, e.isStr = sb.String(), true
	return e
}

// callKinds says what a called function does.
type kind int

const (
	kindNone     kind = iota
	kindShell         // runs its string argument with a shell
	kindArgv          // runs a program with arguments (list, or program + list)
	kindExecl         // program, then each argument separately (os.execl, system LIST)
	kindRmTree        // deletes a directory tree
	kindRemove        // deletes a file
	kindWrite         // opens a file for writing
	kindOpen          // opens a file; writing when the mode says so
	kindRead          // reads a file
	kindEvalCode      // evaluates code of the same language
	kindEscape        // runs a command outside the sandbox (Terminal's do script)
)

func callKind(l lang, name string) kind {
	last := name
	recv := ""
	if i := strings.LastIndexAny(name, ".:"); i >= 0 {
		last, recv = name[i+1:], strings.TrimRight(name[:i], ":")
	}
	switch l {
	case langPython:
		switch name {
		case "os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput", "commands.getoutput", "asyncio.create_subprocess_shell", "platform.popen":
			return kindShell
		case "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output", "subprocess.Popen", "pty.spawn", "sp.run", "sp.call", "sp.Popen", "sp.check_output", "sp.check_call":
			return kindArgv
		case "asyncio.create_subprocess_exec", "os.execl", "os.execlp", "os.execle", "os.execlpe", "os.spawnl", "os.spawnlp", "os.posix_spawn", "os.posix_spawnp":
			return kindExecl
		case "os.execv", "os.execvp", "os.execve", "os.execvpe", "os.spawnv", "os.spawnvp":
			return kindArgv
		case "shutil.rmtree", "os.removedirs":
			return kindRmTree
		case "os.remove", "os.unlink", "os.rmdir", "os.truncate":
			return kindRemove
		case "open", "io.open", "codecs.open", "os.open":
			return kindOpen
		case "exec", "eval", "compile":
			return kindEvalCode
		case "shutil.copy", "shutil.copyfile", "shutil.copy2", "shutil.move", "shutil.copytree", "os.rename", "os.replace", "os.symlink", "os.chmod", "os.chown", "os.makedirs", "os.mkdir":
			return kindWrite
		}
		switch last {
		case "run", "call", "check_call", "check_output", "Popen":
			if recv == "subprocess" {
				return kindArgv
			}
		case "write_text", "write_bytes":
			return kindWrite
		case "system", "popen":
			if recv == "os" || recv == "" && strings.HasPrefix(name, ".") {
				return kindShell
			}
		}
	case langJS:
		recv = strings.TrimPrefix(recv, ".")
		switch last {
		case "execSync", "exec":
			if last == "exec" && recv != "" && recv != "child_process" && recv != "cp" && recv != "childProcess" && !strings.HasSuffix(recv, "child_process')") {
				return kindNone
			}
			return kindShell
		case "spawnSync", "spawn", "execFile", "execFileSync":
			if last == "spawn" && recv == "Bun" {
				return kindArgv
			}
			return kindExecl
		case "rmSync", "rm", "rmdirSync", "rmdir":
			if recv == "Deno" ||
				recv == "fs" || recv == "fsp" || recv == "fs.promises" || recv == "promises" || recv == "fse" || (recv == "" && strings.HasPrefix(name, ".")) || last == "rmSync" || last == "rmdirSync" {
				return kindRemove
			}
		case "rimraf", "sync", "removeSync", "remove", "emptyDirSync":
			if last == "rimraf" || recv == "rimraf" || recv == "fse" || recv == "fs-extra" {
				return kindRmTree
			}
			if recv == "Deno" {
				return kindRemove
			}
		case "unlinkSync", "unlink":
			if recv == "fs" || recv == "fsp" || recv == "fs.promises" || last == "unlinkSync" || strings.HasPrefix(name, ".") {
				return kindRemove
			}
		case "writeFileSync", "writeFile", "appendFileSync", "appendFile", "createWriteStream", "copyFileSync", "renameSync", "symlinkSync", "chmodSync", "mkdirSync", "cpSync",
			"truncateSync", "truncate", "copyFile", "rename", "symlink", "chmod", "chown", "chownSync", "mkdir", "cp", "writeTextFileSync", "writeTextFile", "utimesSync", "linkSync", "link":
			if slices.Contains([]string{"rename", "symlink", "chmod", "chown", "mkdir", "cp", "link", "truncate", "copyFile"}, last) && !(recv == "fs" || recv == "fsp" || recv == "fs.promises" || recv == "promises" || recv == "fse" || recv == "Deno") {
				return kindNone
			}
			return kindWrite
		case "openSync", "open":
			if recv == "fs" || recv == "fsp" || recv == "fs.promises" || recv == "promises" || last == "openSync" {
				return kindOpen
			}

		case "readFileSync", "readFile", "createReadStream", "readdirSync":
			return kindRead
		case "eval", "Function", "runInThisContext", "runInNewContext":
			return kindEvalCode
		case "Command":
			if recv == "Deno" || recv == "new Deno" {
				return kindExecl
			}
		}
	case langPerl:
		switch last {
		case "system", "exec":
			return kindExecl
		case "rmtree", "remove_tree":
			return kindRmTree
		case "unlink", "rmdir":
			return kindRemove
		case "open":
			return kindOpen
		case "eval":
			return kindEvalCode
		}
	case langRuby:
		switch {
		case last == "system" || last == "exec" || last == "spawn":
			return kindExecl
		case recv == "IO" && last == "popen", recv == "Open3":
			return kindShell
		case recv == "FileUtils" && (last == "rm_rf" || last == "rm_r" || last == "remove_dir" || last == "rmtree" || last == "remove_entry" || last == "remove_entry_secure"):
			return kindRmTree
		case (recv == "FileUtils" && (last == "rm" || last == "rm_f" || last == "remove")) || (recv == "File" && (last == "delete" || last == "unlink")):
			return kindRemove
		case recv == "File" && last == "open":
			return kindOpen
		case (recv == "File" || recv == "IO") && (last == "write" || last == "binwrite"), recv == "FileUtils" && slices.Contains([]string{"touch", "mkdir", "mkdir_p", "makedirs", "chmod", "chmod_R", "chown", "chown_R", "cp", "cp_r", "copy", "copy_file", "mv", "move", "ln", "ln_s", "ln_sf", "install"}, last), recv == "File" && slices.Contains([]string{"rename", "symlink", "chmod", "truncate"}, last), recv == "Dir" && last == "mkdir":
			return kindWrite
		case recv == "Dir" && (last == "rmdir" || last == "delete" || last == "unlink"):
			return kindRemove
		case last == "eval" || last == "instance_eval":
			return kindEvalCode
		}
	case langPHP:
		switch last {
		case "system", "exec", "shell_exec", "passthru", "popen", "proc_open":
			return kindShell
		case "pcntl_exec":
			return kindArgv
		case "unlink", "rmdir":
			return kindRemove
		case "file_put_contents", "fopen", "copy", "rename", "chmod", "mkdir", "symlink":
			return kindWrite
		case "file_get_contents", "readfile", "file":
			return kindRead
		case "eval", "assert", "create_function":
			return kindEvalCode
		}
	case langLua:
		switch name {
		case "os.execute", "io.popen":
			return kindShell
		case "os.remove":
			return kindRemove
		case "io.open":
			return kindOpen
		case "load", "loadstring", "dofile":
			return kindEvalCode
		}
	case langAwk:
		if name == "system" {
			return kindShell
		}
	case langR:
		switch name {
		case "system", "shell", "system2", "processx::run", "sys::exec_wait":
			if name == "system2" {
				return kindExecl
			}
			return kindShell
		case "unlink":
			return kindRmTree
		case "file.remove":
			return kindRemove
		case "writeLines", "write", "cat", "saveRDS":
			return kindNone
		case "eval", "parse":
			return kindEvalCode
		}
	case langAppleScript:
		if name == "do shell script" {
			return kindShell
		}
		if name == "do script" {
			return kindEscape
		}
	}
	return kindNone
}

// scanCode classifies the commands interpreter code runs and the files it
// touches.
func (j *judge) scanCode(c *shell.Command, l lang, code string) {
	if j.scanDepth > 4 || code == "" {
		return
	}
	j.scanDepth++
	defer func() { j.scanDepth-- }()
	if len(code) > maxScriptRead {
		code = code[:maxScriptRead]
	}
	s := &scanner{l: l, code: code}
	s.imports()
	calls, shells := s.scan()
	who := langNames[l]
	if who == "" {
		who = c.Name()
	}
	dynamicRun := false
	for _, sh := range shells {
		if sh.isStr {
			j.nestedScript(c, who, sh.str)
		} else {
			dynamicRun = true
			j.hit(c, ruleDynamicCommand, "%s code runs a shell command built at run time", who)
		}
	}
	for _, cl := range calls {
		k := callKind(l, cl.name)
		switch k {
		case kindShell:
			if len(cl.args) == 0 {
				continue
			}
			a := cl.args[0]
			switch {
			case a.isStr:
				j.nestedScript(c, who, a.str)
			case a.isList:
				j.nestedArgv(c, who, cl.name, a.list)
			default:
				dynamicRun = true
				j.hit(c, ruleDynamicCommand, "%s code runs %s with a command built at run time", who, cl.name)
			}
		case kindArgv, kindExecl:
			if len(cl.args) == 0 {
				continue
			}
			a := cl.args[0]
			var argv []expr
			switch {
			case a.isList:
				argv = a.list
			case a.isStr && k == kindArgv && l == langPython && !strings.Contains(cl.raw, "shell=True") && len(cl.args) == 1:
				argv = []expr{a}
			case a.isStr && k == kindArgv && strings.Contains(cl.raw, "shell=True"):
				j.nestedScript(c, who, a.str)
				continue
			case a.isStr:
				argv = []expr{a}
				for _, x := range cl.args[1:] {
					if x.isList {
						argv = append(argv, x.list...)
						break
					}
					if x.isStr && k == kindExecl {
						argv = append(argv, x)
					}
				}
				if (l == langPerl || l == langRuby) && len(cl.args) == 1 {
					// system "string" with one argument goes through a shell.
					j.nestedScript(c, who, a.str)
					continue
				}
				if l == langJS && strings.Contains(cl.raw, "shell: true") || strings.Contains(cl.raw, "shell:true") {
					var parts []string
					for _, x := range argv {
						parts = append(parts, x.str)
					}
					j.nestedScript(c, who, strings.Join(parts, " "))
					continue
				}
			default:
				dynamicRun = true
				j.hit(c, ruleDynamicCommand, "%s code runs %s with a command built at run time", who, cl.name)
				continue
			}
			j.nestedArgv(c, who, cl.name, argv)
		case kindRmTree:
			j.hit(c, ruleRecursiveRm, "%s code deletes a directory tree (%s)", who, cl.name)
			j.codePath(c, who, cl, true)
		case kindRemove:
			if l == langJS && strings.Contains(cl.raw, "recursive") {
				j.hit(c, ruleRecursiveRm, "%s code deletes a directory tree (%s)", who, cl.name)
			}
			j.codePath(c, who, cl, true)
		case kindWrite:
			j.codePath(c, who, cl, true)
		case kindOpen:
			j.codePath(c, who, cl, openWrites(cl))
		case kindRead:
			j.codePath(c, who, cl, false)
		case kindEscape:
			j.hit(c, ruleSandboxEscape, "%s code makes another application run commands, outside the sandbox", who)
			if len(cl.args) > 0 && cl.args[0].isStr {
				j.nestedScript(c, who, cl.args[0].str)
			}
		case kindEvalCode:
			if len(cl.args) > 0 && cl.args[0].isStr {
				j.scanCode(c, l, cl.args[0].str)
			} else if len(cl.args) > 0 {
				dynamicRun = true
				if cl.name != "assert" && cl.name != "dofile" && !(l == langR && cl.name == "eval") {
					j.hit(c, ruleDynamicCommand, "%s code runs code built at run time (%s)", who, cl.name)
				}
			}
		}
		if l == langPython && cl.recv != nil {
			j.pathMethod(c, who, cl)
		}
	}
	for _, f := range s.redirs {
		j.codeWrite(c, who, "print >", f)
	}
	j.codeLiterals(c, who, code, s.lits)
	if s.evalRef {
		dynamicRun = true
	}
	if dynamicRun && fetchesNetwork(code) {
		j.hit(c, rulePipeToShell, "%s code runs code or commands built from data it fetches from the network", who)
	}
	j.flattened(c, who, code)
}

// openWrites reports whether an open() call opens for writing.
func openWrites(cl call) bool {
	if len(cl.args) == 0 {
		return false
	}
	if a, ok := perlOpenPath(cl); ok {
		return strings.HasPrefix(a, ">") || strings.HasPrefix(a, "+") || strings.HasPrefix(a, "|")
	}
	if strings.HasPrefix(cl.args[0].str, ">") || strings.HasPrefix(cl.args[0].str, "+") {
		return true
	}
	for _, a := range cl.args[1:] {
		if a.isStr && (strings.ContainsAny(a.str, "wax+>") && len(a.str) <= 4) {
			return true
		}
		if strings.Contains(a.text, "O_WRONLY") || strings.Contains(a.text, "O_RDWR") || strings.Contains(a.text, "O_CREAT") {
			return true
		}
	}
	return false
}

// codePath checks the file a call touches.
func (j *judge) codePath(c *shell.Command, who string, cl call, writes bool) {
	if len(cl.args) == 0 {
		return
	}
	a := cl.args[0]
	if cl.name == "shutil.copy" || cl.name == "shutil.copyfile" || cl.name == "shutil.copy2" || cl.name == "shutil.move" || cl.name == "shutil.copytree" || cl.name == "os.rename" || cl.name == "os.replace" || strings.HasSuffix(cl.name, "copyFileSync") || strings.HasSuffix(cl.name, "renameSync") || cl.name == "copy" || cl.name == "rename" {
		if len(cl.args) > 1 {
			j.codeRead(c, who, a)
			a = cl.args[1]
		}
	}
	if mp, ok := perlOpenPath(cl); ok {
		// open(F, ">path"), open(my $f, ">", "path"): the mode leads.
		a = expr{str: strings.TrimLeft(mp, "<>+|- "), isStr: true}
	} else if k := len(cl.args) - 1; k >= 1 && writes && slices.Contains([]string{"cp", "cp_r", "mv", "move", "copy", "copy_file", "install", "ln", "ln_s", "ln_sf", "rename", "symlink", "copyFile", "cpSync", "link", "linkSync", "symlinkSync"}, lastName(cl.name)) {
		// (source, destination): the destination is written.
		j.codeRead(c, who, cl.args[0])
		a = cl.args[1]
	}
	if !a.isStr {
		if writes && a.dynamic {
			if p, ok := homeJoin(a.text, j.env); ok {
				j.codeWrite(c, who, cl.name, p)
			} else if k := callKind(langPython, cl.name); k == kindRmTree || k == kindRemove || slices.Contains([]string{"rmtree", "remove_tree", "rm_rf", "rm_r", "rmSync", "unlinkSync", "unlink", "remove", "removedirs", "rmdir", "rimraf", "removeSync", "delete"}, lastName(cl.name)) {
				j.hit(c, ruleDynamicTarget, "%s code (%s) deletes a path only known at run time", who, cl.name)
			}
		}
		return
	}
	if strings.HasPrefix(a.str, ">") || strings.HasPrefix(a.str, "<") || strings.HasPrefix(a.str, "+") {
		a.str = strings.TrimLeft(a.str, "<>+ ")
	}
	if !writes {
		j.codeRead(c, who, a)
		return
	}
	j.codeWrite(c, who, cl.name, a.str)
}

func (j *judge) codeRead(c *shell.Command, who string, a expr) {
	if !a.isStr {
		return
	}
	if p, ok := j.env.resolve(c, shell.Static(a.str)); ok {
		if s, ok := j.env.isSensitive(p); ok {
			j.hit(c, ruleCredentialPath, "%s code reads %s, a credential path", who, s)
		}
	}
}

func (j *judge) codeWrite(c *shell.Command, who, fn, p string) {
	abs, ok := j.env.resolve(c, shell.Static(p))
	if !ok {
		return
	}
	j.writePath(c, abs, who+" code ("+fn+") writes")
}

// homeJoin recognises os.path.join(os.path.expanduser("~"), ".ssh") and
// path.join(os.homedir(), ".ssh") style arguments.
func homeJoin(text string, e *env) (string, bool) {
	if e.home == "" || !mentionsHome(text) {
		return "", false
	}
	s := &scanner{l: langPython, code: text}
	s.scan()
	for _, lit := range s.lits {
		lit = strings.TrimPrefix(strings.TrimPrefix(lit, "~"), "/")
		if lit != "" && lit[0] == '.' {
			return e.home + "/" + lit, true
		}
	}
	return "", false
}

func mentionsHome(code string) bool {
	for _, h := range []string{"expanduser", "homedir", "home()", "'HOME'", "\"HOME\"", "{HOME}", "$HOME", "USERPROFILE", "getpwuid", "UserHomeDir", "Dir.home", "os.homedir", "File.expand_path", "\"~\"", "'~'", "~/", "env.HOME", "env:HOME", "user.home"} {
		if strings.Contains(code, h) {
			return true
		}
	}
	return false
}

// codeLiterals flags string literals naming credential paths: absolute
// or ~/ paths always, home-relative names (".ssh/id_rsa") when the code
// also refers to the home directory.
func (j *judge) codeLiterals(c *shell.Command, who, code string, lits []string) {
	e := j.env
	for _, lit := range lits {
		if len(lit) > 4096 || lit == "" {
			continue
		}
		if strings.HasPrefix(lit, "~/") || strings.HasPrefix(lit, "/") {
			if p, ok := e.resolve(c, shell.Static(strings.Fields(lit + " ")[0])); ok {
				if s, ok := e.isSensitive(p); ok {
					j.hit(c, ruleCredentialPath, "%s code names %s, a credential path", who, s)
					return
				}
			}
		}
	}
	if e.home == "" || !mentionsHome(code) {
		return
	}
	for _, lit := range lits {
		l := strings.TrimPrefix(lit, "/")
		if l == "" || l[0] != '.' || strings.ContainsAny(l, " \n") || len(l) > 256 {
			continue
		}
		p := e.home + "/" + strings.TrimSuffix(l, "/")
		if s, ok := e.isSensitive(p); ok && under(s, e.home) {
			j.hit(c, ruleCredentialPath, "%s code names %s, a credential path in the home directory", who, "~/"+l)
			return
		}
	}
}

// fetchesNetwork reports whether code fetches data from the network.
func fetchesNetwork(code string) bool {
	for _, n := range []string{"urlopen", "urllib", "requests.get", "requests.post", "http.client", "httpx", "fetch(", "https.get", "http.get", "axios", "LWP::", "HTTP::Tiny", "open-uri", "Net::HTTP", "URI.open", "file_get_contents('http", "file_get_contents(\"http", "curl_exec", "socket.create_connection", "IO::Socket", "WebClient", "Invoke-WebRequest", "http.request"} {
		if strings.Contains(code, n) {
			return true
		}
	}
	return false
}

// nestedScript classifies shell code found in interpreter code.
func (j *judge) nestedScript(c *shell.Command, who, script string) {
	opts := j.env.shellOptions()
	if c.DirKnown {
		opts.Cwd = c.Dir
	}
	prog := shell.Parse(script, opts)
	j.nested(prog, who)
}

func (j *judge) nestedArgv(c *shell.Command, who, fn string, argv []expr) {
	var words []string
	for _, a := range argv {
		if !a.isStr {
			if len(words) == 0 {
				j.hit(c, ruleDynamicCommand, "%s code runs %s with a program chosen at run time", who, fn)
				return
			}
			words = append(words, "${"+strconv.Quote(a.text)+"}")
			continue
		}
		words = append(words, a.str)
	}
	if len(words) == 0 {
		return
	}
	opts := j.env.shellOptions()
	if c.DirKnown {
		opts.Cwd = c.Dir
	}
	prog := shell.ParseArgv(words, opts)
	// Arguments the code computes at run time: mark them dynamic.
	for _, nc := range prog.Commands {
		for i := range nc.Args {
			if strings.HasPrefix(nc.Args[i].Value, "${\"") {
				nc.Args[i].Dynamic = true
				nc.Args[i].Prefix = ""
			}
		}
	}
	j.nested(prog, who)
}

func (j *judge) nested(prog *shell.Program, who string) {
	for _, is := range prog.Issues {
		j.hit(nil, ruleParseError, "cannot parse a command in %s code: %s", who, is.Detail)
	}
	for _, nc := range prog.Commands {
		j.command(nc)
	}
	j.userRules(prog)
}

// triggers are command names worth looking for in flattened code.
var triggers = map[string]bool{"sudo": true, "su": true, "doas": true, "pkexec": true, "rm": true, "git": true, "dd": true,
	"chmod": true, "chown": true, "shred": true, "truncate": true, "crontab": true, "shutdown": true, "reboot": true,
	"poweroff": true, "halt": true, "systemctl": true, "mkfs": true, "mke2fs": true, "wipefs": true, "fdisk": true,
	"find": true, "mkswap": true, "parted": true, "safeexec": true, "diskutil": true, "format-volume": true, "reg": true,
	"vssadmin": true, "remove-item": true}

// flattened matches a copy of the code with quotes, commas and brackets
// turned into blanks: what reads like a dangerous command raises the
// verdict to needs_confirmation, never more.
func (j *judge) flattened(c *shell.Command, who, code string) {
	if len(code) > 64<<10 {
		code = code[:64<<10]
	}
	flat := strings.Map(func(r rune) rune {
		switch r {
		case '"', '\'', '`', ',', '(', ')', '[', ']', '{', '}', '+':
			return ' '
		case ';', '\n', '|', '&':
			return '\n'
		}
		return r
	}, code)
	sub := &judge{env: j.env, scanDepth: 99}
	for _, line := range strings.Split(flat, "\n") {
		toks := strings.Fields(line)
		for i, t := range toks {
			name := strings.ToLower(t)
			if k := strings.LastIndexByte(name, '/'); k >= 0 {
				name = name[k+1:]
			}
			if !triggers[name] && !strings.HasPrefix(name, "mkfs.") {
				continue
			}
			end := min(len(toks), i+12)
			prog := shell.ParseArgv(toks[i:end], j.env.shellOptions())
			for _, nc := range prog.Commands {
				sub.command(nc)
			}
		}
	}
	for _, r := range sub.reasons {
		if r.Tier == Safe || r.Rule == ruleNoSandbox.String() {
			continue
		}
		j.hit(c, ruleInterpreterCode, "%s code reads like a command the %s rule flags: %s", who, r.Rule, r.Command)
	}
}

// pathMethod judges pathlib methods called on Path("literal"): the
// writes, deletions and reads of that path.
func (j *judge) pathMethod(c *shell.Command, who string, cl call) {
	r := cl.recv
	switch r.name {
	case "Path", "pathlib.Path", "PosixPath", "pathlib.PosixPath", "PurePath", "pathlib.PurePath", "WindowsPath":
	default:
		return
	}
	if len(r.args) == 0 || !r.args[0].isStr {
		return
	}
	p := r.args[0].str
	switch cl.name {
	case ".write_text", ".write_bytes", ".touch", ".mkdir", ".unlink", ".rmdir", ".chmod", ".lchmod", ".symlink_to", ".hardlink_to", ".rename", ".replace":
		j.codeWrite(c, who, "Path"+cl.name, p)
		if (cl.name == ".rename" || cl.name == ".replace") && len(cl.args) > 0 && cl.args[0].isStr {
			j.codeWrite(c, who, "Path"+cl.name, cl.args[0].str)
		}
	case ".open":
		if len(cl.args) > 0 && cl.args[0].isStr && strings.ContainsAny(cl.args[0].str, "wax+") {
			j.codeWrite(c, who, "Path.open", p)
		} else {
			j.codeRead(c, who, expr{str: p, isStr: true})
		}
	case ".read_text", ".read_bytes":
		j.codeRead(c, who, expr{str: p, isStr: true})
	}
}

// imports collects the names the code binds to modules and their
// functions, so that calls through them are recognised.
func (s *scanner) imports() {
	code := s.code
	add := func(local, target string) {
		local, target = strings.TrimSpace(local), strings.TrimSpace(target)
		if local == "" || target == "" || local == target || !isIdentStart(local[0]) {
			return
		}
		if s.aliases == nil {
			s.aliases = make(map[string]string)
		}
		if len(s.aliases) < 256 {
			s.aliases[local] = target
		}
	}
	for _, stmt := range strings.FieldsFunc(code, func(r rune) bool { return r == '\n' || r == ';' }) {
		st := strings.TrimSpace(stmt)
		switch s.l {
		case langPython:
			if rest, ok := strings.CutPrefix(st, "import "); ok {
				for _, part := range strings.Split(rest, ",") {
					if mod, as, ok := strings.Cut(part, " as "); ok {
						add(as, mod)
					}
				}
			} else if rest, ok := strings.CutPrefix(st, "from "); ok {
				mod, names, ok := strings.Cut(rest, " import ")
				if !ok {
					continue
				}
				mod = strings.TrimSpace(mod)
				names = strings.Trim(strings.TrimSpace(names), "()")
				if names == "*" {
					s.stars = append(s.stars, mod)
					continue
				}
				for _, part := range strings.Split(names, ",") {
					n, as, ok := strings.Cut(part, " as ")
					if !ok {
						as = n
					}
					add(as, mod+"."+strings.TrimSpace(n))
				}
			}
		case langJS:
			// const x = require('m'); const {a, b: c} = require('m');
			// import x from 'm'; import * as x from 'm'; import {a as b} from 'm'
			mod := ""
			lhs := ""
			if k := strings.Index(st, "require("); k >= 0 {
				_, lit, ok := (&scanner{l: langJS, code: st}).skipString(min(k+8, len(st)-1))
				if !ok || k+8 >= len(st) {
					continue
				}
				mod = lit
				if eq := strings.IndexByte(st[:k], '='); eq >= 0 {
					lhs = st[:eq]
					for _, kw := range []string{"const ", "let ", "var "} {
						if i := strings.Index(lhs, kw); i >= 0 {
							lhs = lhs[i+len(kw):]
						}
					}
				}
			} else if rest, ok := strings.CutPrefix(st, "import "); ok {
				l, m, ok := strings.Cut(rest, " from ")
				if !ok {
					continue
				}
				m = strings.TrimSpace(m)
				if len(m) >= 2 {
					mod = m[1 : len(m)-1]
				}
				lhs = strings.Replace(strings.TrimPrefix(strings.TrimSpace(l), "* as "), " as ", ":", -1)
			}
			mod = strings.TrimPrefix(mod, "node:")
			mod = strings.ReplaceAll(mod, "/", ".")
			lhs = strings.TrimSpace(lhs)
			if mod == "" || lhs == "" {
				continue
			}
			if lhs[0] == '{' {
				for _, part := range strings.Split(strings.Trim(lhs, "{} "), ",") {
					n, as, ok := strings.Cut(part, ":")
					if !ok {
						as = n
					}
					add(as, mod+"."+strings.TrimSpace(n))
				}
				continue
			}
			add(lhs, mod)
		case langRuby:
			if rest, ok := strings.CutPrefix(st, "include "); ok {
				s.stars = append(s.stars, strings.TrimSpace(rest))
			}
		}
	}
}

// resolve rewrites a called name through the code's aliases.
func (s *scanner) resolve(name string) string {
	if len(s.aliases) == 0 && len(s.stars) == 0 {
		return name
	}
	head, tail, dotted := strings.Cut(name, ".")
	if t, ok := s.aliases[head]; ok {
		if dotted {
			return t + "." + tail
		}
		return t
	}
	if !dotted {
		for _, m := range s.stars {
			if callKind(s.l, m+"."+name) != kindNone {
				return m + "." + name
			}
		}
	}
	return name
}

func lastName(name string) string {
	if i := strings.LastIndexAny(name, ".:"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// perlOpenPath returns the mode-and-path text of Perl's open: the second
// argument (">file"), or the third after a mode of its own (">",
// "file").
func perlOpenPath(cl call) (string, bool) {
	if cl.name != "open" || len(cl.args) < 2 || !cl.args[1].isStr {
		return "", false
	}
	m := cl.args[1].str
	if len(cl.args) >= 3 && cl.args[2].isStr && strings.Trim(m, "<>+|-:raw:encodingutf8() ") == "" {
		return strings.TrimSpace(m) + cl.args[2].str, true
	}
	if len(cl.args) == 2 && strings.IndexAny(m, "<>|") >= 0 {
		return strings.TrimSpace(m), true
	}
	return "", false
}
