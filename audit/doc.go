// Package audit writes and reads safeexec's audit log: one JSON line per
// invocation, also for refused and denied commands.
//
// A [Record] carries what was asked (argv or script), what was decided
// (tier, reasons, decision, approver), how it was confined (sandbox,
// policy fingerprint, stripped variable names, network decisions) and how
// it ended. [Open] opens the log and [Log.Append] adds a record with a
// single write(2) to a file opened with O_APPEND, under an exclusive
// flock, so records of concurrent processes never interleave; fsync only
// when asked. [Record.Redact] removes secrets before a record is written,
// and Append applies the pattern-based part again to what it writes.
// [Read], [Follow] and [Format] serve `safeexec audit`.
//
// # Limits
//
//   - Redaction recognises the values it is given and known credential
//     shapes (see [Record.Redact]). A secret typed into a command in a form
//     it does not know (a password as a plain positional argument, a token
//     of an unknown service, an encoded value) is logged as written.
//   - The lock is advisory: it orders safeexec processes, not other
//     programs that write to the file. On platforms other than Unix and
//     Windows there is no cross-process lock at all.
//   - The log protects against accidents and against the sandboxed command
//     (which cannot read or write it when the configuration's deny lists
//     are enforced), not against the user's own account: anyone running as
//     the user can edit or delete it. It is not tamper-evident.
//   - A record is cut when the command is longer than 256 KiB, and
//     encoding/json replaces invalid UTF-8 in arguments with U+FFFD.
//   - A torn or damaged line is skipped by [Read] and [Follow], not
//     reported.
//   - On Windows the symbolic-link check happens before the file is opened
//     (there is no O_NOFOLLOW), so a link swapped in between is followed.
//   - [Open] reserves 512 KiB past the end of the log on Linux
//     (fallocate, size unchanged), so a command that fills the file system
//     cannot keep its run's record out; elsewhere, and on file systems
//     without fallocate, a full disk makes the append fail (stderr says so).
package audit
