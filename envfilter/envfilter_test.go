package envfilter

import (
	"slices"
	"strings"
	"testing"
)

// seed mirrors the default configuration's lists.
var seed = Filter{
	Names: []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY", "GOOGLE_API_KEY",
		"TAVILY_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "GH_TOKEN",
		"NPM_TOKEN", "SSH_AUTH_SOCK", "*_API_KEY_*", "*_SECRET_*"},
	Suffixes: []string{"_KEY", "_SECRET", "_TOKEN", "_PASSWORD", "_CREDENTIAL"},
}

func names(environ []string) []string {
	var out []string
	for _, kv := range environ {
		n, _, _ := split(kv)
		out = append(out, n)
	}
	return out
}

func TestApply(t *testing.T) {
	tests := []struct {
		name        string
		f           Filter
		in          []string
		kept, strip []string
	}{
		{
			name:  "seed names and suffixes",
			f:     seed,
			in:    []string{"PATH=/usr/bin", "OPENAI_API_KEY=x", "AWS_ACCESS_KEY_ID=y", "MY_SERVICE_TOKEN=z", "DB_PASSWORD=p", "HOME=/h", "SSH_AUTH_SOCK=/tmp/agent", "X_CREDENTIAL=c"},
			kept:  []string{"PATH", "HOME"},
			strip: []string{"OPENAI_API_KEY", "AWS_ACCESS_KEY_ID", "MY_SERVICE_TOKEN", "DB_PASSWORD", "SSH_AUTH_SOCK", "X_CREDENTIAL"},
		},
		{
			name:  "case is ignored",
			f:     seed,
			in:    []string{"github_token=a", "Gh_Token=b", "my_secret=c", "lang=C"},
			kept:  []string{"lang"},
			strip: []string{"github_token", "Gh_Token", "my_secret"},
		},
		{
			name:  "patterns",
			f:     seed,
			in:    []string{"OPENAI_API_KEY_2=a", "X_SECRET_FILE=b", "KEYBOARD=us", "SECRETARY=no"},
			kept:  []string{"KEYBOARD", "SECRETARY"},
			strip: []string{"OPENAI_API_KEY_2", "X_SECRET_FILE"},
		},
		{
			name:  "keep wins",
			f:     Filter{Names: seed.Names, Suffixes: seed.Suffixes, Keep: []string{"npm_token", "DATABASE_URL"}},
			in:    []string{"NPM_TOKEN=npm_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "DATABASE_URL=postgres://u:pw@db/x", "GH_TOKEN=g"},
			kept:  []string{"NPM_TOKEN", "DATABASE_URL"},
			strip: []string{"GH_TOKEN"},
		},
		{
			name:  "duplicates share one decision",
			f:     seed,
			in:    []string{"GITHUB_TOKEN=a", "PATH=/bin", "GITHUB_TOKEN=b"},
			kept:  []string{"PATH"},
			strip: []string{"GITHUB_TOKEN"},
		},
		{
			name:  "a secret value in one duplicate strips both",
			f:     Filter{},
			in:    []string{"CONFIG=harmless", "CONFIG=ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
			kept:  nil,
			strip: []string{"CONFIG"},
		},
		{
			name: "values shaped like credentials",
			f:    Filter{},
			in: []string{
				"DATABASE_URL=postgres://app:s3cret@db.internal:5432/app",
				"REDIS=redis://:hunter22@cache:6379",
				"MYGH=ghp_0123456789abcdefghijABCDEFGHIJ012345",
				"FINE_GRAINED=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
				"LLM=sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
				"AWSID=AKIAIOSFODNN7EXAMPLE",
				"SLACK=xoxb-123456789012-1234567890123-abcdefghij",
				"GITLAB=glpat-abcdefghij0123456789",
				"HDR=Authorization: Basic dXNlcjpwYXNz",
				"AUTHHDR=Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc",
				"PEM=-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----",
			},
			strip: []string{"DATABASE_URL", "REDIS", "MYGH", "FINE_GRAINED", "LLM", "AWSID", "SLACK", "GITLAB", "HDR", "AUTHHDR", "PEM"},
		},
		{
			name: "ordinary values survive",
			f:    Filter{},
			in: []string{
				"URL=https://example.com/path?q=1",
				"GOPROXY=https://proxy.golang.org,direct",
				"USERURL=https://user@example.com/",
				"COMMIT=da39a3ee5e6b4b0d3255bfef95601890afd80709",
				"ID=123e4567-e89b-12d3-a456-426614174000",
				"TASK=task-0123456789012345678901234",
				"CFLAGS=-pthread -O2",
				"PS1=\\u@\\h:\\w$ ",
				"EMPTY=",
				"LS_COLORS=rs=0:di=01;34:ln=01;36",
				"SKIP=sk-short",
				"MOTTO=The Bearer of bad news is here",
			},
			kept: []string{"URL", "GOPROXY", "USERURL", "COMMIT", "ID", "TASK", "CFLAGS", "PS1", "EMPTY", "LS_COLORS", "SKIP", "MOTTO"},
		},
		{
			name:  "malformed entries are dropped without repeating them",
			f:     Filter{},
			in:    []string{"ghp_0123456789abcdefghijABCDEFGHIJ012345", "=", "A=1"},
			kept:  []string{"A"},
			strip: []string{malformed},
		},
		{
			name: "windows drive entries",
			f:    seed,
			in:   []string{"=C:=C:\\work", "Path=C:\\bin"},
			kept: []string{"=C:", "Path"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, stripped := tt.f.Apply(tt.in)
			if got := names(kept); !slices.Equal(got, tt.kept) {
				t.Errorf("kept %q, want %q", got, tt.kept)
			}
			if !slices.Equal(stripped, tt.strip) {
				t.Errorf("stripped %q, want %q", stripped, tt.strip)
			}
			for _, kv := range kept {
				if !slices.Contains(tt.in, kv) {
					t.Errorf("kept entry %q was not in the input", kv)
				}
			}
		})
	}
}

func TestApplyDoesNotModifyInput(t *testing.T) {
	in := []string{"A=1", "GH_TOKEN=x", "B=2"}
	orig := slices.Clone(in)
	seed.Apply(in)
	if !slices.Equal(in, orig) {
		t.Errorf("input changed: %q", in)
	}
}

func TestStripped(t *testing.T) {
	f := Filter{Suffixes: []string{"_TOKEN"}, Keep: []string{"CI_JOB_TOKEN"}}
	if !f.Stripped("gitlab_token") || f.Stripped("ci_job_token") || f.Stripped("PATH") {
		t.Error("Stripped disagrees with the filter")
	}
}

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"*", "ANY", true}, {"A*", "AB", true}, {"A*", "BA", false},
		{"*_API_KEY_*", "X_API_KEY_2", true}, {"*_API_KEY_*", "X_API_KEY", false},
		{"A*B*C", "AXXBYYC", true}, {"A*B*C", "AXXBYY", false}, {"AWS_*", "AWS_", true},
		{"*A*A*A*B", strings.Repeat("A", 200), false},
	} {
		if got := glob(c.p, c.s); got != c.want {
			t.Errorf("glob(%q, %q) = %v", c.p, c.s, got)
		}
	}
}

func BenchmarkApply(b *testing.B) {
	environ := []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/root/go/bin:/usr/local/go/bin",
		"HOME=/root", "USER=root", "SHELL=/bin/bash", "TERM=xterm-256color", "LANG=C.UTF-8",
		"PWD=/work/main", "OLDPWD=/work", "SHLVL=1", "EDITOR=vim", "PAGER=less",
		"GOPATH=/root/go", "GOPROXY=https://proxy.golang.org,direct", "GOFLAGS=-mod=mod",
		"OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789", "GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345",
		"SSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.1234", "XDG_RUNTIME_DIR=/run/user/0", "DISPLAY=:0",
		"LS_COLORS=rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:cd=40;33;01",
		"DATABASE_URL=postgres://app:pw@localhost/app", "NODE_ENV=development", "CI=true",
	}
	b.ReportAllocs()
	for b.Loop() {
		seed.Apply(environ)
	}
}
