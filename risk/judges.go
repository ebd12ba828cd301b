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
	case lname == "bash" && systemBash(c.Args[0].Value):
		j.hit(c, ruleSandboxEscape, "%s is WSL's bash: it runs the command in a Linux virtual machine, outside the sandbox", c.Args[0].Value)
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

// dynamicOption finds a word only known at run time where a program
// reads its options: a word whose known part is empty or starts with a
// dash (an option cluster or long option it could complete), among the
// words before the first operand that is known (anywhere, when anywhere
// is set: programs that read options after operands).
func dynamicOption(spec *shell.ArgSpec, args []shell.Word, anywhere bool) (shell.Word, bool) {
	for a := range spec.Args(args) {
		w := args[a.At]
		switch {
		case a.Partial:
			return w, true
		case !a.Operand:
		case w.Dynamic && (w.Prefix == "" || strings.HasPrefix(w.Prefix, "-")):
			return w, true
		case !w.Dynamic && !anywhere:
			return shell.Word{}, false
		}
	}
	return shell.Word{}, false
}

// hitDynamicOption reports a run-time word that could be an option of
// a destructive command.
func (j *judge) hitDynamicOption(c *shell.Command, spec *shell.ArgSpec, args []shell.Word, anywhere bool, what string) {
	if w, ok := dynamicOption(spec, args, anywhere); ok {
		j.hit(c, ruleDynamicOption, "%s %s: a value only known at run time could make it %s", c.Name(), w.Value, what)
	}
}
