// Package catalog is what safeexec knows about programs, by exact name:
// how each reads its options ([shell.ArgSpec]), the command or code it
// runs (a wrapper's command, su -c CODE, git -c alias.x=!…, tar
// --to-command), where its output comes from (the network, a decoder),
// what it writes, deletes and reads, and the credential stores its login
// commands change. Package shell reaches it through [Tools] and [Vars]
// (shell.Options), so that shell knows only the shell languages; package
// risk asks it ([Targets], [HomeWrites], [Reads], [TreeReads], [Args])
// and keeps the verdicts. The catalog knows no tier.
//
// One file per family of programs, each a table by name:
//
//	wrappers.go      env nice timeout time stdbuf sudo doas su runuser xargs flock busybox …
//	runners.go       watch entr uv/poetry/pipenv/pdm/hatch/conda/mise/direnv/nix run, parallel, hyperfine
//	git.go           git: global options, -c/--config-env keys that run commands, ext:: remotes,
//	                 --upload-pack, rebase --exec, submodule foreach, bisect run; what it changes
//	vars.go          environment variables programs run (EDITOR, PAGER, GIT_SSH_COMMAND, GIT_CONFIG_*)
//	fetch.go         curl wget nc … (network data), the files they write and send
//	codecs.go        base64 -d, xxd -r, gunzip, gpg -d … (decoded data)
//	files.go         rm cp mv ln install tee dd touch mkdir chmod find sort split patch …,
//	                 output options of any program (--output, -o of tools that use it so)
//	archive.go       tar zip unzip 7z cpio
//	remote.go        ssh scp sftp rsync
//	build.go         make, compilers, go, npm/pnpm/yarn, pip, cargo
//	interpreters.go  python node perl ruby …: in-place edits, virtual environments
//	editors.go       vim (and -c :!cmd), other editors, gdb -ex
//	terminals.go     tmux screen script wsl
//	sed.go           sed: e and w commands, -i
//	containers.go    docker podman kubectl: cp, save, login
//	cloud.go         gh gcloud aws az heroku ssh-keygen: credential stores
//	winprogs.go      Windows programs and PowerShell cmdlets: the files they change
//	system.go        crontab, systemctl, mount …: their options
//	data.go          programs known to treat their arguments as data (which, pkill, apt-get …)
//	envsetup.go      environment printers, by program and argument shape: brew shellenv, pyenv
//	                 init -, ssh-agent -s, direnv hook bash, kubectl completion bash (their
//	                 output is shell code that sets up the environment)
//	accounts.go      getent whoami id printenv …: user names and homes (a home known only at run time)
//
// A program the catalog does not describe at all is presumed to run its
// arguments (see shell.Options.Programs): gdb --args, xvfb-run and
// chronic need no entry, and a program that takes names or packages as
// arguments needs one line in data.go.
//
// Teaching safeexec a new wrapper, or a program whose option takes shell
// code, is one line in its family's table:
//
//	"mytool": {Tool: shell.Tool{Args: &shell.ArgSpec{Short: "x"}, Runs: []shell.CodeArg{{Short: "x", Long: "exec"}}}},
//
// # Limits
//
// The catalog describes programs as their documentation and usual
// versions do; a program that parses its command line differently (an
// old or patched version, an alias, a program of the same name) is
// misread. Programs it does not list are known only as programs whose
// options take no value. What a program reads from its own configuration
// files (a Makefile, package.json, ~/.gitconfig) is not seen.
package catalog
