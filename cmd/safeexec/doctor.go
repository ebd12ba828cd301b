package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/safeexec/safeexec"
	"github.com/safeexec/safeexec/configs"
	"github.com/safeexec/safeexec/sandbox"
)

func (e *env) doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "report which sandbox would be used, why, what is missing, and the effective policy",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print one JSON object"}},
		Action: func(c *cli.Context) error {
			pol, err := e.loadPolicy(c)
			if err != nil {
				return err
			}
			want := pol.Backend
			if want == "" {
				want = "auto"
			}
			_, rep, derr := sandbox.Doctor(want)
			rep = sandbox.Assess(rep, sandbox.Mode(pol.Mode))
			if c.Bool("json") {
				if err := e.doctorJSON(pol, rep, derr); err != nil {
					return err
				}
			} else {
				e.doctorText(pol, rep, derr)
			}
			if derr != nil {
				// Nothing would run: say so in the exit status too.
				return &exitError{code: safeexec.ExitCodeError}
			}
			return nil
		},
	}
}

type doctorReport struct {
	Sandbox     sandbox.Report   `json:"sandbox"`
	Usable      bool             `json:"usable"`
	Error       string           `json:"error,omitempty"`
	Mode        string           `json:"mode"`
	Fingerprint string           `json:"policy_fp"`
	Sources     []configs.Source `json:"sources"`
	Warnings    []string         `json:"warnings,omitempty"`
	AllowWrite  []string         `json:"allow_write"`
	DenyRead    []string         `json:"deny_read"`
	DenyWrite   []string         `json:"deny_write"`
	Network     struct {
		Enabled bool     `json:"enabled"`
		Allowed []string `json:"allowed_domains"`
		Denied  []string `json:"denied_domains"`
	} `json:"network"`
	AuditPath string `json:"audit_path"`
	Version   string `json:"version"`
}

func (e *env) doctorJSON(pol *configs.Effective, rep sandbox.Report, derr error) error {
	d := doctorReport{
		Sandbox: rep, Usable: derr == nil, Mode: pol.Mode, Fingerprint: pol.Fingerprint(),
		Sources: pol.Sources, Warnings: pol.Warnings,
		AllowWrite: pol.AllowWrite, DenyRead: pol.DenyRead, DenyWrite: pol.DenyWrite,
		AuditPath: pol.AuditPath, Version: versionString(),
	}
	if derr != nil {
		d.Error = derr.Error()
	}
	d.Network.Enabled = pol.NetworkEnabled
	d.Network.Allowed = pol.AllowedDomains
	d.Network.Denied = pol.DeniedDomains
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

func (e *env) doctorText(pol *configs.Effective, rep sandbox.Report, derr error) {
	w := e.stdout
	fmt.Fprintf(w, "safeexec %s\n\n", versionString())
	if derr != nil {
		fmt.Fprintf(w, "sandbox: NONE USABLE — safeexec will refuse to run commands\n  %v\n", derr)
	} else {
		v := rep.Version
		if v != "" {
			v = " " + v
		}
		fmt.Fprintf(w, "sandbox: %s%s, mode %s\n", rep.Backend, v, pol.Mode)
		if rep.Level != "" {
			fmt.Fprintf(w, "  level: %s\n", rep.Level)
		}
		if rep.Reason != "" {
			fmt.Fprintf(w, "  why: %s\n", rep.Reason)
		}
		if rep.Weak {
			fmt.Fprintf(w, "  WEAK: this backend or mode protects little; see the README's sandbox section\n")
		}
	}
	fmt.Fprintln(w, "\nchecks:")
	for _, c := range rep.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "MISSING"
		}
		fmt.Fprintf(w, "  [%s] %s", mark, c.Name)
		if c.Detail != "" {
			fmt.Fprintf(w, ": %s", c.Detail)
		}
		fmt.Fprintln(w)
		if !c.OK && c.Fix != "" {
			fmt.Fprintf(w, "         fix: %s\n", c.Fix)
		}
	}
	if len(rep.CannotEnforce) > 0 {
		fmt.Fprintf(w, "\n%s cannot enforce:\n", rep.Backend)
		for _, s := range rep.CannotEnforce {
			fmt.Fprintf(w, "  - %s\n", s)
		}
	}
	fmt.Fprintln(w, "\npolicy:")
	fmt.Fprintf(w, "  fingerprint: %s\n", pol.Fingerprint())
	for _, s := range pol.Sources {
		fmt.Fprintf(w, "  source: %s %s\n", s.Kind, s.Path)
	}
	for _, x := range pol.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", x)
	}
	var writable []string
	for _, d := range pol.AllowWrite {
		if d == "/tmp" || d == "/var/tmp" || d == filepath.Clean(os.TempDir()) {
			d += " (a private temporary directory for each run)"
		}
		writable = append(writable, d)
	}
	fmt.Fprintf(w, "  writable: %s\n", strings.Join(writable, ", "))
	fmt.Fprintf(w, "  unreadable: %d paths (deny_read)\n", len(pol.DenyRead))
	fmt.Fprintf(w, "  read-only inside writable roots: %s\n", strings.Join(pol.DenyWrite, ", "))
	if pol.NetworkEnabled {
		fmt.Fprintf(w, "  network: through the allowlist proxy, %d allowed and %d denied entries\n",
			len(pol.AllowedDomains), len(pol.DeniedDomains))
	} else {
		fmt.Fprintln(w, "  network: none")
	}
	fmt.Fprintf(w, "  audit log: %s\n", pol.AuditPath)
}
