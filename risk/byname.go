package risk

import (
	"path"
	"strings"

	"github.com/safeexec/safeexec/catalog"
	"github.com/safeexec/safeexec/shell"
)

// byName applies the rules tied to a command's name.
func (j *judge) byName(c *shell.Command) {
	name := c.Name()
	args := c.Args
	lname := strings.ToLower(name)
	switch {
	case oneOf(name, "sudo", "sudoedit", "pkexec", "run0", "sudo-rs", "dzdo", "pbrun", "please", "pfexec", "gosu", "su-exec", "ksu") || name == "capsh" && anyArgs.Has(args, "", "user", "uid", "gid", "groups", "caps", "addamb", "inh"):
		j.hit(c, ruleSudo, "%s runs commands as another user (root by default)", name)
	case name == "doas":
		j.hit(c, ruleDoas, "doas runs commands as another user (root by default)")
	case name == "su" || name == "runuser" || name == "sg" || name == "newgrp":
		j.hit(c, ruleSu, "%s switches to another user (root by default)", name)
	case isDiskTool(c, lname):
		j.hit(c, ruleMkfs, "%s formats or repartitions a disk", name)
	case name == "chmod":
		j.chmod(c)
	case name == "mkdir" || name == "install" || name == "mkfifo" || name == "mknod":
		if m, ok := anyArgs.Value(args, "m", "mode"); ok && !m.Dynamic {
			j.mode(c, m.Value)
		}
	case name == "rm":
		if anyArgs.Has(args, "rR", "recursive") {
			j.hit(c, ruleRecursiveRm, "removes directories recursively")
		}
	case name == "find":
		j.find(c)
	case name == "shred" || name == "wipe" || name == "srm":
		j.hit(c, ruleShred, "%s destroys file contents beyond recovery", name)
	case name == "truncate":
		j.hit(c, ruleTruncate, "truncate cuts files to a size, losing their contents")
	case name == "git":
		j.git(c)
	case name == "safeexec":
		j.safeexec(c)
	case lname == "pwsh" || lname == "powershell":
		for i, a := range args[1:] {
			v := strings.ToLower(strings.TrimLeft(a.Value, "-/"))
			v, _, _ = strings.Cut(v, ":")
			if (strings.HasPrefix(a.Value, "-") || strings.HasPrefix(a.Value, "/")) && v != "" && (v == "ec" || strings.HasPrefix("encodedcommand", v) && v[0] == 'e' && !strings.HasPrefix(v, "ex") && !strings.HasPrefix(v, "ea")) {
				j.hit(c, ruleEncodedCommand, "%s -EncodedCommand runs hidden code", name)
				break
			}
			if !strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "/") && i > 0 {
				break
			}
		}
	case name == "crontab":
		if len(args) == 1 || !(anyArgs.Has(args, "l") && len(args) == 2) {
			j.hit(c, rulePersistence, "crontab changes jobs that run later, outside the sandbox")
		}
	case name == "at" || name == "batch":
		if !anyArgs.Has(args, "lr") {
			j.hit(c, rulePersistence, "%s schedules a command to run later, outside the sandbox", name)
		}
	case lname == "schtasks":
		if shell.WinFlag(args, "create", "change", "run") {
			j.hit(c, rulePersistence, "schtasks schedules a task outside the sandbox")
		}
	case name == "launchctl":
		if len(args) > 1 && oneOf(args[1].Value, "load", "bootstrap", "submit", "enable", "asuser", "bsexec", "kickstart", "start") {
			j.hit(c, rulePersistence, "launchctl %s starts jobs outside the sandbox", args[1].Value)
		}
	case name == "systemctl" || name == "service" || lname == "sc":
		j.services(c)
	case oneOf(name, "shutdown", "reboot", "halt", "poweroff") || (name == "init" || name == "telinit") && len(args) > 1 && oneOf(args[1].Value, "0", "6"):
		j.hit(c, rulePowerOff, "%s stops or restarts the machine", name)
	case oneOf(lname, "stop-computer", "restart-computer"):
		j.hit(c, rulePowerOff, "%s stops or restarts the machine", name)
	case oneOf(name, "docker", "podman", "nerdctl", "finch", "ctr", "lima", "colima"):
		j.container(c)
	case name == "tmux":
		if hasWord(args, "send-keys", "send", "send-prefix", "run-shell", "run", "respawn-pane", "new-window", "split-window", "new-session", "new") && anyArgs.Has(args, "tS", "") {
			j.hit(c, ruleSandboxEscape, "tmux controls a terminal session outside the sandbox")
		} else if hasWord(args, "send-keys", "send", "run-shell", "run") {
			j.hit(c, ruleSandboxEscape, "tmux controls a terminal session outside the sandbox")
		}
	case name == "screen":
		if anyArgs.Has(args, "X") {
			j.hit(c, ruleSandboxEscape, "screen -X sends commands to a session outside the sandbox")
		}
	case name == "flatpak-spawn" || name == "host-spawn" || name == "distrobox-host-exec":
		j.hit(c, ruleSandboxEscape, "%s runs the command on the host, outside the sandbox", name)
	case name == "machinectl" && len(args) > 1 && oneOf(args[1].Value, "shell", "login"):
		j.hit(c, ruleSandboxEscape, "machinectl %s opens a shell outside the sandbox", args[1].Value)
	case name == "systemd-run":
		j.hit(c, ruleSandboxEscape, "systemd-run starts the command through the service manager, outside the sandbox")
	case oneOf(name, "busctl", "gdbus", "dbus-send", "qdbus", "dbus"):
		for _, a := range args[1:] {
			if strings.Contains(a.Value, "systemd1") || strings.Contains(a.Value, "org.freedesktop.login1") || strings.Contains(a.Value, "PolicyKit1") {
				j.hit(c, ruleSandboxEscape, "%s asks a system service to act (%s), outside the sandbox", name, a.Value)
				break
			}
		}
	case lname == "wsl" || lname == "wsl.exe" || lname == "wslg":
		j.wsl(c)
	case name == "open" && c.Dialect == shell.Sh:
		j.macOpen(c)
	case oneOf(name, "mount", "umount", "losetup", "modprobe", "insmod", "rmmod", "kexec", "swapoff", "swapon", "sysctl", "iptables", "ip6tables", "nft", "ufw", "firewall-cmd", "pfctl", "kextload", "kextunload", "kmutil", "spctl", "csrutil", "nvram", "bless", "launchctl-config"):
		j.systemAdmin(c)
	case name == "setcap":
		if ops := (&shell.ArgSpec{Short: "f"}).Operands(args); len(ops) > 0 && !ops[0].Dynamic && ops[0].Value != "-r" && strings.ContainsAny(ops[0].Value, "+=") {
			j.hit(c, ruleChmodSetuid, "setcap %s gives a program privileges", ops[0].Value)
		}
		for _, o := range (&shell.ArgSpec{Short: "f"}).Operands(args)[min(1, len((&shell.ArgSpec{Short: "f"}).Operands(args))):] {
			j.write(c, o, "setcap changes")
		}
	case name == "enable":
		if anyArgs.Has(args, "f") {
			j.hit(c, rulePreload, "enable -f loads a library into the shell as a builtin")
		}
	case lname == "reg":
		j.registry(c)
	case oneOf(lname, "vssadmin", "wbadmin") && hasWordFold(args, "delete", "resize"):
		j.hit(c, ruleSystemRecovery, "%s deletes backups or shadow copies", name)
	case lname == "wmic" && hasWordFold(args, "shadowcopy") && hasWordFold(args, "delete"):
		j.hit(c, ruleSystemRecovery, "wmic deletes shadow copies")
	case (lname == "wmic" || oneOf(lname, "invoke-wmimethod", "invoke-cimmethod", "iwmi")) && hasWordFold(args, "create") && (hasWordFold(args, "process", "win32_process") || strings.Contains(strings.ToLower(c.String()), "win32_process")):
		j.hit(c, ruleSandboxEscape, "%s starts a process through WMI, outside the sandbox", name)
	case oneOf(lname, "mshta", "regsvr32") && (strings.Contains(strings.ToLower(c.String()), "http:") || strings.Contains(strings.ToLower(c.String()), "https:")):
		j.hit(c, rulePipeToShell, "%s runs script code fetched from the network", name)
	case lname == "net" && len(args) > 2 && oneOf(strings.ToLower(args[1].Value), "user", "localgroup", "group") && shell.WinFlag(args, "add"):
		j.hit(c, rulePersistence, "net %s /add creates accounts or grants group membership outside the sandbox", strings.ToLower(args[1].Value))
	case lname == "wevtutil" && hasWordFold(args, "cl", "clear-log"):
		j.hit(c, ruleSystemRecovery, "wevtutil clears an event log")
	case lname == "bcdedit" && shell.WinFlag(args, "set", "delete", "deletevalue", "import"):
		j.hit(c, ruleSystemRecovery, "bcdedit changes the boot configuration")
	case lname == "netsh" && hasWordFold(args, "firewall", "advfirewall") && (hasWordFold(args, "off", "disable")):
		j.hit(c, ruleDefenderDisable, "netsh turns the firewall off")
	case oneOf(lname, "set-mppreference", "add-mppreference"):
		for _, a := range args[1:] {
			l := strings.ToLower(a.Value)
			if strings.HasPrefix(l, "-disable") || strings.HasPrefix(l, "-exclusion") {
				j.hit(c, ruleDefenderDisable, "%s weakens Microsoft Defender (%s)", name, a.Value)
				break
			}
		}
	case lname == "icacls" || lname == "cacls":
		for _, a := range args[1:] {
			l := strings.ToLower(a.Value)
			if (strings.Contains(l, "everyone:") || strings.Contains(l, "*s-1-1-0:") || strings.Contains(l, "users:")) && (strings.Contains(l, "f") || strings.Contains(l, "m") || strings.Contains(l, "w")) {
				j.hit(c, ruleChmod777, "%s grants everyone write access", name)
				break
			}
		}
	case lname == "cipher" && shell.WinFlag(args, "w"):
		j.hit(c, ruleShred, "cipher /w wipes free disk space")
	case c.Dialect == shell.Cmd && (lname == "rd" || lname == "rmdir" || lname == "del" || lname == "erase"):
		if shell.WinFlag(args, "s") {
			j.hit(c, ruleRecursiveRm, "%s /s removes a directory tree", name)
		}
	case lname == "clear-recyclebin":
		j.hit(c, ruleClearRecycleBin, "Clear-RecycleBin empties the recycle bin for good")
	case lname == "remove-item" || (c.Dialect == shell.PowerShell && oneOf(lname, "rm", "del", "erase", "rd", "rmdir", "ri")):
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
	case lname == "start-process" || (c.Dialect == shell.PowerShell && (lname == "saps" || lname == "start")):
		if v, ok := shell.PSValue(args, "verb", 1); ok && strings.EqualFold(v.Value, "runas") {
			j.hit(c, ruleSudo, "Start-Process -Verb RunAs runs the program as administrator")
		}
	case oneOf(lname, "new-service", "register-scheduledtask", "new-localuser", "add-localgroupmember", "enable-psremoting", "set-service", "new-psdrive") && !(lname == "new-psdrive" || lname == "set-service" && !shell.PSParam(args, "startuptype", 3)):
		j.hit(c, rulePersistence, "%s changes services, tasks or accounts outside the sandbox", name)
	case oneOf(lname, "disable-computerrestore", "clear-eventlog", "remove-computerrestorepoint"):
		j.hit(c, ruleSystemRecovery, "%s removes system restore points or logs", name)
	case lname == "set-netfirewallprofile" || lname == "set-netfirewallrule" || lname == "disable-netfirewallrule":
		if v, ok := shell.PSValue(args, "enabled", 2); lname == "disable-netfirewallrule" || ok && oneOf(strings.ToLower(v.Value), "false", "0", "$false") {
			j.hit(c, ruleDefenderDisable, "%s turns the firewall off", name)
		}
	case lname == "set-executionpolicy":
		scope, ok := shell.PSValue(args, "scope", 1)
		if !ok || !oneOf(strings.ToLower(scope.Value), "process", "currentuser") {
			j.hit(c, ruleRegistrySystem, "Set-ExecutionPolicy changes the machine-wide script policy")
		}
	case lname == "runas":
		j.hit(c, ruleSudo, "runas runs the program as another user")
	case oneOf(lname, "invoke-expression", "iex"):
		j.invokeExpression(c)
	case oneOf(name, "nc", "ncat", "netcat", "nc.traditional", "nc.openbsd"):
		if anyArgs.Has(args, "ec", "exec", "sh-exec", "lua-exec") {
			j.hit(c, rulePipeToShell, "%s -e/-c connects a program to the network (a remote shell)", name)
		}
	case name == "socat":
		for _, a := range args[1:] {
			if u := strings.ToUpper(a.Value); strings.HasPrefix(u, "EXEC:") || strings.HasPrefix(u, "SYSTEM:") {
				j.hit(c, rulePipeToShell, "socat connects a program to a data stream (%s)", a.Value)
				break
			}
		}
	case name == "sed" || name == "gsed":
		j.sedExec(c)
	case name == "security":
		if len(args) > 1 && oneOf(args[1].Value, "find-generic-password", "find-internet-password", "dump-keychain", "export", "find-key", "unlock-keychain") {
			j.hit(c, ruleCredentialPath, "security %s reads the keychain", args[1].Value)
		}
	default:
		j.credentialCommand(c)
	}
}

