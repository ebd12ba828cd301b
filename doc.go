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
// A needs_confirmation command is approved by --yes, by an agent's
// one-time approval or an "allow for this session" answer ([Approvals],
// package approval), or by a human through a [Prompter], whose [Answer]
// may also add exact allow rules to the user's own config
// (configs.AddAllowRules). [RecordDecision] audits a hook's answer or a
// check the way a run is audited.
//
// # Limits
//
// The classifier judges what the text of a command says; it cannot know
// what a program does once it runs. The sandbox is what holds when the
// classifier is wrong, so a run with no sandbox (the explicit
// --sandbox none) is only as safe as the human who approves each command.
// See the Limits sections of the stage packages for what each one does not
// cover.
//
// Approvals and session answers name a command by its exact text and
// working directory, not by what it does, and are only as private as
// safeexec's state directory: they are refused when the policy no longer
// keeps that directory out of the sandbox. A hook's approval is left
// before the agent's user answers; if the user declines, it expires
// unused (10 minutes) rather than being withdrawn. Job control (^Z, fg)
// reads the process state from /proc and so works on Linux only; where
// the command leads a session of its own, it is stopped with SIGSTOP,
// which a program cannot catch to restore its screen.
//
// A safeexec inside another one's sandbox ([Outer]) is recognised under
// bwrap only (its PID namespace is what tells the outer run's socket from
// a forged one); under Landlock and seatbelt it refuses to run. What it
// decides is advice inside a sandbox that already confines the command:
// the command could run the same things without it. The records it sends
// are written by the outer run, which vouches for the sandbox, policy and
// user fields, but the command, verdict and exit status are as the inner
// run reported them: a process in the sandbox can send records of its
// own making (each marked with the outer run's id as "parent").
// --output-limit keeps the newest bytes of a stream; a command that
// prints without end still costs the time to print it.
package safeexec
