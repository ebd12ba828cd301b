package risk

import "github.com/safeexec/safeexec/shell"

// Rules are the user's command-prefix patterns, matched against normalised
// commands (for example "git push origin main" or "npm publish").
type Rules struct {
	// Allow comes only from the user's own configuration, never from a
	// project file. An allow rule turns needs_confirmation into an approved
	// run and may lift risky.
	Allow []string
	// Confirm raises a matching command to at least needs_confirmation.
	Confirm []string
	// Deny makes a matching command risky. Deny wins over allow.
	Deny []string
}

// Context is everything the classifier knows about the place a command
// would run in. The zero value is usable and judges as if no sandbox were
// active.
type Context struct {
	// Cwd is the absolute working directory; relative paths resolve from it.
	Cwd string
	// Home is the user's home directory, for ~ and $HOME.
	Home string
	// WritableRoots are the absolute directories the sandbox lets the
	// command write to. Writes elsewhere are judged as writes outside the
	// roots.
	WritableRoots []string
	// SensitivePaths are absolute credential paths: reading or writing them
	// is risky. An entry under Home counts in every home (/root, /home/*,
	// ~user); an entry "**/NAME" is a name pattern, matching the last
	// components of any path (**/.env). They are the sandbox's deny_read list (configs.Effective
	// DenyRead); the classifier has no list of its own, so an empty one
	// means no credential paths.
	SensitivePaths []string
	// ProtectedPaths are the deny_write entries (configs.Effective
	// DenyWrite): absolute paths, or names relative to each writable root
	// (".git/hooks", ".env"). Empty means none.
	ProtectedPaths []string
	// Sandboxed is true when a sandbox backend will confine the command.
	// When false every command is at least needs_confirmation.
	Sandboxed bool
	// Rules are the user's allow/confirm/deny patterns.
	Rules Rules
	// ReadScript reads a local script that the command would run
	// (sh build.sh, ./x.sh) so it can be classified by its contents. Nil
	// means scripts are never read and such commands are undecidable.
	ReadScript func(path string) ([]byte, error)
	// ScriptDirs are directories outside the writable roots whose local
	// scripts may be read all the same (a CI runner's temporary directory,
	// where it writes each step's script).
	ScriptDirs []string
	// Readlink reads a symbolic link (os.Readlink). The classifier asks
	// it only about paths inside the writable roots and the working
	// directory, so that a path through a link there (a planted
	// keys -> ~/.ssh) is judged where it leads. Nil means links that exist
	// on disk are not followed.
	Readlink func(path string) (string, error)
	// Platform is the GOOS whose paths and shells apply ("linux",
	// "darwin", "windows"). Empty means runtime.GOOS.
	Platform string
	// Dialect is the language of a script (ClassifyScript): shell.Sh
	// (bash, the zero value), shell.PowerShell or shell.Cmd, as the shell
	// that runs it.
	Dialect shell.Dialect
	// Env holds the values of environment variables the command will see
	// (after secret stripping) that may be folded into words ($TMPDIR,
	// $USER). Variables not listed, other than HOME and PWD, are unknown.
	Env map[string]string
}
