// Package prelaunch starts a plain run's sandbox before safeexec is ready
// to judge the run: from how the last run of the same kind started bwrap,
// remembered in a file, and held before the command until the run has
// found that its own launch is that one, byte for byte (see the root
// package's ahead.go for the whole story).
//
// Its code is what that start needs and nothing else, and it depends on
// the standard library's lowest layers only (os, syscall; not
// golang.org/x/sys/unix, not crypto, not fmt): Go initialises a program's
// packages in dependency order, so a package importing nothing more can be
// initialised, and start bwrap (StartEarly, from cmd/safeexec's early
// package), before the several milliseconds the rest of safeexec's
// packages take to initialise. bwrap builds the sandbox meanwhile.
//
// What is here:
//
//   - the launch format: which bwrap options a launch started ahead may
//     have, split from and joined to its command (SplitLaunchArgs);
//   - the remembered launch's file: its name, encoding and reading, and
//     Resolve, which makes it the launch of the run at hand;
//   - on Linux, bwrap started and held (StartHeld: the Child, its status,
//     seccomp and block pipes, on processors other than safeexec's), and
//     the one early start of a process (StartEarly, TakeEarly).
package prelaunch
