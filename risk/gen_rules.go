//go:build ignore

// gen_rules writes the rule table of rules.go into doc.go's package
// documentation and into the README. TestRuleDocs fails when they differ.
package main

import (
	"log"
	"os"

	"github.com/safeexec/safeexec/internal/ruledoc"
	"github.com/safeexec/safeexec/risk"
)

func main() {
	var rows []ruledoc.Row
	for _, r := range risk.RuleTable() {
		rows = append(rows, ruledoc.Row{ID: r.ID, Tier: r.Tier.String(), Matches: r.Matches})
	}
	rewrite("doc.go", ruledoc.ReplaceComment, ruledoc.Comment(rows))
	rewrite("../README.md", ruledoc.ReplaceMarkdown, ruledoc.Markdown(rows))
}

func rewrite(file string, replace func(src, table string) (string, error), table string) {
	src, err := os.ReadFile(file)
	if err != nil {
		log.Fatal(err)
	}
	out, err := replace(string(src), table)
	if err != nil {
		log.Fatalf("%s: %v", file, err)
	}
	if out != string(src) {
		if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
