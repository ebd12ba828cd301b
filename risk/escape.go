package risk

import (
	"slices"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Ways out of the sandbox: the host's terminal sessions, its service
// manager and D-Bus, other machines (wsl), macOS Terminal.

var escapeJudges = map[string]judgeFunc{
	"tmux": func(j *judge, c *shell.Command) {
		args := c.Args
		if hasWord(args, "send-keys", "send", "send-prefix", "run-shell", "run", "respawn-pane", "new-window", "split-window", "new-session", "new") && anyArgs.Has(args, "tS", "") {
			j.hit(c, ruleSandboxEscape, "tmux controls a terminal session outside the sandbox")
		} else if hasWord(args, "send-keys", "send", "run-shell", "run") {
			j.hit(c, ruleSandboxEscape, "tmux controls a terminal session outside the sandbox")
		}
	},
	"screen": func(j *judge, c *shell.Command) {
		if anyArgs.Has(c.Args, "X") {
			j.hit(c, ruleSandboxEscape, "screen -X sends commands to a session outside the sandbox")
		}
	},
	"flatpak-spawn": onHost, "host-spawn": onHost, "distrobox-host-exec": onHost,
	"machinectl": func(j *judge, c *shell.Command) {
		if args := c.Args; len(args) > 1 && (args[1].Value == "shell" || args[1].Value == "login") {
			j.hit(c, ruleSandboxEscape, "machinectl %s opens a shell outside the sandbox", args[1].Value)
		}
	},
	"systemd-run": func(j *judge, c *shell.Command) {
		j.hit(c, ruleSandboxEscape, "systemd-run starts the command through the service manager, outside the sandbox")
	},
	"busctl": dbus, "gdbus": dbus, "dbus-send": dbus, "qdbus": dbus, "dbus": dbus,
	"open": func(j *judge, c *shell.Command) {
		if c.Dialect == shell.Sh {
			j.macOpen(c)
		}
	},
}

var escapeFoldJudges = map[string]judgeFunc{
	"wsl": func(j *judge, c *shell.Command) { j.wsl(c) }, "wslg": func(j *judge, c *shell.Command) { j.wsl(c) },
	// The WSL distributions' own launchers run a shell in the virtual
	// machine too; wslconfig manages (and unregisters) distributions.
	"ubuntu": wslLauncher, "ubuntu1804": wslLauncher, "ubuntu2004": wslLauncher, "ubuntu2204": wslLauncher,
	"ubuntu2404": wslLauncher, "debian": wslLauncher, "kali": wslLauncher, "wslconfig": wslLauncher,
}

func wslLauncher(j *judge, c *shell.Command) {
	j.hit(c, ruleSandboxEscape, "%s runs commands in a WSL virtual machine, outside the sandbox", c.Name())
}

// systemBash reports whether a command word names the bash.exe of
// Windows' system directory, which starts WSL (outside the sandbox), not
// a bash of its own.
func systemBash(word string) bool {
	w := strings.ToLower(strings.ReplaceAll(word, "/", `\`))
	for _, dir := range []string{`\windows\system32\`, `\windows\sysnative\`, `\windows\syswow64\`} {
		if i := strings.Index(w, dir); i >= 0 && (w[i+len(dir):] == "bash.exe" || w[i+len(dir):] == "bash") {
			return true
		}
	}
	return false
}

func onHost(j *judge, c *shell.Command) {
	j.hit(c, ruleSandboxEscape, "%s runs the command on the host, outside the sandbox", c.Name())
}

// dbus: D-Bus calls that ask systemd, logind or polkit to act.
func dbus(j *judge, c *shell.Command) {
	for _, a := range c.Args[1:] {
		if strings.Contains(a.Value, "systemd1") || strings.Contains(a.Value, "org.freedesktop.login1") || strings.Contains(a.Value, "PolicyKit1") {
			j.hit(c, ruleSandboxEscape, "%s asks a system service to act (%s), outside the sandbox", c.Name(), a.Value)
			break
		}
	}
}

// wsl flags running commands in a WSL distribution: they run in its own
// virtual machine, outside the Windows sandbox, and as root with -u root.
func (j *judge) wsl(c *shell.Command) {
	args := c.Args
	for i, a := range args[1:] {
		v := strings.ToLower(a.Value)
		if slices.Contains([]string{"-l", "--list", "--status", "--version", "-v", "--help"}, v) {
			return
		}
		if (v == "-u" || v == "--user") && i+2 < len(args) && args[i+2].Value == "root" {
			j.hit(c, ruleSudo, "wsl -u root runs the command as root")
		}
		if !strings.HasPrefix(v, "-") || v == "-e" || v == "--exec" || v == "--" {
			break
		}
	}
	j.hit(c, ruleSandboxEscape, "wsl runs commands in a Linux virtual machine, outside the sandbox")
}

// macOpen flags macOS open asking Terminal (or another terminal) to run
// something: it runs outside the sandbox.
func (j *judge) macOpen(c *shell.Command) {
	args := c.Args
	for i := 1; i < len(args); i++ {
		a := args[i]
		l := strings.ToLower(a.Value)
		if (l == "-a" || l == "-b") && i+1 < len(args) {
			app := strings.ToLower(args[i+1].Value)
			for _, t := range []string{"terminal", "iterm", "alacritty", "kitty", "wezterm", "warp", "hyper", "ghostty", "script editor", "automator"} {
				if strings.Contains(app, t) {
					j.hit(c, ruleSandboxEscape, "open %s runs commands in %s, outside the sandbox", a.Value, args[i+1].Value)
					return
				}
			}
			i++
			continue
		}
		for _, ext := range []string{".command", ".tool", ".terminal", ".workflow", ".scpt", ".applescript"} {
			if strings.HasSuffix(l, ext) {
				j.hit(c, ruleSandboxEscape, "open %s runs it outside the sandbox", a.Value)
				return
			}
		}
	}
}