func oneOf(s string, set ...string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

func hasWord(args []shell.Word, set ...string) bool {
	for _, a := range args[1:] {
		if !a.Dynamic && oneOf(a.Value, set...) {
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

func isDiskTool(c *shell.Command, name string) bool {
	args := c.Args
	switch {
	case name == "mkfs" || strings.HasPrefix(name, "mkfs.") || strings.HasPrefix(name, "newfs"):
		return true
	case oneOf(name, "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "parted", "gdisk", "sgdisk", "cgdisk",
		"mkdosfs", "mkntfs", "mkexfatfs", "mkexfat", "blkdiscard", "diskpart", "format-volume", "clear-disk",
		"initialize-disk", "remove-partition", "resize-partition", "mkisofs"):
		if name == "fdisk" || name == "sfdisk" || name == "parted" || name == "gdisk" || name == "sgdisk" {
			// Listing partitions is harmless.
			if anyArgs.Has(args, "l", "list") && len(args) <= 3 || anyArgs.Has(args, "", "version", "help") {
				return false
			}
		}
		return name != "mkisofs"
	case name == "format":
		if c.Dialect == shell.Cmd {
			return true
		}
		for _, a := range args[1:] {
			if len(a.Value) == 2 && a.Value[1] == ':' {
				return true
			}
		}
	case name == "cryptsetup":
		return hasWord(args, "luksFormat", "erase", "luksErase", "reencrypt")
	case name == "zpool" || name == "zfs":
		return hasWord(args, "destroy", "labelclear")
	case name == "diskutil":
		for _, a := range args[1:] {
			l := strings.ToLower(a.Value)
			if strings.HasPrefix(l, "erase") || oneOf(l, "partitiondisk", "zerodisk", "randomdisk", "secureerase", "reformat", "apfs") {
				if l == "apfs" && !hasWord(args, "deleteContainer", "eraseVolume", "deleteVolume") {
					continue
				}
				return true
			}
		}
	case name == "hdparm":
		return anyArgs.Has(args, "", "security-erase", "security-erase-enhanced", "trim-sector-ranges", "write-sector", "make-bad-sector")
	case name == "badblocks":
		return anyArgs.Has(args, "w")
	case oneOf(name, "lvremove", "vgremove", "pvremove", "dmsetup"):
		return name != "dmsetup" || hasWord(args, "remove", "remove_all", "wipe_table")
	}
	return false
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
		return
	}
	for _, w := range what {
		j.hit(c, ruleFindDelete, "find %s removes every file it matches", w)
	}
	for _, a := range catalog.FindStarts(c) {
		j.write(c, a, "find deletes or changes files under")
	}
}

func (j *judge) git(c *shell.Command) {
	args := c.Args
	for i := 1; i < len(args)-1; i++ {
		if args[i].Value == "-c" {
			key, _, _ := strings.Cut(strings.ToLower(args[i+1].Value), "=")
			if key == "core.hookspath" {
				j.hit(c, ruleGitHooksPath, "git -c core.hooksPath runs hooks from another directory")
			}
		}
		if strings.HasPrefix(args[i].Value, "-") == false {
			break
		}
	}
	for _, d := range anyArgs.Values(catalog.GitGlobals(args), "", "exec-path", 0) {
		j.gitExecPath(c, "--exec-path", d)
	}
	si := catalog.GitSub(args)
	if si < 0 {
		return
	}
	sub := args[si].Value
	rest := append([]shell.Word{args[si]}, args[si+1:]...)
	if sub == "init" || sub == "clone" {
		if t, ok := anyArgs.Value(rest, "", "template"); ok && (t.Dynamic || t.Value != "") {
			j.hit(c, ruleGitHooksPath, "git %s --template copies hooks from %s into the new repository", sub, t.Value)
		}
	}
	switch sub {
	case "reset":
		if anyArgs.Has(rest, "", "hard") {
			j.hit(c, ruleGitResetHard, "git reset --hard discards uncommitted changes")
		}
	case "clean":
		if anyArgs.Has(rest, "f", "force") && !anyArgs.Has(rest, "n", "dry-run") {
			j.hit(c, ruleGitClean, "git clean -f deletes untracked files")
		}
	case "push":
		force := anyArgs.Has(rest, "f", "force", "mirror")
		for _, o := range (&shell.ArgSpec{Short: "o", Long: []string{"push-option", "repo", "receive-pack", "exec"}}).Operands(rest) {
			if strings.HasPrefix(o.Value, "+") {
				force = true
			}
			if strings.HasPrefix(o.Value, ":") && len(o.Value) > 1 {
				j.hit(c, ruleGitPushDelete, "git push :%s deletes a remote branch", o.Value[1:])
			}
		}
		if force {
			j.hit(c, ruleGitPushForce, "git push --force overwrites remote history")
		}
		if anyArgs.Has(rest, "d", "delete", "prune") {
			j.hit(c, ruleGitPushDelete, "git push --delete/--prune deletes remote branches")
		}
	case "branch":
		if anyArgs.Has(rest, "D") || (anyArgs.Has(rest, "d", "delete") && anyArgs.Has(rest, "f", "force")) {
			j.hit(c, ruleGitBranchDelete, "git branch -D deletes a branch even when it is not merged")
		}
	case "checkout":
		ops := (&shell.ArgSpec{Short: "bB", Long: []string{"orphan", "conflict"}}).Operands(rest)
		dd := false
		for _, a := range rest[1:] {
			if a.Value == "--" {
				dd = true
			}
		}
		discard := anyArgs.Has(rest, "f", "force")
		for _, o := range ops {
			if o.Value == "." || o.Value == ":/" || o.Value == "*" || strings.HasPrefix(o.Value, ":(") {
				discard = true
			}
		}
		if dd && len(ops) > 0 && !anyArgs.Has(rest, "bB", "orphan") {
			// checkout [branch] -- paths: restores the paths.
			discard = true
		}
		if discard {
			j.hit(c, ruleGitDiscard, "git checkout overwrites uncommitted changes")
		}
	case "restore":
		staged := anyArgs.Has(rest, "S", "staged")
		worktree := anyArgs.Has(rest, "W", "worktree")
		if (!staged || worktree) && len((&shell.ArgSpec{Short: "s", Long: []string{"source"}}).Operands(rest)) > 0 {
			j.hit(c, ruleGitDiscard, "git restore overwrites uncommitted changes")
		}
	case "switch":
		if anyArgs.Has(rest, "f", "force", "discard-changes") {
			j.hit(c, ruleGitDiscard, "git switch --discard-changes drops uncommitted changes")
		}
	case "stash":
		if len(rest) > 1 && oneOf(rest[1].Value, "drop", "clear") {
			j.hit(c, ruleGitDiscard, "git stash %s deletes stashed changes", rest[1].Value)
		}
	case "credential", "credential-store", "credential-cache":
		if len(rest) > 1 && oneOf(rest[len(rest)-1].Value, "fill", "get") {
			j.hit(c, ruleCredentialPath, "git %s prints stored credentials", sub)
		}
	case "config":
		j.gitConfig(c, rest)
	}
}

// gitExecPath judges a directory git would run its subcommand programs
// (git-SUBCOMMAND) from.
func (j *judge) gitExecPath(c *shell.Command, what string, d shell.Word) {
	if !d.Dynamic {
		if p, ok := j.env.resolve(c, d); ok {
			if _, sys := j.env.isSystem(p); sys {
				return
			}
		}
	}
	j.hit(c, ruleDynamicCommand, "%s %s: git runs its subcommands from a directory that is not checked", what, d.Value)
}

func (j *judge) gitConfig(c *shell.Command, rest []shell.Word) {
	ops := (&shell.ArgSpec{Short: "f", Long: []string{"file", "blob", "type", "default"}}).Operands(rest)
	reading := anyArgs.Has(rest, "l", "get", "get-all", "get-regexp", "list", "get-urlmatch", "get-color", "get-colorbool", "show-origin") || len(ops) == 1
	if len(ops) > 0 && oneOf(ops[0].Value, "get", "list") {
		reading = true
	}
	if reading {
		return
	}
	key := ""
	if len(ops) > 0 {
		key = strings.ToLower(ops[0].Value)
		if oneOf(key, "set", "unset") && len(ops) > 1 {
			key = strings.ToLower(ops[1].Value)
		}
	}
	val := ""
	if len(ops) > 1 {
		val = ops[len(ops)-1].Value
	}
	if strings.HasPrefix(key, "alias.") && !strings.HasPrefix(val, "!") {
		// A git alias of git subcommands; what it expands to is judged
		// when it is used.
	} else if catalog.GitCommandKey(key) || key == "core.hookspath" {
		j.hit(c, ruleGitConfigExec, "git config %s stores a command that git runs later", key)
	}
	if anyArgs.Has(rest, "", "global") && j.env.home != "" {
		j.writePath(c, path.Join(j.env.home, ".gitconfig"), "git config --global writes")
	}
	if anyArgs.Has(rest, "", "system") {
		j.writePath(c, "/etc/gitconfig", "git config --system writes")
	}
	for _, f := range anyArgs.Values(rest, "f", "file", 0) {
		if f.Dynamic || f.Value != "-" {
			j.write(c, f, "git config --file writes")
		}
	}
}

// safeexec flags a nested safeexec that would loosen the policy.
func (j *judge) safeexec(c *shell.Command) {
	args := c.Args
	for _, w := range c.Wrappers {
		if w.Name != "env" {
			continue
		}
		for i, a := range w.Args {
			v := a.Value
			unset := ""
			switch {
			case v == "-i" || v == "--ignore-environment" || v == "-" || len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsRune(v, 'i') && !strings.ContainsAny(v, "uCS"):
				j.hit(c, ruleNestedSafeexec, "env %s clears the variables that set the policy of a nested safeexec", v)
			case (v == "-u" || v == "--unset") && i+1 < len(w.Args):
				unset = w.Args[i+1].Value
			case strings.HasPrefix(v, "--unset="):
				unset = v[len("--unset="):]
			case strings.HasPrefix(v, "-u") && len(v) > 2:
				unset = v[2:]
			}
			if unset != "" && policyVar(unset) {
				j.hit(c, ruleNestedSafeexec, "env -u %s changes the policy of a nested safeexec", unset)
			}
		}
	}
	if len(args) > 2 && args[1].Value == "config" && args[2].Value == "init" {
		j.hit(c, ruleNestedSafeexec, "safeexec config init writes the user's safeexec configuration")
	}
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		if v == "--" || v == "-c" || v == "-lc" || v == "-ic" {
			break
		}
		name, val, hasVal := strings.Cut(v, "=")
		next := func() string {
			if hasVal {
				return val
			}
			if i+1 < len(args) {
				return args[i+1].Value
			}
			return ""
		}
		switch name {
		case "--sandbox":
			if next() == "none" {
				j.hit(c, ruleNestedSafeexec, "a nested safeexec would run without a sandbox")
			}
		case "--yes", "-y", "--yes-all":
			j.hit(c, ruleNestedSafeexec, "a nested safeexec would approve commands by itself (--yes)")
		case "--config":
			j.hit(c, ruleNestedSafeexec, "a nested safeexec would load another configuration")
		case "--mode":
			if next() == "permissive" {
				j.hit(c, ruleNestedSafeexec, "a nested safeexec would run in permissive mode")
			}
		case "--allow-domain", "--allow-write", "--allow-read", "--keep-env", "--network", "--no-audit", "--audit", "--prompt":
			j.hit(c, ruleNestedSafeexec, "a nested safeexec would loosen the policy (%s)", name)
		}
	}
}

// services flags changes to system services and power state.
func (j *judge) services(c *shell.Command) {
	args := c.Args
	name := c.Name()
	ops := (&shell.ArgSpec{Short: "HMpt", Long: []string{"host", "machine", "property", "type", "state", "signal"}}).Operands(args)
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

// container flags container runs that reach into the host.
func (j *judge) container(c *shell.Command) {
	args := c.Args
	sub := ""
	si := 0
	for i := 1; i < len(args); i++ {
		if !strings.HasPrefix(args[i].Value, "-") {
			sub, si = args[i].Value, i
			break
		}
	}
	if sub == "compose" || sub == "container" {
		for i := si + 1; i < len(args); i++ {
			if !strings.HasPrefix(args[i].Value, "-") {
				sub, si = args[i].Value, i
				break
			}
		}
	}
	if !oneOf(sub, "run", "create", "exec") {
		return
	}
	for i := si + 1; i < len(args); i++ {
		a := args[i]
		v := a.Value
		if !strings.HasPrefix(v, "-") {
			if sub != "exec" {
				break // the image: what follows is the container's command
			}
			continue
		}
		name, val, hasVal := strings.Cut(v, "=")
		value := func() shell.Word {
			if hasVal {
				return shell.Static(val)
			}
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return shell.Word{}
		}
		switch name {
		case "--privileged":
			j.hit(c, ruleContainerEscape, "a privileged container controls the host")
		case "--pid", "--ipc", "--uts", "--userns", "--cgroupns", "--net", "--network":
			if w := value(); w.Value == "host" {
				j.hit(c, ruleContainerEscape, "the container shares the host's %s namespace", strings.TrimPrefix(name, "--"))
			}
		case "--cap-add", "--device", "--security-opt":
			w := value()
			if name != "--security-opt" || strings.Contains(w.Value, "unconfined") || strings.Contains(w.Value, "disable") {
				j.hit(c, ruleContainerEscape, "%s %s weakens the container's isolation", name, w.Value)
			}
		case "-v", "--volume", "--mount", "--rootfs":
			w := value()
			src := w.Value
			if name == "--mount" {
				for _, kv := range strings.Split(src, ",") {
					if k, v, ok := strings.Cut(kv, "="); ok && (k == "source" || k == "src") {
						src = v
					}
				}
			} else {
				src, _, _ = strings.Cut(src, ":")
			}
			if w.Dynamic {
				j.hit(c, ruleDynamicTarget, "mounts %s into a container, a path only known at run time", w.Value)
				continue
			}
			if !strings.HasPrefix(src, "/") && !strings.HasPrefix(src, "~") && !strings.HasPrefix(src, ".") {
				continue // a named volume
			}
			if p, ok := j.env.resolve(c, shell.Static(src)); ok {
				if strings.HasSuffix(p, "docker.sock") {
					j.hit(c, ruleContainerEscape, "mounting the Docker socket gives the container control of the host")
					continue
				}
				if kind, what := j.env.writeKind(p); kind != pathFine {
					j.hit(c, ruleContainerEscape, "mounts %s into a container, which can then change it", what)
				}
			}
		}
	}
}

// registry flags reg delete/add on machine and user hives.
func (j *judge) registry(c *shell.Command) {
	args := c.Args
	if len(args) < 3 {
		return
	}
	op := strings.ToLower(args[1].Value)
	key := strings.ToUpper(args[2].Value)
	machine := strings.HasPrefix(key, "HKLM") || strings.HasPrefix(key, "HKEY_LOCAL_MACHINE") || strings.HasPrefix(key, `\\`)
	user := strings.HasPrefix(key, "HKCU") || strings.HasPrefix(key, "HKEY_CURRENT_USER")
	switch op {
	case "delete":
		if machine {
			j.hit(c, ruleRegistrySystem, "reg delete removes machine-wide registry keys")
		} else if user {
			j.hit(c, ruleRegistryDelete, "reg delete removes registry keys of the current user")
		} else {
			j.hit(c, ruleRegistrySystem, "reg delete removes registry keys")
		}
	case "add", "import", "restore", "load", "copy":
		if machine || op == "import" || op == "restore" || op == "load" {
			j.hit(c, ruleRegistrySystem, "reg %s changes machine-wide registry keys", op)
		}
	}
}

// invokeExpression judges PowerShell's Invoke-Expression.
func (j *judge) invokeExpression(c *shell.Command) {
	var t shell.Taint
	dynamic := false
	for _, a := range c.Args[1:] {
		t |= a.Taint
		if a.Dynamic {
			dynamic = true
		}
	}
	t |= c.Stdin.Taint
	if t&(shell.Network|shell.Decoded|shell.Downloaded) != 0 {
		j.hitPipe(c, rulePipeToShell, "Invoke-Expression runs code %s", taintText(t))
		return
	}
	if dynamic || len(c.Args) == 1 {
		j.hit(c, ruleEval, "Invoke-Expression runs text only known at run time")
	}
}

// credentialCommand flags commands whose purpose is to print stored
// credentials.
func (j *judge) credentialCommand(c *shell.Command) {
	args := c.Args
	name := c.Name()
	words := func(n int) string {
		var ws []string
		for _, a := range args[1:] {
			if strings.HasPrefix(a.Value, "-") {
				continue
			}
			ws = append(ws, a.Value)
			if len(ws) == n {
				break
			}
		}
		return strings.Join(ws, " ")
	}
	hit := false
	switch name {
	case "gh":
		w := words(2)
		hit = w == "auth token" || (w == "auth status" && anyArgs.Has(args, "t", "show-token"))
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
		hit = w == "show" || (w != "" && !oneOf(w, "ls", "list", "find", "search", "init", "generate", "insert", "edit", "rm", "mv", "cp", "git", "help", "version", "grep"))
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

// sedCommands returns the shell commands of a sed script's e commands
// ("" for e without a command and for s///e, which run text from the
// input).

// policyVar reports whether an environment variable decides which
// policy safeexec loads.
func policyVar(name string) bool {
	return strings.HasPrefix(name, "SAFEEXEC_") || name == "XDG_CONFIG_HOME" || name == "XDG_STATE_HOME" || name == "HOME"
}

// wsl flags running commands in a WSL distribution: they run in its own
// virtual machine, outside the Windows sandbox, and as root with -u root.
func (j *judge) wsl(c *shell.Command) {
	args := c.Args
	for i, a := range args[1:] {
		v := strings.ToLower(a.Value)
		if oneOf(v, "-l", "--list", "--status", "--version", "-v", "--help") {
			return
		}
		if (v == "-u" || v == "--user") && i+2 < len(args) && args[i+2].Value == "root" {
			j.hit(c, ruleSudo, "wsl -u root runs the command as root")
		}
		if !strings.HasPrefix(v, "-") || v == "-e" || v == "--exec" || v == "--" {
			break
		}
	}
	j.hit(c, ruleSandboxEscape, "wsl runs commands in a Linux virtual machine, outside the sandbox")
}

// macOpen flags macOS open asking Terminal (or another terminal) to run
// something: it runs outside the sandbox.
func (j *judge) macOpen(c *shell.Command) {
	args := c.Args
	for i := 1; i < len(args); i++ {
		a := args[i]
		l := strings.ToLower(a.Value)
		if (l == "-a" || l == "-b") && i+1 < len(args) {
			app := strings.ToLower(args[i+1].Value)
			for _, t := range []string{"terminal", "iterm", "alacritty", "kitty", "wezterm", "warp", "hyper", "ghostty", "script editor", "automator"} {
				if strings.Contains(app, t) {
					j.hit(c, ruleSandboxEscape, "open %s runs commands in %s, outside the sandbox", a.Value, args[i+1].Value)
					return
				}
			}
			i++
			continue
		}
		for _, ext := range []string{".command", ".tool", ".terminal", ".workflow", ".scpt", ".applescript"} {
			if strings.HasSuffix(l, ext) {
				j.hit(c, ruleSandboxEscape, "open %s runs it outside the sandbox", a.Value)
				return
			}
		}
	}
}

// systemAdmin flags changes to the running system that only root may
// make: mounts, kernel modules and parameters, firewall rules, swap.
func (j *judge) systemAdmin(c *shell.Command) {
	args := c.Args
	name := c.Name()
	ops := (&shell.ArgSpec{Short: "tOoLUF"}).Operands(args)
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
		changes = len(ops) > 0 && !oneOf(ops[0].Value, "list", "describe", "monitor") || anyArgs.Has(args, "f", "file")
	case "ufw", "firewall-cmd", "pfctl", "spctl", "csrutil", "nvram":
		changes = len(ops) > 0 && !oneOf(ops[0].Value, "status", "show", "list", "app") || anyArgs.Has(args, "", "add-port", "add-service", "remove-port", "reload", "set-default-zone", "panic-on")
	}
	if changes {
		j.hit(c, ruleSudo, "%s changes the running system, which needs root privileges", name)
	}
}

// anyArgs reads the options of programs whose options are not described:
// none takes a value unless the question says so.
var anyArgs = &shell.ArgSpec{}
