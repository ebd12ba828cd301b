package risk

import (
	"os"
	"regexp"
	"testing"
)

// docRules reads the rule table of doc.go: id → documented tier.
func docRules(t *testing.T) map[string]Tier {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^//\t([a-z0-9-]+) +(risky|needs_confirmation)\s`)
	out := map[string]Tier{}
	for _, m := range re.FindAllStringSubmatch(string(b), -1) {
		tier, err := ParseTier(m[2])
		if err != nil {
			t.Fatal(err)
		}
		out[m[1]] = tier
	}
	if len(out) < 20 {
		t.Fatalf("found only %d rules in doc.go", len(out))
	}
	return out
}

// TestRuleTable checks that every rule the classifier reports is in the
// documented table with a tier no lower than what it reports, and that
// every documented rule is exercised by the corpus.
func TestRuleTable(t *testing.T) {
	doc := docRules(t)
	tested := map[string]bool{}
	for _, c := range loadCorpus(t) {
		for _, id := range c.want {
			tested[id] = true
		}
		for _, r := range c.run().Reasons {
			want, ok := doc[r.Rule]
			if !ok {
				t.Errorf("%s:%d: rule %q is not documented in doc.go", c.file, c.line, r.Rule)
				continue
			}
			if r.Tier > want {
				t.Errorf("%s:%d: rule %q reported %s, documented %s", c.file, c.line, r.Rule, r.Tier, want)
			}
		}
	}
	for id := range doc {
		if !tested[id] {
			t.Errorf("documented rule %q has no corpus case expecting it", id)
		}
	}
}
