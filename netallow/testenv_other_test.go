//go:build !linux

package netallow

import (
	"errors"
	"testing"
	"time"
)

var testEnvErr = errors.New("the network tests need Linux namespaces")

func runTests(m *testing.M) int { return m.Run() }

func dnsQueried(string) bool { return false }

func dnsQueries(string) int { return 0 }

func cpuTime() time.Duration { return 0 }
