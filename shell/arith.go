package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash evaluates some values a second time: a variable used in an
// arithmetic context ((( x )), $((x)), [[ $x -eq 1 ]], let, an array
// subscript, an integer variable's assignment) is read as an arithmetic
// expression, and a name given to read, printf -v, declare, test -v or
// ${!x} may carry a subscript that is one. Command substitutions inside
// those (x='a[$(cmd)]') run then. reEvaluated walks them.

// maxReEval bounds how deep variables naming variables are followed.
const maxReEval = 8

// reEvaluated walks the command substitutions bash would run when it
// evaluates w again as an arithmetic expression or a subscripted name.
func (p *parser) reEvaluated(w Word, sc *scope, fr *frame, depth int) {
	p.reEval(w, sc, fr, depth, nil)
}

// reEval is reEvaluated with the names already followed, so that each
// variable is expanded once.
func (p *parser) reEval(w Word, sc *scope, fr *frame, depth int, seen map[string]bool) {
	if depth > maxReEval || !p.step() {
		return
	}
	if w.Dynamic {
		if w.Taint&(Network|Decoded|Downloaded) != 0 {
			// Data from the network evaluated as code.
			child := &Command{Args: []Word{w}, Dir: sc.dir, DirKnown: sc.dirKnown, Parent: fr.parent}
			p.emit(child, fr.child(Eval, fr.parent, fr.src))
		}
		return
	}
	v := w.Value
	if len(v) > maxValue {
		return
	}
	if strings.ContainsAny(v, "$`") {
		p.promptString(v, sc, fr, nil)
		return
	}
	// Names in the expression are evaluated in turn (x=y; y='a[$(cmd)]').
	for _, name := range arithNames(v) {
		val, ok := sc.vars[name]
		if !ok || val.unset || seen[name] {
			continue
		}
		if seen == nil {
			seen = make(map[string]bool)
		}
		seen[name] = true
		p.reEval(val.w, sc, fr, depth+1, seen)
	}
}

// arithNames lists the variable names an arithmetic expression mentions
// (at most a few).
func arithNames(s string) []string {
	var out []string
	for i := 0; i < len(s) && len(out) < 8; i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') || i > 0 && isNameByte(s[i-1]) {
			continue
		}
		j := i
		for j < len(s) && isNameByte(s[j]) {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// arithOperands re-evaluates the variables an arithmetic expression
// reads: bare names (x) and expansions ($x) whose values are themselves
// expressions.
func (p *parser) arithOperands(x syntax.ArithmExpr, sc *scope, fr *frame) {
	syntax.Walk(x, func(n syntax.Node) bool {
		w, ok := n.(*syntax.Word)
		if !ok {
			return p.step()
		}
		if val, ok := p.simpleValue(w, sc); ok {
			p.reEvaluated(val, sc, fr, 0)
		}
		return false
	})
}

// simpleValue is the value of a word that is a bare name (as arithmetic
// reads it) or a plain expansion of one ($x, "${x}"), without walking
// anything nested.
func (p *parser) simpleValue(w *syntax.Word, sc *scope) (Word, bool) {
	if w == nil || len(w.Parts) != 1 {
		return Word{}, false
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part = dq.Parts[0]
	}
	switch x := part.(type) {
	case *syntax.Lit:
		if validName(x.Value) {
			if v, ok := sc.vars[x.Value]; ok && !v.unset {
				return v.w, true
			}
		}
	case *syntax.ParamExp:
		if x.Param != nil && isSimpleParam(x) && !x.Short || x.Param != nil && x.Short {
			if v, ok := sc.vars[x.Param.Value]; ok && !v.unset {
				return v.w, true
			}
		}
	}
	return Word{}, false
}

// testOperands re-evaluates the operands of [[ … ]] that bash reads as
// arithmetic (-eq, -lt, …) or as names (-v, -R).
func (p *parser) testOperands(x syntax.TestExpr, sc *scope, fr *frame) {
	syntax.Walk(x, func(n syntax.Node) bool {
		switch t := n.(type) {
		case *syntax.BinaryTest:
			switch t.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				for _, side := range []syntax.TestExpr{t.X, t.Y} {
					if w, ok := side.(*syntax.Word); ok {
						if val, ok := p.simpleValue(w, sc); ok {
							p.reEvaluated(val, sc, fr, 0)
						}
					}
				}
			}
		case *syntax.UnaryTest:
			if t.Op == syntax.TsVarSet || t.Op == syntax.TsRefVar {
				if w, ok := t.X.(*syntax.Word); ok {
					if val, ok := p.simpleValue(w, sc); ok && !isBareName(w) {
						p.nameSubscript(val, sc, fr)
					} else if l, ok := litWord(w); ok {
						p.nameSubscript(Static(l), sc, fr)
					}
				}
			}
		}
		return p.step()
	})
}

func isBareName(w *syntax.Word) bool {
	l, ok := w.Parts[0].(*syntax.Lit)
	return ok && len(w.Parts) == 1 && validName(l.Value)
}

// nameSubscript re-evaluates the subscript of a variable name given as a
// value (read 'a[…]', printf -v NAME, ${!x}).
func (p *parser) nameSubscript(w Word, sc *scope, fr *frame) {
	if w.Dynamic {
		p.reEvaluated(w, sc, fr, 0)
		return
	}
	v := w.Value
	if i := strings.IndexByte(v, '='); i >= 0 {
		v = v[:i]
	}
	if k := strings.IndexByte(v, '['); k > 0 {
		p.reEvaluated(Static(v[k:]), sc, fr, 0)
	}
}

// nameArgs re-evaluates the variable names a builtin takes as operands:
// read NAME…, printf -v NAME, test/[ -v NAME, declare/export/… NAME=….
func (p *parser) nameArgs(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args
	switch cmd.Name() {
	case "read", "mapfile", "readarray":
		for i := 1; i < len(args); i++ {
			v := args[i].Value
			if !args[i].Dynamic && strings.HasPrefix(v, "-") {
				if strings.ContainsAny(v[len(v)-1:], "adnNptuiCcOs") && i+1 < len(args) {
					if v[len(v)-1] == 'a' {
						p.nameSubscript(args[i+1], sc, fr)
					}
					i++
				}
				continue
			}
			p.nameSubscript(args[i], sc, fr)
		}
	case "printf":
		for i := 1; i+1 < len(args); i++ {
			if args[i].Value == "-v" {
				p.nameSubscript(args[i+1], sc, fr)
			}
		}
	case "test", "[":
		for i := 1; i+1 < len(args); i++ {
			if args[i].Value == "-v" || args[i].Value == "-R" {
				p.nameSubscript(args[i+1], sc, fr)
			}
		}
	case "unset", "export", "readonly", "declare", "typeset", "local":
		for _, a := range args[1:] {
			if a.Dynamic || !strings.HasPrefix(a.Value, "-") {
				p.nameSubscript(a, sc, fr)
			}
		}
	}
}
