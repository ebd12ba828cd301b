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
	"github.com/safeexec/safeexec/workspace"
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
	// NotProject says why the working directory cannot be written.
	NotProject string `json:"not_a_project,omitempty"`
	Project    *struct {
		Root string `json:"root"`
		Dir  string `json:"dir"`
	} `json:"project,omitempty"`
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
	roots, proj, werr := e.workspace(pol)
	d.AllowWrite = roots
	if werr != nil {
		d.NotProject = werr.Error()
	} else {
		d.Project = &struct {
			Root string `json:"root"`
			Dir  string `json:"dir"`
		}{proj.Root, proj.Dir}
	}
	d.Network.Enabled = pol.NetworkEnabled
	d.Network.Allowed = pol.AllowedDomains
	d.Network.Denied = pol.DeniedDomains
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// workspace returns the writable roots a run here would get, and the
// project, or why the working directory cannot be written.
func (e *env) workspace(pol *configs.Effective) ([]string, *workspace.Project, error) {
	roots, err := safeexec.WritableRoots(pol, e.cwd, e.home, e.environ)
	if err != nil {
		return nil, nil, err
	}
	return roots, workspace.Open(workspace.Base(e.getenv, e.home), workspace.Find(e.cwd, e.home)), nil
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
	if len(rep.Unenforced) > 0 {
		fmt.Fprintf(w, "\n%s cannot enforce:\n", rep.Backend)
		for _, s := range rep.Unenforced {
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
	roots, proj, werr := e.workspace(pol)
	var writable []string
	for _, d := range roots {
		if d == "/tmp" || d == "/var/tmp" || d == filepath.Clean(os.TempDir()) {
			d += " (the project's own temporary directory)"
		}
		writable = append(writable, d)
	}
	if werr != nil {
		fmt.Fprintf(w, "  writable: none — commands here are refused: %v\n", werr)
	} else {
		fmt.Fprintf(w, "  writable: %s\n", strings.Join(writable, ", "))
		fmt.Fprintf(w, "  project: %s (its /tmp and tool caches: %s)\n", proj.Root, e.shortPath(proj.Dir))
	}
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
