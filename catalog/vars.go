package catalog

import (
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// commandVars are environment variables whose value programs run as a
// command: git's, editors', pagers', askpass helpers.
var commandVars = map[string]bool{
	"GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_EDITOR": true, "GIT_PAGER": true, "GIT_EXTERNAL_DIFF": true,
	"GIT_ASKPASS": true, "GIT_SEQUENCE_EDITOR": true, "GIT_PROXY_COMMAND": true, "SSH_ASKPASS": true,
	"EDITOR": true, "VISUAL": true, "PAGER": true, "MANPAGER": true, "BROWSER": true, "LESSOPEN": true,
	"LESSCLOSE": true, "SUDO_ASKPASS": true, "SYSTEMD_PAGER": true,
}

// IsCommandVar reports whether programs run an environment variable's
// value as a command.
func IsCommandVar(name string) bool { return commandVars[name] }

// Vars says how programs use an environment variable (shell.Options.Vars).
func Vars(name string) shell.VarUse {
	switch {
	case commandVars[name]:
		return commandVar(name)
	case name == "GIT_CONFIG_GLOBAL" || name == "GIT_CONFIG_SYSTEM" || name == "GIT_CONFIG":
		return gitConfigFile
	case name == "GIT_CONFIG_PARAMETERS":
		return gitConfigParameters
	case strings.HasPrefix(name, "GIT_CONFIG_VALUE_"):
		return gitConfigValue(strings.TrimPrefix(name, "GIT_CONFIG_VALUE_"))
	}
	return nil
}

func commandVar(name string) shell.VarUse {
	return func(val shell.Word, f *shell.Follower) {
		if val.Value == "" && !val.Dynamic {
			return
		}
		v := val
		if name == "LESSOPEN" || name == "LESSCLOSE" {
			v.Value = strings.TrimLeft(strings.ReplaceAll(v.Value, "%s", "FILE"), "|-")
		}
		f.Code(v, shell.ConfigCommand)
	}
}

// gitConfigFile: git reads its configuration from the file named.
func gitConfigFile(val shell.Word, f *shell.Follower) {
	if !val.Dynamic && (val.Value == "/dev/null" || val.Value == "") {
		return
	}
	GitConfig(f, word("include.path="+val.Value, false, 0))
}

// gitConfigParameters: git reads -c settings from GIT_CONFIG_PARAMETERS.
func gitConfigParameters(val shell.Word, f *shell.Follower) {
	if val.Dynamic || f.Alone() {
		return
	}
	for _, kv := range shell.SplitWords(val.Value) {
		GitConfig(f, shell.Static(kv))
	}
}

// gitConfigValue: GIT_CONFIG_KEY_N and GIT_CONFIG_VALUE_N set a key.
func gitConfigValue(n string) shell.VarUse {
	return func(val shell.Word, f *shell.Follower) {
		if f.Alone() {
			return
		}
		for _, a := range f.Cmd().Assigns {
			if a.Name == "GIT_CONFIG_KEY_"+n {
				GitConfig(f, word(a.Value.Value+"="+val.Value, a.Value.Dynamic || val.Dynamic, 0))
			}
		}
	}
}
