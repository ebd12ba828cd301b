package catalog

import (
	"slices"

	"github.com/safeexec/safeexec/shell"
)

// Cloud and account tools, and ssh-keygen: the credential and settings
// files their login and config commands write under the home directory.

var cloudTools = map[string]*Tool{
	"gh": {HomeWrites: homeWhen(".config/gh/hosts.yml", func(w []string) bool {
		return at(w, 0) == "auth" && slices.Contains([]string{"login", "logout", "refresh", "setup-git", "switch"}, at(w, 1))
	})},
	"gcloud": {HomeWrites: homeWhen(".config/gcloud", func(w []string) bool {
		return at(w, 0) == "auth" && slices.Contains([]string{"login", "activate-service-account", "revoke", "application-default"}, at(w, 1)) || at(w, 0) == "config" && slices.Contains([]string{"set", "unset"}, at(w, 1))
	})},
	"aws": {HomeWrites: homeWhen(".aws/config", func(w []string) bool {
		return at(w, 0) == "configure" && (len(w) == 1 || slices.Contains([]string{"set", "import", "sso"}, at(w, 1))) || at(w, 0) == "sso" && at(w, 1) == "login"
	})},
	"az": {HomeWrites: homeWhen(".azure", func(w []string) bool { return slices.Contains([]string{"login", "logout"}, at(w, 0)) })},
	"heroku": {HomeWrites: homeWhen(".netrc", func(w []string) bool {
		return slices.Contains([]string{"login", "logout", "auth:login", "auth:logout"}, at(w, 0))
	})},
	"ssh-keygen": {Tool: shell.Tool{Writes: sshKeygenWrites}, HomeWrites: sshKeygenHome},
}

func at(w []string, i int) string {
	if i < len(w) {
		return w[i]
	}
	return ""
}

// homeWhen is a HomeWrites that names file when the command's first words
// say so.
func homeWhen(file string, when func(words []string) bool) func(*shell.Command) []string {
	return func(c *shell.Command) []string {
		if when(firstWords(c.Args, 3)) {
			return []string{file}
		}
		return nil
	}
}

// sshKeygenWrites: ssh-keygen -f FILE writes the key (not when only
// reading one).
func sshKeygenWrites(c *shell.Command) shell.Writes {
	if w, ok := anyArgs.Value(c.Args, "f", ""); ok && !anyArgs.Has(c.Args, "lyFRB") {
		return shell.Writes{Files: []shell.Word{w}}
	}
	return shell.Writes{}
}

// sshKeygenHome: without -f, ssh-keygen writes under ~/.ssh.
func sshKeygenHome(c *shell.Command) []string {
	if _, ok := anyArgs.Value(c.Args, "f", ""); !ok && !anyArgs.Has(c.Args, "lyFBeiDQYkh") {
		return []string{".ssh"}
	}
	return nil
}
