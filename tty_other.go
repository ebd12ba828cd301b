//go:build !unix

package safeexec

import (
	"io"
	"os"
)

// ptyRelay is unix only: elsewhere the command keeps safeexec's console.
type ptyRelay struct{ slave *os.File }

func openPTY(io.Reader, io.Writer) (*ptyRelay, error) { return nil, nil }
func (r *ptyRelay) start()                            {}
func (r *ptyRelay) closeSlave()                       {}
func (r *ptyRelay) finish()                           {}
func (r *ptyRelay) abort()                            {}

func isTerminal(*os.File) bool { return false }

// hostTerminals is unix only.
type hostTerminals struct{}

func saveTerminals(...any) *hostTerminals { return nil }
func (*hostTerminals) restore()           {}
