package risk

import (
	"github.com/safeexec/safeexec/catalog"
	"github.com/safeexec/safeexec/shell"
)

// sed: its e command and s///e flag run shell commands; its r command
// reads files (what it writes is in its catalog entry).

var sedJudges = map[string]judgeFunc{
	"sed": func(j *judge, c *shell.Command) { j.sedExec(c) }, "gsed": func(j *judge, c *shell.Command) { j.sedExec(c) },
}

// sedExec flags GNU sed's e command and s///e flag, which run shell
// commands, and judges the files its w and r commands write and read.
func (j *judge) sedExec(c *shell.Command) {
	scripts, _ := catalog.SedScripts(c)
	for _, sw := range scripts {
		if sw.Dynamic {
			continue
		}
		cmds, _, reads := catalog.SedScript(sw.Value)
		for _, cmdText := range cmds {
			if cmdText == "" {
				j.hit(c, ruleDynamicCommand, "sed runs the pattern space as a shell command")
				continue
			}
			opts := j.env.shellOptions()
			if c.DirKnown {
				opts.Cwd = c.Dir
			}
			j.nested(shell.Parse(cmdText, opts), "sed")
		}
		for _, r := range reads {
			j.read(c, shell.Static(r))
		}
	}
}
