package catalog

import (
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Environment printers: system tools whose output is shell code that sets
// up the environment (PATH, a version manager's shims, an agent's socket,
// completions), so that eval "$(brew shellenv)" and source <(kubectl
// completion bash) run what the tool prints. Only the argument shapes
// listed here count: the same tool asked something else prints something
// else.
//
// A shape is the words after the program's name. Its leading words must
// be there, in order; words in brackets are optional and may follow in
// any order, each at most once. SHELL stands for a shell's name (bash,
// zsh, fish, posix, …), also inside a word (shell.SHELL, --shell=SHELL);
// NAME for a plain identifier (zoxide --cmd NAME).
var envPrinters = map[string][]string{
	// Package managers and version managers.
	"brew":       {"shellenv [SHELL]"},
	"pyenv":      {"init - [--no-rehash] [SHELL]", "init --path [--no-rehash] [SHELL]", "virtualenv-init - [SHELL]"},
	"rbenv":      {"init - [--no-rehash] [SHELL]"},
	"nodenv":     {"init - [--no-rehash] [SHELL]"},
	"goenv":      {"init - [--no-rehash] [SHELL]"},
	"jenv":       {"init - [--no-rehash] [SHELL]"},
	"plenv":      {"init - [--no-rehash] [SHELL]"},
	"phpenv":     {"init - [--no-rehash] [SHELL]"},
	"luaenv":     {"init - [--no-rehash] [SHELL]"},
	"fnm":        {"env [--use-on-cd] [--shell SHELL] [--shell=SHELL] [--corepack-enabled] [--resolve-engines] [--version-file-strategy recursive] [--version-file-strategy=recursive]"},
	"mise":       {"activate [SHELL] [--shims] [--quiet] [-q]"},
	"rtx":        {"activate [SHELL]"},
	"conda":      {"shell.SHELL hook"},
	"mamba":      {"shell.SHELL hook", "shell hook [--shell SHELL] [-s SHELL]"},
	"micromamba": {"shell hook [--shell SHELL] [-s SHELL] [--shell=SHELL]"},
	"opam":       {"env [--shell=SHELL] [--set-switch]", "config env"},
	"luarocks":   {"path [--bin]"},
	// Agents, hooks and prompts.
	"ssh-agent":   {"[-s]"},
	"direnv":      {"hook SHELL"},
	"zoxide":      {"init SHELL [--cmd NAME] [--no-cmd] [--hook none] [--hook prompt] [--hook pwd]"},
	"starship":    {"init SHELL [--print-full-init]"},
	"atuin":       {"init SHELL [--disable-up-arrow] [--disable-ctrl-r]"},
	"dircolors":   {"[-b]", "--sh", "--bourne-shell"},
	"lesspipe":    {""},
	"path_helper": {"-s"},
	// Completion scripts.
	"kubectl":   {"completion SHELL"},
	"helm":      {"completion SHELL"},
	"minikube":  {"completion SHELL"},
	"kind":      {"completion SHELL"},
	"k3d":       {"completion SHELL"},
	"kustomize": {"completion SHELL"},
	"flux":      {"completion SHELL"},
	"argocd":    {"completion SHELL"},
	"oc":        {"completion SHELL"},
	"docker":    {"completion SHELL"},
	"podman":    {"completion SHELL"},
	"eksctl":    {"completion SHELL"},
	"gh":        {"completion -s SHELL", "completion --shell SHELL", "completion --shell=SHELL"},
	"glab":      {"completion -s SHELL", "completion --shell SHELL"},
	"hugo":      {"completion SHELL"},
	"chezmoi":   {"completion SHELL"},
	"op":        {"completion SHELL"},
	"rustup":    {"completions SHELL [cargo] [rustup]"},
	"poetry":    {"completions SHELL"},
	"deno":      {"completions SHELL"},
	"pnpm":      {"completion SHELL"},
	"npm":       {"completion"},
	"pip":       {"completion --bash", "completion --zsh", "completion --fish"},
	"pip3":      {"completion --bash", "completion --zsh", "completion --fish"},
	"uv":        {"generate-shell-completion SHELL"},
	"uvx":       {"--generate-shell-completion SHELL"},
	"ruff":      {"generate-shell-completion SHELL"},
	"just":      {"--completions SHELL"},
}

// printerShells are the names SHELL stands for.
var printerShells = map[string]bool{"bash": true, "zsh": true, "sh": true, "fish": true, "ksh": true, "dash": true,
	"posix": true, "tcsh": true, "csh": true, "elvish": true, "nu": true, "nushell": true, "xonsh": true,
	"pwsh": true, "powershell": true}

// EnvPrinter reports whether a command is an environment printer asked
// for its environment setup in one of the shapes listed (brew shellenv,
// pyenv init -): its output is shell code that sets up the environment,
// not code a reader of the script needs to see. Where the program comes
// from (PATH, a system directory, not a file the script can change) is
// the caller's to check.
func EnvPrinter(c *shell.Command) bool {
	shapes := envPrinters[c.Name()]
	if len(shapes) == 0 {
		return false
	}
	args := make([]string, 0, len(c.Args)-1)
	for _, a := range c.Args[1:] {
		if a.Dynamic || a.Glob {
			return false
		}
		args = append(args, a.Value)
	}
	for _, s := range shapes {
		if matchShape(s, args) {
			return true
		}
	}
	return false
}

// matchShape matches words against a shape (see envPrinters).
func matchShape(shape string, args []string) bool {
	var fixed []string
	var optional [][]string
	for rest := strings.TrimSpace(shape); rest != ""; rest = strings.TrimSpace(rest) {
		if rest[0] == '[' {
			end := strings.IndexByte(rest, ']')
			optional = append(optional, strings.Fields(rest[1:end]))
			rest = rest[end+1:]
			continue
		}
		w, r, _ := strings.Cut(rest, " ")
		if len(optional) > 0 {
			return false // a malformed shape matches nothing
		}
		fixed, rest = append(fixed, w), r
	}
	if len(args) < len(fixed) {
		return false
	}
	for i, w := range fixed {
		if !matchWord(w, args[i]) {
			return false
		}
	}
	return matchOptional(optional, args[len(fixed):], make([]bool, len(optional)))
}

// matchOptional matches args against optional groups, each used at most
// once, in any order.
func matchOptional(groups [][]string, args []string, used []bool) bool {
	if len(args) == 0 {
		return true
	}
	for g, words := range groups {
		if used[g] || len(words) > len(args) {
			continue
		}
		ok := true
		for i, w := range words {
			if !matchWord(w, args[i]) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		used[g] = true
		if matchOptional(groups, args[len(words):], used) {
			return true
		}
		used[g] = false
	}
	return false
}

func matchWord(pattern, arg string) bool {
	if pattern == "NAME" {
		if arg == "" {
			return false
		}
		for _, r := range arg {
			if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return false
			}
		}
		return true
	}
	pre, post, ok := strings.Cut(pattern, "SHELL")
	if !ok {
		return pattern == arg
	}
	if !strings.HasPrefix(arg, pre) || !strings.HasSuffix(arg, post) || len(arg) < len(pre)+len(post) {
		return false
	}
	return printerShells[arg[len(pre):len(arg)-len(post)]]
}
