package audit

import (
	"slices"
	"strings"
	"testing"
)

// Real-looking samples, built so that no complete token sits in the source
// as one literal.
var (
	ghp     = "ghp_" + "R8xk2LmQ9vTz4NcYw7JpB1sHd6FgUe3Ao5Ki"
	ghpat   = "github_pat_" + "11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789abcdefghijKLMNOPQRSTUV"
	openai  = "sk-proj-" + "Zq3vN8bL1xR7kT2mW9yC4hF6jD0sA5gE"
	anth    = "sk-ant-api03-" + "Jm4Xw9Lq2Rv7Nt1Kz8Hy3Bp6Cs0Fd5Gg-AAAA"
	akia    = "AKIA" + "IOSFODNN7EXAMPLE"
	slack   = "xoxb-" + "1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	glpat   = "glpat-" + "x9Yz8Wv7Ut6Sr5Qp4On3"
	jwt     = "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	npmTok  = "npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	gcpKey  = "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
	gitHash = "da39a3ee5e6b4b0d3255bfef95601890afd80709"
	uuid    = "123e4567-e89b-12d3-a456-426614174000"
)

func TestRedactArgv(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"github token in url", []string{"git", "clone", "https://x-access-token:" + ghp + "@github.com/o/r.git"}, []string{"git", "clone", "https://x-access-token:***@github.com/o/r.git"}},
		{"github token alone", []string{"some-tool", ghp}, []string{"some-tool", "ghp_***"}},
		{"token option value", []string{"tool", "--token", ghp}, []string{"tool", "--token", "***"}},
		{"fine-grained pat", []string{"echo", ghpat}, []string{"echo", "github_pat_***"}},
		{"openai key header", []string{"curl", "-H", "Authorization: Bearer " + openai, "https://api.openai.com/v1/models"}, []string{"curl", "-H", "Authorization: Bearer ***", "https://api.openai.com/v1/models"}},
		{"anthropic key header", []string{"curl", "-H", "x-api-key: " + anth, "https://api.anthropic.com"}, []string{"curl", "-H", "x-api-key: ***", "https://api.anthropic.com"}},
		{"anthropic key bare", []string{"node", "x.js", anth}, []string{"node", "x.js", "sk-ant-***"}},
		{"aws key id", []string{"aws", "configure", "set", "aws_access_key_id", akia}, []string{"aws", "configure", "set", "aws_access_key_id", "AKIA***"}},
		{"slack", []string{"post", "--url", "https://slack.com/api?t=" + slack}, []string{"post", "--url", "https://slack.com/api?t=xoxb-***"}},
		{"gitlab", []string{"glab", glpat}, []string{"glab", "glpat-***"}},
		{"jwt", []string{"http", "Authorization:" + jwt}, []string{"http", "Authorization:***"}},
		{"jwt bare", []string{"decode", jwt}, []string{"decode", "eyJ***"}},
		{"npm token", []string{"npm", "config", "set", "//registry.npmjs.org/:_authToken=" + npmTok}, []string{"npm", "config", "set", "//registry.npmjs.org/:_authToken=npm_***"}},
		{"google key", []string{"curl", "https://x.googleapis.com/v1?key=" + gcpKey}, []string{"curl", "https://x.googleapis.com/v1?key=AIza***"}},
		{"bearer lower", []string{"wget", "--header=authorization: bearer abcdefgh12345678"}, []string{"wget", "--header=authorization: bearer ***"}},
		{"basic auth header", []string{"curl", "-H", "Authorization: Basic dXNlcjpwYXNzd29yZA=="}, []string{"curl", "-H", "Authorization: Basic ***"}},
		{"mysql -p", []string{"mysql", "-uroot", "-phunter2", "db"}, []string{"mysql", "-uroot", "-p***", "db"}},
		{"mysqldump path", []string{"/usr/bin/mysqldump", "-pS3cr3t!", "--all-databases"}, []string{"/usr/bin/mysqldump", "-p***", "--all-databases"}},
		{"mysql -p alone prompts", []string{"mysql", "-p", "mydb"}, []string{"mysql", "-p", "mydb"}},
		{"mysql -P port", []string{"mysql", "-P3306"}, []string{"mysql", "-P3306"}},
		{"password option", []string{"psql", "--password=hunter2"}, []string{"psql", "--password=***"}},
		{"password option separate", []string{"docker", "login", "--password", "hunter2", "--username", "me"}, []string{"docker", "login", "--password", "***", "--username", "me"}},
		{"db-password", []string{"app", "--db-password=pw123456"}, []string{"app", "--db-password=***"}},
		{"api-key option", []string{"tool", "--api-key", "abc123def"}, []string{"tool", "--api-key", "***"}},
		{"client secret", []string{"az", "login", "--client-secret=s3cr3tvalue"}, []string{"az", "login", "--client-secret=***"}},
		{"password-file names a file", []string{"x", "--password-file=/run/pw"}, []string{"x", "--password-file=/run/pw"}},
		{"password-stdin", []string{"docker", "login", "--password-stdin"}, []string{"docker", "login", "--password-stdin"}},
		{"sshpass", []string{"sshpass", "-p", "hunter2", "ssh", "host"}, []string{"sshpass", "-p", "***", "ssh", "host"}},
		{"sshpass glued", []string{"sshpass", "-phunter2", "ssh", "host"}, []string{"sshpass", "-p***", "ssh", "host"}},
		{"curl -u", []string{"curl", "-u", "admin:hunter2", "https://x"}, []string{"curl", "-u", "admin:***", "https://x"}},
		{"curl -u glued", []string{"curl", "-uadmin:hunter2", "https://x"}, []string{"curl", "-uadmin:***", "https://x"}},
		{"curl --user=", []string{"curl", "--user=admin:hunter2", "https://x"}, []string{"curl", "--user=admin:***", "https://x"}},
		{"curl -u user only", []string{"curl", "-u", "admin", "https://x"}, []string{"curl", "-u", "admin", "https://x"}},
		{"env assignment", []string{"env", "GITHUB_TOKEN=abc123", "gh", "pr", "list"}, []string{"env", "GITHUB_TOKEN=***", "gh", "pr", "list"}},
		{"docker -e", []string{"docker", "run", "-e", "DB_PASSWORD=pw", "img"}, []string{"docker", "run", "-e", "DB_PASSWORD=***", "img"}},
		{"pgpassword", []string{"env", "PGPASSWORD=pw", "psql"}, []string{"env", "PGPASSWORD=***", "psql"}},
		{"url password", []string{"psql", "postgres://app:pa55word@db:5432/app"}, []string{"psql", "postgres://app:***@db:5432/app"}},
		{"url password redis", []string{"redis-cli", "-u", "redis://:hunter22@cache:6379"}, []string{"redis-cli", "-u", "redis://:***@cache:6379"}},
		{"pem", []string{"echo", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----"}, []string{"echo", "-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----"}},
		{"pem cut short", []string{"echo", "-----BEGIN PRIVATE KEY-----\nMIIEow"}, []string{"echo", "-----BEGIN PRIVATE KEY-----***"}},

		{"aws configure", []string{"aws", "configure", "set", "aws_secret_access_key", "wJalrXUtnFEMI/K7MDENG"}, []string{"aws", "configure", "set", "aws_secret_access_key", "***"}},
		{"docker login -p", []string{"docker", "login", "-u", "me", "-p", "hunter2", "ghcr.io"}, []string{"docker", "login", "-u", "me", "-p", "***", "ghcr.io"}},
		{"mongosh -p", []string{"mongosh", "-u", "admin", "-p", "hunter2"}, []string{"mongosh", "-u", "admin", "-p", "***"}},
		{"redis-cli -a", []string{"redis-cli", "-a", "hunter2", "ping"}, []string{"redis-cli", "-a", "***", "ping"}},
		{"openssl pass:", []string{"openssl", "pkcs12", "-passin", "pass:hunter2", "-in", "x.p12"}, []string{"openssl", "pkcs12", "-passin", "pass:***", "-in", "x.p12"}},

		// Negative cases: these must survive untouched.
		{"docker run -p port", []string{"docker", "run", "-p", "8080:80", "nginx"}, nil},
		{"ls -a", []string{"ls", "-a", "dir"}, nil},
		{"unset one name", []string{"unset", "GITHUB_TOKEN"}, nil},
		{"git hash", []string{"git", "checkout", gitHash}, nil},
		{"uuid", []string{"kubectl", "get", "pod", uuid}, nil},
		{"gcc -pthread", []string{"gcc", "-pthread", "-O2", "x.c"}, nil},
		{"mkdir -p", []string{"mkdir", "-p", "a/b"}, nil},
		{"ssh -p port", []string{"ssh", "-p", "2222", "host"}, nil},
		{"git commit -p", []string{"git", "commit", "-p"}, nil},
		{"url without password", []string{"git", "clone", "https://user@github.com/o/r"}, nil},
		{"plain url", []string{"curl", "https://example.com/a?b=c"}, nil},
		{"sk- in a word", []string{"echo", "task-0123456789012345678901234567"}, nil},
		{"short sk", []string{"pip", "install", "sk-learn"}, nil},
		{"flag with token in name", []string{"tool", "--token-file", "/x"}, nil},
		{"non-secret option", []string{"npm", "install", "--save-dev", "typescript"}, nil},
		{"path with underscores", []string{"cat", "src/my_module/file_name.py"}, nil},
		{"KEY= not secret name", []string{"make", "MONKEY=banana", "LOG_LEVEL=debug"}, nil},
		{"email", []string{"git", "config", "user.email", "dev@example.com"}, nil},
		{"scp host path", []string{"scp", "file", "user@host:/tmp/x"}, nil},
		{"sort -u", []string{"sort", "-u", "file:with:colons"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want == nil {
				want = tt.in
			}
			r := &Record{Argv: slices.Clone(tt.in)}
			r.Redact(nil)
			if !slices.Equal(r.Argv, want) {
				t.Errorf("got  %q\nwant %q", r.Argv, want)
			}
			r.Redact(nil)
			if !slices.Equal(r.Argv, want) {
				t.Errorf("not idempotent: %q", r.Argv)
			}
		})
	}
}

