package risk

//go:generate go run gen_rules.go

// ruleID names one rule of the table below. A finding is reported by its
// rule's id, so a rule that is not in the table does not compile, and the
// tier of a finding comes from the table, not from the place that finds it.
type ruleID uint8

const (
	ruleSudo ruleID = iota + 1
	ruleDoas
	ruleSu
	ruleMkfs
	ruleDeviceWrite
	ruleChmod777
	ruleChmodSetuid
	rulePipeToShell
	ruleEval
	ruleExec
	ruleCredentialPath
	ruleSystemWrite
	ruleWriteOutsideRoots
	ruleProtectedWrite
	ruleNestedSafeexec
	rulePersistence
	rulePowerOff
	ruleSandboxEscape
	ruleContainerEscape
	ruleRegistrySystem
	ruleSystemRecovery
	ruleDefenderDisable
	ruleEncodedCommand
	ruleUserDeny
	ruleRecursiveRm
	ruleFindDelete
	ruleShred
	ruleTruncate
	ruleGitResetHard
	ruleGitClean
	ruleGitPushForce
	ruleGitPushDelete
	ruleGitBranchDelete
	ruleGitDiscard
	ruleGitHistory
	ruleGitHooksPath
	ruleGitConfigExec
	ruleDynamicCommand
	ruleDynamicTarget
	ruleDynamicOption
	ruleUnreadableScript
	ruleInterpreterCode
	rulePreload
	ruleRegistryDelete
	ruleClearRecycleBin
	ruleUserConfirm
	ruleNoSandbox
	ruleParseError
	ruleTooComplex

	ruleEnd // not a rule: the size of the table
)

// RuleInfo is one row of the rule table.
type RuleInfo struct {
	// ID is the name a finding carries (Reason.Rule), in check --json and
	// the audit log.
	ID string
	// Tier is what a finding of the rule asks for. A few findings ask for
	// less, and Matches says when.
	Tier Tier
	// Matches says what the rule matches, in one paragraph.
	Matches string
}

