package gitconf_test

import (
	"testing"

	"github.com/safeexec/safeexec/catalog"
	"github.com/safeexec/safeexec/sandbox/gitconf"
)

// TestCoversClassifierKeys: every key the classifier (catalog.GitCommandKey)
// counts as running a program, gitconf counts too, so the classifier can
// switch to this one list without losing a key. remote.*.proxy names an
// HTTP proxy, not a program: gitconf leaves it out on purpose.
func TestCoversClassifierKeys(t *testing.T) {
	keys := []string{
		"core.sshcommand", "core.fsmonitor", "core.pager", "core.editor", "core.askpass", "sequence.editor",
		"diff.external", "credential.helper", "gpg.program", "uploadpack.packobjectshook", "interactive.difffilter",
		"web.browser", "core.gitproxy", "receive.procreceiverefs", "ssh.variant", "alias.st", "pager.log",
		"diff.x.command", "diff.x.textconv", "merge.x.driver", "filter.x.clean", "filter.x.smudge", "filter.x.process",
		"gpg.ssh.program", "browser.x.cmd", "browser.x.path", "man.x.cmd", "man.x.path", "mergetool.x.cmd",
		"mergetool.x.path", "difftool.x.cmd", "difftool.x.path", "remote.o.uploadpack", "remote.o.receivepack",
		"remote.o.proxy", "core.hookspath", "user.name", "core.bare",
	}
	for _, k := range keys {
		if catalog.GitCommandKey(k) && !gitconf.KeyRuns(k) && k != "remote.o.proxy" {
			t.Errorf("the classifier counts %s, gitconf does not", k)
		}
	}
}
