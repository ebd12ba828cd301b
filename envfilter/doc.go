// Package envfilter decides which environment variables reach a command.
//
// A [Filter] removes variables by name (exact names and "*" patterns, case
// ignored, so github_token goes with GITHUB_TOKEN), by name suffix ("_KEY",
// "_TOKEN", ...), and by value: a value that holds credentials in a URL
// (postgres://user:password@host, so DATABASE_URL goes too) or a
// token-shaped string (ghp_…, github_pat_…, sk-…, AKIA…, xox?-…, glpat-…,
// a PEM private key, "Bearer …") is removed whatever its name. Names in
// Keep pass through whatever else matched: keeping a variable is a
// conscious trust decision. When a name occurs more than once, all of its
// occurrences share one decision, so a duplicate cannot carry a secret past
// the filter. Entries without "=" are dropped.
//
// # Limits
//
//   - Only names, suffixes, patterns and the value shapes above are
//     recognised. A secret in a variable with an innocent name and an
//     unrecognised format (MY_CONFIG=hunter2, a base64 blob, a password in
//     a JSON value) passes through.
//   - The filter sees the environment safeexec was given. Secrets a command
//     can read elsewhere (files, a keyring, a credential helper) are the
//     sandbox's business, not this package's.
//   - Stripping a variable does not stop a tool from finding the same
//     secret another way (a token in ~/.npmrc, git's credential store);
//     the default deny_read list covers the common places.
package envfilter