// rules is the rule table. risk/doc.go and the README show it: run go
// generate ./risk after changing it (a test compares them).
var rules = [ruleEnd]RuleInfo{
	ruleSudo:              {"sudo", Risky, "sudo, sudoedit, pkexec, run0, runas, Start-Process -Verb RunAs, sudo-rs, dzdo, pbrun, pfexec, please, ksu, gosu, su-exec, setpriv/chpst/capsh changing the user or privileges, chroot/nsenter/unshare as wrappers; changes to the running system only root may make (mount, modprobe/insmod, sysctl -w, iptables/nft/ufw changes, swapon/swapoff, csrutil, nvram)"},
	ruleDoas:              {"doas", Risky, "doas"},
	ruleSu:                {"su", Risky, "su, runuser, sg, newgrp"},
	ruleMkfs:              {"mkfs", Risky, "mkfs*, mke2fs, mkswap, wipefs, fdisk/sfdisk/parted/gdisk (not -l), blkdiscard, cryptsetup luksFormat, diskutil erase*, format X:, diskpart, Format-Volume, Clear-Disk, Initialize-Disk, zpool destroy"},
	ruleDeviceWrite:       {"device-write", Risky, "writes to a device (/dev/sda, /dev/nvme0n1, /dev/mem, …) by redirection, dd of=, cp, tee; not /dev/null, /dev/std*, /dev/tty, /dev/fd/N"},
	ruleChmod777:          {"chmod-777", Risky, "chmod giving every user write (777, 666, o+w, a+rwx, -R too), icacls granting Everyone write"},
	ruleChmodSetuid:       {"chmod-setuid", Risky, "chmod setting set-user/group-id bits (4755, u+s), setcap granting capabilities"},
	rulePipeToShell:       {"pipe-to-shell", Risky, "a shell or interpreter running code that comes from the network, from decoded data or from a file downloaded earlier in the script: curl … | sh, bash <(curl …), source <(curl …), sh -c \"$(wget …)\", base64 -d | sh, python3 <(wget -O- …), curl -o x.sh … && sh x.sh, curl … | tar x && ./x/install.sh, tar --to-command=sh fed a download, sh -c \"$(cat)\" in a pipe from curl, printf/echo -e/$'…' text with \\x or octal escapes fed to a shell, awk system($0) or exec(stdin) over network input, ${x@P}, irm … | iex, [ScriptBlock]::Create(irm …), mshta/regsvr32 of a URL; remote shells (nc -e, socat EXEC:); a program only known at run time reading network data; network data evaluated as arithmetic"},
	ruleEval:              {"eval", Risky, "eval of text only known at run time (eval \"$X\", eval \"$(cmd)\"; however spelled: \\eval, e''val, x=eval; $x, command eval), or of static text the analysis could not follow; Invoke-Expression of dynamic text. Eval of static text is judged as that text and is needs_confirmation at least; in a local script file read from disk, eval of dynamic text is needs_confirmation; the output of a known environment printer (eval \"$(brew shellenv)\", source <(kubectl completion bash): catalog/envsetup.go) is not a finding"},
	ruleExec:              {"exec", Risky, "exec of a command only known at run time (exec \"$CMD\", exec $(…)); exec CMD with a static CMD is judged as CMD, exec with only redirections by them; not inside local script files"},
	ruleCredentialPath:    {"credential-path", Risky, "reads (listing, entering and inspecting included: ls, cd, stat, du) or writes of the credential paths (Context.SensitivePaths, plus /etc/shadow, /etc/sudoers, other processes' /proc/PID/environ, …): an entry under the home directory in every home (/root, /home/*, /Users/*, ~user), name patterns (**/.env) in any directory except examples (.env.example), through aliases of / and of working directories (/proc/self/root, /proc/PID/cwd, /dev/fd/N/…), .. and //, symbolic links inside the writable roots, globs that can match them (~/.s?h, .env*), paths whose known end names one after a part only known at run time (\"$D/.ssh/id_rsa\", cd \"$X\" && cat .env) and dynamic paths starting inside them; a path in a home directory only known at run time (/home/$U/x, $(getent passwd u | cut -d: -f6)/x, ${!name}/x, ~/$F) is needs_confirmation; commands that print stored secrets (gh auth token, gcloud auth print-access-token, security find-generic-password, git credential fill, pass show, gpg --export-secret-keys, …); archives, recursive copies and searches of a directory that holds them (tar czf x ~, grep -r token ~); files curl sends (-d @file, -F k=@file); credential stores written by config and login commands (npm config set, docker login, gh auth login, ssh-keygen without -f, …)"},
	ruleSystemWrite:       {"system-write", Risky, "writes to system directories (/etc, /usr, /bin, /sbin, /boot, /lib*, /opt, /var, /root, …; /System, /Library on macOS; C:\\Windows, C:\\Program Files on Windows), including rm, mv, cp, ln, install, tee, sed -i and sed w, touch, mkdir, chmod/chown, tar -C, find -fprint, output options of any tool (--output, --log-file, -o of compilers, curl -D/-c), account tools (useradd writes /etc/passwd), …"},
	ruleWriteOutsideRoots: {"write-outside-roots", Risky, "writes to paths outside Context.WritableRoots"},
	ruleProtectedWrite:    {"protected-write", Risky, "writes to write-protected paths (.git/hooks, .git/config, .env, .safeexec.toml, … under every root)"},
	ruleNestedSafeexec:    {"nested-safeexec", Risky, "a nested safeexec that would loosen the policy (--sandbox none, --yes, --config, --mode permissive, --allow-*, SAFEEXEC_*, XDG_CONFIG_HOME, XDG_STATE_HOME or HOME set, exported or unset in front of it, env -i), safeexec config init"},
	rulePersistence:       {"persistence", Risky, "crontab (not -l), at, batch, schtasks /create, launchctl load, net user|localgroup /add, New-Service, Register-ScheduledTask, New-LocalUser, Add-LocalGroupMember, Enable-PSRemoting, systemctl/service start|enable|…: things that run later or elsewhere, outside the sandbox"},
	rulePowerOff:          {"power-off", Risky, "shutdown, reboot, halt, poweroff, systemctl poweroff|reboot, Stop-Computer, Restart-Computer"},
	ruleSandboxEscape:     {"sandbox-escape", Risky, "systemd-run, tmux send-keys/run-shell, screen -X, flatpak-spawn --host, machinectl shell, D-Bus calls to systemd/logind/polkit, wsl, the WSL distributions' launchers and System32's bash.exe (a separate VM), WMI process creation, macOS open -a Terminal / Terminal's do script"},
	ruleContainerEscape:   {"container-escape", Risky, "docker/podman run|create|exec with --privileged, host namespaces, --cap-add, --device, unconfined security options, or mounts of the Docker socket, system, credential or outside-root paths"},
	ruleRegistrySystem:    {"registry-system", Risky, "reg delete/add/import on HKLM, Remove-Item HKLM:\\…, Set-ExecutionPolicy for the machine"},
	ruleSystemRecovery:    {"system-recovery", Risky, "vssadmin/wbadmin delete, wmic shadowcopy delete, bcdedit /set, wevtutil cl, Clear-EventLog, Disable-ComputerRestore"},
	ruleDefenderDisable:   {"defender-disable", Risky, "Set-MpPreference -Disable*, Add-MpPreference -Exclusion*, netsh firewall off, Set-NetFirewallProfile -Enabled False"},
	ruleEncodedCommand:    {"encoded-command", Risky, "powershell -EncodedCommand (its decoded text is classified too)"},
	ruleUserDeny:          {"user-deny", Risky, "a command matching a deny rule of the configuration"},
	ruleRecursiveRm:       {"recursive-rm", NeedsConfirmation, "rm -r/-R/--recursive/--rec (with or without -f), git rm -r (not --cached), rsync --delete*, Remove-Item -Recurse/-Force, rd /s, del /s"},
	ruleFindDelete:        {"find-delete", NeedsConfirmation, "find -delete, find -exec rm"},
	ruleShred:             {"shred", NeedsConfirmation, "shred, wipe, srm, cipher /w"},
	ruleTruncate:          {"truncate", NeedsConfirmation, "truncate"},
	ruleGitResetHard:      {"git-reset-hard", NeedsConfirmation, "git reset --hard, --merge or --keep (any unambiguous abbreviation: --ha)"},
	ruleGitClean:          {"git-clean", NeedsConfirmation, "git clean -f (not with -n/--dry-run), and git clean without -f when clean.requireForce is set false (-c, GIT_CONFIG_*)"},
	ruleGitPushForce:      {"git-push-force", NeedsConfirmation, "git push --force/-f/+refspec/--mirror (not --force-with-lease), and pushes a -c remote.NAME.mirror or forced remote.NAME.push makes forced"},
	ruleGitPushDelete:     {"git-push-delete", NeedsConfirmation, "git push --delete/:branch/--prune"},
	ruleGitBranchDelete:   {"git-branch-delete", NeedsConfirmation, "git branch -D, git branch -d --force, git update-ref -d"},
	ruleGitDiscard:        {"git-discard", NeedsConfirmation, "git checkout -- PATHS, git checkout TREE PATHS, git checkout ./-f, git restore PATHS, git switch -f/--discard-changes, git stash drop|clear, git read-tree -u --reset"},
	ruleGitHistory:        {"git-history", NeedsConfirmation, "git filter-branch/filter-repo (rewrite history), reflog expire/delete, gc --prune=now|all, prune: the way back to lost commits goes"},
	ruleGitHooksPath:      {"git-hooks-path", NeedsConfirmation, "git -c core.hooksPath=… (hooks from another directory), git init/clone --template, GIT_TEMPLATE_DIR"},
	ruleGitConfigExec:     {"git-config-exec", NeedsConfirmation, "git config storing a command git runs later (core.pager, core.sshCommand, alias.x=!…, core.hooksPath, …); what the command would run is classified as well"},
	ruleDynamicCommand:    {"dynamic-command", NeedsConfirmation, "a command name, or code run by a shell/eval/interpreter, that is only known at run time ($CMD, sh -c \"$X\", sed s///e, python exec(bytes…)); git configuration from a file or the environment (include.path, GIT_CONFIG_GLOBAL, --config-env) or programs from GIT_EXEC_PATH"},
	ruleDynamicTarget:     {"dynamic-target", NeedsConfirmation, "a write or delete whose target is only known at run time (rm -rf \"$DIR\", > \"$OUT\", curl -o\"$X\", a relative path after cd \"$X\" or cd NAME with a CDPATH, tar -P, items piped into Remove-Item, interpreter code deleting a run-time path)"},
	ruleDynamicOption:     {"dynamic-option", NeedsConfirmation, "a word only known at run time where a destructive command reads its options, so that it alone could make the command destructive: git reset $MODE, git push $FLAGS origin, git checkout $X, rm $OPTS x, rsync $OPTS, find . $ACTION, docker run $ARGS img, chmod $MODE f"},
	ruleUnreadableScript:  {"unreadable-script", NeedsConfirmation, "a script that cannot be read: sh missing.sh, source ./env.sh when absent, bash < script.sh outside the roots, cat cmds.txt | sh, an interactive shell, ./x.sh too large or unreadable"},
	ruleInterpreterCode:   {"interpreter-code", NeedsConfirmation, "interpreter code (python -c, node -e, perl -e, awk …) whose text, with quotes and commas flattened, reads like a dangerous command"},
	rulePreload:           {"preload", NeedsConfirmation, "LD_PRELOAD, LD_AUDIT, DYLD_INSERT_LIBRARIES set for a command, bash's enable -f"},
	ruleRegistryDelete:    {"registry-delete", NeedsConfirmation, "reg delete HKCU\\…, Remove-Item HKCU:\\…"},
	ruleClearRecycleBin:   {"clear-recycle-bin", NeedsConfirmation, "Clear-RecycleBin"},
	ruleUserConfirm:       {"user-confirm", NeedsConfirmation, "a command matching a confirm rule of the configuration"},
	ruleNoSandbox:         {"no-sandbox", NeedsConfirmation, "any command when Context.Sandboxed is false"},
	ruleParseError:        {"parse-error", NeedsConfirmation, "the script (or nested code in it) does not parse"},
	ruleTooComplex:        {"too-complex", NeedsConfirmation, "input over 1 MiB, nesting over 1000 levels, nested code over 24 levels, or more analysis work than allowed"},
}

// RuleTable returns the rules, in the order the documentation lists them.
func RuleTable() []RuleInfo {
	return append([]RuleInfo(nil), rules[1:]...)
}

// String is the rule's id.
func (r ruleID) String() string { return rules[r].ID }
