//go:build !unix

package serve

import (
	"context"
	"errors"
)

// ListenUnix is for Unix systems: elsewhere use standard input and output.
func (s *Server) ListenUnix(ctx context.Context, path string) error {
	return errors.New("serve --socket: unix sockets are served on Linux and macOS only; use standard input and output")
}
