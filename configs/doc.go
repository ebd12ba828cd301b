// Package configs loads safeexec's configuration: the embedded defaults
// ([DefaultTOML]), the user's file, the untrusted project files, the
// environment and the command-line flags, layered in that order into one
// [Effective] policy with a [Effective.Fingerprint].
//
// Files are decoded strictly: a syntax error, an unknown key, a value of
// the wrong type or an invalid value is an [*Error] naming the file, line,
// column and key. There is no partial result to fall back on.
//
// # Layers
//
// The user's file is trusted. A key it sets replaces the value below it,
// except the deny-type lists (filesystem.deny_read, filesystem.deny_write,
// network.denied_domains, env.strip, env.strip_suffixes, rules.confirm,
// rules.deny), which accumulate so that a short file cannot drop a
// protection by accident; an entry written "!entry" removes an inherited
// one on purpose.
//
// A project file, .safeexec.toml, is untrusted: the repository it comes
// from may be hostile. Inside a git repository every .safeexec.toml from
// the working directory up to the repository root (the directory holding
// .git) is applied, outermost first; outside a repository only the one in
// the working directory is. A project file may add deny entries, rules,
// denied domains and stripped variables, choose a stricter mode, turn the
// network off, set prompt.channel = "none", narrow the writable roots, the
// allowed domains and env.keep to entries already covered, and lower
// limits. Anything else it sets is dropped and named in
// [Effective.Warnings].
//
// SAFEEXEC_ALLOWED_DOMAINS replaces the allowed domains; set but empty it
// means no domain is allowed (the safe reading: someone narrowed the list).
// SAFEEXEC_EXTRA_ALLOWED_DOMAINS appends. Both are comma separated. An
// explicitly empty SAFEEXEC_ALLOWED_DOMAINS can only be told from an unset
// one when [Options.LookupEnv] is set.
//
// # Paths
//
// "~", "~/x", "$HOME", "$TMPDIR" and other variables are expanded (an unset
// variable is an error, never an empty string); "." and relative paths
// start at the working directory, except relative filesystem.deny_write
// entries, which name that path under every writable root. The placeholders
// "<config-dir>" and "<state-dir>" become safeexec's own directories and
// "<core.hooksPath>" the hooks directories named by git configuration,
// read without running git. The audit log and an explicitly named user
// config file are added to the deny lists when the defaults do not already
// cover them.
//
// # Limits
//
//   - Paths are expanded lexically: symlinks are not resolved here, so the
//     sandbox must resolve them before it enforces anything.
//   - Domain entries are only trimmed and lower-cased; the network package
//     validates and canonicalises them. A project file's allowed domain is
//     kept when an existing entry covers it by host and port; the check is
//     textual (IP spellings are not normalised), which can only drop more.
//   - The git config reader knows one key, core.hooksPath, in the local,
//     global and system files, include.path and includeIf paths (followed
//     without evaluating their conditions) and GIT_CONFIG_KEY_n variables.
//     It does not run git, so configuration git would take from elsewhere
//     (a -c on git's command line of another process) is not seen.
//   - A project file is found by walking up from the working directory; a
//     .safeexec.toml elsewhere in the tree (in a subdirectory a command
//     later cd's into) does not apply.
//   - The policy is read once, when the command starts; changes to the
//     files during the run have no effect on it.
//   - A file larger than 1 MiB or a list longer than 1024 entries is an
//     error, and so is an unreadable or invalid project file: a hostile
//     repository can stop safeexec from running there (fail closed), not
//     loosen it.
//   - Stdin is never offered as a prompt channel ("stdin" is rejected): it
//     belongs to the command and may carry a protocol.
package configs
