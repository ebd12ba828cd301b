package safeexec

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Shells that run a script (safeexec -c SCRIPT): the value of --shell and
// [run] shell. The script is classified in the language of the shell that
// runs it.
const (
	ShellAuto       = "auto"
	ShellBash       = "bash"
	ShellPowerShell = "powershell"
	ShellPwsh       = "pwsh"
	ShellCmd        = "cmd"
	// shellSh is what auto gives on a Unix without bash.
	shellSh = "sh"
)

// scriptShell is a resolved shell: its language and its program.
type scriptShell struct {
	// Kind is bash, sh, powershell, pwsh or cmd.
	Kind string
	// Path is the program; empty when only the language was asked for
	// (check classifies without running).
	Path string
}

// shellHost is what resolving a shell may look at; tests give their own.
type shellHost struct {
	goos     string
	lookPath func(string) (string, error)
	exists   func(string) bool
	getenv   func(string) string
}

func realShellHost() shellHost {
	return shellHost{
		goos:     runtime.GOOS,
		lookPath: exec.LookPath,
		exists: func(p string) bool {
			fi, err := os.Stat(p)
			return err == nil && fi.Mode().IsRegular()
		},
		getenv: os.Getenv,
	}
}

// errNoShell wraps every "this shell is not here" error.
var errNoShell = errors.New("shell not found")

// resolveShell finds the shell that runs scripts. want is auto (or
// empty), bash, powershell, pwsh or cmd:
//
//   - auto: on Windows Git for Windows' bash.exe when it is installed (what
//     coding agents use there), else PowerShell (pwsh.exe when installed,
//     else Windows PowerShell); elsewhere bash, else sh;
//   - bash: on Windows Git for Windows' (or another MSYS2 or Cygwin)
//     bash.exe — never the bash.exe of System32, which runs the script in
//     WSL, outside the sandbox;
//   - powershell: Windows PowerShell on Windows, pwsh elsewhere;
//   - pwsh: PowerShell 7;
//   - cmd: cmd.exe, Windows only.
//
// With needPath false only the language matters (check): an explicit
// shell need not be installed.
func resolveShell(want string, h shellHost, needPath bool) (scriptShell, error) {
	if want == "" {
		want = ShellAuto
	}
	win := h.goos == "windows"
	switch want {
	case ShellAuto:
		if win {
			if p := gitBash(h); p != "" {
				return scriptShell{Kind: ShellBash, Path: p}, nil
			}
			if p := findPwsh(h); p != "" {
				return scriptShell{Kind: ShellPwsh, Path: p}, nil
			}
			sh := scriptShell{Kind: ShellPowerShell, Path: windowsPowerShell(h)}
			if sh.Path == "" && needPath {
				return sh, fmt.Errorf("%w: neither Git for Windows' bash.exe nor PowerShell was found; install Git for Windows", errNoShell)
			}
			return sh, nil
		}
		for _, p := range []string{"/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"} {
			if h.exists(p) {
				return scriptShell{Kind: ShellBash, Path: p}, nil
			}
		}
		return scriptShell{Kind: shellSh, Path: "/bin/sh"}, nil
	case ShellBash:
		sh := scriptShell{Kind: ShellBash}
		if win {
			sh.Path = gitBash(h)
			if sh.Path == "" && needPath {
				return sh, fmt.Errorf("%w: --shell bash: Git for Windows' bash.exe was not found (the bash.exe of System32 runs WSL, outside the sandbox, and is never used); install Git for Windows or choose --shell powershell", errNoShell)
			}
			return sh, nil
		}
		for _, p := range []string{"/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash", "/opt/homebrew/bin/bash"} {
			if h.exists(p) {
				sh.Path = p
				return sh, nil
			}
		}
		if needPath {
			return sh, fmt.Errorf("%w: --shell bash: bash is not installed", errNoShell)
		}
		return sh, nil
	case ShellPowerShell, ShellPwsh:
		sh := scriptShell{Kind: want}
		switch {
		case win && want == ShellPowerShell:
			sh.Path = windowsPowerShell(h)
		default:
			sh.Path = findPwsh(h)
		}
		if sh.Path == "" && needPath {
			return sh, fmt.Errorf("%w: --shell %s: %s was not found; install PowerShell 7 (https://aka.ms/powershell) or choose another --shell", errNoShell, want, map[bool]string{true: "powershell.exe", false: "pwsh"}[win && want == ShellPowerShell])
		}
		return sh, nil
	case ShellCmd:
		sh := scriptShell{Kind: ShellCmd}
		if !win {
			if needPath {
				return sh, fmt.Errorf("%w: --shell cmd: cmd.exe exists only on Windows; choose bash, powershell or pwsh", errNoShell)
			}
			return sh, nil
		}
		if root := h.getenv("SystemRoot"); root != "" && h.exists(filepath.Join(root, "System32", "cmd.exe")) {
			sh.Path = filepath.Join(root, "System32", "cmd.exe")
		} else if p, err := h.lookPath("cmd.exe"); err == nil {
			sh.Path = p
		}
		if sh.Path == "" && needPath {
			return sh, fmt.Errorf("%w: --shell cmd: cmd.exe was not found", errNoShell)
		}
		return sh, nil
	}
	return scriptShell{}, fmt.Errorf("unknown shell %q: want auto, bash, powershell, pwsh or cmd", want)
}

