// Package serve is `safeexec serve`: a long-running process that runs
// commands for a program (an agent, an editor, a desktop app) over
// JSON-RPC 2.0, one message per line, on standard input and output or on
// a unix socket only its user can open ([Server.ListenUnix]).
//
// It speaks the terminal methods of the Agent Client Protocol's client
// side, with their field names and shapes: terminal/create (sessionId,
// command, args, env [{name, value}], cwd, outputByteLimit) answers
// {terminalId}; terminal/output answers {output, truncated, exitStatus?}
// with exitStatus {exitCode, signal}; terminal/wait_for_exit answers
// {exitCode, signal}; terminal/kill and terminal/release answer {}. Its
// own methods are safeexec/classify (the verdict `safeexec check --json`
// gives) and safeexec/policy (the effective policy of a directory and its
// fingerprint); it notifies safeexec/policy_changed when that policy
// changes.
//
// Every command goes through [safeexec.Run], as `safeexec -- CMD` would:
// classified, decided, confined and audited the same way. There is no
// human to ask, so a needs_confirmation command is refused with its
// reasons in the error (code [CodeRefused], data {tier, decision,
// reasons, approvable}); a client that asked its own user may retry with
// "approved": true, which the audit record keeps as approved_by "client".
// A risky command is refused whatever the client says. A command given as
// one string with no args (spaces or shell syntax in "command") is a
// script, as `safeexec 'SCRIPT'` treats one argument.
//
// The configuration is loaded again for every terminal/create, so a change
// applies to the next command and never to a running one; it is also
// re-read every second for the directories a client used, to tell the
// client when a fingerprint changed.
//
// Output is kept per terminal up to outputByteLimit bytes (1 MiB when none
// is given, at most 64 MiB), newest bytes first, never starting or ending
// in the middle of a UTF-8 sequence ([safeexec.Capture]); stdout and
// stderr are one stream, as on a terminal, and so are safeexec's own notes
// about the command.
//
// At most [Options].MaxTerminals terminals (50 by default) exist at once,
// over all connections; a terminal counts until it is released. kill and
// release return once nothing of the command runs any more. When a client
// disconnects, every command it started is killed; when serve itself is
// killed, even by SIGKILL, bwrap's --die-with-parent ends each sandbox with
// it.
//
// # Limits
//
//   - The guarantee that nothing outlives kill, release, a disconnect or
//     serve's death holds for the bwrap backend, whose sandbox is a pid
//     namespace. Under the Landlock fallback, processes that leave the
//     command's session are found and killed when the command ends, but
//     a SIGKILL of serve leaves such escapees running. With --sandbox
//     none a command's children that leave its process can outlive it.
//   - Output is a pipe, not a pseudo-terminal: programs that check for a
//     terminal behave as in a pipeline (no colours, no prompts).
//   - A client that keeps 50 terminals unreleased blocks new ones for
//     every client of the same server.
//   - outputByteLimit counts the command's bytes; bytes that are not UTF-8
//     are sent as U+FFFD, which can make the text a little longer.
package serve
