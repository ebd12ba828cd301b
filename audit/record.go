package audit

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// Version is the record format version written in every record's "v".
const Version = 1

// tsLayout is RFC 3339 in UTC with milliseconds.
const tsLayout = "2006-01-02T15:04:05.000Z07:00"

// Decisions.
const (
	DecisionAllowed   = "allowed"   // ran without asking
	DecisionConfirmed = "confirmed" // ran after an approval (ApprovedBy says whose)
	DecisionDenied    = "denied"    // a human or the lack of one said no
	DecisionBlocked   = "blocked"   // refused by policy (risky, or the sandbox could not start)
	DecisionAsked     = "asked"     // a hook left it to the agent's user (kind "hook")
	DecisionChecked   = "checked"   // classified only (kind "check"); Tier says how
)

// Kinds of record.
const (
	KindRun   = "run"   // a command safeexec ran or refused
	KindHook  = "hook"  // an agent's pre-tool hook that safeexec answered
	KindCheck = "check" // safeexec check: classified, nothing run
)

// Approvers, for ApprovedBy.
const (
	ApprovedByRule = "rule"
	ApprovedByTTY  = "tty"
	ApprovedByFlag = "flag"
	// ApprovedByAgent: the agent's user approved it when the agent's hook
	// asked; ApprovedBySession: a person allowed it for the agent's
	// session (SAFEEXEC_SESSION).
	ApprovedByAgent   = "agent"
	ApprovedBySession = "session"
)

// Record is one invocation of safeexec: what was asked, what was decided,
// how it ran. The JSON field names are the audit log's format.
type Record struct {
	// Time is when the invocation started ("ts").
	Time time.Time `json:"-"`
	V    int       `json:"v"`
	// Kind is KindRun, KindHook or KindCheck ("" in records written
	// before kinds existed: a run).
	Kind string `json:"kind,omitempty"`
	// Parent is the id of the run whose sandbox this one ran inside (a
	// safeexec started inside another one's sandbox); "" otherwise. Such a
	// record reaches the log through the outer run, which sets Parent and
	// the sandbox and policy fields itself; the rest is as the inner run
	// reported it.
	Parent string `json:"parent,omitempty"`
	// Agent is the agent whose hook was answered (kind "hook").
	Agent string `json:"agent,omitempty"`
	// ID is random hex, unique per invocation.
	ID   string `json:"id"`
	PID  int    `json:"pid"`
	User string `json:"user"`
	Cwd  string `json:"cwd"`
	// Argv is the command run as an argument vector; Script is set
	// instead when the command was a shell script. Exactly one of them
	// appears in the JSON.
	Argv   []string `json:"argv,omitzero"`
	Script string   `json:"script,omitempty"`
	// Tier is safe, needs_confirmation or risky.
	Tier    string   `json:"tier"`
	Reasons []Reason `json:"reasons"`
	// Decision is one of the Decision constants.
	Decision string `json:"decision"`
	// ApprovedBy is rule, tty, flag, agent or session, or "" when nothing
	// was approved.
	ApprovedBy string  `json:"approved_by,omitempty"`
	Sandbox    Sandbox `json:"sandbox"`
	// PolicyFP is the effective configuration's fingerprint.
	PolicyFP string `json:"policy_fp"`
	// EnvStripped are the names of the variables removed (never values).
	EnvStripped []string `json:"env_stripped"`
	Network     Network  `json:"network"`
	ExitCode    int      `json:"exit_code"`
	// Signal is the number of the signal that ended the command, or 0.
	Signal     int   `json:"signal"`
	DurationMS int64 `json:"duration_ms"`
	TimedOut   bool  `json:"timed_out"`
	// Protected lists protected paths the run created or changed that
	// were taken back after it (quarantined or restored); omitted when none.
	Protected []string `json:"protected,omitempty"`
	// Unchecked lists what the look after the run could not finish, with
	// why (git hooks or config planted there were not looked for);
	// omitted when it finished.
	Unchecked []string `json:"unchecked,omitempty"`
}

