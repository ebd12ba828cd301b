package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/safeexec/safeexec"
	"github.com/safeexec/safeexec/cmd/safeexec/internal/cmdline"
)

// defaultOutputLimit bounds each captured stream of a --json run (and of
// helper run) when --output-limit is not given: a command that prints
// without end must not take all of safeexec's memory.
const defaultOutputLimit = 64 << 20

// wantsJSON reports whether global flags (before any "--") ask for --json.
func wantsJSON(args []string) bool { return cmdline.WantsJSON(args) }

// runJSON runs the invocation with its output captured and prints one
// safeexec.Result. The exit status is the result's exit_code.
func (e *env) runJSON(c *cli.Context) error {
	limit := int64(defaultOutputLimit)
	if c.IsSet("output-limit") {
		n, err := parseBytes(c.String("output-limit"))
		if err != nil {
			return exitf(safeexec.ExitCodeError, "--output-limit: %v", err)
		}
		limit = n
	}
	pol, err := e.loadPolicy(c)
	if err != nil {
		return err
	}
	req := e.request(c, pol)
	return e.runCaptured(req, limit)
}

// runCaptured runs req with stdout and stderr captured (at most limit bytes
// each, 0: no limit) and prints the result.
func (e *env) runCaptured(req *safeexec.Request, limit int64) error {
	stdout, stderr := safeexec.NewCapture(limit), safeexec.NewCapture(limit)
	req.Stdout, req.Stderr = stdout, stderr
	out, err := safeexec.Run(context.Background(), req)
	if err != nil {
		err = explain(err)
	}
	res := safeexec.NewResult(out, err, stdout, stderr)
	e.printJSON(res)
	if res.ExitCode != 0 {
		return &exitError{code: res.ExitCode}
	}
	return nil
}

// printJSON writes v as one line on stdout.
func (e *env) printJSON(v any) {
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(e.stderr, "safeexec: write result: %v\n", err)
	}
	e.jsonDone = true
}

// parseBytes reads a byte count: digits with an optional K, M or G suffix
// (powers of 1024).
func parseBytes(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	switch {
	case strings.HasSuffix(t, "K"):
		mult = 1 << 10
	case strings.HasSuffix(t, "M"):
		mult = 1 << 20
	case strings.HasSuffix(t, "G"):
		mult = 1 << 30
	}
	if mult != 1 {
		t = t[:len(t)-1]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a byte count (a number, optionally with K, M or G)", s)
	}
	return n * mult, nil
}
