// Package workspace knows what a project is and where safeexec keeps a
// project's own files: its persistent temporary directory and its tool
// caches.
//
// [Find] turns a working directory into a [Project]: the nearest directory
// at or above it that holds a .git entry (below the home directory), or
// the working directory itself. Every run in that project shares one
// directory under $XDG_CACHE_HOME/safeexec/projects (~/.cache/...), named
// after the project and a hash of its path:
//
//	<name>-<hash>/project   the project's path, for listings
//	<name>-<hash>/lock      held (shared) by every run; its time is the last use
//	<name>-<hash>/tmp       the command's /tmp and $TMPDIR, kept between runs
//	<name>-<hash>/cache     the tools' caches (GOCACHE, npm, pip, cargo, ...)
//
// Two projects never share a directory, so what one project's command
// writes into a cache or a temporary file cannot reach another project's
// build. [Sweep] removes temporary directories idle for longer than the
// configured time (tmp_ttl, a day by default) and everything of a project
// whose directory is gone; [Project.Clean] removes one project's files,
// [Project.Size] measures them.
//
// [CheckRoot] decides whether a directory may be a writable root at all:
// not "/", not a system directory, not the home directory or one that
// contains it.
//
// # Limits
//
//   - A project is a directory, not a repository: two work trees of one
//     repository (git worktree add) are two projects with separate caches
//     and temporary directories.
//   - Moving or renaming a project directory gives it new, empty caches.
//   - Everything of one project is shared by every run in it: a command
//     can leave files in /tmp or plant entries in the tool caches that a
//     later command of the same project uses. "safeexec cache clean"
//     empties them.
//   - The lock that keeps a running command's temporary directory from
//     being swept is advisory (flock): a process outside safeexec that
//     removes files there is not stopped.
package workspace
