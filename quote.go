package safeexec

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// quoteArgv renders argv as one shell-quoted line, for prompts, messages
// and the audit log.
func quoteArgv(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			// Quote refuses only strings bash cannot represent (a NUL
			// byte); show them escaped instead of losing them.
			q = strings.ReplaceAll(strings.ReplaceAll(a, "\x00", `\0`), "'", `'\''`)
			q = "'" + q + "'"
		}
		parts[i] = q
	}
	return strings.Join(parts, " ")
}
