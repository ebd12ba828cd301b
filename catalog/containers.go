package catalog

import (
	"slices"

	"github.com/safeexec/safeexec/shell"
)

// Containers: docker and its kin copy files out of containers, save
// images to files, and write their registry credentials on login.

var containerTools = map[string]*Tool{
	"docker":  {Tool: shell.Tool{Writes: containerWrites}, HomeWrites: dockerHome},
	"podman":  {Tool: shell.Tool{Writes: containerWrites}, HomeWrites: dockerHome},
	"nerdctl": {HomeWrites: dockerHome},
	"helm":    {HomeWrites: dockerHome},
	"kubectl": {Tool: shell.Tool{Writes: containerWrites}, HomeWrites: kubeHome},
	"oc":      {HomeWrites: kubeHome},
}

// containerWrites: docker cp SRC DEST writes a local DEST; docker save
// and export -o FILE write the file.
func containerWrites(c *shell.Command) shell.Writes {
	args := c.Args
	var w shell.Writes
	if len(args) > 3 && args[1].Value == "cp" {
		if ops := anyArgs.Operands(args[1:]); len(ops) >= 2 && !Remote(ops[len(ops)-1]) {
			w.Files = ops[len(ops)-1:]
		}
	}
	if c.Name() == "docker" && hasWord(args, "save", "export") {
		w.Files = append(w.Files, outputOption(c).Files...)
	}
	return w
}

func dockerHome(c *shell.Command) []string {
	w := firstWords(c.Args, 2)
	if len(w) > 0 && slices.Contains([]string{"login", "logout"}, w[0]) || c.Name() == "helm" && len(w) > 1 && w[0] == "registry" && slices.Contains([]string{"login", "logout"}, w[1]) {
		return []string{".docker/config.json"}
	}
	return nil
}

func kubeHome(c *shell.Command) []string {
	w := firstWords(c.Args, 2)
	if len(w) > 1 && w[0] == "config" && slices.Contains([]string{"set", "set-context", "set-cluster", "set-credentials", "use-context", "use", "delete-context", "delete-cluster", "delete-user", "rename-context", "unset"}, w[1]) && !anyArgs.Has(c.Args, "", "kubeconfig") {
		return []string{".kube/config"}
	}
	return nil
}
