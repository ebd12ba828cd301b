package shell

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
)

// commandTaint is where the output of a command comes from.
func (p *parser) commandTaint(c *Command) Taint {
	var t Taint
	if p.networkSource(c) {
		t |= Network
	}
	if p.decoder(c) {
		t |= Decoded
	}
	if p.accounts(c) {
		t |= Home
	}
	for _, a := range c.Args {
		t |= a.Taint
	}
	t |= c.Stdin.Taint
	return t
}

func (p *parser) pipelineDecodes(cmds []*Command) bool {
	for _, c := range cmds {
		if p.decoder(c) {
			return true
		}
	}
	return false
}

// foldPipeline computes the output of a pipeline of simple commands when
// every stage is a known pure text command (echo, printf, cat of a
// heredoc, base64 -d, xxd -r -p, rev, tr).
func foldPipeline(cmds []*Command) (string, bool) {
	in, inKnown := "", false
	for i, c := range cmds {
		if i == 0 {
			if c.Stdin.Kind == InputText && c.Stdin.TextKnown {
				in, inKnown = c.Stdin.Text, true
			}
		}
		out, ok := foldCommand(c, in, inKnown)
		if !ok {
			return "", false
		}
		in, inKnown = out, true
	}
	return in, inKnown
}

func foldCommand(c *Command, in string, inKnown bool) (string, bool) {
	if len(c.Args) == 0 || c.ExtraArgs {
		return "", false
	}
	for _, a := range c.Args {
		if a.Dynamic || a.Glob {
			return "", false
		}
	}
	for _, r := range c.Redirs {
		if r.Writes() || r.Reads() {
			return "", false
		}
		if (r.Op == ">&" || r.Op == "<&") && (r.Fd == -1 || r.Fd == 1) {
			return "", false
		}
	}
	args := c.Values()
	var out string
	switch c.Name() {
	case "echo":
		s, ok := foldEcho(args[1:])
		if !ok {
			return "", false
		}
		out = s
	case "printf":
		s, ok := foldPrintf(args[1:])
		if !ok {
			return "", false
		}
		out = s
	case "which", "command", "type":
		// which NAME, command -v NAME, type -p NAME: where a program is.
		ops := args[1:]
		if c.Name() != "which" {
			if len(ops) != 2 || (ops[0] != "-v" && ops[0] != "-p" && ops[0] != "-P") {
				return "", false
			}
			ops = ops[1:]
		}
		if len(ops) != 1 || strings.ContainsAny(ops[0], "/ ") || strings.HasPrefix(ops[0], "-") {
			return "", false
		}
		out = "/usr/bin/" + ops[0] + "\n"
	case "pwd":
		if !c.DirKnown || len(args) > 2 || (len(args) == 2 && args[1] != "-L" && args[1] != "-P") {
			return "", false
		}
		out = c.Dir + "\n"
	case "cat":
		for _, a := range args[1:] {
			if a != "-" {
				return "", false
			}
		}
		if !inKnown {
			return "", false
		}
		out = in
	case "base64", "base32":
		if !inKnown {
			return "", false
		}
		decode := false
		for _, a := range args[1:] {
			switch {
			case a == "-d" || a == "--decode" || a == "-D" || a == "-di" || a == "-id" || a == "--ignore-garbage" || a == "-i":
				if a != "-i" && a != "--ignore-garbage" {
					decode = true
				}
			case strings.HasPrefix(a, "-w") || strings.HasPrefix(a, "--wrap"):
			default:
				return "", false
			}
		}
		enc := base64.StdEncoding
		if c.Name() == "base32" {
			if !decode {
				return "", false
			}
			b, err := base32.StdEncoding.DecodeString(stripSpace(in))
			if err != nil {
				return "", false
			}
			out = string(b)
			break
		}
		if !decode {
			out = enc.EncodeToString([]byte(in)) + "\n"
			break
		}
		s := stripSpace(in)
		b, err := enc.DecodeString(s)
		if err != nil {
			b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
			if err != nil {
				b, err = base64.URLEncoding.DecodeString(s)
				if err != nil {
					return "", false
				}
			}
		}
		out = string(b)
	case "xxd":
		if !inKnown || len(args) != 3 {
			return "", false
		}
		if !((args[1] == "-r" && args[2] == "-p") || (args[1] == "-p" && args[2] == "-r") || args[1] == "-rp" || args[1] == "-pr") {
			return "", false
		}
		b, err := hex.DecodeString(stripSpace(in))
		if err != nil {
			return "", false
		}
		out = string(b)
	case "rev":
		if !inKnown || len(args) != 1 {
			return "", false
		}
		lines := strings.SplitAfter(in, "\n")
		var sb strings.Builder
		for _, l := range lines {
			nl := strings.HasSuffix(l, "\n")
			l = strings.TrimSuffix(l, "\n")
			rs := []rune(l)
			for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
				rs[i], rs[j] = rs[j], rs[i]
			}
			sb.WriteString(string(rs))
			if nl {
				sb.WriteByte('\n')
			}
		}
		out = sb.String()
	case "tr":
		if !inKnown {
			return "", false
		}
		s, ok := foldTr(args[1:], in)
		if !ok {
			return "", false
		}
		out = s
	default:
		return "", false
	}
	if len(out) > maxValue {
		return "", false
	}
	return out, true
}

func stripSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			return -1
		}
		return r
	}, s)
}

func foldEcho(args []string) (string, bool) {
	newline, escapes := true, false
	for len(args) > 0 {
		a := args[0]
		if len(a) < 2 || a[0] != '-' || strings.Trim(a[1:], "neE") != "" {
			break
		}
		for _, c := range a[1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	s := strings.Join(args, " ")
	if escapes {
		var stop bool
		s, stop = echoEscapes(s)
		if stop {
			newline = false
		}
	} else if strings.Contains(s, `\`) {
		// sh's echo would interpret escapes, bash's would not: the
		// output depends on the shell.
		return "", false
	}
	if newline {
		s += "\n"
	}
	return s, true
}

func echoEscapes(s string) (string, bool) {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			sb.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'c':
			return sb.String(), true
		case '0':
			j := i + 1
			n := 0
			for j < len(s) && j-i <= 3 && s[j] >= '0' && s[j] <= '7' {
				n = n*8 + int(s[j]-'0')
				j++
			}
			sb.WriteByte(byte(n))
			i = j - 1
		default:
			switch e {
			case 'x':
				j := i + 1
				for j < len(s) && j-i <= 2 && isHex(s[j]) {
					j++
				}
				if j == i+1 {
					sb.WriteString(`\x`)
					continue
				}
				sb.WriteString(ansiC(`\x` + s[i+1:j]))
				i = j - 1
			case 'u', 'U':
				max := 4
				if e == 'U' {
					max = 8
				}
				j := i + 1
				for j < len(s) && j-i <= max && isHex(s[j]) {
					j++
				}
				sb.WriteString(ansiC(`\` + string(e) + s[i+1:j]))
				i = j - 1
			case 'a', 'b', 'e', 'E', 'f', 'n', 'r', 't', 'v', '\\':
				sb.WriteString(ansiC(`\` + string(e)))
			default:
				sb.WriteByte('\\')
				sb.WriteByte(e)
			}
		}
	}
	return sb.String(), false
}

func foldPrintf(args []string) (string, bool) {
	if len(args) == 0 {
		return "", false
	}
	if args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", false
	}
	format, rest := args[0], args[1:]
	// Escapes where bash's printf and the formatter used here disagree
	// (\c ends all output in %b, \" and \? keep their backslash there):
	// not followed.
	odd := func(s string) bool {
		return strings.Contains(s, `\c`) || strings.Contains(s, `\"`) || strings.Contains(s, `\?`) || strings.Contains(s, `\'`)
	}
	if odd(format) {
		return "", false
	}
	if strings.Contains(format, "%b") {
		for _, a := range rest {
			if odd(a) {
				return "", false
			}
		}
	}
	var sb strings.Builder
	// A Config of this call's own: with nil, Format uses one shared by
	// every caller (its buffer too), which concurrent classifications
	// would write at once.
	cfg := &expand.Config{}
	for i := 0; ; i++ {
		s, n, err := expand.Format(cfg, format, rest)
		if err != nil {
			return "", false
		}
		sb.WriteString(s)
		if sb.Len() > maxValue {
			return "", false
		}
		if n == 0 || n >= len(rest) || i > 1000 {
			break
		}
		rest = rest[n:]
	}
	return sb.String(), true
}

// foldTr implements tr SET1 SET2 and tr -d SET1 for plain character sets
// and ranges.
func foldTr(args []string, in string) (string, bool) {
	del := false
	if len(args) > 0 && args[0] == "-d" {
		del = true
		args = args[1:]
	}
	if del && len(args) == 1 {
		set, ok := trSet(args[0])
		if !ok {
			return "", false
		}
		return strings.Map(func(r rune) rune {
			for _, c := range set {
				if c == r {
					return -1
				}
			}
			return r
		}, in), true
	}
	if del || len(args) != 2 {
		return "", false
	}
	from, ok1 := trSet(args[0])
	to, ok2 := trSet(args[1])
	if !ok1 || !ok2 || len(to) == 0 {
		return "", false
	}
	for len(to) < len(from) {
		to = append(to, to[len(to)-1])
	}
	m := make(map[rune]rune, len(from))
	for i, r := range from {
		if _, seen := m[r]; !seen {
			m[r] = to[i]
		}
	}
	return strings.Map(func(r rune) rune {
		if t, ok := m[r]; ok {
			return t
		}
		return r
	}, in), true
}

func trSet(s string) ([]rune, bool) {
	// Escapes, bracket forms ([:upper:], [x*3]) and sets that read as
	// options are not followed.
	if strings.ContainsAny(s, "\\[") || strings.HasPrefix(s, "-") {
		return nil, false
	}
	var rs []rune
	src := []rune(s)
	for i := 0; i < len(src); i++ {
		if i+2 < len(src) && src[i+1] == '-' {
			lo, hi := src[i], src[i+2]
			if hi < lo || hi-lo > 1024 {
				return nil, false
			}
			for r := lo; r <= hi; r++ {
				rs = append(rs, r)
			}
			i += 2
			continue
		}
		rs = append(rs, src[i])
	}
	return rs, utf8.ValidString(string(rs))
}
