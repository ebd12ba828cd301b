package risk

import (
	"slices"
	"strings"

	"github.com/safeexec/safeexec/catalog"
	"github.com/safeexec/safeexec/shell"
)

// Things that run later or elsewhere, outside the sandbox: scheduled
// jobs, services, accounts; and stopping the machine.

var persistenceJudges = map[string]judgeFunc{
	"crontab": func(j *judge, c *shell.Command) {
		// Only crontab -l (for any user) leaves the jobs alone.
		spec := catalog.Args("crontab")
		if !spec.Has(c.Args, "l") || spec.Has(c.Args, "er") || len(spec.Operands(c.Args)) > 0 {
			j.hit(c, rulePersistence, "crontab changes jobs that run later, outside the sandbox")
		}
	},
	"at": atJob, "batch": atJob,
	"launchctl": func(j *judge, c *shell.Command) {
		if args := c.Args; len(args) > 1 && slices.Contains([]string{"load", "bootstrap", "submit", "enable", "asuser", "bsexec", "kickstart", "start"}, args[1].Value) {
			j.hit(c, rulePersistence, "launchctl %s starts jobs outside the sandbox", args[1].Value)
		}
	},
	"systemctl": services, "service": services,
	"shutdown": powerOff, "reboot": powerOff, "halt": powerOff, "poweroff": powerOff,
	"init": runlevel, "telinit": runlevel,
}

var persistenceFoldJudges = map[string]judgeFunc{
	"sc": services,
	"schtasks": func(j *judge, c *shell.Command) {
		if shell.WinFlag(c.Args, "create", "change", "run") {
			j.hit(c, rulePersistence, "schtasks schedules a task outside the sandbox")
		}
	},
	"stop-computer": powerOff, "restart-computer": powerOff,
	"net": func(j *judge, c *shell.Command) {
		if args := c.Args; len(args) > 2 && slices.Contains([]string{"user", "localgroup", "group"}, strings.ToLower(args[1].Value)) && shell.WinFlag(args, "add") {
			j.hit(c, rulePersistence, "net %s /add creates accounts or grants group membership outside the sandbox", strings.ToLower(args[1].Value))
		}
	},
	"new-service": psPersistence, "register-scheduledtask": psPersistence, "new-localuser": psPersistence,
	"add-localgroupmember": psPersistence, "enable-psremoting": psPersistence,
	"set-service": func(j *judge, c *shell.Command) {
		if shell.PSParam(c.Args, "startuptype", 3) {
			psPersistence(j, c)
		}
	},
}

func atJob(j *judge, c *shell.Command) {
	if !anyArgs.Has(c.Args, "lr") {
		j.hit(c, rulePersistence, "%s schedules a command to run later, outside the sandbox", c.Name())
	}
}

func powerOff(j *judge, c *shell.Command) {
	j.hit(c, rulePowerOff, "%s stops or restarts the machine", c.Name())
}

// runlevel: init 0 and init 6 stop or restart the machine.
func runlevel(j *judge, c *shell.Command) {
	if len(c.Args) > 1 && (c.Args[1].Value == "0" || c.Args[1].Value == "6") {
		powerOff(j, c)
	}
}

func psPersistence(j *judge, c *shell.Command) {
	j.hit(c, rulePersistence, "%s changes services, tasks or accounts outside the sandbox", c.Name())
}

// services flags changes to system services and power state.
func services(j *judge, c *shell.Command) {
	args := c.Args
	name := c.Name()
	ops := catalog.Args(name).Operands(args)
	if len(ops) == 0 {
		return
	}
	verb := strings.ToLower(ops[0].Value)
	if name == "service" && len(ops) > 1 {
		verb = strings.ToLower(ops[1].Value)
	}
	switch verb {
	case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep", "soft-reboot", "emergency", "rescue":
		j.hit(c, rulePowerOff, "%s %s stops or restarts the machine", name, verb)
	case "start", "stop", "restart", "reload", "enable", "disable", "mask", "unmask", "kill", "link", "edit", "set-property", "daemon-reload", "isolate", "revert", "preset", "try-restart", "reload-or-restart", "delete", "create", "config", "set-default":
		j.hit(c, rulePersistence, "%s %s changes services that run outside the sandbox", name, verb)
	}
}
