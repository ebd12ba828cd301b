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
	// AllowedByRule is set when the user's allow rules lifted every reason
	// that asked for more than safe (Approved holds them, Reasons is then
	// empty of them and Tier is Safe): the pipeline runs the command
	// without a prompt and records approved_by "rule". Allow rules come only
	// from the user's own configuration.
	AllowedByRule bool `json:"-"`
	// Approved are the reasons an allow rule lifted; they are no longer in
	// Reasons and no longer count for Tier.
	Approved []Approval `json:"-"`
	// AllowRules lists the allow rules that lifted a reason, in order.
	AllowRules []string `json:"-"`
	// Wrapper names the agent wrapper shape that was recognised
	// ("claude-code", "gemini-cli"), and WrapperOutput the file that
	// wrapper writes for the agent to read back (Claude Code's cwd file).
	Wrapper       string `json:"-"`
	WrapperOutput string `json:"-"`
	// WrapperCommand is the command inside the recognised wrapper: what
	// the agent was asked to run and its hook was shown.
	WrapperCommand string `json:"-"`
}

// Approval is a reason an allow rule lifted.
type Approval struct {
	Reason
	// AllowRule is the rule as written in the configuration.
	AllowRule string `json:"allow_rule"`
}

// ApprovedTier is the highest tier among the approved reasons.
func (v Verdict) ApprovedTier() Tier {
	t := Safe
	for _, a := range v.Approved {
		t = max(t, a.Tier)
	}
	return t
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
