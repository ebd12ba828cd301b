package risk

import (
	"strings"

	"github.com/safeexec/safeexec/catalog"
	"github.com/safeexec/safeexec/shell"
)

// Destroying files and their contents, and permissions that let every
// user write.

var fileJudges = map[string]judgeFunc{
	"rm":      rm,
	"chmod":   func(j *judge, c *shell.Command) { j.chmod(c) },
	"mkdir":   modeOption,
	"install": modeOption,
	"mkfifo":  modeOption,
	"mknod":   modeOption,
	"find":    func(j *judge, c *shell.Command) { j.find(c) },
	"shred":   shred,
	"wipe":    shred,
	"srm":     shred,
	"truncate": func(j *judge, c *shell.Command) {
		j.hit(c, ruleTruncate, "truncate cuts files to a size, losing their contents")
	},
	"rsync": rsyncDelete,
}

var fileFoldJudges = map[string]judgeFunc{
	"rd": winDelete, "rmdir": winDelete, "del": winDelete, "erase": winDelete, "ri": winDelete,
	"remove-item": removeItem,
	"clear-recyclebin": func(j *judge, c *shell.Command) {
		j.hit(c, ruleClearRecycleBin, "Clear-RecycleBin empties the recycle bin for good")
	},
	"cipher": func(j *judge, c *shell.Command) {
		if shell.WinFlag(c.Args, "w") {
			j.hit(c, ruleShred, "cipher /w wipes free disk space")
		}
	},
	"icacls": icacls, "cacls": icacls,
}

// rsyncDelete: rsync --delete and its kin (--del, --delete-after,
// --delete-excluded, …) delete files in the destination that the source
// does not have.
func rsyncDelete(j *judge, c *shell.Command) {
	spec := catalog.Args("rsync")
	for a := range spec.Args(c.Args) {
		if a.Long && !a.Operand && strings.HasPrefix(a.Name, "del") {
			j.hit(c, ruleRecursiveRm, "rsync --%s deletes files in the destination", a.Name)
			return
		}
	}
	j.hitDynamicOption(c, spec, c.Args, true, "delete files (--delete)")
}

// rm -r in any spelling removes a tree (in PowerShell rm is Remove-Item).
func rm(j *judge, c *shell.Command) {
	if c.Dialect == shell.PowerShell {
		removeItem(j, c)
		return
	}
	spec := catalog.Args("rm")
	if spec.Has(c.Args, "rR", "recursive") {
		j.hit(c, ruleRecursiveRm, "removes directories recursively")
		return
	}
	j.hitDynamicOption(c, spec, c.Args, true, "recursive")
}

func shred(j *judge, c *shell.Command) {
	j.hit(c, ruleShred, "%s destroys file contents beyond recovery", c.Name())
}

// modeOption: mkdir -m MODE and its kin.
func modeOption(j *judge, c *shell.Command) {
	if m, ok := catalog.Args(c.Name()).Value(c.Args, "m", "mode"); ok && !m.Dynamic {
		j.mode(c, m.Value)
	}
}

// winDelete: cmd.exe's rd /s, del /s; in PowerShell the names are
// Remove-Item.
func winDelete(j *judge, c *shell.Command) {
	switch c.Dialect {
	case shell.Cmd:
		if c.Name() != "ri" && shell.WinFlag(c.Args, "s") {
			j.hit(c, ruleRecursiveRm, "%s /s removes a directory tree", c.Name())
		}
	case shell.PowerShell:
		removeItem(j, c)
	}
}

