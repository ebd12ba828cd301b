package catalog

import "github.com/safeexec/safeexec/shell"

// The running system: schedulers, service managers and the tools that
// change the kernel's state. Their options, so that a value is never
// taken for a subcommand or an operand (crontab -u USER -l lists jobs,
// systemctl -H HOST start X starts one).

var systemTools = map[string]*Tool{
	"crontab":   {Tool: shell.Tool{Args: &shell.ArgSpec{Short: "us"}}},
	"systemctl": {Tool: shell.Tool{Args: systemctlArgs}},
	"service":   {Tool: shell.Tool{Args: systemctlArgs}},
	"mount":     {Tool: shell.Tool{Args: adminArgs}}, "umount": {Tool: shell.Tool{Args: adminArgs}},
	"swapon": {Tool: shell.Tool{Args: adminArgs}}, "losetup": {Tool: shell.Tool{Args: adminArgs}},
	"sysctl": {Tool: shell.Tool{Args: adminArgs}}, "nft": {Tool: shell.Tool{Args: adminArgs}},
	"iptables": {Tool: shell.Tool{Args: adminArgs}}, "ip6tables": {Tool: shell.Tool{Args: adminArgs}},
}

var systemctlArgs = &shell.ArgSpec{Short: "HMptsnoP", Long: []string{"host", "machine", "property", "type", "state", "signal",
	"lines", "output", "root", "image", "kill-whom", "what", "job-mode", "timestamp", "preset-mode", "message", "reboot-argument",
	"boot-loader-menu", "boot-loader-entry", "when", "drop-in", "check-inhibitors", "wait"}}

var adminArgs = &shell.ArgSpec{Short: "tOoLUF"}
