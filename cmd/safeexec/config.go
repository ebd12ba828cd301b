package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/safeexec/safeexec"
	"github.com/safeexec/safeexec/configs"
)

func (e *env) configCommand() *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "show, check, locate or create the configuration",
		Subcommands: []*cli.Command{
			{
				Name:  "show",
				Usage: "print the effective configuration (or the built-in defaults)",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "defaults", Usage: "print the embedded defaults instead"}},
				Action: func(c *cli.Context) error {
					if c.Bool("defaults") {
						_, err := e.stdout.Write(configs.DefaultTOML())
						return err
					}
					pol, err := e.loadPolicy(c)
					if err != nil {
						return err
					}
					b, err := pol.TOML()
					if err != nil {
						return err
					}
					for _, s := range pol.Sources {
						fmt.Fprintf(e.stdout, "# %s: %s\n", s.Kind, s.Path)
					}
					fmt.Fprintf(e.stdout, "# fingerprint: %s\n", pol.Fingerprint())
					_, err = e.stdout.Write(b)
					return err
				},
			},
			{
				Name:      "validate",
				Usage:     "check a config file strictly (default: the user's file and the project's)",
				ArgsUsage: "[FILE]",
				Action: func(c *cli.Context) error {
					if c.NArg() > 1 {
						return exitf(safeexec.ExitCodeError, "config validate takes at most one file")
					}
					if c.NArg() == 1 {
						if err := configs.Validate(c.Args().First()); err != nil {
							return err
						}
						fmt.Fprintf(e.stdout, "%s: ok\n", c.Args().First())
						return nil
					}
					// Loading validates every layer that applies here.
					pol, err := e.loadPolicy(c)
					if err != nil {
						return err
					}
					for _, s := range pol.Sources {
						if s.Path != "" && s.Kind != "default" {
							fmt.Fprintf(e.stdout, "%s: ok\n", s.Path)
						}
					}
					fmt.Fprintln(e.stdout, "effective configuration: ok")
					return nil
				},
			},
			{
				Name:  "path",
				Usage: "print where the user's config file is (or would be)",
				Action: func(c *cli.Context) error {
					p := c.String("config")
					if p == "" {
						p = configs.UserPath(e.getenv, e.home)
					}
					fmt.Fprintln(e.stdout, p)
					return nil
				},
			},
			{
				Name:  "init",
				Usage: "write the defaults to the user's config file, to edit",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "force", Usage: "overwrite an existing file"}},
				Action: func(c *cli.Context) error {
					p := c.String("config")
					if p == "" {
						p = configs.UserPath(e.getenv, e.home)
					}
					if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
						return exitf(safeexec.ExitCodeError, "config init: %v", err)
					}
					flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
					if c.Bool("force") {
						flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
					}
					f, err := os.OpenFile(p, flags, 0o600)
					if errors.Is(err, fs.ErrExist) {
						return exitf(safeexec.ExitCodeError, "config init: %s exists; use --force to overwrite it", p)
					}
					if err != nil {
						return exitf(safeexec.ExitCodeError, "config init: %v", err)
					}
					if _, err := f.Write(configs.DefaultTOML()); err != nil {
						f.Close()
						return exitf(safeexec.ExitCodeError, "config init: %v", err)
					}
					if err := f.Close(); err != nil {
						return exitf(safeexec.ExitCodeError, "config init: %v", err)
					}
					fmt.Fprintf(e.stderr, "safeexec: wrote %s\n", p)
					return nil
				},
			},
		},
	}
}
