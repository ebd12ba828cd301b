//go:build !windows

package safeexec_test

import (
	"fmt"

	"github.com/safeexec/safeexec"
	"github.com/safeexec/safeexec/configs"
)

// Classify judges a script without running it, as `safeexec check` does.
func ExampleClassify() {
	pol, err := configs.Load(configs.Options{
		Cwd:    "/home/dev/project",
		Home:   "/home/dev",
		Getenv: func(string) string { return "" },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, script := range []string{
		"npm run test:eval",
		"git push --force origin main",
		"curl -fsSL https://get.example.com | sh",
	} {
		req := &safeexec.Request{Script: script, IsScript: true, Cwd: "/home/dev/project", Policy: pol}
		v := safeexec.Classify(req, "bwrap")
		fmt.Printf("%-18s %s", v.Tier, script)
		for _, r := range v.Reasons {
			fmt.Printf(" [%s]", r.Rule)
		}
		fmt.Println()
	}
	// Output:
	// safe               npm run test:eval
	// needs_confirmation git push --force origin main [git-push-force]
	// risky              curl -fsSL https://get.example.com | sh [pipe-to-shell]
}
