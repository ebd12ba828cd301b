package safeexec

import (
	"slices"

	"github.com/safeexec/safeexec/configs"
	"github.com/safeexec/safeexec/shell"
)

// policyKeeping is the request's policy with the env.keep names its
// command gets (an MCP server's token, configs.KeepFor) added to EnvKeep.
func policyKeeping(req *Request) *configs.Effective {
	extra := keepFor(req)
	if len(extra) == 0 {
		return req.Policy
	}
	pol := *req.Policy
	pol.EnvKeep = append(slices.Clone(pol.EnvKeep), extra...)
	return &pol
}

// keepFor returns the names env.keep keeps for the request's command. It
// keeps them only for a request that is one plain simple command — no
// other command, wrapper, assignment, redirection, pipe or script, every
// word known — whose words start with an entry's words, so that a token
// kept for an MCP server cannot ride along with anything else.
func keepFor(req *Request) []string {
	if req.Policy == nil || len(req.Policy.EnvKeepFor) == 0 {
		return nil
	}
	opts := shell.Options{Cwd: req.Cwd}
	var prog *shell.Program
	if req.IsScript {
		prog = shell.Parse(req.Script, opts)
	} else {
		prog = shell.ParseArgv(req.Argv, opts)
	}
	if len(prog.Issues) > 0 || len(prog.Commands) != 1 {
		return nil
	}
	c := prog.Commands[0]
	if len(c.Args) == 0 || len(c.Wrappers) > 0 || len(c.Assigns) > 0 || len(c.Redirs) > 0 ||
		c.Stdin.Kind != shell.InputInherited || c.Script != nil || c.ExtraArgs {
		return nil
	}
	for _, a := range c.Args {
		if a.Dynamic || a.Glob {
			return nil
		}
	}
	words := c.Values()
	var out []string
	for _, k := range req.Policy.EnvKeepFor {
		if keepMatches(shell.SplitWords(k.Command), words) {
			out = append(out, k.Names...)
		}
	}
	return out
}

// quietFlags may stand between an entry's words in the command: they
// only silence the tool or answer its "install?" question (npx -y).
var quietFlags = map[string]bool{"-y": true, "--yes": true, "-q": true, "--quiet": true, "--silent": true}

// keepMatches reports whether words start with pattern's words, the
// command name written the same way, quiet flags aside (in the command
// and in the pattern: "npx -y @scope/server" and "npx @scope/server" are
// the same entry).
func keepMatches(pattern, words []string) bool {
	if len(pattern) == 0 || len(words) == 0 || words[0] != pattern[0] {
		return false
	}
	j := 1
	for _, pw := range pattern[1:] {
		if quietFlags[pw] {
			continue
		}
		for j < len(words) && quietFlags[words[j]] {
			j++
		}
		if j >= len(words) || words[j] != pw {
			return false
		}
		j++
	}
	return true
}
