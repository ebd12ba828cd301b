package main

import (
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/safeexec/safeexec"
	"github.com/safeexec/safeexec/audit"
)

func (e *env) auditCommand() *cli.Command {
	return &cli.Command{
		Name:  "audit",
		Usage: "show the audit log",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the records as JSON Lines"},
			&cli.IntFlag{Name: "n", Usage: "only the last `N` records"},
			&cli.StringFlag{Name: "since", Usage: "only records of the last `DUR` (e.g. 1h, 30m)"},
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing new records as they are appended"},
		},
		Action: e.auditAction,
	}
}

func (e *env) auditAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return exitf(safeexec.ExitCodeError, "audit takes no arguments (got %q)", c.Args().First())
	}
	pol, err := e.loadPolicy(c)
	if err != nil {
		return err
	}
	q := audit.Query{Last: c.Int("n")}
	if q.Last < 0 {
		return exitf(safeexec.ExitCodeError, "-n must not be negative")
	}
	if s := c.String("since"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return exitf(safeexec.ExitCodeError, "--since %q: want a duration such as 30m or 2h", s)
		}
		q.Since = time.Now().Add(-d)
	}
	recs, err := audit.Read(pol.AuditPath, q)
	if err != nil {
		return exitf(safeexec.ExitCodeError, "%v", err)
	}
	show := e.auditPrinter(c.Bool("json"))
	for i := range recs {
		if err := show(&recs[i]); err != nil {
			return err
		}
	}
	if !c.Bool("follow") {
		return nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = audit.Follow(ctx, pol.AuditPath, func(r audit.Record) { show(&r) })
	if ctx.Err() != nil {
		return nil
	}
	if err != nil {
		return exitf(safeexec.ExitCodeError, "%v", err)
	}
	return nil
}

func (e *env) auditPrinter(asJSON bool) func(*audit.Record) error {
	if !asJSON {
		return func(r *audit.Record) error { return audit.Format(e.stdout, r) }
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	return func(r *audit.Record) error { return enc.Encode(r) }
}
