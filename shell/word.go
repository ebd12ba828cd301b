package shell

import (
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxBraces bounds brace expansion of one word; beyond it the word is
// treated as dynamic.
const maxBraces = 256

// fieldsOf evaluates command words into fields: brace expansion, tilde,
// parameters, command substitution, field splitting and quote removal.
// Anything not decidable statically yields a dynamic word.
func (p *parser) fieldsOf(words []*syntax.Word, sc *scope, fr *frame) []Word {
	var out []Word
	if len(words) > 0 {
		// Most words are one field each.
		out = p.wordSlice(len(words))
	}
	for _, w := range words {
		if !p.step() {
			return out
		}
		if syntax.SplitBraces(w) {
			n := 0
			ok := !nameBeforeBrace(w)
			var exp []*syntax.Word
			for bw, err := range expand.BracesSeq(nil, w) {
				n++
				if !ok || err != nil || n > maxBraces {
					ok = false
					break
				}
				exp = append(exp, bw)
			}
			if !ok {
				// Still walk nested code, then give up on the value.
				p.walkBraced(w, sc, fr)
				out = append(out, Word{Value: fr.text(w), Dynamic: true})
				continue
			}
			for _, bw := range exp {
				out = p.evalWord(out, bw, sc, fr, fr.text(w))
			}
			continue
		}
		out = p.evalWord(out, w, sc, fr, "")
	}
	return out
}

// single evaluates a word that is not split into fields (assignment
// values, redirection targets, case subjects).
func (p *parser) single(w *syntax.Word, sc *scope, fr *frame, assign bool) Word {
	if w == nil {
		return Static("")
	}
	b := wbuild{p: p, sc: sc, fr: fr, nosplit: true, assign: assign}
	b.parts(w.Parts, false, true)
	ws := b.finish(fr.text(w))
	if len(ws) == 0 {
		return Static("")
	}
	if len(ws) > 1 {
		// Cannot happen with nosplit; be safe.
		return Word{Value: fr.text(w), Dynamic: true}
	}
	return ws[0]
}

func (p *parser) assignValue(a *syntax.Assign, sc *scope, fr *frame) Word {
	if a.Array != nil {
		for _, el := range a.Array.Elems {
			if el.Value != nil {
				p.single(el.Value, sc, fr, false)
			}
		}
		return dynWord("$" + a.Name.Value)
	}
	if a.Index != nil {
		p.walkArith(a.Index, sc, fr)
	}
	if a.Value == nil {
		return Static("")
	}
	w := p.single(a.Value, sc, fr, true)
	if a.Append {
		old, ok := p.lookup(sc, a.Name.Value)
		if !ok || w.Dynamic {
			return Word{Value: "$" + a.Name.Value + w.Value, Dynamic: true, Taint: old.Taint | w.Taint}
		}
		v := old.Value + w.Value
		return Word{Value: v, Prefix: v, Taint: old.Taint | w.Taint}
	}
	return w
}

// heredoc evaluates a heredoc body; a quoted delimiter keeps it literal.
func (p *parser) heredoc(delim, body *syntax.Word, sc *scope, fr *frame) Word {
	quotedDelim := false
	for _, part := range delim.Parts {
		switch x := part.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quotedDelim = true
		case *syntax.Lit:
			if strings.Contains(x.Value, `\`) {
				quotedDelim = true
			}
		}
	}
	if quotedDelim {
		var sb strings.Builder
		for _, part := range body.Parts {
			if l, ok := part.(*syntax.Lit); ok {
				sb.WriteString(l.Value)
			}
		}
		return Static(sb.String())
	}
	b := wbuild{p: p, sc: sc, fr: fr, nosplit: true, heredoc: true}
	b.parts(body.Parts, true, false)
	ws := b.finish(fr.text(body))
	if len(ws) == 0 {
		return Static("")
	}
	return ws[0]
}

func (p *parser) evalWord(out []Word, w *syntax.Word, sc *scope, fr *frame, raw string) []Word {
	if len(w.Parts) == 1 {
		// Fast paths for the common plain words.
		switch x := w.Parts[0].(type) {
		case *syntax.Lit:
			if !specialLit(x.Value) {
				return append(out, Static(x.Value))
			}
		case *syntax.SglQuoted:
			if !x.Dollar {
				return append(out, Static(x.Value))
			}
		}
	}
	if raw == "" {
		raw = fr.text(w)
	}
	b := wbuild{p: p, sc: sc, fr: fr}
	b.parts(w.Parts, false, true)
	ws := b.finish(raw)
	if b.out != nil && len(ws) == 1 && (ws[0].Dynamic || ws[0].Proc) && soleSubst(w) {
		ws[0].Output = b.out
	}
	return append(out, ws...)
}

// specialLit reports whether a literal holds \ * ? [ or ~ (as
// strings.ContainsAny(s, "\\*?[~"), all ASCII: one pass over the bytes).
func specialLit(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', '*', '?', '[', '~':
			return true
		}
	}
	return false
}

// soleSubst reports whether a word is one command or process
// substitution, quoted or not, and nothing else.
func soleSubst(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part = dq.Parts[0]
	}
	switch part.(type) {
	case *syntax.CmdSubst, *syntax.ProcSubst:
		return true
	}
	return false
}

// wbuild accumulates the fields of one word.
type wbuild struct {
	p       *parser
	sc      *scope
	fr      *frame
	nosplit bool // no field splitting (assignment, redirection)
	assign  bool // tilde expansion after = and :
	heredoc bool // backslash rules of a heredoc body

	fields  []Word
	cur     strings.Builder
	started bool
	dyn     bool
	prefix  strings.Builder // static text before the first dynamic part
	suffix  strings.Builder // static text after the last dynamic part
	glob    bool
	taint   Taint
	proc    bool
	content string
	cknown  bool
	tooBig  bool
	out     *Command // the command a substitution in the word runs (Word.Output)
}

func (b *wbuild) lit(s string) {
	b.started = true
	if b.cur.Len()+len(s) > maxValue {
		b.tooBig = true
		b.dynamic()
		return
	}
	b.cur.WriteString(s)
	if !b.dyn {
		b.prefix.WriteString(s)
	} else if b.suffix.Len()+len(s) <= maxValue {
		b.suffix.WriteString(s)
	}
}

func (b *wbuild) dynamic() {
	b.dyn = true
	b.started = true
	b.suffix.Reset()
}

// dynamicWord adds a value only known at run time whose beginning may be
// known (a variable holding $(mktemp)).
func (b *wbuild) dynamicWord(w Word) {
	if !b.dyn && w.Prefix != "" && b.cur.Len()+len(w.Prefix) <= maxValue {
		b.prefix.WriteString(w.Prefix)
	}
	b.dynamic()
	b.suffix.WriteString(w.Suffix)
}

func (b *wbuild) ifs() (string, bool) {
	v, ok := b.sc.vars["IFS"]
	if !ok || v.unset {
		return " \t\n", true
	}
	if v.w.Dynamic {
		return "", false
	}
	return v.w.Value, true
}

// split adds an unquoted expansion result, splitting it into fields.
func (b *wbuild) split(s string) {
	if strings.ContainsAny(s, "*?[") {
		b.glob = true
	}
	if b.nosplit {
		b.lit(s)
		return
	}
	ifs, ok := b.ifs()
	if !ok {
		b.dynamic()
		return
	}
	if ifs == "" {
		if s != "" {
			b.lit(s)
		}
		return
	}
	isWS := func(r rune) bool { return strings.ContainsRune(ifs, r) && (r == ' ' || r == '\t' || r == '\n') }
	isSep := func(r rune) bool { return strings.ContainsRune(ifs, r) }
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isSep(r) {
			j := i
			for j < len(s) {
				r2, s2 := utf8.DecodeRuneInString(s[j:])
				if isSep(r2) {
					break
				}
				j += s2
			}
			b.lit(s[i:j])
			i = j
			continue
		}
		// A separator: end the current field.
		if isWS(r) {
			if b.started {
				b.flush()
			}
			i += size
			continue
		}
		b.started = true
		b.flush()
		i += size
	}
}

func (b *wbuild) flush() {
	if b.dyn {
		// Dynamic words are never split: the whole source word stays
		// one dynamic field, handled in finish.
		return
	}
	if !b.started {
		return
	}
	v := b.cur.String()
	b.fields = append(b.fields, Word{Value: v, Prefix: v, Glob: b.glob, Taint: b.taint})
	b.cur.Reset()
	b.prefix.Reset()
	b.started = false
	b.glob = false
}

func (b *wbuild) finish(raw string) []Word {
	if b.dyn {
		if raw == "" {
			raw = b.cur.String()
		}
		pre := b.prefix.String()
		if len(b.fields) > 0 {
			pre = ""
		}
		return []Word{{Value: raw, Dynamic: true, Prefix: pre, Suffix: b.suffix.String(), Glob: b.glob, Taint: b.taint | fieldsTaint(b.fields)}}
	}
	b.flush()
	if b.proc && len(b.fields) == 1 {
		b.fields[0].Proc = true
		b.fields[0].Content, b.fields[0].ContentKnown = b.content, b.cknown
	}
	return b.fields
}

func fieldsTaint(ws []Word) Taint {
	var t Taint
	for _, w := range ws {
		t |= w.Taint
	}
	return t
}

// parts evaluates word parts; first says the parts start the word (for
// tilde expansion).
func (b *wbuild) parts(parts []syntax.WordPart, quoted, first bool) {
	for i, part := range parts {
		switch x := part.(type) {
		case *syntax.Lit:
			s := x.Value
			if quoted {
				b.lit(unescapeDouble(s, b.heredoc))
				continue
			}
			v, glob := unescapeUnquoted(s)
			if glob {
				b.glob = true
			}
			// Tilde expansion applies to the unescaped text, so a home
			// directory holding backslashes (C:\Users\me) stays intact.
			if i == 0 && first && strings.HasPrefix(s, "~") && (strings.Contains(s, "/") || len(parts) == 1) && !strings.Contains(strings.SplitN(s, "/", 2)[0], `\`) {
				// Only a tilde prefix of plain characters is expanded
				// (~"$x" and ~$(…) stay literal).
				v = b.tilde(v)
			} else if i == 0 && first && strings.HasPrefix(s, "~") && !strings.Contains(s, "/") {
				// ~$USER, ~"$x": a home named at run time (bash leaves it
				// literal, other shells and an eval of it do not).
				b.taint |= Home
			} else if b.assign && strings.Contains(s, ":~") {
				v = b.assignTildes(v)
			}
			b.lit(v)
		case *syntax.SglQuoted:
			if x.Dollar {
				b.lit(ansiC(x.Value))
				if hiddenEscapes(x.Value) {
					b.taint |= Decoded
				}
			} else {
				b.lit(x.Value)
			}
		case *syntax.DblQuoted:
			b.started = true
			if len(x.Parts) == 1 {
				if pe, ok := x.Parts[0].(*syntax.ParamExp); ok && pe.Param != nil && pe.Param.Value == "@" && isSimpleParam(pe) && !b.nosplit {
					b.quotedAt()
					continue
				}
			}
			b.parts(x.Parts, true, false)
		case *syntax.ParamExp:
			w, ok := b.p.param(x, b.sc, b.fr)
			b.taint |= w.Taint
			if !ok {
				if isSimpleParam(x) && w.Dynamic {
					b.dynamicWord(w)
				} else {
					b.dynamic()
				}
				continue
			}
			if w.Glob {
				// A value that stands for the names a pattern matches (a
				// loop over a glob).
				b.glob = true
			}
			if quoted {
				b.lit(w.Value)
			} else {
				b.split(w.Value)
			}
		case *syntax.CmdSubst:
			w := b.p.cmdSubst(x, b.sc, b.fr)
			b.taint |= w.Taint
			b.out = w.Output
			if w.Dynamic {
				b.dynamicWord(w)
				continue
			}
			if quoted {
				b.lit(w.Value)
			} else {
				b.split(w.Value)
			}
		case *syntax.ProcSubst:
			w := b.p.procSubst(x, b.sc, b.fr)
			b.taint |= w.Taint
			b.out = w.Output
			b.proc = true
			b.content, b.cknown = w.Content, w.ContentKnown
			b.lit(w.Value)
		case *syntax.ArithmExp:
			b.p.walkArith(x.X, b.sc, b.fr)
			b.dynamic()
		case *syntax.ExtGlob:
			b.glob = true
			b.lit(x.Op.String() + x.Pattern.Value + ")")
		case *syntax.BraceExp:
			// Left over from a failed expansion: keep it literal.
			b.dynamic()
		default:
			b.dynamic()
		}
	}
}

// quotedAt expands "$@" into one field per positional parameter.
func (b *wbuild) quotedAt() {
	if !b.sc.posKnown {
		b.dynamic()
		return
	}
	if b.dyn {
		return
	}
	// "$@" joins to the text before and after at its ends only.
	for i, w := range b.sc.pos {
		if i > 0 {
			b.flush()
			b.started = true
		}
		if w.Dynamic {
			b.dynamic()
			return
		}
		b.taint |= w.Taint
		b.lit(w.Value)
	}
	if len(b.sc.pos) == 0 && b.cur.Len() == 0 {
		// "$@" with no parameters is no field at all.
		b.started = false
	}
}

func isSimpleParam(pe *syntax.ParamExp) bool {
	return !pe.Excl && !pe.Length && !pe.Width && pe.Index == nil && pe.Slice == nil && pe.Repl == nil && pe.Exp == nil && pe.Names == 0
}

func (b *wbuild) tilde(s string) string {
	end := strings.IndexByte(s, '/')
	if b.assign {
		if c := strings.IndexByte(s, ':'); c >= 0 && (end < 0 || c < end) {
			end = c
		}
	}
	name := s
	rest := ""
	if end >= 0 {
		name, rest = s[:end], s[end:]
	}
	if strings.ContainsAny(name, "'\"") {
		return s
	}
	switch name {
	case "~":
		if h, ok := b.p.lookup(b.sc, "HOME"); ok {
			return h.Value + rest
		}
		b.dynamic()
		return s
	case "~+":
		if b.sc.dirKnown {
			return b.sc.dir + rest
		}
		b.dynamic()
		return s
	case "~-":
		b.dynamic()
		return s
	}
	user := name[1:]
	if user == "root" {
		return "/root" + rest
	}
	if validName(user) {
		// Another user's home: the usual location on this platform.
		if h := b.p.opts.Home; h != "" {
			if i := strings.LastIndexByte(h, '/'); i > 0 {
				return h[:i+1] + user + rest
			}
		}
		return "/home/" + user + rest
	}
	return s
}

func (b *wbuild) assignTildes(s string) string {
	parts := strings.Split(s, ":")
	for i := 1; i < len(parts); i++ {
		if strings.HasPrefix(parts[i], "~") {
			parts[i] = b.tilde(parts[i])
		}
	}
	return strings.Join(parts, ":")
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c == '_' || c == '-' || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

// unescapeUnquoted removes backslash quoting from an unquoted literal and
// reports whether unescaped pattern characters remain.
func unescapeUnquoted(s string) (string, bool) {
	glob := false
	if !strings.ContainsAny(s, `\*?[`) {
		return s, false
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' {
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					sb.WriteByte(s[i])
				}
			}
			continue
		}
		if c == '*' || c == '?' || c == '[' {
			glob = true
		}
		sb.WriteByte(c)
	}
	return sb.String(), glob
}

// unescapeDouble applies the backslash rules inside double quotes (and
// heredoc bodies, where a double quote is not special).
func unescapeDouble(s string, heredoc bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			n := s[i+1]
			switch {
			case n == '\n':
				i++
				continue
			case n == '$' || n == '`' || n == '\\' || (n == '"' && !heredoc):
				sb.WriteByte(n)
				i++
				continue
			}
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// ansiC decodes the escapes of a $'…' string.
func ansiC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			sb.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			sb.WriteByte('\a')
		case 'b':
			sb.WriteByte('\b')
		case 'e', 'E':
			sb.WriteByte(0x1b)
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'v':
			sb.WriteByte('\v')
		case '\\', '\'', '"', '?':
			sb.WriteByte(e)
		case 'c':
			if i+1 < len(s) {
				i++
				sb.WriteByte(s[i] & 0x1f)
			} else {
				sb.WriteString(`\c`) // nothing to control: kept as written
			}
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				sb.WriteByte('\\')
				sb.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if e == 'x' {
				sb.WriteByte(byte(n))
			} else {
				sb.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			sb.WriteByte(byte(n))
			i = j - 1
		default:
			sb.WriteByte('\\')
			sb.WriteByte(e)
		}
	}
	// Bash stops a $'…' string at a NUL byte.
	out := sb.String()
	if k := strings.IndexByte(out, 0); k >= 0 {
		out = out[:k]
	}
	return out
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// param evaluates a parameter expansion; ok is false when it is dynamic.
func (p *parser) param(pe *syntax.ParamExp, sc *scope, fr *frame) (Word, bool) {
	// Nested code in the expansion's operands always gets classified.
	var opw Word
	hasOp := false
	if pe.Exp != nil && pe.Exp.Word != nil {
		opw = p.single(pe.Exp.Word, sc, fr, false)
		hasOp = true
		if patternQuoted(pe.Exp.Word) {
			// Quoted pattern characters match themselves.
			if pat, ok := literalPattern(pe.Exp.Word); ok && !opw.Dynamic {
				opw = Word{Value: pat, Prefix: pat, Taint: opw.Taint}
			} else {
				opw = Word{Value: opw.Value, Dynamic: true}
			}
		}
	}
	var replOrig, replWith Word
	if pe.Repl != nil {
		replOrig = p.single(pe.Repl.Orig, sc, fr, false)
		replWith = p.single(pe.Repl.With, sc, fr, false)
	}
	if pe.Index != nil {
		p.walkArith(pe.Index, sc, fr)
	}
	if pe.Slice != nil {
		p.walkArith(pe.Slice.Offset, sc, fr)
		p.walkArith(pe.Slice.Length, sc, fr)
	}
	if pe.Excl && pe.Param != nil && pe.Names == 0 {
		// ${!x}: the value of x is a name, maybe with a subscript.
		if v, ok := sc.vars[pe.Param.Value]; ok && !v.unset {
			p.nameSubscript(v.w, sc, fr)
		}
	}
	if pe.Excl && pe.Names == 0 && pe.Param != nil {
		// ${!x}: a variable picked by name at run time, maybe HOME.
		return Word{Value: fr.text(pe), Dynamic: true, Taint: Home}, false
	}
	if pe.Param == nil || pe.Excl || pe.Width || pe.Index != nil || pe.Names != 0 || pe.NestedParam != nil || pe.Flags != nil {
		return dynWord(fr.text(pe)), false
	}
	val, known, set := p.paramValue(pe.Param.Value, sc)
	if pe.Length {
		if !known {
			return dynWord(fr.text(pe)), false
		}
		return Static(strconv.Itoa(utf8.RuneCountInString(val.Value))), true
	}
	if pe.Exp != nil {
		op := pe.Exp.Op
		switch op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			if !known {
				return dynWord(fr.text(pe)), false
			}
			empty := !set || ((op == syntax.DefaultUnsetOrNull || op == syntax.AssignUnsetOrNull) && val.Value == "")
			if !empty {
				return val, true
			}
			if op == syntax.AssignUnset || op == syntax.AssignUnsetOrNull {
				sc.setVar(pe.Param.Value, varVal{w: opw})
			}
			return opw, !opw.Dynamic
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			if !known {
				return dynWord(fr.text(pe)), false
			}
			empty := !set || (op == syntax.AlternateUnsetOrNull && val.Value == "")
			if empty {
				return Static(""), true
			}
			return opw, !opw.Dynamic
		case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
			return val, known
		case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
			if !known || !hasOp || opw.Dynamic {
				return dynWord(fr.text(pe)), false
			}
			return Word{Value: trimPattern(val.Value, opw.Value, op), Prefix: "", Taint: val.Taint}.fix(), true
		case syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
			if !known || hasOp && opw.Value != "" {
				// ${x^^pat} changes only the letters matching pat: not
				// followed.
				return dynWord(fr.text(pe)), false
			}
			v := val.Value
			switch op {
			case syntax.UpperAll:
				v = strings.ToUpper(v)
			case syntax.LowerAll:
				v = strings.ToLower(v)
			case syntax.UpperFirst, syntax.LowerFirst:
				if r, n := utf8.DecodeRuneInString(v); n > 0 {
					f := strings.ToUpper
					if op == syntax.LowerFirst {
						f = strings.ToLower
					}
					v = f(string(r)) + v[n:]
				}
			}
			return Word{Value: v, Taint: val.Taint}.fix(), true
		case syntax.OtherParamOps:
			if hasOp && opw.Value == "P" {
				// ${x@P} expands x as a prompt string: the command
				// substitutions in its value run.
				if known {
					p.promptString(val.Value, sc, fr, nil)
				} else {
					p.emit(&Command{Args: []Word{{Value: fr.text(pe), Dynamic: true, Taint: val.Taint}}, Dir: sc.dir, DirKnown: sc.dirKnown}, fr.child(ConfigCommand, fr.parent, fr.src))
				}
			}
		}
		return dynWord(fr.text(pe)), false
	}
	if pe.Slice != nil {
		if !known {
			return dynWord(fr.text(pe)), false
		}
		off, ok1 := arithLit(pe.Slice.Offset)
		rs := []rune(val.Value)
		if !ok1 {
			return dynWord(fr.text(pe)), false
		}
		if off < 0 {
			off += len(rs)
		}
		if off < 0 || off > len(rs) {
			return Static(""), true
		}
		end := len(rs)
		if pe.Slice.Length != nil {
			n, ok2 := arithLit(pe.Slice.Length)
			if !ok2 {
				return dynWord(fr.text(pe)), false
			}
			if n < 0 {
				end += n
			} else if off+n < end {
				end = off + n
			}
		}
		if end < off {
			return dynWord(fr.text(pe)), false
		}
		return Word{Value: string(rs[off:end]), Taint: val.Taint}.fix(), true
	}
	if pe.Repl != nil {
		if !known || replOrig.Dynamic || replWith.Dynamic || strings.ContainsAny(replOrig.Value, "*?[") {
			return dynWord(fr.text(pe)), false
		}
		orig, with := replOrig.Value, replWith.Value
		v := val.Value
		switch {
		case strings.HasPrefix(orig, "#"):
			if o := orig[1:]; strings.HasPrefix(v, o) {
				v = with + v[len(o):]
			}
		case strings.HasPrefix(orig, "%"):
			if o := orig[1:]; strings.HasSuffix(v, o) {
				v = v[:len(v)-len(o)] + with
			}
		case orig == "":
		case pe.Repl.All:
			v = strings.ReplaceAll(v, orig, with)
		default:
			v = strings.Replace(v, orig, with, 1)
		}
		if len(v) > maxValue {
			return dynWord(fr.text(pe)), false
		}
		return Word{Value: v, Taint: val.Taint}.fix(), true
	}
	return val, known
}

func (w Word) fix() Word {
	if !w.Dynamic {
		w.Prefix = w.Value
	}
	return w
}

// arithLit reads a literal integer arithmetic operand.
func arithLit(x syntax.ArithmExpr) (int, bool) {
	switch a := x.(type) {
	case *syntax.Word:
		n, err := strconv.Atoi(a.Lit())
		return n, err == nil
	case *syntax.UnaryArithm:
		if a.Op == syntax.Minus {
			n, ok := arithLit(a.X)
			return -n, ok
		}
	case *syntax.ParenArithm:
		return arithLit(a.X)
	}
	return 0, false
}

// paramValue looks a parameter up; set reports whether it is set (only
// meaningful when known).
func (p *parser) paramValue(name string, sc *scope) (w Word, known, set bool) {
	switch name {
	case "@", "*":
		if !sc.posKnown {
			return dynWord("$" + name), false, false
		}
		var parts []string
		var t Taint
		for _, a := range sc.pos {
			if a.Dynamic {
				return dynWord("$" + name), false, false
			}
			parts = append(parts, a.Value)
			t |= a.Taint
		}
		v := strings.Join(parts, " ")
		return Word{Value: v, Prefix: v, Taint: t}, true, len(parts) > 0
	case "#":
		if !sc.posKnown {
			return dynWord("$#"), false, false
		}
		return Static(strconv.Itoa(len(sc.pos))), true, true
	case "0":
		return sc.arg0, !sc.arg0.Dynamic, true
	case "IFS":
		if _, ok := sc.vars["IFS"]; !ok {
			return Word{Value: " \t\n", Prefix: " \t\n"}, true, true
		}
	case "?", "$", "!", "-", "_", "RANDOM", "SRANDOM", "LINENO", "SECONDS", "EPOCHREALTIME", "EPOCHSECONDS", "BASHPID", "PPID":
		return dynWord("$" + name), false, false
	}
	if n, err := strconv.Atoi(name); err == nil {
		if !sc.posKnown {
			return dynWord("$" + name), false, false
		}
		if n >= 1 && n <= len(sc.pos) {
			a := sc.pos[n-1]
			return a, !a.Dynamic, true
		}
		return Static(""), true, false
	}
	if v, ok := sc.vars[name]; ok && !sc.shared.volatile[name] && !sc.shared.volatile["*"] {
		if v.unset {
			w, ok := p.envLookup(sc, name)
			return w, ok, ok
		}
		return v.w, !v.w.Dynamic, true
	}
	w, ok := p.lookup(sc, name)
	return w, ok, ok
}

// trimPattern implements ${v#p}, ${v##p}, ${v%p}, ${v%%p}.
func trimPattern(v, pat string, op syntax.ParExpOperator) string {
	switch op {
	case syntax.RemSmallPrefix:
		for i := 0; i <= len(v); i++ {
			if globMatch(pat, v[:i]) {
				return v[i:]
			}
		}
	case syntax.RemLargePrefix:
		for i := len(v); i >= 0; i-- {
			if globMatch(pat, v[:i]) {
				return v[i:]
			}
		}
	case syntax.RemSmallSuffix:
		for i := len(v); i >= 0; i-- {
			if globMatch(pat, v[i:]) {
				return v[:i]
			}
		}
	case syntax.RemLargeSuffix:
		for i := 0; i <= len(v); i++ {
			if globMatch(pat, v[i:]) {
				return v[:i]
			}
		}
	}
	return v
}

// GlobMatch reports whether s matches the shell pattern pat, where * and ?
// also match '/'. Character classes support ranges and negation.
func GlobMatch(pat, s string) bool { return globMatch(pat, s) }

func globMatch(pat, s string) bool {
	// Iterative matcher with single-star backtracking.
	px, sx := 0, 0
	nextPx, nextSx := -1, -1
	for px < len(pat) || sx < len(s) {
		if px < len(pat) {
			c := pat[px]
			switch c {
			case '*':
				nextPx, nextSx = px, sx+1
				px++
				continue
			case '?':
				if sx < len(s) {
					_, n := utf8.DecodeRuneInString(s[sx:])
					px++
					sx += n
					continue
				}
			case '[':
				if sx < len(s) {
					r, n := utf8.DecodeRuneInString(s[sx:])
					if ok, width := matchClass(pat[px:], r); width > 0 {
						if ok {
							px += width
							sx += n
							continue
						}
					} else if s[sx] == '[' {
						px++
						sx++
						continue
					}
				}
			case '\\':
				if px+1 < len(pat) && sx < len(s) && pat[px+1] == s[sx] {
					px += 2
					sx++
					continue
				}
			default:
				if sx < len(s) && s[sx] == c {
					px++
					sx++
					continue
				}
			}
		}
		if nextSx > 0 && nextSx <= len(s) {
			px, sx = nextPx, nextSx
			continue
		}
		return false
	}
	return true
}

// matchClass matches r against the bracket expression at the start of
// pat; width is 0 when pat does not start a valid bracket expression.
func matchClass(pat string, r rune) (bool, int) {
	i := 1
	neg := false
	if i < len(pat) && (pat[i] == '!' || pat[i] == '^') {
		neg = true
		i++
	}
	matched := false
	first := true
	for i < len(pat) {
		if pat[i] == ']' && !first {
			return matched != neg, i + 1
		}
		first = false
		if strings.HasPrefix(pat[i:], "[:") {
			end := strings.Index(pat[i+2:], ":]")
			if end < 0 {
				return false, 0
			}
			class := pat[i+2 : i+2+end]
			if classMatch(class, r) {
				matched = true
			}
			i += end + 4
			continue
		}
		lo, n := utf8.DecodeRuneInString(pat[i:])
		i += n
		hi := lo
		if i+1 < len(pat) && pat[i] == '-' && pat[i+1] != ']' {
			h, n2 := utf8.DecodeRuneInString(pat[i+1:])
			hi = h
			i += 1 + n2
		}
		if lo <= r && r <= hi {
			matched = true
		}
	}
	return false, 0
}

func classMatch(class string, r rune) bool {
	switch class {
	case "alpha":
		return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
	case "digit":
		return r >= '0' && r <= '9'
	case "alnum":
		return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
	case "lower":
		return r >= 'a' && r <= 'z'
	case "upper":
		return r >= 'A' && r <= 'Z'
	case "space":
		return r == ' ' || (r >= '\t' && r <= '\r')
	case "punct":
		return r > ' ' && r < 0x7f && !((r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	case "xdigit":
		return r < 0x80 && isHex(byte(r))
	}
	return true
}

// cmdSubst walks a command substitution and folds its output when it is
// statically decidable.
func (p *parser) cmdSubst(cs *syntax.CmdSubst, sc *scope, fr *frame) Word {
	raw := fr.text(cs)
	if !p.step() {
		return dynWord(raw)
	}
	inner := sc.clone()
	cf := fr.child(CmdSubst, fr.parent, fr.src)
	// A substitution in a command's words reads what that command would:
	// in a pipeline, the pipe (curl … | sh -c "$(cat)").
	cf.stdin = fr.stdin
	var res pipeRes
	start := len(p.prog.Commands)
	for i, st := range cs.Stmts {
		r := p.walkStmt(st, inner, cf)
		if i == 0 {
			res = r
		}
	}
	var t Taint
	for _, c := range p.prog.Commands[start:] {
		t |= p.commandTaint(c)
	}
	if len(cs.Stmts) == 1 && res.simple && res.n() > 0 {
		cmds := res.list()
		if out, ok := foldPipeline(cmds); ok {
			// Bash drops NUL bytes from a substitution's output.
			out = strings.TrimRight(strings.ReplaceAll(out, "\x00", ""), "\n")
			if p.pipelineDecodes(cmds) {
				t |= Decoded
			}
			return Word{Value: out, Prefix: out, Taint: t}
		}
		if name, ok := p.mktempName(cmds[0], inner); ok && len(cmds) == 1 {
			// The name is random, but where it lies is known: a new file
			// directly in that directory. The Xs stand for the random
			// part.
			return Word{Value: name, Prefix: name, Taint: t}
		}
	}
	w := Word{Value: raw, Dynamic: true, Taint: t}
	if len(cs.Stmts) == 1 && res.simple && res.n() == 1 {
		w.Output = res.list()[0]
	}
	return w
}

// mktempName is the path mktemp prints, with Xs for the random part:
// the template (tmp.XXXXXXXXXX by default) under $TMPDIR (or /tmp), -p
// DIR or the template's own directory.
func (p *parser) mktempName(c *Command, sc *scope) (string, bool) {
	if c.Name() != "mktemp" || len(c.Wrappers) > 0 {
		return "", false
	}
	tmp := "/tmp"
	if t, ok := p.lookup(sc, "TMPDIR"); ok && path.IsAbs(t.Value) {
		tmp = path.Clean(t.Value)
	}
	dir, template, inTmp := "", "tmp.XXXXXXXXXX", false
	args := c.Args
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a.Dynamic {
			return "", false
		}
		v := a.Value
		switch {
		case v == "-p":
			if i+1 >= len(args) || args[i+1].Dynamic {
				return "", false
			}
			dir = args[i+1].Value
			i++
		case strings.HasPrefix(v, "--tmpdir="):
			dir = v[len("--tmpdir="):]
		case v == "--tmpdir" || v == "-t":
			inTmp = true
		case v == "--suffix" || v == "-q" || v == "-d" || v == "-u" || v == "--directory" || v == "--quiet" || v == "--dry-run" || strings.HasPrefix(v, "--suffix="):
			if v == "--suffix" {
				i++
			}
		case strings.HasPrefix(v, "-"):
			if strings.Contains(v, "p") || strings.Contains(v, "t") {
				// -tp DIR and such: not followed.
				return "", false
			}
		default:
			template = v
		}
	}
	if template == "" || strings.HasSuffix(template, "/") {
		return "", false
	}
	switch {
	case dir != "":
		if !path.IsAbs(dir) {
			return "", false
		}
		return path.Join(dir, path.Base(template)), true
	case path.IsAbs(template) && !inTmp:
		return path.Clean(template), true
	case strings.Contains(template, "/") && !inTmp:
		if !c.DirKnown {
			return "", false
		}
		return path.Join(c.Dir, template), true
	}
	return path.Join(tmp, path.Base(template)), true
}

func (p *parser) procSubst(ps *syntax.ProcSubst, sc *scope, fr *frame) Word {
	raw := fr.text(ps)
	inner := sc.clone()
	cf := fr.child(ProcSubst, fr.parent, fr.src)
	cf.stdin = nil
	var res pipeRes
	start := len(p.prog.Commands)
	for i, st := range ps.Stmts {
		r := p.walkStmt(st, inner, cf)
		if i == 0 {
			res = r
		}
	}
	var t Taint
	for _, c := range p.prog.Commands[start:] {
		t |= p.commandTaint(c)
	}
	w := Word{Value: "/dev/fd/63", Prefix: "/dev/fd/63", Taint: t, Proc: true}
	_ = raw
	if ps.Op == syntax.CmdIn && len(ps.Stmts) == 1 && res.simple && res.n() > 0 {
		cmds := res.list()
		if out, ok := foldPipeline(cmds); ok {
			w.Content, w.ContentKnown = out, true
		} else if len(cmds) == 1 {
			w.Output = cmds[0]
		}
	}
	return w
}

// walkNested finds command and process substitutions inside any node and
// walks them, for places whose value the analysis does not otherwise use
// (test clauses, case patterns, arithmetic).
func (p *parser) walkNested(n syntax.Node, sc *scope, fr *frame) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			p.cmdSubst(x, sc, fr)
			return false
		case *syntax.ProcSubst:
			p.procSubst(x, sc, fr)
			return false
		case *syntax.ArithmExp:
			p.arithOperands(x.X, sc, fr)
		}
		return p.step()
	})
}

