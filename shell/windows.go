package shell

import (
	"encoding/base64"
	"strings"
	"unicode/utf16"
)

// PowerShell and cmd.exe command lines are read with small tokenizers of
// our own: enough to find statements, pipelines, commands, their words,
// redirections and nested code (script blocks, sub-expressions,
// Invoke-Expression of literals, -EncodedCommand, cmd /c), not the whole
// languages.

// psAliases maps common PowerShell aliases to cmdlets.
var psAliases = map[string]string{
	"iex": "invoke-expression", "irm": "invoke-restmethod", "iwr": "invoke-webrequest", "ri": "remove-item",
	"rm": "remove-item", "del": "remove-item", "erase": "remove-item", "rd": "remove-item", "rmdir": "remove-item",
	"saps": "start-process", "start": "start-process", "icm": "invoke-command", "sc": "set-content", "ac": "add-content",
	"cp": "copy-item", "copy": "copy-item", "cpi": "copy-item", "mv": "move-item", "move": "move-item", "mi": "move-item",
	"ni": "new-item", "md": "new-item", "gc": "get-content", "cat": "get-content", "type": "get-content",
	"foreach": "foreach-object", "%": "foreach-object", "?": "where-object", "where": "where-object", "echo": "write-output",
	"write": "write-output", "curl": "invoke-webrequest", "wget": "invoke-webrequest", "ren": "rename-item",
	"rni": "rename-item", "clc": "clear-content", "tee": "tee-object", "sp": "set-itemproperty", "rp": "remove-itemproperty",
	"mkdir": "new-item",
}

// PSCmdlet returns the lower-case cmdlet name a PowerShell command word
// stands for (aliases resolved).
func PSCmdlet(name string) string {
	l := strings.ToLower(name)
	if c, ok := psAliases[l]; ok {
		return c
	}
	return l
}

// powershellRun follows pwsh/powershell: -Command, -EncodedCommand,
// -File.
func (p *parser) powershellRun(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args
	windowsPS := cmd.Name() == "powershell"
	for i := 1; i < len(args); i++ {
		a := args[i]
		v := strings.ToLower(a.Value)
		if a.Dynamic {
			cmd.Script = &ScriptRun{Kind: ScriptString, Why: "the PowerShell arguments are only known at run time", Taint: a.Taint}
			return
		}
		if !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "/") {
			if windowsPS {
				p.psCommandWords(cmd, args[i:], sc, fr)
			} else {
				p.psFile(cmd, a, sc, fr)
			}
			return
		}
		if v == "-" {
			// A script read from standard input.
			break
		}
		opt := strings.TrimLeft(v, "-/")
		opt, val, hasVal := strings.Cut(opt, ":")
		switch {
		case opt == "ec" || (len(opt) >= 1 && strings.HasPrefix("encodedcommand", opt) && opt != "" && opt[0] == 'e' && !strings.HasPrefix(opt, "ex") && !strings.HasPrefix(opt, "ea")):
			var w Word
			if hasVal {
				w = Static(val)
			} else if i+1 < len(args) {
				w = args[i+1]
			}
			p.psEncoded(cmd, w, sc, fr)
			return
		case strings.HasPrefix("command", opt):
			if i+1 >= len(args) {
				return
			}
			if args[i+1].Value == "-" {
				cmd.Script = &ScriptRun{Kind: ScriptStdin, Taint: cmd.Stdin.Taint}
				if cmd.Stdin.TextKnown {
					cmd.Script.Known = p.psScript(cmd.Stdin.Text, StdinScript, cmd, sc, fr)
				} else {
					cmd.Script.Why = "the PowerShell script comes from standard input"
				}
				return
			}
			p.psCommandWords(cmd, args[i+1:], sc, fr)
			return
		case strings.HasPrefix("file", opt) && opt != "":
			if i+1 < len(args) {
				p.psFile(cmd, args[i+1], sc, fr)
			}
			return
		case oneOfFold(opt, "executionpolicy", "ep", "ex", "windowstyle", "w", "win", "outputformat", "o", "of", "inputformat", "if", "in",
			"configurationname", "config", "workingdirectory", "wd", "wo", "version", "v", "psconsolefile", "settingsfile", "custompipename", "encodedarguments", "ea"):
			if !hasVal {
				i++
			}
		case oneOfFold(opt, "help", "h", "?", "version"):
			return
		}
	}
	// No command: PowerShell runs what standard input gives it, when it
	// is not a terminal.
	if cmd.Stdin.Kind != InputInherited {
		cmd.Script = &ScriptRun{Kind: ScriptStdin, Taint: cmd.Stdin.Taint}
		if cmd.Stdin.TextKnown {
			cmd.Script.Known = p.psScript(cmd.Stdin.Text, StdinScript, cmd, sc, fr)
		} else {
			cmd.Script.Why = "the PowerShell script comes from standard input"
		}
	}
}

