package catalog

import (
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Remote shells and copies: ssh, scp, sftp, rsync. Their data comes from
// the network; ssh -o ProxyCommand, scp -S and rsync -e name programs
// they run here.

var (
	sshArgs   = &shell.ArgSpec{Short: "BbcDEeFIiJLlmOoPpQRSWw", InOrder: true}
	scpArgs   = &shell.ArgSpec{Short: "cDFiJloPSX"}
	sftpArgs  = &shell.ArgSpec{Short: "BbcDFiloPRsSX"}
	rsyncArgs = &shell.ArgSpec{Short: "eBfTM@", Long: []string{"rsh", "exclude", "include", "filter", "files-from", "exclude-from", "include-from",
		"temp-dir", "partial-dir", "backup-dir", "compare-dest", "copy-dest", "link-dest", "rsync-path", "chown", "chmod",
		"log-file", "password-file", "port", "suffix", "block-size", "max-size", "min-size", "bwlimit", "timeout", "contimeout",
		"modify-window", "remote-option", "usermap", "groupmap", "log-file-format", "out-format", "sockopts", "address",
		"iconv", "max-delete", "max-alloc", "stop-after", "stop-at", "write-batch", "only-write-batch", "read-batch",
		"protocol", "checksum-choice", "compress-choice", "compress-level", "skip-compress", "debug", "info"}}
)

var remoteTools = map[string]*Tool{
	"ssh":   {Tool: shell.Tool{Args: sshArgs, Network: always, Follow: followSSHOptions, Writes: sshLog}},
	"scp":   {Tool: shell.Tool{Args: scpArgs, Follow: followSSHProgram, Writes: scpWrites}, TreeReads: copyReads},
	"sftp":  {Tool: shell.Tool{Args: sftpArgs, Follow: followSSHProgram, Writes: sftpWrites}},
	"rsync": {Tool: shell.Tool{Args: rsyncArgs, Runs: []shell.CodeArg{{Short: "e", Long: "rsh"}}, Writes: scpWrites}, TreeReads: copyReads},
}

// followSSHOptions follows ssh -o ProxyCommand=…, LocalCommand=…,
// KnownHostsCommand=…: commands ssh runs locally.
func followSSHOptions(f *shell.Follower) {
	for _, opt := range anyArgs.Values(f.Cmd().Args, "o", "", 0) {
		key, val, ok := strings.Cut(opt.Value, "=")
		if !ok {
			key, val, ok = strings.Cut(strings.TrimSpace(opt.Value), " ")
		}
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "proxycommand", "localcommand", "knownhostscommand":
			if ok && strings.ToLower(strings.TrimSpace(val)) != "none" {
				f.Code(word(strings.TrimSpace(val), opt.Dynamic, opt.Taint), shell.ConfigCommand)
			}
		}
	}
}

// followSSHProgram: scp -S PROG and sftp -S PROG connect through PROG.
func followSSHProgram(f *shell.Follower) {
	followSSHOptions(f)
	for _, w := range Args(f.Cmd().Name()).Values(f.Cmd().Args, "S", "", 0) {
		f.Code(w, shell.ConfigCommand)
	}
}

// sshLog: -E FILE is ssh's log file.
func sshLog(c *shell.Command) shell.Writes {
	return shell.Writes{Files: Args(c.Name()).Values(c.Args, "E", "", 2)}
}

// scpWrites: the local destination of a copy.
func scpWrites(c *shell.Command) shell.Writes {
	w := copyWrites(c)
	if c.Name() == "scp" {
		w.Files = append(w.Files, sshLog(c).Files...)
	}
	return w
}

// sftpWrites: sftp HOST:FILE LOCAL fetches into LOCAL.
func sftpWrites(c *shell.Command) shell.Writes {
	w := sshLog(c)
	if ops := sftpArgs.Operands(c.Args); len(ops) == 2 {
		w.Files = append(w.Files, ops[1])
	}
	return w
}