// gitBash finds Git for Windows' bash.exe: next to the git.exe on PATH
// (<root>\cmd\git.exe or <root>\bin\git.exe, <root>\mingw64\bin\git.exe),
// then in the usual install places; a bash.exe on PATH only when it
// belongs to an MSYS2 or Cygwin installation, never System32's (WSL).
func gitBash(h shellHost) string {
	if g, err := h.lookPath("git.exe"); err == nil {
		dir := filepath.Dir(g)
		root := filepath.Dir(dir)
		if strings.EqualFold(filepath.Base(dir), "bin") && strings.HasPrefix(strings.ToLower(filepath.Base(root)), "mingw") {
			root = filepath.Dir(root)
		}
		if b := filepath.Join(root, "bin", "bash.exe"); h.exists(b) {
			return b
		}
	}
	for _, env := range []string{"ProgramFiles", "ProgramW6432", "ProgramFiles(x86)"} {
		if base := h.getenv(env); base != "" {
			if b := filepath.Join(base, "Git", "bin", "bash.exe"); h.exists(b) {
				return b
			}
		}
	}
	if base := h.getenv("LOCALAPPDATA"); base != "" {
		if b := filepath.Join(base, "Programs", "Git", "bin", "bash.exe"); h.exists(b) {
			return b
		}
	}
	if b, err := h.lookPath("bash.exe"); err == nil && !underSystemRoot(b, h) {
		dir := filepath.Dir(b)
		for _, dll := range []string{
			filepath.Join(dir, "msys-2.0.dll"), filepath.Join(dir, "cygwin1.dll"),
			filepath.Join(filepath.Dir(dir), "usr", "bin", "msys-2.0.dll"),
		} {
			if h.exists(dll) {
				return b
			}
		}
	}
	return ""
}

// underSystemRoot reports whether p lies in %SystemRoot% (C:\Windows),
// where bash.exe is WSL's.
func underSystemRoot(p string, h shellHost) bool {
	root := h.getenv("SystemRoot")
	if root == "" {
		root = `C:\Windows`
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && !strings.HasPrefix(rel, "..")
}

// findPwsh finds PowerShell 7: pwsh on PATH, else its install place on
// Windows.
func findPwsh(h shellHost) string {
	name := "pwsh"
	if h.goos == "windows" {
		name = "pwsh.exe"
	}
	if p, err := h.lookPath(name); err == nil {
		return p
	}
	if h.goos == "windows" {
		if base := h.getenv("ProgramFiles"); base != "" {
			if p := filepath.Join(base, "PowerShell", "7", "pwsh.exe"); h.exists(p) {
				return p
			}
		}
	}
	return ""
}

// windowsPowerShell finds Windows PowerShell (powershell.exe, 5.1).
func windowsPowerShell(h shellHost) string {
	if root := h.getenv("SystemRoot"); root != "" {
		if p := filepath.Join(root, "System32", "WindowsPowerShell", "v1.0", "powershell.exe"); h.exists(p) {
			return p
		}
	}
	if p, err := h.lookPath("powershell.exe"); err == nil {
		return p
	}
	return ""
}

// scriptArgv is the argument vector that runs script under sh. args are
// $0, $1, … and only bash and sh take them.
func (sh scriptShell) scriptArgv(script string, args []string) ([]string, error) {
	switch sh.Kind {
	case ShellBash, shellSh:
		return append([]string{sh.Path, "-c", script}, args...), nil
	case ShellPowerShell, ShellPwsh:
		if len(args) > 0 {
			return nil, fmt.Errorf("script arguments (%s) are passed only to bash and sh, not to --shell %s", quoteArgs(args), sh.Kind)
		}
		return []string{sh.Path, "-NoLogo", "-NoProfile", "-NonInteractive", "-Command", script}, nil
	case ShellCmd:
		if len(args) > 0 {
			return nil, fmt.Errorf("script arguments (%s) are passed only to bash and sh, not to --shell cmd", quoteArgs(args))
		}
		// /d: no AutoRun commands from the registry; /s: the script is
		// everything between the first and the last quote, as it is.
		return []string{sh.Path, "/d", "/s", "/c", script}, nil
	}
	return nil, fmt.Errorf("unknown shell %q", sh.Kind)
}

// dialect is the language the classifier reads the shell's scripts in.
func (sh scriptShell) dialect() shell.Dialect {
	switch sh.Kind {
	case ShellPowerShell, ShellPwsh:
		return shell.PowerShell
	case ShellCmd:
		return shell.Cmd
	}
	return shell.Sh
}

func quoteArgs(args []string) string {
	b, _ := json.Marshal(args)
	return string(b)
}
