package audit

import (
	"strings"
	"testing"
)

// FuzzRedact: redaction never panics, a given secret never survives, and
// a second pass changes nothing.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"mysql -u root -p'hunter 2' db && echo ok",
		`curl -H "Authorization: Bearer abcdefgh12345678" -u a:b https://u:p@h/x`,
		"GITHUB_TOKEN=" + ghp + " gh pr list; sshpass -p pw ssh h",
		"echo '-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----'",
		"psql --password=\"a b c\" postgres://x:y@z/db $(echo " + jwt + ")",
		`a\'b "c\"d" 'e`,
	} {
		f.Add(s, "S3CRETvalue")
	}
	f.Fuzz(func(t *testing.T, script, secret string) {
		if len(secret) < minSecretLen || strings.Contains(Mask, secret) {
			secret = "S3CRETvalue"
		}
		in := script + " " + secret
		r := &Record{Script: in, Argv: strings.Fields(in), Reasons: []Reason{{Detail: in, Command: in}}}
		r.Redact([]string{secret})
		for _, s := range append([]string{r.Script, r.Reasons[0].Detail, r.Reasons[0].Command}, r.Argv...) {
			if strings.Contains(s, secret) {
				t.Fatalf("secret %q survived in %q", secret, s)
			}
		}
		once := *r
		once.Argv = append([]string(nil), r.Argv...)
		r.Redact([]string{secret})
		if r.Script != once.Script || strings.Join(r.Argv, "\x00") != strings.Join(once.Argv, "\x00") {
			t.Fatalf("not idempotent:\n%q\n%q", once.Script, r.Script)
		}
	})
}
