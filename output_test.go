package safeexec

import (
	"bytes"
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCaptureTextHoldsBackPartialRune: while the command runs, a character
// cut by a write boundary is not shown until it is complete.
func TestCaptureTextHoldsBackPartialRune(t *testing.T) {
	c := NewCapture(100)
	euro := []byte("€")
	c.Write([]byte("price: "))
	c.Write(euro[:2])
	if got := c.Text(false); got != "price: " {
		t.Errorf("mid-character: %q", got)
	}
	if got := c.Text(true); got != "price: "+string(euro[:2]) {
		t.Errorf("final keeps the bytes: %q", got)
	}
	c.Write(euro[2:])
	if got := c.Text(false); got != "price: €" {
		t.Errorf("completed: %q", got)
	}
	for _, s := range []string{"a\xff", "\xc3", "ab\xf0\x9f\x98"} {
		c := NewCapture(10)
		c.Write([]byte(s))
		want := strings.TrimRight(s, "\xc3\xf0\x9f\x98")
		if s == "a\xff" {
			want = s // not a prefix of any character: kept
		}
		if got := c.Text(false); got != want {
			t.Errorf("%q: %q, want %q", s, got, want)
		}
	}
}

// TestCaptureRandom compares with the whole output, for random writes of
// random UTF-8 text: the newest bytes are kept, the text never starts or
// (while running) ends inside a character.
func TestCaptureRandom(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	alphabet := []string{"a", "é", "€", "😀", "\n", "z"}
	for round := 0; round < 500; round++ {
		limit := 1 + r.Intn(40)
		c := NewCapture(int64(limit))
		var all bytes.Buffer
		for w := r.Intn(30); w > 0; w-- {
			var s strings.Builder
			for n := r.Intn(20); n > 0; n-- {
				s.WriteString(alphabet[r.Intn(len(alphabet))])
			}
			p := []byte(s.String())
			cut := 0
			if len(p) > 0 {
				cut = r.Intn(len(p) + 1) // writes split at any byte
			}
			c.Write(p[:cut])
			c.Write(p[cut:])
			all.Write(p)
		}
		whole := all.Bytes()
		want := whole
		if len(want) > limit {
			want = want[len(want)-limit:]
		}
		text := c.Text(true)
		if !utf8.ValidString(text) || !strings.HasSuffix(string(want), text) || len(want)-len(text) > 3 {
			t.Fatalf("round %d: text %q from %q", round, text, want)
		}
		if running := c.Text(false); running != text {
			t.Fatalf("round %d: complete text %q held back as %q", round, text, running)
		}
		if c.Truncated() != (len(whole) > limit) || c.Total() != int64(len(whole)) {
			t.Fatalf("round %d: truncated %v total %d for %d bytes", round, c.Truncated(), c.Total(), len(whole))
		}
	}
}
