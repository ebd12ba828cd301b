//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// A small Go module and a small npm package, each with a few tests: the
// real work the per-command overhead is measured against (-work).
var workProjects = map[string]map[string]string{
	"gomod": {
		"go.mod": "module example.com/calc\n\ngo 1.21\n",
		"calc.go": `package calc

// Sum adds the numbers.
func Sum(xs ...int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
`,
		"calc_test.go": `package calc

import "testing"

func TestSum(t *testing.T) {
	if got := Sum(1, 2, 3); got != 6 {
		t.Fatalf("Sum = %d", got)
	}
}

func TestSumEmpty(t *testing.T) {
	if Sum() != 0 {
		t.Fatal("Sum() != 0")
	}
}
`,
	},
	"npmpkg": {
		"package.json": `{"name": "calc", "version": "1.0.0", "private": true, "scripts": {"test": "node --test"}}` + "\n",
		"calc.js":      "exports.sum = (...xs) => xs.reduce((a, b) => a + b, 0);\n",
		"test/calc.test.js": `const test = require('node:test');
const assert = require('node:assert');
const { sum } = require('../calc.js');
test('sum', () => { assert.strictEqual(sum(1, 2, 3), 6); });
test('empty', () => { assert.strictEqual(sum(), 0); });
`,
	},
}

// runWork measures `go test -count=1 ./...` and `npm test` in small
// projects, bare (no sandbox at all) against under safeexec, interleaved.
// The first runs both ways warm the caches: safeexec's per-project Go
// cache fills once, as it does on a developer's machine, after which the
// go command runs without safeexec's cache program (the line "go under
// safeexec" shows it).
func runWork(tmp string, r *runner, bin string, flags []string, n int) {
	cases := []struct {
		name, dir string
		argv      []string
	}{
		{"go test -count=1 ./...", "gomod", []string{"go", "test", "-count=1", "./..."}},
		{"npm test", "npmpkg", []string{"npm", "test", "--silent"}},
	}
	for _, c := range cases {
		if _, err := exec.LookPath(c.argv[0]); err != nil {
			fmt.Printf("%s: skipped (%v)\n", c.name, err)
			continue
		}
		dir := filepath.Join(tmp, c.dir)
		for name, text := range workProjects[c.dir] {
			p := filepath.Join(dir, name)
			check(os.MkdirAll(filepath.Dir(p), 0o755))
			check(os.WriteFile(p, []byte(text), 0o644))
		}
		if r.cred != nil {
			check(exec.Command("chown", "-R", fmt.Sprintf("%d:%d", r.cred.Uid, r.cred.Gid), dir).Run())
		}
		env := append(append([]string(nil), r.env...), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "npm_config_update_notifier=false")
		rw := &runner{env: env, dir: dir, cred: r.cred}
		se := append(append(append([]string{bin}, flags...), "--"), c.argv...)
		for i := 0; i < 3; i++ { // warm up, and check both work
			for _, argv := range [][]string{se, c.argv} {
				if out, err := rw.output(argv); err != nil {
					fail("%s: %v\n%s", strings.Join(argv, " "), err, out)
				}
			}
		}
		if c.dir == "gomod" {
			// The configuration measured: both arms' build caches are
			// warm; safeexec's is the project's, and in the steady state
			// the go command runs without safeexec's GOCACHEPROG.
			check := append(append(append([]string{bin}, flags...), "--", "sh", "-c"),
				`go test -count=1 ./... >/dev/null && echo "GOCACHE=$GOCACHE GOCACHEPROG=${GOCACHEPROG:-(none)}"`)
			out, err := rw.output(check)
			if err != nil {
				fail("%s: %v\n%s", strings.Join(check, " "), err, out)
			}
			fmt.Printf("go under safeexec: %s", out)
		}
		bareName = "bare " + c.name + " (no sandbox)"
		a, b := interleave(n, func() time.Duration { return rw.timed(se) }, func() time.Duration { return rw.timed(c.argv) })
		report(fmt.Sprintf("safeexec %s -- %s", strings.Join(flags, " "), c.name), a, b)
	}
}
