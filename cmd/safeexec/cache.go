package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/safeexec/safeexec"
	"github.com/safeexec/safeexec/workspace"
)

func (e *env) cacheCommand() *cli.Command {
	project := &cli.StringFlag{Name: "project", Usage: "the project in `DIR` (default: the working directory's)", TakesFile: true}
	all := &cli.BoolFlag{Name: "all", Usage: "every project"}
	return &cli.Command{
		Name:  "cache",
		Usage: "show or remove a project's temporary directory and tool caches",
		Subcommands: []*cli.Command{
			{
				Name:   "path",
				Usage:  "print the directory that holds the project's /tmp (tmp/) and tool caches (cache/)",
				Flags:  []cli.Flag{project},
				Action: e.cachePath,
			},
			{
				Name:   "size",
				Usage:  "print how much disk the project's (or every project's) files take",
				Flags:  []cli.Flag{project, all},
				Action: e.cacheSize,
			},
			{
				Name:   "clean",
				Usage:  "remove the project's (or every project's) temporary directory and tool caches",
				Flags:  []cli.Flag{project, all},
				Action: e.cacheClean,
			},
		},
	}
}

func (e *env) cacheBase() string { return workspace.Base(e.getenv, e.home) }

// cacheProject is the project named by --project, else the working
// directory's.
func (e *env) cacheProject(c *cli.Context) (*workspace.Project, error) {
	if c.NArg() > 0 {
		return nil, exitf(safeexec.ExitCodeError, "cache %s takes no arguments (got %q); name a project with --project DIR", c.Command.Name, c.Args().First())
	}
	dir := e.cwd
	if d := c.String("project"); d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join(e.cwd, d)
		}
		dir = d
	}
	return workspace.Open(e.cacheBase(), workspace.Find(dir, e.home)), nil
}

// cacheTargets are the projects a size or clean applies to.
func (e *env) cacheTargets(c *cli.Context) ([]*workspace.Project, error) {
	if !c.Bool("all") {
		p, err := e.cacheProject(c)
		if err != nil {
			return nil, err
		}
		return []*workspace.Project{p}, nil
	}
	if c.String("project") != "" || c.NArg() > 0 {
		return nil, exitf(safeexec.ExitCodeError, "cache %s: --all and a project exclude each other", c.Command.Name)
	}
	list, err := workspace.List(e.cacheBase())
	if err != nil {
		return nil, exitf(safeexec.ExitCodeError, "cache: %v", err)
	}
	return list, nil
}

func (e *env) cachePath(c *cli.Context) error {
	p, err := e.cacheProject(c)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, p.Dir)
	return nil
}

func (e *env) cacheSize(c *cli.Context) error {
	list, err := e.cacheTargets(c)
	if err != nil {
		return err
	}
	var total int64
	for _, p := range list {
		u := p.Size()
		total += u.Total
		root := p.Root
		if root == "" {
			root = "(unknown project)"
		}
		fmt.Fprintf(e.stdout, "%s\ttmp %s\tcache %s\t%s\n", human(u.Total), human(u.Temp), human(u.Cache), root)
	}
	if c.Bool("all") {
		fmt.Fprintf(e.stdout, "%s\ttotal\n", human(total))
	}
	return nil
}

func (e *env) cacheClean(c *cli.Context) error {
	list, err := e.cacheTargets(c)
	if err != nil {
		return err
	}
	var failed error
	for _, p := range list {
		if _, err := os.Stat(p.Dir); errors.Is(err, os.ErrNotExist) {
			continue
		}
		err := p.Clean()
		switch {
		case errors.Is(err, workspace.ErrBusy):
			failed = exitf(safeexec.ExitCodeError, "cache clean: %s: a command is still running in this project; run clean again once it has ended", p.Root)
			fmt.Fprintf(e.stderr, "safeexec: %v\n", failed)
		case err != nil:
			failed = exitf(safeexec.ExitCodeError, "cache clean: %s: %v", p.Dir, err)
			fmt.Fprintf(e.stderr, "safeexec: %v\n", failed)
		default:
			fmt.Fprintf(e.stderr, "safeexec: removed %s\n", e.shortPath(p.Dir))
		}
	}
	if failed != nil {
		return &exitError{code: safeexec.ExitCodeError}
	}
	return nil
}

// human writes a byte count as du -h does.
func human(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%dB", n)
	}
	f, suffix := float64(n), "KMGTPE"
	i := -1
	for f >= unit && i < len(suffix)-1 {
		f /= unit
		i++
	}
	if f < 10 {
		return fmt.Sprintf("%.1f%c", f, suffix[i])
	}
	return fmt.Sprintf("%.0f%c", f, suffix[i])
}
