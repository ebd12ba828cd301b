package risk

import (
	"slices"
	"strings"

	"github.com/safeexec/safeexec/catalog"
	"github.com/safeexec/safeexec/shell"
)

// Running as another user or with other privileges, and changes to the
// running system that only root may make.

var privilegeJudges = map[string]judgeFunc{
	"sudo": asRoot, "sudoedit": asRoot, "pkexec": asRoot, "run0": asRoot, "sudo-rs": asRoot, "dzdo": asRoot,
	"pbrun": asRoot, "please": asRoot, "pfexec": asRoot, "gosu": asRoot, "su-exec": asRoot, "ksu": asRoot,
	"capsh": func(j *judge, c *shell.Command) {
		if anyArgs.Has(c.Args, "", "user", "uid", "gid", "groups", "caps", "addamb", "inh") {
			asRoot(j, c)
		}
	},
	"doas": func(j *judge, c *shell.Command) {
		j.hit(c, ruleDoas, "doas runs commands as another user (root by default)")
	},
	"su": switchUser, "runuser": switchUser, "sg": switchUser, "newgrp": switchUser,
	"mount": systemAdmin, "umount": systemAdmin, "losetup": systemAdmin, "modprobe": systemAdmin, "insmod": systemAdmin,
	"rmmod": systemAdmin, "kexec": systemAdmin, "swapoff": systemAdmin, "swapon": systemAdmin, "sysctl": systemAdmin,
	"iptables": systemAdmin, "ip6tables": systemAdmin, "nft": systemAdmin, "ufw": systemAdmin, "firewall-cmd": systemAdmin,
	"pfctl": systemAdmin, "kextload": systemAdmin, "kextunload": systemAdmin, "kmutil": systemAdmin, "spctl": systemAdmin,
	"csrutil": systemAdmin, "nvram": systemAdmin, "bless": systemAdmin, "launchctl-config": systemAdmin,
	"setcap": setcap,
	"enable": func(j *judge, c *shell.Command) {
		if anyArgs.Has(c.Args, "f") {
			j.hit(c, rulePreload, "enable -f loads a library into the shell as a builtin")
		}
	},
}

var privilegeFoldJudges = map[string]judgeFunc{
	"runas":         func(j *judge, c *shell.Command) { j.hit(c, ruleSudo, "runas runs the program as another user") },
	"start-process": startProcess,
	"saps":          psStart, "start": psStart,
}

// psStart: saps and start are Start-Process in PowerShell.
func psStart(j *judge, c *shell.Command) {
	if c.Dialect == shell.PowerShell {
		startProcess(j, c)
	}
}

func asRoot(j *judge, c *shell.Command) {
	j.hit(c, ruleSudo, "%s runs commands as another user (root by default)", c.Name())
}

func switchUser(j *judge, c *shell.Command) {
	j.hit(c, ruleSu, "%s switches to another user (root by default)", c.Name())
}

// startProcess: Start-Process -Verb RunAs runs as administrator.
func startProcess(j *judge, c *shell.Command) {
	if v, ok := shell.PSValue(c.Args, "verb", 1); ok && strings.EqualFold(v.Value, "runas") {
		j.hit(c, ruleSudo, "Start-Process -Verb RunAs runs the program as administrator")
	}
}

var setcapArgs = &shell.ArgSpec{Short: "f"}

// setcap CAPS FILE…: granting capabilities gives a program privileges.
func setcap(j *judge, c *shell.Command) {
	ops := setcapArgs.Operands(c.Args)
	if len(ops) > 0 && !ops[0].Dynamic && ops[0].Value != "-r" && strings.ContainsAny(ops[0].Value, "+=") {
		j.hit(c, ruleChmodSetuid, "setcap %s gives a program privileges", ops[0].Value)
	}
	for _, o := range ops[min(1, len(ops)):] {
		j.write(c, o, "setcap changes")
	}
}

