//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// served is a running `safeexec serve` and a client for it.
type served struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	next int
}

func startServe(r *runner, bin string, flags []string) *served {
	args := append(append([]string{bin}, flags...), "serve")
	c := r.command(args)
	in, err := c.StdinPipe()
	check(err)
	out, err := c.StdoutPipe()
	check(err)
	check(c.Start())
	return &served{cmd: c, in: in, out: bufio.NewReader(out)}
}

func (s *served) call(method string, params map[string]any) json.RawMessage {
	s.next++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.next, "method": method, "params": params})
	_, err := s.in.Write(append(b, '\n'))
	check(err)
	for {
		line, err := s.out.ReadBytes('\n')
		check(err)
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		check(json.Unmarshal(line, &m))
		if m.ID != s.next {
			continue // a notification
		}
		if m.Error != nil {
			fail("serve %s: %s", method, m.Error)
		}
		return m.Result
	}
}

// run creates a terminal running argv, waits for it and releases it: what a
// client does per command.
func (s *served) run(argv ...string) time.Duration {
	t := time.Now()
	var res struct {
		TerminalID string `json:"terminalId"`
	}
	check(json.Unmarshal(s.call("terminal/create", map[string]any{"sessionId": "bench", "command": argv[0], "args": argv[1:]}), &res))
	id := map[string]any{"sessionId": "bench", "terminalId": res.TerminalID}
	st := s.call("terminal/wait_for_exit", id)
	s.call("terminal/release", id)
	d := time.Since(t)
	if string(st) != `{"exitCode":0,"signal":null}` {
		fail("serve: %s exited with %s", argv[0], st)
	}
	return d
}

func (s *served) close() {
	s.in.Close()
	if err := s.cmd.Wait(); err != nil {
		fmt.Printf("serve: %v\n", err)
	}
}