// Reason is one rule that contributed to the tier.
type Reason struct {
	Rule    string `json:"rule"`
	Detail  string `json:"detail"`
	Command string `json:"command"`
}

// Sandbox says what confined the command.
type Sandbox struct {
	Backend string `json:"backend"`
	Mode    string `json:"mode"`
	// Level is what the backend reached, for backends with levels.
	Level string `json:"level"`
	// Weak is true when the confinement protects little (permissive mode,
	// no sandbox).
	Weak bool `json:"weak"`
	// Unenforced says, one sentence each, what the backend cannot enforce
	// in the run's mode (sandbox.Report.Unenforced, what doctor prints; on
	// Windows: reads of credential paths, the network allowlist, …).
	Unenforced []string `json:"unenforced,omitempty"`
}

// Network lists the connections the proxy decided, as "host:port".
type Network struct {
	Allowed []string `json:"allowed"`
	Denied  []string `json:"denied"`
}

// plainRecord has Record's fields without its methods, for encoding/json.
type plainRecord Record

type jsonRecord struct {
	TS string `json:"ts"`
	*plainRecord
}

// MarshalJSON writes the record with "ts" first, empty lists as [] rather
// than null, argv or script (argv [] when neither is set), and "&", "<",
// ">" as themselves (commands are full of them).
func (r Record) MarshalJSON() ([]byte, error) {
	b, err := encodeJSON(r.jsonValue())
	if err != nil {
		return nil, err
	}
	return b[:len(b)-1], nil
}

// encodeJSON encodes v without HTML escaping, followed by a newline.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// jsonValue is the value encoding/json writes for r.
func (r *Record) jsonValue() jsonRecord {
	c := *r
	if c.Script != "" {
		c.Argv = nil
	} else if c.Argv == nil {
		c.Argv = []string{}
	}
	if c.Reasons == nil {
		c.Reasons = []Reason{}
	}
	if c.EnvStripped == nil {
		c.EnvStripped = []string{}
	}
	if c.Network.Allowed == nil {
		c.Network.Allowed = []string{}
	}
	if c.Network.Denied == nil {
		c.Network.Denied = []string{}
	}
	return jsonRecord{TS: formatTS(c.Time), plainRecord: (*plainRecord)(&c)}
}

// UnmarshalJSON reads a record written by MarshalJSON.
func (r *Record) UnmarshalJSON(data []byte) error {
	var j jsonRecord
	j.plainRecord = (*plainRecord)(r)
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339Nano, j.TS)
	if err != nil {
		return fmt.Errorf("audit record: bad ts %q: %w", j.TS, err)
	}
	r.Time = t
	return nil
}

func formatTS(t time.Time) string {
	if t.IsZero() {
		t = time.Now()
	}
	return t.UTC().Format(tsLayout)
}

// NewRecord returns a record with the fields that describe this process
// filled in: Time (now), V, a random ID, PID, User and Cwd.
func NewRecord() *Record {
	cwd, _ := os.Getwd()
	return &Record{
		Time: time.Now(),
		V:    Version,
		ID:   NewID(),
		PID:  os.Getpid(),
		User: currentUser(),
		Cwd:  cwd,
	}
}

// NewID returns 16 random hex characters.
func NewID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand does not fail on supported platforms; an ID that is
		// merely unlikely to repeat is still better than none.
		return strconv.FormatInt(time.Now().UnixNano(), 16)
	}
	return hex.EncodeToString(b[:])
}

// userName is the name of the user running safeexec: the account's name
// (lookupUserName), else what the environment says, else the numeric uid.
var userName = sync.OnceValue(func() string {
	if name := lookupUserName(); name != "" {
		return name
	}
	for _, v := range []string{"USER", "USERNAME", "LOGNAME"} {
		if s := os.Getenv(v); s != "" {
			return s
		}
	}
	return strconv.Itoa(os.Getuid())
})

func currentUser() string { return userName() }
