package catalog

import (
	"slices"

	"github.com/safeexec/safeexec/shell"
)

// accountTools print user accounts: names or home directories. A value
// made from their output ($(getent passwd x | cut -d: -f6), $(whoami)) is
// a home known only at run time.
var accountTools = map[string]*Tool{
	"getent":      {Tool: shell.Tool{Accounts: getentAccounts}},
	"whoami":      accountTool,
	"logname":     accountTool,
	"id":          accountTool,
	"users":       accountTool,
	"who":         accountTool,
	"finger":      accountTool,
	"pinky":       accountTool,
	"lslogins":    accountTool,
	"dscl":        accountTool,
	"dscacheutil": accountTool,
	"printenv":    {Tool: shell.Tool{Accounts: printenvAccounts}},
}

var accountTool = &Tool{Tool: shell.Tool{Accounts: always}}

// getentAccounts: getent passwd (and group, whose members are user names).
func getentAccounts(c *shell.Command) bool {
	ops := anyArgs.Operands(c.Args)
	return len(ops) == 0 || ops[0].Dynamic || ops[0].Value == "passwd" || ops[0].Value == "group"
}

// printenvAccounts: printenv HOME, USER, LOGNAME, USERPROFILE.
func printenvAccounts(c *shell.Command) bool {
	for _, o := range anyArgs.Operands(c.Args) {
		if o.Dynamic || slices.Contains([]string{"HOME", "USER", "LOGNAME", "USERPROFILE"}, o.Value) {
			return true
		}
	}
	return false
}
