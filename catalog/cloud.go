package catalog

import (
	"slices"

	"github.com/safeexec/safeexec/shell"
)

// Cloud and account tools, and ssh-keygen: the credential and settings
// files their login and config commands write under the home directory.

var (
	ghArgs     = &shell.ArgSpec{Short: "R", Long: []string{"repo", "hostname", "jq", "template", "json"}}
	gcloudArgs = &shell.ArgSpec{Long: []string{"project", "account", "configuration", "format", "verbosity", "impersonate-service-account",
		"billing-project", "flags-file", "flatten", "trace-token", "access-token-file", "filter", "limit", "page-size", "sort-by", "region", "zone"}}
	awsArgs = &shell.ArgSpec{Long: []string{"profile", "region", "output", "endpoint-url", "query", "color", "ca-bundle",
		"cli-read-timeout", "cli-connect-timeout", "cli-binary-format", "cli-input-json", "cli-input-yaml"}}
	azArgs   = &shell.ArgSpec{Short: "og", Long: []string{"output", "query", "subscription", "resource-group", "name"}}
	kubeArgs = &shell.ArgSpec{Short: "nslo", Long: []string{"namespace", "context", "cluster", "user", "kubeconfig", "server", "token",
		"as", "as-group", "as-uid", "request-timeout", "certificate-authority", "client-certificate", "client-key", "tls-server-name",
		"cache-dir", "profile", "selector", "output", "password", "username", "field-selector", "template", "filename"}}
	vaultArgs = &shell.ArgSpec{Long: []string{"address", "namespace", "format", "field", "mount", "ca-cert", "client-cert", "client-key"}}
	opArgs    = &shell.ArgSpec{Long: []string{"account", "vault", "format", "session", "config", "encoding", "cache"}}
)

// Credential stores and secret managers: their options, so that a value
// is never taken for a subcommand (aws --profile p configure get …).
var secretTools = map[string]*Tool{
	"vault": {Tool: shell.Tool{Args: vaultArgs}}, "op": {Tool: shell.Tool{Args: opArgs}},
	"pass": {}, "gopass": {}, "secret-tool": {}, "bw": {Tool: shell.Tool{Args: &shell.ArgSpec{Long: []string{"session", "output"}}}},
	"lpass": {}, "keyring": {}, "security": {},
}

var cloudTools = map[string]*Tool{
	"gh": {Tool: shell.Tool{Args: ghArgs}, HomeWrites: homeWhen(".config/gh/hosts.yml", func(w []string) bool {
		return at(w, 0) == "auth" && slices.Contains([]string{"login", "logout", "refresh", "setup-git", "switch"}, at(w, 1))
	})},
	"gcloud": {Tool: shell.Tool{Args: gcloudArgs}, HomeWrites: homeWhen(".config/gcloud", func(w []string) bool {
		return at(w, 0) == "auth" && slices.Contains([]string{"login", "activate-service-account", "revoke", "application-default"}, at(w, 1)) || at(w, 0) == "config" && slices.Contains([]string{"set", "unset"}, at(w, 1))
	})},
	"aws": {Tool: shell.Tool{Args: awsArgs}, HomeWrites: homeWhen(".aws/config", func(w []string) bool {
		return at(w, 0) == "configure" && (len(w) == 1 || slices.Contains([]string{"set", "import", "sso"}, at(w, 1))) || at(w, 0) == "sso" && at(w, 1) == "login"
	})},
	"az": {Tool: shell.Tool{Args: azArgs}, HomeWrites: homeWhen(".azure", func(w []string) bool { return slices.Contains([]string{"login", "logout"}, at(w, 0)) })},
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
		if when(SubWords(c, 3)) {
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
