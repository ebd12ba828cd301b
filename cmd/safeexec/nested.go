package main

import (
	"errors"
	"fmt"

	"github.com/safeexec/safeexec"
	"github.com/safeexec/safeexec/configs"
)

// outer finds, once, the safeexec run whose sandbox this process is in
// (nil outside one). A $SAFEEXEC_NESTED that does not check out is
// ignored with a note: this run then starts its own sandbox, as any run
// outside would. Inside a sandbox that cannot hand its policy down,
// nothing can run: outerErr says so.
func (e *env) outer() *safeexec.Outer {
	if !e.outerDone {
		e.outerDone = true
		o, err := safeexec.DetectOuter(e.environ)
		switch {
		case errors.Is(err, safeexec.ErrNestedUnsupported):
			e.outerErr = err
		case err != nil:
			fmt.Fprintf(e.stderr, "safeexec: ignoring it: %v\n", err)
		}
		e.outerRun = o
	}
	return e.outerRun
}

// nestedPolicy is the outer run's policy, for a run inside its sandbox.
// Nothing on this command line may widen it: the sandbox is the outer
// run's and stays as it is. Flags that would need a sandbox of their own
// are refused; a timeout still applies.
func (e *env) nestedPolicy(c flagReader, o *safeexec.Outer, mode string) (*configs.Effective, error) {
	pol := *o.Policy
	refuse := func(flag string) error {
		return exitf(safeexec.ExitCodeError,
			"%s cannot change the sandbox this command already runs in (safeexec run %s, %s): run safeexec outside it for that", flag, o.Parent, o.Backend)
	}
	switch {
	case c.String("config") != "":
		return nil, refuse("--config")
	case mode != "" && mode != o.Mode:
		return nil, refuse("--mode " + mode)
	case len(c.StringSlice("allow-write")) > 0:
		return nil, refuse("--allow-write")
	case len(c.StringSlice("allow-domain")) > 0:
		return nil, refuse("--allow-domain")
	case c.Bool("no-network") && pol.NetworkEnabled:
		return nil, refuse("--no-network")
	}
	if sb := innermost(c, "sandbox"); sb != "" && sb != "auto" && sb != o.Backend {
		return nil, refuse("--sandbox " + sb)
	}
	if d := c.Duration("timeout"); d > 0 && (pol.Limits.Timeout == 0 || d < pol.Limits.Timeout) {
		pol.Limits.Timeout = d
	}
	if sh := innermost(c, "shell"); sh != "" {
		pol.Shell = sh
	}
	return &pol, nil
}
