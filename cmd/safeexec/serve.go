package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/safeexec/safeexec"
	"github.com/safeexec/safeexec/configs"
	"github.com/safeexec/safeexec/netallow"
	"github.com/safeexec/safeexec/serve"
)

func (e *env) serveCommand() *cli.Command {
	return &cli.Command{
		Name:      "serve",
		Usage:     "run commands for a program over JSON-RPC 2.0 (the Agent Client Protocol's terminal methods)",
		UsageText: "safeexec [flags] serve [--socket PATH] [--max-terminals N]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "socket", Usage: "listen on a unix socket at `PATH` (mode 0600) instead of standard input and output", TakesFile: true},
			&cli.IntFlag{Name: "max-terminals", Value: serve.DefaultMaxTerminals, Usage: "terminals that may exist at once (created, not yet released)"},
		},
		Action: e.serveAction,
	}
}

func (e *env) serveAction(c *cli.Context) error {
	if c.Bool("yes") {
		return exitf(safeexec.ExitCodeError, `serve takes no --yes: the client approves a command that needs confirmation with "approved": true in terminal/create`)
	}
	if c.NArg() > 0 || e.inv.HasArgv {
		return exitf(safeexec.ExitCodeError, "serve takes no command: commands arrive as terminal/create requests")
	}
	if n := c.Int("max-terminals"); n < 1 {
		return exitf(safeexec.ExitCodeError, "--max-terminals %d: at least 1", n)
	}
	flags := configs.Flags{
		Mode:         c.String("mode"),
		Sandbox:      c.String("sandbox"),
		AllowWrite:   c.StringSlice("allow-write"),
		AllowDomains: c.StringSlice("allow-domain"),
		NoNetwork:    c.Bool("no-network"),
		Timeout:      c.Duration("timeout"),
	}
	configPath := c.String("config")
	load := func(cwd string) (*configs.Effective, error) {
		pol, err := configs.Load(configs.Options{
			Cwd: cwd, Home: e.home, Getenv: e.getenv, LookupEnv: e.lookupEnv,
			ConfigPath: configPath, Flags: flags,
		})
		if err != nil {
			return nil, err
		}
		if _, err := netallow.NewMatcher(pol.AllowedDomains, pol.DeniedDomains); err != nil {
			return nil, err
		}
		return pol, nil
	}
	// The configuration must load before anything is served.
	if _, err := e.loadPolicy(c); err != nil {
		return err
	}
	// A long-lived server whose live heap is a few megabytes: collecting
	// after every 4x growth instead of 2x halves the collector's share of
	// each command's cost, for a few megabytes more.
	debug.SetGCPercent(400)
	self, _ := os.Executable()
	srv := serve.New(serve.Options{
		Policy:       load,
		Environ:      e.environ,
		Cwd:          e.cwd,
		MaxTerminals: c.Int("max-terminals"),
		Self:         self,
		Log:          e.stderr,
	})
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	var err error
	if p := c.String("socket"); p != "" {
		err = srv.ListenUnix(ctx, p)
	} else {
		err = srv.Serve(ctx, e.stdin, e.stdout)
	}
	if err != nil {
		return exitf(safeexec.ExitCodeError, "serve: %v", err)
	}
	return nil
}
