package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// JSON-RPC 2.0 error codes: the protocol's own, then safeexec's.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeNoMethod       = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603

	// CodeRefused: the command was not run because of its tier (risky,
	// or needs_confirmation without approval). The error's data holds the
	// verdict.
	CodeRefused = -32001
	// CodeTooManyTerminals: the cap on terminals not yet released is
	// reached.
	CodeTooManyTerminals = -32002
	// CodeUnknownTerminal: no such terminal in this session (never
	// created, or released).
	CodeUnknownTerminal = -32003
	// CodeUnavailable: the command could not be started: no sandbox, an
	// invalid configuration, a working directory that is not there.
	CodeUnavailable = -32004
)

// maxMessage bounds one JSON-RPC message (one line).
const maxMessage = 16 << 20

// rpcError is a JSON-RPC error object; it is also the error the method
// handlers return.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }

func errorf(code int, msg string) *rpcError { return &rpcError{Code: code, Message: msg} }

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// hasID tells a request (which gets a response, also with "id": null)
// from a notification (no "id" member).
func (r *request) hasID() bool { return r.ID != nil }

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

var nullID = json.RawMessage("null")

// writer sends one message per line; safe for concurrent use.
type writer struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (w *writer) send(v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	_, w.err = w.w.Write(b.Bytes())
	return w.err
}

func (w *writer) notify(method string, params any) error {
	return w.send(notification{JSONRPC: "2.0", Method: method, Params: params})
}

// result builds the response to req from a handler's outcome.
func result(id json.RawMessage, v any, err error) response {
	r := response{JSONRPC: "2.0", ID: id}
	if err != nil {
		var re *rpcError
		if !errors.As(err, &re) {
			re = errorf(codeInternal, err.Error())
		}
		r.Error = re
		return r
	}
	b, merr := json.Marshal(v)
	if merr != nil {
		r.Error = errorf(codeInternal, "encode result: "+merr.Error())
		return r
	}
	r.Result = b
	return r
}

// reader yields messages, one per line, each at most maxMessage bytes.
type reader struct {
	br *bufio.Reader
}

func newReader(r io.Reader) *reader { return &reader{br: bufio.NewReaderSize(r, 64<<10)} }

// next returns the next non-empty line without its newline. A line over
// maxMessage is skipped and reported as errTooLong.
func (r *reader) next() ([]byte, error) {
	for {
		var line []byte
		tooLong := false
		for {
			chunk, err := r.br.ReadSlice('\n')
			if !tooLong {
				if len(line)+len(chunk) > maxMessage {
					tooLong, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil && (len(line) == 0 || err != io.EOF) {
				if tooLong && err == io.EOF {
					return nil, errTooLong
				}
				return nil, err
			}
			break
		}
		if tooLong {
			return nil, errTooLong
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			return line, nil
		}
	}
}

var errTooLong = errors.New("message too long")
