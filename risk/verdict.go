package risk

import (
	"encoding/json"
	"fmt"
)

// Tier is how dangerous a command is judged to be. Tiers are ordered: a
// higher tier is more dangerous, so combining verdicts takes the maximum.
type Tier int

const (
	// Safe commands run without a prompt when a sandbox is active.
	Safe Tier = iota
	// NeedsConfirmation commands run only after a human (or --yes, or a
	// user allow rule) approves them.
	NeedsConfirmation
	// Risky commands are refused. Only an allow rule in the user's own
	// configuration can lift this tier.
	Risky
)

var tierNames = [...]string{"safe", "needs_confirmation", "risky"}

func (t Tier) String() string {
	if t < Safe || t > Risky {
		return fmt.Sprintf("tier(%d)", int(t))
	}
	return tierNames[t]
}

// ParseTier is the inverse of [Tier.String].
func ParseTier(s string) (Tier, error) {
	for i, n := range tierNames {
		if n == s {
			return Tier(i), nil
		}
	}
	return Risky, fmt.Errorf("unknown tier %q", s)
}

func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

func (t *Tier) UnmarshalText(b []byte) error {
	v, err := ParseTier(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Reason says why a command got its tier: which rule matched, what it
// saw, and the normalised command it saw it in.
type Reason struct {
	Rule    string `json:"rule"`
	Detail  string `json:"detail"`
	Command string `json:"command"`
	// Tier is the tier this reason alone asks for.
	Tier Tier `json:"-"`
}

// Verdict is the outcome of classifying a whole script or argv.
type Verdict struct {
	Tier    Tier     `json:"tier"`
	Reasons []Reason `json:"reasons"`
	// AllowedByRule is set when every command of the script matched an
	// allow rule of the user's own configuration: the pipeline then runs it
	// without a prompt (and records approved_by "rule"), also when Tier is
	// Risky. Tier still reports what the built-in rules said.
	AllowedByRule bool `json:"-"`
	// AllowRules lists the allow patterns that matched, for the audit log.
	AllowRules []string `json:"-"`
	// Wrapper names the agent wrapper shape that was recognised
	// ("claude-code", "gemini-cli"), and WrapperOutput the file that
	// wrapper writes for the agent to read back (Claude Code's cwd file).
	Wrapper       string `json:"-"`
	WrapperOutput string `json:"-"`
}

// MarshalJSON keeps "reasons" an array even when there are none.
func (v Verdict) MarshalJSON() ([]byte, error) {
	type plain Verdict
	p := plain(v)
	if p.Reasons == nil {
		p.Reasons = []Reason{}
	}
	return json.Marshal(p)
}
