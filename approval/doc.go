// Package approval keeps the approvals that outlive one question: the
// one-time approval an agent's hook leaves for the run that follows it
// (Grant, Consume), and the commands a person allowed for the rest of an
// agent's session (AllowInSession, SessionAllows).
//
// A [Store] is a directory of small files, one per approval, named by a
// hash of the working directory and the exact command text ([Key]). The
// directory and its files are private to the user (0700 and 0600); a file
// that is a symbolic link, belongs to another user or can be written by
// others is never honoured. A one-time approval is taken by renaming it
// away first, so two runs cannot both use it. Expired files are removed
// when new ones are written.
//
// # Limits
//
//   - The store is only as private as its directory. safeexec keeps it in
//     its state directory, which the default policy makes unreadable and
//     unwritable inside the sandbox (deny_read and deny_write hold
//     "<state-dir>"); the pipeline refuses to use approvals when the
//     effective policy no longer protects that directory. With the
//     Landlock fallback and the state directory inside a writable root
//     (working in the home directory), a command could write a file there
//     that is only taken back when its run ends.
//   - Approvals match the exact command text and working directory, not
//     what the command does: a command that reads a file gets the same
//     approval whatever the file holds by then.
//   - A session id is chosen by the agent (SAFEEXEC_SESSION) and proves
//     nothing: it scopes approvals, it does not authenticate the agent.
package approval