func (p *parser) walkArith(x syntax.ArithmExpr, sc *scope, fr *frame) {
	if x == nil {
		return
	}
	p.walkNested(x, sc, fr)
	p.arithOperands(x, sc, fr)
}

// patternQuoted reports whether a pattern word holds quoted or escaped
// parts, whose pattern characters match themselves.
func patternQuoted(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.Contains(x.Value, "\\") {
				return true
			}
		}
	}
	return false
}

// literalPattern spells a pattern word made only of literal parts as a
// pattern: quoted and escaped characters backslash-escaped, so that they
// match themselves.
func literalPattern(w *syntax.Word) (string, bool) {
	var b strings.Builder
	esc := func(s string) {
		for i := 0; i < len(s); i++ {
			if strings.IndexByte("*?[]\\", s[i]) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(s[i])
		}
	}
	for _, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value) // backslash escapes kept: the matcher reads them
		case *syntax.SglQuoted:
			if x.Dollar {
				esc(ansiC(x.Value))
			} else {
				esc(x.Value)
			}
		case *syntax.DblQuoted:
			for _, in := range x.Parts {
				l, ok := in.(*syntax.Lit)
				if !ok {
					return "", false
				}
				esc(unescapeDouble(l.Value, false))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// nameBeforeBrace reports whether a word has $name right before a brace
// expansion ($v{x,y}): bash expands the braces first, so the name takes
// in what they produce ($vx, $vy), which the parse does not show.
func nameBeforeBrace(w *syntax.Word) bool {
	for i := 0; i+1 < len(w.Parts); i++ {
		pe, ok := w.Parts[i].(*syntax.ParamExp)
		if !ok || !pe.Short {
			continue
		}
		if _, ok := w.Parts[i+1].(*syntax.BraceExp); ok {
			return true
		}
	}
	return false
}

// walkBraced walks the nested code of a word split into brace
// expansions (syntax.Walk does not know their nodes).
func (p *parser) walkBraced(w *syntax.Word, sc *scope, fr *frame) {
	for _, part := range w.Parts {
		if be, ok := part.(*syntax.BraceExp); ok {
			for _, el := range be.Elems {
				if el != nil && p.step() {
					p.walkBraced(el, sc, fr)
				}
			}
			continue
		}
		p.walkNested(part, sc, fr)
	}
}
