package risk

import (
	"slices"
	"strings"

	"github.com/safeexec/safeexec/catalog"
	"github.com/safeexec/safeexec/shell"
)

// Commands whose purpose is to print stored credentials.

var credentialJudges = map[string]judgeFunc{
	// dotenv list|get (python-dotenv) and dotenv -p VAR (dotenv-cli)
	// print the values an environment file holds.
	"dotenv": func(j *judge, c *shell.Command) {
		ops := catalog.Args("dotenv").Operands(c.Args)
		if len(ops) > 0 && (ops[0].Value == "list" || ops[0].Value == "get") || catalog.Args("dotenv").Has(c.Args, "p", "") {
			j.hit(c, ruleCredentialPath, "dotenv prints the values an environment file (.env) holds")
		}
	},
	"security": func(j *judge, c *shell.Command) {
		if args := c.Args; len(args) > 1 && slices.Contains([]string{"find-generic-password", "find-internet-password", "dump-keychain", "export", "find-key", "unlock-keychain"}, args[1].Value) {
			j.hit(c, ruleCredentialPath, "security %s reads the keychain", args[1].Value)
		}
	},
}

func init() {
	for _, n := range []string{"gh", "gcloud", "aws", "az", "pass", "gopass", "op", "secret-tool", "kubectl", "oc", "vault", "gpg", "gpg2", "bw", "lpass", "keyring"} {
		credentialJudges[n] = func(j *judge, c *shell.Command) { j.credentialCommand(c) }
	}
}

// credentialCommand flags commands whose purpose is to print stored
// credentials.
func (j *judge) credentialCommand(c *shell.Command) {
	args := c.Args
	name := c.Name()
	words := func(n int) string { return strings.Join(catalog.SubWords(c, n), " ") }
	hit := false
	switch name {
	case "gh":
		w := words(2)
		hit = w == "auth token" || (w == "auth status" && catalog.Args(name).Has(args, "t", "show-token"))
	case "gcloud":
		w := words(3)
		hit = strings.Contains(w, "print-access-token") || strings.Contains(w, "print-identity-token") || strings.HasPrefix(w, "config config-helper")
	case "aws":
		w := words(2)
		hit = w == "configure get" || w == "configure export-credentials" || w == "sts get-session-token"
	case "az":
		hit = words(2) == "account get-access-token"
	case "pass", "gopass":
		w := words(1)
		hit = w == "show" || (w != "" && !slices.Contains([]string{"ls", "list", "find", "search", "init", "generate", "insert", "edit", "rm", "mv", "cp", "git", "help", "version", "grep"}, w))
	case "op":
		w := words(2)
		hit = strings.HasPrefix(w, "read") || w == "item get" || strings.HasPrefix(w, "inject")
	case "secret-tool":
		hit = words(1) == "lookup"
	case "kubectl", "oc":
		hit = words(2) == "config view" && anyArgs.Has(args, "", "raw", "flatten")
	case "vault":
		w := words(2)
		hit = strings.HasPrefix(w, "read") || w == "kv get" || strings.HasPrefix(w, "token create")
	case "gpg", "gpg2":
		hit = anyArgs.Has(args, "", "export-secret-keys", "export-secret-subkeys", "export-ssh-key")
	case "bw", "lpass", "keyring":
		w := words(1)
		hit = w == "get" || w == "show" || w == "export"
	}
	if strings.HasPrefix(name, "docker-credential-") && words(1) == "get" {
		hit = true
	}
	if hit {
		j.hit(c, ruleCredentialPath, "%s prints stored credentials", name)
	}
}