func TestRedactScript(t *testing.T) {
	tests := []struct{ in, want string }{
		{"mysql -u root -p'hunter 2' db && echo ok", "mysql -u root -p*** db && echo ok"},
		{"gcc -pthread x.c; mysql -psecret", "gcc -pthread x.c; mysql -p***"},
		{"echo hi | mysql -phunter2 -e 'select 1'", "echo hi | mysql -p*** -e 'select 1'"},
		{"GITHUB_TOKEN=" + ghp + " gh pr list", "GITHUB_TOKEN=*** gh pr list"},
		{`curl -H "Authorization: Bearer ` + openai + `" https://api.openai.com`, `curl -H "Authorization: Bearer ***" https://api.openai.com`},
		{"git push https://me:" + ghp + "@github.com/o/r HEAD", "git push https://me:***@github.com/o/r HEAD"},
		{"export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\naws s3 ls", "export AWS_SECRET_ACCESS_KEY=***\naws s3 ls"},
		{"curl -u admin:pw https://x && sshpass -p pw2 ssh h", "curl -u admin:*** https://x && sshpass -p *** ssh h"},
		{"psql --password=\"a b c\"", "psql --password=***"},
		{"echo " + gitHash + " " + uuid, ""},
		{"gcc -pthread -o out main.c && ./out -p 8080", ""},
		{"git log --format=%H -n 5", ""},
	}
	for _, tt := range tests {
		want := tt.want
		if want == "" {
			want = tt.in
		}
		r := &Record{Script: tt.in, Reasons: []Reason{{Rule: "r", Detail: "runs " + tt.in, Command: tt.in}}}
		r.Redact(nil)
		if r.Script != want {
			t.Errorf("script %q\ngot  %q\nwant %q", tt.in, r.Script, want)
		}
		if r.Reasons[0].Command != want || r.Reasons[0].Detail != "runs "+want {
			t.Errorf("reasons not redacted like the script: %+v", r.Reasons[0])
		}
	}
}

