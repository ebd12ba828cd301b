// Package gitconf reads git configuration files the way git reads them
// and knows which keys make git run a program.
//
// [Parse] follows git's own parser (config.c): a key may follow a section
// header on the same line ("[core] fsmonitor = x"), values are joined over
// backslash-newline continuations, quoting groups, only \\ \" \n \t \b
// are escapes (anything else makes the file invalid, as git refuses it),
// an unquoted # or ; starts a comment, each unquoted blank inside a value
// becomes a space while leading and trailing ones go, and a UTF-8 byte
// order mark at the start is skipped. [ParseList] reads the
// output of the host's `git config --list --null`, which the sandbox
// prefers where git is installed (it is then the only git that could run
// what a file names).
//
// [Runs] says whether one key=value makes git run a program or read
// configuration from elsewhere; [KeyRuns] says it for a key whatever its
// value, for a classifier that sees only a key. The list is built from
// git-config(1) and the commands it names: see runRules. This package is
// the one place that knowledge lives; the sandbox judges planted config
// with it, and the classifier can use the same list.
//
// # Limits
//
//   - The list covers the keys of git itself (up to 2.47) and git-lfs and
//     git-svn's program keys. A porcelain or extension that reads its own
//     keys and runs what they name (a third-party git-foo) is not covered.
//   - A remote or submodule URL runs a program only when it names a
//     remote helper ("helper::address", or a scheme git does not handle
//     itself); the helper is then looked up in PATH. Which helpers exist
//     is not judged: any such URL counts.
//   - Parse reads one file: include.path and includeIf.*.path are
//     returned as entries, and following them is the caller's work.
package gitconf
