// Package safeexec is the pipeline that stands in front of a command: parse
// and classify it ([risk.ClassifyScript], [risk.ClassifyArgv]), decide
// (run, ask a human, or refuse), strip secrets from its environment
// ([envfilter.Filter]), start the network allowlist proxy when the policy
// allows network at all ([netallow.Start]), run it confined by the
// operating system's sandbox ([sandbox.Backend]), pass its exit status
// through, and append one audit record ([audit.Log]).
//
// The command-line front end lives in cmd/safeexec; Go programs (agents, CI
// tools) can call [Run] and [Classify] directly. A front end that wants the
// command's output rather than a stream gives [Request] a [Capture] per
// stream (it keeps the newest bytes up to a limit, never splitting a UTF-8
// character) and turns the outcome into a [Result], the JSON object of
// --json and of `safeexec helper run`.
//
// # Limits
//
// The classifier judges what the text of a command says; it cannot know
// what a program does once it runs. The sandbox is what holds when the
// classifier is wrong, so a run with no sandbox (the explicit
// --sandbox none) is only as safe as the human who approves each command.
// See the Limits sections of the stage packages for what each one does not
// cover.
package safeexec
