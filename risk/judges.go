package risk

import (
	"slices"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// byName applies the rules tied to a command's name.
// judgeFunc applies the rules tied to one program.
type judgeFunc func(j *judge, c *shell.Command)

// judges holds each family's judges by exact program name; foldJudges
// those matched case-insensitively (Windows programs and cmdlets, disk
// tools).
var judges, foldJudges = map[string]judgeFunc{}, map[string]judgeFunc{}

func init() {
	merge := func(into map[string]judgeFunc, fams ...map[string]judgeFunc) {
		for _, fam := range fams {
			for name, f := range fam {
				if into[name] != nil {
					panic("risk: two judges for " + name)
				}
				into[name] = f
			}
		}
	}
	merge(judges, privilegeJudges, fileJudges, gitJudges, safeexecJudges, persistenceJudges, containerJudges,
		escapeJudges, credentialJudges, sedJudges, networkJudges)
	merge(foldJudges, diskJudges, privilegeFoldJudges, fileFoldJudges, persistenceFoldJudges, escapeFoldJudges,
		windowsFoldJudges)
}

// byName applies the rules tied to a command's name.
func (j *judge) byName(c *shell.Command) {
	name := c.Name()
	if f := judges[name]; f != nil {
		f(j, c)
		return
	}
	lname := strings.ToLower(name)
	if f := foldJudges[lname]; f != nil {
		f(j, c)
		return
	}
	switch {
	case diskPrefix(lname):
		disk(j, c)
	case strings.HasPrefix(name, "docker-credential-"):
		j.credentialCommand(c)
	}
}

// networkJudges: remote shells, programs connected to the network.
var networkJudges = map[string]judgeFunc{
	"nc": remoteShell, "ncat": remoteShell, "netcat": remoteShell, "nc.traditional": remoteShell, "nc.openbsd": remoteShell,
	"socat": func(j *judge, c *shell.Command) {
		for _, a := range c.Args[1:] {
			if u := strings.ToUpper(a.Value); strings.HasPrefix(u, "EXEC:") || strings.HasPrefix(u, "SYSTEM:") {
				j.hit(c, rulePipeToShell, "socat connects a program to a data stream (%s)", a.Value)
				break
			}
		}
	},
}

func remoteShell(j *judge, c *shell.Command) {
	if anyArgs.Has(c.Args, "ec", "exec", "sh-exec", "lua-exec") {
		j.hit(c, rulePipeToShell, "%s -e/-c connects a program to the network (a remote shell)", c.Name())
	}
}

func hasWord(args []shell.Word, set ...string) bool {
	for _, a := range args[1:] {
		if !a.Dynamic && slices.Contains(set, a.Value) {
			return true
		}
	}
	return false
}

func hasWordFold(args []shell.Word, set ...string) bool {
	for _, a := range args[1:] {
		for _, s := range set {
			if strings.EqualFold(a.Value, s) {
				return true
			}
		}
	}
	return false
}

// sedCommands returns the shell commands of a sed script's e commands
// ("" for e without a command and for s///e, which run text from the
// input).

// anyArgs reads the options of programs whose options are not described:
// none takes a value unless the question says so.
var anyArgs = &shell.ArgSpec{}
