package risk

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/safeexec/safeexec/internal/ruledoc"
)

// TestRuleTableRows checks that every rule id has its row: a unique
// name and a tier above safe.
func TestRuleTableRows(t *testing.T) {
	seen := map[string]ruleID{}
	for r := ruleID(1); r < ruleEnd; r++ {
		row := rules[r]
		if row.ID == "" || row.Matches == "" || row.Tier <= Safe {
			t.Errorf("rule %d has no complete row: %+v", r, row)
		}
		if prev, ok := seen[row.ID]; ok {
			t.Errorf("rules %d and %d are both %q", prev, r, row.ID)
		}
		seen[row.ID] = r
	}
	if got := len(RuleTable()); got != int(ruleEnd)-1 {
		t.Errorf("RuleTable has %d rows, want %d", got, ruleEnd-1)
	}
}

// TestRuleDocs checks that doc.go and the README show the rule table of
// rules.go, as go generate writes it.
func TestRuleDocs(t *testing.T) {
	var rows []ruledoc.Row
	for _, r := range RuleTable() {
		rows = append(rows, ruledoc.Row{ID: r.ID, Tier: r.Tier.String(), Matches: r.Matches})
	}
	for _, f := range []struct {
		file    string
		replace func(src, table string) (string, error)
		table   string
	}{
		{"doc.go", ruledoc.ReplaceComment, ruledoc.Comment(rows)},
		{"../README.md", ruledoc.ReplaceMarkdown, ruledoc.Markdown(rows)},
	} {
		src, err := os.ReadFile(f.file)
		if err != nil {
			t.Fatal(err)
		}
		want, err := f.replace(string(src), f.table)
		if err != nil {
			t.Fatalf("%s: %v", f.file, err)
		}
		if want != string(src) {
			t.Errorf("%s does not show the rule table of rules.go: run go generate ./risk\n%s", f.file, lineDiff(string(src), want))
		}
	}
}

// lineDiff shows the first lines where two texts differ.
func lineDiff(have, want string) string {
	h, w := strings.Split(have, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(h) || i < len(w); i++ {
		var a, b string
		if i < len(h) {
			a = h[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n\thave: %s\n\twant: %s", i+1, a, b)
		}
	}
	return ""
}

// TestRuleTable checks that every rule the classifier reports is in the
// table with a tier no lower than what it reports, and that every rule
// of the table is exercised by the corpus.
func TestRuleTable(t *testing.T) {
	table := map[string]Tier{}
	for _, r := range RuleTable() {
		table[r.ID] = r.Tier
	}
	tested := map[string]bool{}
	for _, c := range loadCorpus(t) {
		for _, id := range c.want {
			tested[id] = true
		}
		for _, r := range c.run().Reasons {
			want, ok := table[r.Rule]
			if !ok {
				t.Errorf("%s:%d: rule %q is not in the rule table", c.file, c.line, r.Rule)
				continue
			}
			if r.Tier > want {
				t.Errorf("%s:%d: rule %q reported %s, the table says %s", c.file, c.line, r.Rule, r.Tier, want)
			}
		}
	}
	for id := range table {
		if !tested[id] {
			t.Errorf("rule %q has no corpus case expecting it", id)
		}
	}
}
