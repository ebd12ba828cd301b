// Package shell turns a command line into the simple commands it could
// run, in a normalised form that rules can match without being fooled by
// quoting or wrapping.
//
// [Parse] reads a shell script with mvdan.cc/sh/v3 and [ParseArgv] takes an
// argv that is executed directly ([ParseScoped] and [ParseArgvScoped] do
// the same for a caller done with the program when its function returns,
// as the classifier is: the program's memory is reused by later calls).
// All are safe for concurrent use. Both return a [Program]: every simple
// [Command] in command position, found anywhere in the code, with
//
//   - its words unquoted and unescaped ("s\udo", su”do, $'\x73udo' are all
//     sudo), brace expansion and tilde expansion done;
//   - values that can be decided statically folded: literal assignments
//     earlier in the script, $HOME, ${x:-y}, ${x:0:2}, ${x/a/b}, $(echo …),
//     $(printf …), $(mktemp) (a path in $TMPDIR, Xs for the random
//     part), base64 -d / xxd -r -p / rev / tr of literals, cd tracked
//     for relative paths; anything else is a [Word] marked Dynamic, with the
//     statically known Prefix and Suffix kept (and, when the whole word is
//     what one simple command prints, that command: [Word].Output);
//   - transparent wrappers peeled off and recorded in Command.Wrappers
//     (the builtins command, builtin and exec, and the programs
//     [Options].Tools describes as wrappers: env, nice, ionice, nohup, timeout, time,
//     stdbuf, setsid, flock, taskset, chrt, unbuffer, busybox, toybox,
//     screen, xargs, sudo, doas, pkexec, strace, uv run, bundle exec, …);
//     a name bound to another program with hash -p is judged as that
//     program too;
//   - nested code parsed and walked: sh/bash/zsh -c, scripts fed to a shell
//     on stdin (pipes of literals, heredocs, here-strings), eval, source,
//     trap, alias, $(…), `…`, <(…), >(…), find -exec, xargs sh -c,
//     tmux commands, wsl, vim -c ':!cmd', gdb -ex 'shell cmd', prompt
//     strings (PS4) expanded by set -x, sed's w and e commands, make
//     SHELL=, --eval and makefiles on stdin, git ext:: remotes,
//     parallel, watch, su -c, script -c, git -c alias.x=!…, core.sshCommand,
//     git config values, rebase --exec, submodule foreach, --upload-pack,
//     GIT_SSH_COMMAND and similar variables, ssh -o ProxyCommand, rsync -e,
//     tar --to-command/--checkpoint-action/-I, zip -TT, bash --rcfile,
//     nested safeexec -- CMD / -c SCRIPT, small local scripts read through
//     [Options].ReadScript (also when found through a PATH the script sets);
//   - values bash evaluates a second time: a variable used as arithmetic
//     ((( x )), $((x)), [[ $x -eq 1 ]], let, subscripts, integer
//     variables) or a name with a subscript (read, printf -v, declare,
//     test -v, ${!x}) runs the command substitutions its value holds;
//   - functions imported from the environment (BASH_FUNC_f%%=() {…});
//   - the data flow that matters for security: where a word or a pipe's
//     data comes from ([Taint]: the network, a decoder, a downloaded file,
//     or a home directory or user name looked up at run time: getent
//     passwd, whoami, /etc/passwd, ${!name}, a nameref, ~$USER);
//     which files earlier commands change (a local script changed earlier
//     in the script is not read: its content on disk is not what will
//     run; the activate script of a virtual environment created just
//     before is the generator's; a file an earlier command writes with
//     text known statically, echo … > x.sh or a heredoc to cat, is that
//     text); programs earlier commands build or install (cc -o, make,
//     cargo build, npm install, a virtual environment's bin), run later
//     as programs, not unreadable scripts; symbolic links the script
//     creates ([Program].Links);
//   - the wrapper shapes Claude Code and Gemini CLI put around a command,
//     recognised on the parsed program and peeled off ([Program].Wrapper),
//     only when their own output file is in a temporary directory;
//   - with [Options].FoldNames, command names found case-insensitively
//     (SUDO is sudo on macOS);
//   - PowerShell (pwsh/powershell -Command, -EncodedCommand, a script on
//     stdin; [IO.File]:: methods judged as the matching cmdlets) and
//     cmd.exe (cmd /c, rd/s/q, for … do) command lines, with a small
//     tokenizer of their own; cd, cd /d, pushd/popd, Set-Location and
//     Push-Location/Pop-Location tracked (also to drive paths in bash),
//     cmd's set NAME=… seen by later %NAME% and !NAME!, and PowerShell
//     path expressions folded ($env:X + '…', "$(…)", Join-Path,
//     [Environment]::GetFolderPath, [IO.Path]::Combine,
//     (Get-PSReadLineOption).HistorySavePath); strings joined only from
//     literals ('s'+'udo') stay run-time values.
//
// The package knows the shell languages and their builtins. What it knows
// of other programs (the command a wrapper runs, the code an option
// takes, where a program's output comes from, what it writes) comes from
// [Options].Tools and [Options].Vars, through a [Tool] and a [Follower]:
// package catalog provides them, package risk passes them in. [ArgSpec]
// is the one option parser all of them use. The package knows nothing of
// tiers or policy: package risk judges its output.
//
// # Limits
//
// Without [Options].Tools only the shells and their builtins are
// followed: every other program is an opaque command. With
// [Options].Programs, a program nothing describes is presumed to run a
// command named by one of its first four arguments that are not options,
// NAME=value settings or likely option values (an option without =value
// is taken to have the next word as its value unless that word names a
// program, which guesses wrong both ways for programs nothing describes);
// a path counts by its last element only when arguments follow it and it
// is absolute or explicitly relative and there (checksec --file
// /usr/bin/sudo is not sudo); a command inside one quoted argument
// (mytool 'sudo id') and further arguments are not searched. The analysis is
// static. It does not run anything, so it cannot know what
// a dynamic word (a variable from the environment, a command substitution
// it cannot fold, a glob) expands to: it marks such words and leaves the
// judgement to the caller. It sees only the code given to it and the local
// scripts ReadScript returns: not the programs those commands are (make,
// npm scripts, compiled binaries, Python files), not shell functions or
// aliases defined outside the script, not what a program does with its
// arguments. Variables assigned in branches, loops and functions are
// treated as unknown afterwards rather than followed precisely, and so
// are those a trap action assigns. A command named like an alias the
// script defines is followed through the alias body as well as taken as
// written; aliases from elsewhere (a profile, a snapshot) are not known.
// Inputs larger than [MaxScript] or nested deeper than [MaxNesting], and
// nested code deeper than a fixed number of levels, are not analysed and
// are reported as TooComplex issues. PowerShell and cmd.exe support covers
// command structure (statements, pipelines, quoting, script blocks,
// sub-expressions, aliases of common cmdlets), not the full languages.
package shell
