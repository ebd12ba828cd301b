package main

import "os"

// raiseSignal: Windows has no signals to end by; the caller exits with
// 128+N.
func raiseSignal(os.Signal) {}
