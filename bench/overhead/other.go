//go:build !linux

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "overhead: compares safeexec with bare bwrap, so it runs on Linux only")
	os.Exit(1)
}