// wrapper judges a wrapper peeled off a command: those that run it as
// another user or outside the sandbox, and the files the wrapper itself
// writes (strace -o, time -o).
func (j *judge) wrapper(c *shell.Command, w shell.Wrapper) {
	if len(w.Args) > 0 {
		own := &shell.Command{Args: append([]shell.Word{shell.Static(w.Name)}, w.Args...), Dir: c.Dir, DirKnown: c.DirKnown, Dialect: c.Dialect}
		for _, t := range catalog.Targets(own) {
			j.write(c, t, w.Name+" writes")
		}
		// A wrapper's own options may name files it reads or loads
		// (dotenv -e .env.local, xargs -a FILE, env -C DIR).
		for _, a := range w.Args {
			j.read(c, a)
		}
	}
	switch w.Name {
	case "sudo", "pkexec", "run0", "sudo-rs", "dzdo", "pbrun", "please", "pfexec", "gosu", "su-exec":
		j.hit(c, ruleSudo, "%s runs the command as another user (root by default)", w.Name)
	case "chpst", "setpriv":
		own := append([]shell.Word{shell.Static(w.Name)}, w.Args...)
		if anyArgs.Has(own, "uU", "reuid", "regid", "ruid", "euid", "rgid", "egid", "groups", "init-groups", "inh-caps", "ambient-caps") {
			j.hit(c, ruleSudo, "%s runs the command as another user or with other privileges", w.Name)
		}
	case "distrobox-host-exec":
		j.hit(c, ruleSandboxEscape, "%s runs the command on the host, outside the sandbox", w.Name)
	case "doas":
		j.hit(c, ruleDoas, "doas runs the command as another user (root by default)")
	case "runuser":
		j.hit(c, ruleSu, "runuser runs the command as another user")
	case "exec":
		// exec CMD runs CMD in place of the shell: it is judged as CMD.
		// A command only known at run time is not.
		if !c.FromFile && (len(c.Args) == 0 || c.Args[0].Dynamic || c.Args[0].Glob && isPattern(c.Args[0].Value)) {
			j.hit(c, ruleExec, "exec runs a command only known at run time in place of the shell")
		}
	case "systemd-run":
		j.hit(c, ruleSandboxEscape, "systemd-run starts the command through the service manager, outside the sandbox")
	case "chroot", "nsenter", "unshare":
		j.hit(c, ruleSudo, "%s needs root privileges", w.Name)
	}
}

// systemAdmin flags changes to the running system that only root may
// make: mounts, kernel modules and parameters, firewall rules, swap.
func systemAdmin(j *judge, c *shell.Command) {
	args := c.Args
	name := c.Name()
	ops := catalog.Args(name).Operands(args)
	changes := true
	switch name {
	case "mount", "swapon", "losetup":
		changes = len(ops) > 0 && !anyArgs.Has(args, "lahs", "show", "list", "all", "help", "version") || anyArgs.Has(args, "", "bind", "rbind", "move", "remount")
	case "sysctl":
		changes = anyArgs.Has(args, "wp", "write", "load", "system")
		for _, o := range ops {
			if strings.Contains(o.Value, "=") {
				changes = true
			}
		}
	case "iptables", "ip6tables":
		changes = anyArgs.Has(args, "ADIRFZNXPE", "append", "delete", "insert", "replace", "flush", "zero", "new-chain", "delete-chain", "policy", "rename-chain")
	case "nft":
		changes = len(ops) > 0 && !slices.Contains([]string{"list", "describe", "monitor"}, ops[0].Value) || anyArgs.Has(args, "f", "file")
	case "ufw", "firewall-cmd", "pfctl", "spctl", "csrutil", "nvram":
		changes = len(ops) > 0 && !slices.Contains([]string{"status", "show", "list", "app"}, ops[0].Value) || anyArgs.Has(args, "", "add-port", "add-service", "remove-port", "reload", "set-default-zone", "panic-on")
	}
	if changes {
		j.hit(c, ruleSudo, "%s changes the running system, which needs root privileges", name)
	}
}