// removeItem: Remove-Item -Recurse/-Force, and registry keys.
func removeItem(j *judge, c *shell.Command) {
	args := c.Args
	if shell.PSParam(args, "recurse", 1) || shell.PSParam(args, "force", 2) {
		j.hit(c, ruleRecursiveRm, "Remove-Item -Recurse/-Force removes a tree or read-only items")
	}
	for _, a := range args[1:] {
		if l := strings.ToLower(a.Value); strings.HasPrefix(l, "hklm:") || strings.HasPrefix(l, `registry::hkey_local_machine`) {
			j.hit(c, ruleRegistrySystem, "removes machine-wide registry keys")
		} else if strings.HasPrefix(l, "hkcu:") || strings.HasPrefix(l, `registry::hkey_current_user`) {
			j.hit(c, ruleRegistryDelete, "removes registry keys of the current user")
		}
	}
}

// icacls granting Everyone (or Users) write access.
func icacls(j *judge, c *shell.Command) {
	for _, a := range c.Args[1:] {
		l := strings.ToLower(a.Value)
		if (strings.Contains(l, "everyone:") || strings.Contains(l, "*s-1-1-0:") || strings.Contains(l, "users:")) && (strings.Contains(l, "f") || strings.Contains(l, "m") || strings.Contains(l, "w")) {
			j.hit(c, ruleChmod777, "%s grants everyone write access", c.Name())
			break
		}
	}
}

// chmod flags modes that let every user write (777, a+w, o+w) and set-id
// bits.
func (j *judge) chmod(c *shell.Command) {
	ops := anyArgs.Operands(c.Args)
	if len(ops) == 0 {
		return
	}
	mode := ops[0]
	if mode.Dynamic {
		j.hit(c, ruleDynamicOption, "chmod %s: a mode only known at run time could let every user write", mode.Value)
		return
	}
	j.mode(c, mode.Value)
}

// mode flags a permission mode that lets every user write or sets the
// set-user/group-id bits (chmod MODE, mkdir -m MODE, install -m MODE).
func (j *judge) mode(c *shell.Command, m string) {
	if isOctal(m) {
		digits := m
		for len(digits) < 3 {
			digits = "0" + digits
		}
		other := digits[len(digits)-1] - '0'
		if other&2 != 0 {
			j.hit(c, ruleChmod777, "mode %s lets every user write", m)
		}
		if len(digits) >= 4 && (digits[len(digits)-4]-'0')&6 != 0 {
			j.hit(c, ruleChmodSetuid, "mode %s sets the set-user/group-id bit", m)
		}
		return
	}
	for _, clause := range strings.Split(m, ",") {
		who := strings.TrimRight(clause[:strings.IndexAny(clause+"+-=", "+-=")], "")
		ops := clause[len(who):]
		if ops == "" {
			continue
		}
		adds := strings.HasPrefix(ops, "+") || strings.HasPrefix(ops, "=")
		perms := strings.TrimLeft(ops, "+-=")
		everyone := strings.ContainsAny(who, "ao")
		if adds && everyone && strings.ContainsAny(perms, "w") {
			j.hit(c, ruleChmod777, "mode %s lets every user write", m)
		}
		if adds && strings.ContainsAny(perms, "s") {
			j.hit(c, ruleChmodSetuid, "mode %s sets the set-user/group-id bit", m)
		}
	}
}

func isOctal(s string) bool {
	if s == "" || len(s) > 5 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '7' {
			return false
		}
	}
	return true
}

// find flags -delete and -exec rm; the starting points of a deleting
// find are judged as write targets.
func (j *judge) find(c *shell.Command) {
	deletes, what := catalog.FindDeletes(c)
	if !deletes {
		for _, a := range c.Args[1:] {
			if a.Dynamic && (a.Prefix == "" || strings.HasPrefix(a.Prefix, "-")) && !strings.Contains(a.Value, "{}") {
				j.hit(c, ruleDynamicOption, "find %s: a value only known at run time could make it delete (-delete, -exec rm)", a.Value)
				break
			}
		}
		return
	}
	for _, w := range what {
		j.hit(c, ruleFindDelete, "find %s removes every file it matches", w)
	}
	for _, a := range catalog.FindStarts(c) {
		j.write(c, a, "find deletes or changes files under")
	}
}
