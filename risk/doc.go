// Package risk decides how dangerous a command line is.
//
// [ClassifyScript] and [ClassifyArgv] parse with package shell and apply
// the rules below to every normalised command, nested ones included;
// [Classify] judges an already parsed [shell.Program]. The result is a
// [Verdict]: the highest [Tier] asked for by any [Reason], one reason per
// finding (rule id, a short detail, the normalised command), and the
// reasons the user's allow rules lifted ([Verdict].Approved,
// [Verdict].AllowedByRule).
// The [Context] says where the command runs: working directory, home,
// writable roots, credential (deny_read) and write-protected (deny_write)
// paths, whether a sandbox is active, the user's rules, how to read local
// scripts and the platform.
//
// # Rules
//
//	id                  tier                what it matches
//	sudo                risky               sudo, sudoedit, pkexec, run0, runas, Start-Process -Verb RunAs,
//	                                        sudo-rs, dzdo, pbrun, pfexec, please, ksu, gosu, su-exec,
//	                                        setpriv/chpst/capsh changing the user or privileges,
//	                                        chroot/nsenter/unshare as wrappers; changes to the running system
//	                                        only root may make (mount, modprobe/insmod, sysctl -w,
//	                                        iptables/nft/ufw changes, swapon/swapoff, csrutil, nvram)
//	doas                risky               doas
//	su                  risky               su, runuser, sg, newgrp
//	mkfs                risky               mkfs*, mke2fs, mkswap, wipefs, fdisk/sfdisk/parted/gdisk (not -l),
//	                                        blkdiscard, cryptsetup luksFormat, diskutil erase*, format X:,
//	                                        diskpart, Format-Volume, Clear-Disk, Initialize-Disk, zpool
//	                                        destroy
//	device-write        risky               writes to a device (/dev/sda, /dev/nvme0n1, /dev/mem, …) by
//	                                        redirection, dd of=, cp, tee; not /dev/null, /dev/std*, /dev/tty,
//	                                        /dev/fd/N
//	chmod-777           risky               chmod giving every user write (777, 666, o+w, a+rwx, -R too),
//	                                        icacls granting Everyone write
//	chmod-setuid        risky               chmod setting set-user/group-id bits (4755, u+s), setcap granting
//	                                        capabilities
//	pipe-to-shell       risky               a shell or interpreter running code that comes from the network,
//	                                        from decoded data or from a file downloaded earlier in the script:
//	                                        curl … | sh, bash <(curl …), source <(curl …), sh -c "$(wget …)",
//	                                        base64 -d | sh, python3 <(wget -O- …), curl -o x.sh … && sh x.sh,
//	                                        curl … | tar x && ./x/install.sh, tar --to-command=sh fed a
//	                                        download, sh -c "$(cat)" in a pipe from curl, printf/echo -e/$'…'
//	                                        text with \x or octal escapes fed to a shell, awk system($0) or
//	                                        exec(stdin) over network input, ${x@P}, irm … | iex,
//	                                        [ScriptBlock]::Create(irm …), mshta/regsvr32 of a URL; remote
//	                                        shells (nc -e, socat EXEC:); a program only known at run time
//	                                        reading network data; network data evaluated as arithmetic
//	eval                risky               eval of text only known at run time (eval "$X", eval "$(cmd)";
//	                                        however spelled: \eval, e''val, x=eval; $x, command eval), or of
//	                                        static text the analysis could not follow; Invoke-Expression of
//	                                        dynamic text. Eval of static text is judged as that text and is
//	                                        needs_confirmation at least; in a local script file read from
//	                                        disk, eval of dynamic text is needs_confirmation; the output of a
//	                                        known environment printer (eval "$(brew shellenv)", source
//	                                        <(kubectl completion bash): catalog/envsetup.go) is not a finding
//	exec                risky               exec of a command only known at run time (exec "$CMD", exec $(…));
//	                                        exec CMD with a static CMD is judged as CMD, exec with only
//	                                        redirections by them; not inside local script files
//	credential-path     risky               reads (listing, entering and inspecting included: ls, cd, stat,
//	                                        du) or writes of the credential paths (Context.SensitivePaths,
//	                                        plus /etc/shadow, /etc/sudoers, other processes'
//	                                        /proc/PID/environ, …): an entry under the home directory in every
//	                                        home (/root, /home/*, /Users/*, ~user), name patterns (**/.env) in
//	                                        any directory except examples (.env.example), through aliases of /
//	                                        and of working directories (/proc/self/root, /proc/PID/cwd,
//	                                        /dev/fd/N/…), .. and //, symbolic links inside the writable roots,
//	                                        globs that can match them (~/.s?h, .env*), paths whose known end
//	                                        names one after a part only known at run time ("$D/.ssh/id_rsa",
//	                                        cd "$X" && cat .env) and dynamic paths starting inside them; a
//	                                        path in a home directory only known at run time (/home/$U/x,
//	                                        $(getent passwd u | cut -d: -f6)/x, ${!name}/x, ~/$F) is
//	                                        needs_confirmation; commands that print stored secrets (gh auth
//	                                        token, gcloud auth print-access-token, security
//	                                        find-generic-password, git credential fill, pass show, gpg
//	                                        --export-secret-keys, …); archives, recursive copies and searches
//	                                        of a directory that holds them (tar czf x ~, grep -r token ~);
//	                                        files curl sends (-d @file, -F k=@file); credential stores written
//	                                        by config and login commands (npm config set, docker login, gh
//	                                        auth login, ssh-keygen without -f, …)
//	system-write        risky               writes to system directories (/etc, /usr, /bin, /sbin, /boot,
//	                                        /lib*, /opt, /var, /root, …; /System, /Library on macOS;
//	                                        C:\Windows, C:\Program Files on Windows), including rm, mv, cp,
//	                                        ln, install, tee, sed -i and sed w, touch, mkdir, chmod/chown, tar
//	                                        -C, find -fprint, output options of any tool (--output,
//	                                        --log-file, -o of compilers, curl -D/-c), account tools (useradd
//	                                        writes /etc/passwd), …
//	write-outside-roots risky               writes to paths outside Context.WritableRoots
//	protected-write     risky               writes to write-protected paths (.git/hooks, .git/config, .env,
//	                                        .safeexec.toml, … under every root)
//	nested-safeexec     risky               a nested safeexec that would loosen the policy (--sandbox none,
//	                                        --yes, --config, --mode permissive, --allow-*, SAFEEXEC_*,
//	                                        XDG_CONFIG_HOME, XDG_STATE_HOME or HOME set, exported or unset in
//	                                        front of it, env -i), safeexec config init
//	persistence         risky               crontab (not -l), at, batch, schtasks /create, launchctl load, net
//	                                        user|localgroup /add, New-Service, Register-ScheduledTask,
//	                                        New-LocalUser, Add-LocalGroupMember, Enable-PSRemoting,
//	                                        systemctl/service start|enable|…: things that run later or
//	                                        elsewhere, outside the sandbox
//	power-off           risky               shutdown, reboot, halt, poweroff, systemctl poweroff|reboot,
//	                                        Stop-Computer, Restart-Computer
//	sandbox-escape      risky               systemd-run, tmux send-keys/run-shell, screen -X, flatpak-spawn
//	                                        --host, machinectl shell, D-Bus calls to systemd/logind/polkit,
//	                                        wsl, the WSL distributions' launchers and System32's bash.exe (a
//	                                        separate VM), WMI process creation, macOS open -a Terminal /
//	                                        Terminal's do script
//	container-escape    risky               docker/podman run|create|exec with --privileged, host namespaces,
//	                                        --cap-add, --device, unconfined security options, or mounts of the
//	                                        Docker socket, system, credential or outside-root paths
//	registry-system     risky               reg delete/add/import on HKLM, Remove-Item HKLM:\…,
//	                                        Set-ExecutionPolicy for the machine
//	system-recovery     risky               vssadmin/wbadmin delete, wmic shadowcopy delete, bcdedit /set,
//	                                        wevtutil cl, Clear-EventLog, Disable-ComputerRestore
//	defender-disable    risky               Set-MpPreference -Disable*, Add-MpPreference -Exclusion*, netsh
//	                                        firewall off, Set-NetFirewallProfile -Enabled False
//	encoded-command     risky               powershell -EncodedCommand (its decoded text is classified too)
//	user-deny           risky               a command matching a deny rule of the configuration
//	recursive-rm        needs_confirmation  rm -r/-R/--recursive/--rec (with or without -f), git rm -r (not
//	                                        --cached), rsync --delete*, Remove-Item -Recurse/-Force, rd /s,
//	                                        del /s
//	find-delete         needs_confirmation  find -delete, find -exec rm
//	shred               needs_confirmation  shred, wipe, srm, cipher /w
//	truncate            needs_confirmation  truncate
//	git-reset-hard      needs_confirmation  git reset --hard, --merge or --keep (any unambiguous abbreviation:
//	                                        --ha)
//	git-clean           needs_confirmation  git clean -f (not with -n/--dry-run), and git clean without -f
//	                                        when clean.requireForce is set false (-c, GIT_CONFIG_*)
//	git-push-force      needs_confirmation  git push --force/-f/+refspec/--mirror (not --force-with-lease),
//	                                        and pushes a -c remote.NAME.mirror or forced remote.NAME.push
//	                                        makes forced
//	git-push-delete     needs_confirmation  git push --delete/:branch/--prune
//	git-branch-delete   needs_confirmation  git branch -D, git branch -d --force, git update-ref -d
//	git-discard         needs_confirmation  git checkout -- PATHS, git checkout TREE PATHS, git checkout ./-f,
//	                                        git restore PATHS, git switch -f/--discard-changes, git stash
//	                                        drop|clear, git read-tree -u --reset
//	git-history         needs_confirmation  git filter-branch/filter-repo (rewrite history), reflog
//	                                        expire/delete, gc --prune=now|all, prune: the way back to lost
//	                                        commits goes
//	git-hooks-path      needs_confirmation  git -c core.hooksPath=… (hooks from another directory), git
//	                                        init/clone --template, GIT_TEMPLATE_DIR
//	git-config-exec     needs_confirmation  git config storing a command git runs later (core.pager,
//	                                        core.sshCommand, alias.x=!…, core.hooksPath, …); what the command
//	                                        would run is classified as well
//	dynamic-command     needs_confirmation  a command name, or code run by a shell/eval/interpreter, that is
//	                                        only known at run time ($CMD, sh -c "$X", sed s///e, python
//	                                        exec(bytes…)); git configuration from a file or the environment
//	                                        (include.path, GIT_CONFIG_GLOBAL, --config-env) or programs from
//	                                        GIT_EXEC_PATH
//	dynamic-target      needs_confirmation  a write or delete whose target is only known at run time (rm -rf
//	                                        "$DIR", > "$OUT", curl -o"$X", a relative path after cd "$X" or cd
//	                                        NAME with a CDPATH, tar -P, items piped into Remove-Item,
//	                                        interpreter code deleting a run-time path)
//	dynamic-option      needs_confirmation  a word only known at run time where a destructive command reads
//	                                        its options, so that it alone could make the command destructive:
//	                                        git reset $MODE, git push $FLAGS origin, git checkout $X, rm $OPTS
//	                                        x, rsync $OPTS, find . $ACTION, docker run $ARGS img, chmod $MODE
//	                                        f
//	unreadable-script   needs_confirmation  a script that cannot be read: sh missing.sh, source ./env.sh when
//	                                        absent, bash < script.sh outside the roots, cat cmds.txt | sh, an
//	                                        interactive shell, ./x.sh too large or unreadable
//	interpreter-code    needs_confirmation  interpreter code (python -c, node -e, perl -e, awk …) whose text,
//	                                        with quotes and commas flattened, reads like a dangerous command
//	preload             needs_confirmation  LD_PRELOAD, LD_AUDIT, DYLD_INSERT_LIBRARIES set for a command,
//	                                        bash's enable -f
//	registry-delete     needs_confirmation  reg delete HKCU\…, Remove-Item HKCU:\…
//	clear-recycle-bin   needs_confirmation  Clear-RecycleBin
//	user-confirm        needs_confirmation  a command matching a confirm rule of the configuration
//	no-sandbox          needs_confirmation  any command when Context.Sandboxed is false
//	parse-error         needs_confirmation  the script (or nested code in it) does not parse
//	too-complex         needs_confirmation  input over 1 MiB, nesting over 1000 levels, nested code over 24
//	                                        levels, or more analysis work than allowed
//
// Everything else is safe when a sandbox is active. Rules match commands
// in command position after normalisation, never raw text: npm run
// test:eval, grep -r "rm -rf" docs/, echo sudo and git commit -m "sudo"
// are safe.
//
// Interpreter code (python -c, python - <<EOF, python /dev/stdin, node
// -e/-pe, perl -e/-nle, ruby -e, php -r/-R, lua -e, R -e, osascript -e,
// awk programs; tclsh, expect, julia, emacs --eval and a few more only
// flattened) is scanned: the
// commands it runs through system(), subprocess, child_process, backticks
// and the like are classified with every rule above, and so are recursive
// deletions (shutil.rmtree, fs.rmSync recursive), writes and credential
// paths it names. A copy of the code with quotes, commas and brackets
// flattened is also matched, but it only ever raises to
// needs_confirmation (rule interpreter-code): a string that merely
// mentions sudo is not risky.
//
// Programs are judged by what package catalog knows about them, with the
// one option parser of package shell: options are read the way each
// program reads them (unambiguous prefixes of long options for GNU tools
// and git, clusters, --opt=value, values never taken for options, the
// last of repeated options, --no-NAME), and every destructive form of a
// tool counts. A program the catalog does not know is presumed to run
// its arguments: a command its first arguments name, past options and
// their likely values, NAME=value settings and a few subcommands, by a
// path's last element too, is judged as if it ran (gdb --args
// /usr/bin/sudo id, xvfb-run -s '-screen 0 1x1x8' rm -rf ~, mywrap
// --timeout 30 exec web sudo id); runners such as npm exec,
// npx -c, cargo run --, go run and dotnet run are followed.
//
// The wrapper shapes of Claude Code (source <snapshot> … && eval '<cmd>' <
// /dev/null && pwd -P >| /tmp/claude-…-cwd, and the older eval <cmd> \<
// /dev/null) and Gemini CLI ({ <cmd>; }; __code=$?; pgrep -g 0 >…; exit
// $__code;) are recognised part by part on the parsed program and
// classify as <cmd> does, without the confirmation eval of static text
// asks for. A look-alike with anything extra is judged as written.
//
// exec CMD with a static CMD is judged as CMD, and exec with only
// redirections by them (exec 3<.env reads a credential). eval of static
// text is judged as that text and asks for confirmation at least. eval or
// exec of what is only known at run time is risky, with one exception:
// eval (or source <(…)) of exactly the output of an environment printer
// catalog lists by program and argument shape (brew shellenv, pyenv init
// -, ssh-agent -s, direnv hook bash, kubectl completion bash), run by its
// name (also through command or command -p) or from a path outside the
// writable roots (a home's ~/.local/bin/mise: the program itself is then
// judged like any program there), as itself. Printing the command's own
// environment (env, printenv, set, export -p, /proc/self/environ, ps e)
// is safe under a sandbox: secret variables are stripped before it starts.
//
// Local scripts (sh build.sh, ./x.sh, source ./env.sh, a command found
// through a PATH the script sets itself) are read through
// Context.ReadScript only inside the writable roots (or the working
// directory), only when small text files, and never when an earlier
// command of the same script changes them (their content on disk is not
// what will run): otherwise they are unreadable-script. Compiled programs
// and scripts for other interpreters (a python shebang) are judged like
// running any program. Writes through symbolic links the script itself
// creates (ln -s /etc x; echo > x/y) are judged where they land.
// Context.Env lets the pipeline say which environment values may be
// folded ($TMPDIR, $USER); HOME and PWD come from the context itself.
//
// # User rules
//
// Context.Rules holds the user's rules, each a command's words. Deny and
// confirm rules are prefixes: a rule's words must equal the first words
// of a normalised command ("npm publish" matches "npm publish --tag next"
// but not "npm publisher"); a trailing " *" changes nothing for them. The
// command is matched after transparent wrappers are peeled off (so deny
// "rm" catches "nice rm -rf x"), and also with them (so "sudo apt update"
// can name exactly that; a plain "apt update" rule does not cover "sudo
// apt update"). Deny makes a command risky (user-deny) and wins over
// everything; confirm raises it to at least needs_confirmation and is
// never lifted.
//
// An allow rule is exact about what it lifts: it approves what its own
// words cause. Without a trailing "*" it covers a command whose words are
// exactly its words ("rm -rf build" covers rm -rf build, not rm -rf build
// src or rm -rf build /usr/share/doc/x); with one ("git push *") it covers
// commands starting with its words, and also lifts the needs_confirmation
// reasons the further arguments cause, never a risky one. A reason a
// redirection, a pipe or heredoc, a NAME=value assignment or a wrapper
// outside the rule causes is never lifted, nor are parse problems. Which
// reasons the words cause is found by judging the command again with only
// those words. Lifted reasons move from Verdict.Reasons to
// Verdict.Approved and no longer count for Verdict.Tier; AllowedByRule is
// set when nothing above safe remains. The no-sandbox reason is lifted
// when every command of the script is covered (commands that only hand
// fully analysed literal code to a shell, like bash -c 'npm test', need
// no rule of their own; eval does).
//
// # Limits
//
// The classifier judges the text of a command line before it runs. It
// cannot see what a program does once started (a Makefile target, an npm
// script, a compiled binary, a Python file, a script downloaded at run
// time), what a dynamic value will be (it asks instead), or what a local
// script outside the writable roots contains. Interpreter code is scanned
// with patterns, not executed or fully parsed: obfuscated code (strings
// built at run time, getattr tricks, code fetched at run time) can hide
// what it does; the scan catches the common shapes and flags run-time
// built commands it sees. Path checks compare paths as written after
// normalisation (case-insensitively on macOS; /proc and /dev/fd aliases
// seen through): symbolic links are followed only inside the writable
// roots and only when Context.Readlink is set, and bind mounts are not
// resolved. Homes are the user's own and the platform's usual places
// (/root, /home/*, /Users/*): a home elsewhere (/var/lib/postgresql) is
// only known as such when it is Context.Home. Name patterns (**/.env)
// are matched on the paths a command names: a program that opens a .env
// itself, or a whole-tree read of a directory that holds one (tar czf
// x.tgz ., grep -r KEY .), is not refused. A path that ends in a home's
// credential name after a part only known at run time ("$D/.npmrc") is
// refused even when that part is a project. It judges a snapshot: a file changed by another process between
// the judgement and the run is not seen. It is one layer: the sandbox is
// what confines a command the classifier misjudged.
package risk