func TestRedactSecretValues(t *testing.T) {
	r := &Record{
		Argv:    []string{"deploy", "--to", "prod", "--note", "uses hunter2hunter2 inside", "abc"},
		Reasons: []Reason{{Rule: "x", Detail: "mentions hunter2hunter2", Command: "deploy"}},
	}
	r.Redact([]string{"hunter2hunter2", "abc", "", "prod"})
	want := []string{"deploy", "--to", "prod", "--note", "uses *** inside", "abc"}
	if !slices.Equal(r.Argv, want) {
		t.Errorf("got %q\nwant %q (values under 6 bytes are left alone)", r.Argv, want)
	}
	if strings.Contains(r.Reasons[0].Detail, "hunter2") {
		t.Errorf("reason not redacted: %q", r.Reasons[0].Detail)
	}
	// The longest value wins when one contains another.
	r = &Record{Script: "echo abcdefXYZ123"}
	r.Redact([]string{"abcdef", "abcdefXYZ123"})
	if r.Script != "echo ***" {
		t.Errorf("got %q", r.Script)
	}
}

func BenchmarkRedact(b *testing.B) {
	argv := []string{"git", "commit", "-m", "fix: handle empty config in the loader", "--author", "Dev <dev@example.com>"}
	script := "cd web && npm ci && npm run build -- --mode production && git status --porcelain"
	b.Run("argv", func(b *testing.B) {
		for b.Loop() {
			r := &Record{Argv: slices.Clone(argv)}
			r.Redact([]string{"s3cr3tvalue"})
		}
	})
	b.Run("script", func(b *testing.B) {
		for b.Loop() {
			r := &Record{Script: script}
			r.Redact([]string{"s3cr3tvalue"})
		}
	})
}

// TestTokenPatternsCompile compiles every credential pattern: they are
// compiled lazily, on the first record that could hold one.
func TestTokenPatternsCompile(t *testing.T) {
	for i, r := range tokenRules {
		if r.re() == nil || len(r.pre) == 0 {
			t.Errorf("rule %d: no pattern or no prefilter", i)
		}
	}
}
