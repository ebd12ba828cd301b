//go:build !unix

package serve

import "strconv"

// signalName is the name a terminal reports for signal n.
func signalName(n int) string { return "SIG" + strconv.Itoa(n) }
