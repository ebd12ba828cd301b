package safeexec

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/safeexec/safeexec/netallow"
)

// TestBridgeChoice: the separate bridge is used when it is installed next
// to safeexec as a runnable file nobody else can write; otherwise safeexec
// re-executes itself.
func TestBridgeChoice(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "safeexec")
	bin := filepath.Join(dir, bridgeName)
	p := &pipeline{req: &Request{Self: self}}
	own := []string{self, "__bridge"}
	if got := p.bridge(); !slices.Equal(got, own) {
		t.Errorf("no bridge installed: %q", got)
	}
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	if got := p.bridge(); !slices.Equal(got, []string{bin, "--protocol", netallow.BridgeProtocol}) {
		t.Errorf("bridge installed: %q", got)
	}
	os.Chmod(bin, 0o757)
	if got := p.bridge(); !slices.Equal(got, own) {
		t.Errorf("world-writable bridge used: %q", got)
	}
	os.Chmod(bin, 0o644)
	if got := p.bridge(); !slices.Equal(got, own) {
		t.Errorf("non-executable bridge used: %q", got)
	}
	os.Remove(bin)
	os.Mkdir(bin, 0o755)
	if got := p.bridge(); !slices.Equal(got, own) {
		t.Errorf("directory used as the bridge: %q", got)
	}
}
