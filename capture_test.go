package safeexec

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"
	"unicode/utf8"
)

// newest is what a Capture must hold: the last limit bytes of all, minus a
// character cut at the start.
func newest(all []byte, limit int) ([]byte, bool) {
	if limit <= 0 || len(all) <= limit {
		return all, false
	}
	out := all[len(all)-limit:]
	for i := 0; i < 3 && len(out) > 0 && !utf8.RuneStart(out[0]); i++ {
		out = out[1:]
	}
	return out, true
}

func TestCaptureKeepsNewestBytes(t *testing.T) {
	tests := []struct {
		name   string
		limit  int64
		writes []string
		want   string
		trunc  bool
	}{
		{"no limit", 0, []string{"abc", "def"}, "abcdef", false},
		{"under the limit", 10, []string{"abc", "def"}, "abcdef", false},
		{"exactly the limit", 6, []string{"abc", "def"}, "abcdef", false},
		{"one over", 5, []string{"abc", "def"}, "bcdef", true},
		{"one write larger than the limit", 3, []string{"abcdefgh"}, "fgh", true},
		{"wraps several times", 4, []string{"ab", "cd", "ef", "gh", "i"}, "fghi", true},
		{"a two-byte character cut", 3, []string{"aéé"}, "é", true},
		{"a four-byte character cut", 5, []string{"x😀😀"}, "😀", true},
		{"a cut character dropped whole", 2, []string{"é😀"}, "", true},
		{"a character at the boundary kept", 4, []string{"ab", "😀"}, "😀", true},
		{"binary keeps its bytes", 2, []string{"\x00\x01\x02"}, "\x01\x02", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCapture(tt.limit)
			total := 0
			for _, w := range tt.writes {
				n, err := c.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
				total += len(w)
			}
			if got := string(c.Bytes()); got != tt.want {
				t.Errorf("Bytes = %q, want %q", got, tt.want)
			}
			if c.Truncated() != tt.trunc {
				t.Errorf("Truncated = %v, want %v", c.Truncated(), tt.trunc)
			}
			if c.Total() != int64(total) {
				t.Errorf("Total = %d, want %d", c.Total(), total)
			}
		})
	}
}

// Random write sizes against the obvious implementation.
func TestCaptureMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "é", "€", "😀", "\xff", "\n"}
	for round := 0; round < 500; round++ {
		limit := r.IntN(40)
		c := NewCapture(int64(limit))
		var all []byte
		for w := r.IntN(12); w > 0; w-- {
			var b []byte
			for n := r.IntN(30); n > 0; n-- {
				b = append(b, alphabet[r.IntN(len(alphabet))]...)
			}
			c.Write(b)
			all = append(all, b...)
			want, trunc := newest(all, limit)
			if got := c.Bytes(); !bytes.Equal(got, want) || c.Truncated() != trunc {
				t.Fatalf("limit %d after %q: got %q (truncated %v), want %q (%v)", limit, all, got, c.Truncated(), want, trunc)
			}
		}
	}
}

func TestCaptureConcurrentWriters(t *testing.T) {
	c := NewCapture(1000)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 1000; j++ {
				c.Write([]byte("0123456789"))
				_ = c.Bytes()
			}
		}()
	}
	wg.Wait()
	if c.Total() != 80000 || len(c.Bytes()) != 1000 || !c.Truncated() {
		t.Fatalf("total %d, kept %d, truncated %v", c.Total(), len(c.Bytes()), c.Truncated())
	}
}

func TestResultEncodesStreams(t *testing.T) {
	out, errs := NewCapture(0), NewCapture(0)
	out.Write([]byte("text\n"))
	errs.Write([]byte{0xff, 0x00})
	r := NewResult(&Outcome{ExitCode: 2, Decision: Allowed}, nil, out, errs)
	if r.Stdout != "text\n" || r.StdoutBase64 || r.Stderr != "/wA=" || !r.StderrBase64 || r.ExitCode != 2 || r.Error != "" {
		t.Fatalf("%+v", r)
	}
	r = ErrorResult(&RefusedError{Decision: Blocked, Why: "x"})
	if r.ExitCode != ExitCodeRefused || r.Error == "" || r.Reasons == nil {
		t.Fatalf("%+v", r)
	}
}
