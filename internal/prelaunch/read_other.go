//go:build !unix

package prelaunch

import "errors"

// Read reads a remembered launch (not on this system).
func Read(string) ([]byte, error) { return nil, errors.New("ahead: not on this system") }