func oneOfFold(s string, set ...string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

func (p *parser) psCommandWords(cmd *Command, words []Word, sc *scope, fr *frame) {
	var parts []string
	var t Taint
	for _, w := range words {
		t |= w.Taint
		if w.Dynamic {
			cmd.Script = &ScriptRun{Kind: ScriptString, Why: "the PowerShell command is only known at run time", Taint: t}
			return
		}
		parts = append(parts, w.Value)
	}
	cmd.Script = &ScriptRun{Kind: ScriptString, Taint: t}
	cmd.Script.Known = p.psScript(strings.Join(parts, " "), ShellC, cmd, sc, fr)
}

func (p *parser) psEncoded(cmd *Command, w Word, sc *scope, fr *frame) {
	cmd.Script = &ScriptRun{Kind: ScriptString, Taint: w.Taint}
	if w.Dynamic {
		cmd.Script.Why = "the encoded command is only known at run time"
		return
	}
	text, ok := decodeUTF16Base64(w.Value)
	if !ok {
		cmd.Script.Why = "the encoded command is not valid base64 UTF-16"
		return
	}
	cmd.Script.Known = p.psScript(text, Encoded, cmd, sc, fr)
}

// DecodePSEncoded decodes a powershell -EncodedCommand argument.
func DecodePSEncoded(s string) (string, bool) { return decodeUTF16Base64(s) }

func decodeUTF16Base64(s string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(strings.TrimSpace(s), "="))
		if err != nil {
			return "", false
		}
	}
	if len(b)%2 == 1 {
		b = b[:len(b)-1]
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}

func (p *parser) psFile(cmd *Command, w Word, sc *scope, fr *frame) {
	cmd.Script = &ScriptRun{Kind: ScriptPath, Path: w, Taint: w.Taint}
	text, why := p.readFile(cmd, w, sc)
	if why != "" {
		cmd.Script.Why = why
		return
	}
	cmd.Script.Known = p.psScript(text, ScriptFile, cmd, sc, fr)
}

// cmdRun follows cmd /c STRING and cmd /k STRING.
func (p *parser) cmdRun(cmd *Command, sc *scope, fr *frame) {
	args := cmd.Args
	if len(args) == 1 {
		return
	}
	for i := 1; i < len(args); i++ {
		v := strings.ToLower(args[i].Value)
		if args[i].Dynamic {
			cmd.Script = &ScriptRun{Kind: ScriptString, Why: "the cmd arguments are only known at run time", Taint: args[i].Taint}
			return
		}
		if v == "/c" || v == "/k" || v == "/r" || strings.HasPrefix(v, "/c") && len(v) > 2 && v[2] != ':' {
			rest := args[i+1:]
			var parts []string
			if len(v) > 2 {
				parts = append(parts, args[i].Value[2:])
			}
			var t Taint
			for _, w := range rest {
				t |= w.Taint
				if w.Dynamic {
					cmd.Script = &ScriptRun{Kind: ScriptString, Why: "the cmd command is only known at run time", Taint: t}
					return
				}
				parts = append(parts, w.Value)
			}
			script := strings.Join(parts, " ")
			if strings.TrimSpace(script) == "" {
				break
			}
			if len(script) >= 2 && script[0] == '"' && script[len(script)-1] == '"' && strings.Count(script, `"`) == 2 {
				script = script[1 : len(script)-1]
			}
			cmd.Script = &ScriptRun{Kind: ScriptString, Taint: t}
			cmd.Script.Known = p.cmdScript(script, ShellC, cmd, sc, fr)
			return
		}
		if !strings.HasPrefix(v, "/") {
			return
		}
	}
	cmd.Script = &ScriptRun{Kind: ScriptInteractive, Why: "an interactive cmd.exe reads commands from the terminal"}
}

// winVar folds the environment variables that name well-known places.
func (p *parser) winVar(name string) (string, bool) {
	switch strings.ToLower(name) {
	case "userprofile", "home":
		if p.opts.Home != "" {
			return p.opts.Home, true
		}
	case "systemroot", "windir":
		return `C:\Windows`, true
	case "programfiles":
		return `C:\Program Files`, true
	case "programfiles(x86)":
		return `C:\Program Files (x86)`, true
	case "programdata", "allusersprofile":
		return `C:\ProgramData`, true
	case "systemdrive":
		return "C:", true
	case "appdata":
		if p.opts.Home != "" {
			return p.opts.Home + `\AppData\Roaming`, true
		}
	case "localappdata":
		if p.opts.Home != "" {
			return p.opts.Home + `\AppData\Local`, true
		}
	}
	if v, ok := p.opts.Env[name]; ok {
		return v, true
	}
	return "", false
}

// winPathWord normalises a Windows path word: backslashes become slashes
// when the word is a path rooted in a drive, the home directory or the
// current directory, so path rules see one form.
func (p *parser) winPathWord(w Word) Word {
	v := w.Value
	if !strings.Contains(v, `\`) {
		return w
	}
	isPath := len(v) >= 3 && v[1] == ':' && v[2] == '\\' ||
		strings.HasPrefix(v, `.\`) || strings.HasPrefix(v, `..\`) || strings.HasPrefix(v, `~\`) ||
		(p.opts.Home != "" && strings.HasPrefix(v, p.opts.Home))
	if !isPath || strings.Contains(v, `\\`) && strings.HasPrefix(v, `\\`) {
		return w
	}
	w.Value = strings.ReplaceAll(v, `\`, "/")
	if strings.HasPrefix(w.Value, "~/") && p.opts.Home != "" {
		w.Value = p.opts.Home + w.Value[1:]
	}
	if !w.Dynamic {
		w.Prefix = w.Value
	} else {
		w.Prefix = strings.ReplaceAll(w.Prefix, `\`, "/")
	}
	return w
}
