package safeexec

import "unicode/utf8"

// Text returns the kept bytes as text for a reader that may come back for
// more, such as a terminal's client while the command runs: unless final,
// an incomplete UTF-8 sequence at the end is held back until the rest of
// it has been written. Like Bytes, it never starts inside a character.
func (c *Capture) Text(final bool) string {
	b := c.Bytes()
	if !final {
		b = b[:len(b)-partialSuffix(b)]
	}
	return string(b)
}

// partialSuffix is the length of an incomplete (but so far valid) UTF-8
// sequence at the end of b.
func partialSuffix(b []byte) int {
	for n := 1; n < utf8.UTFMax && n <= len(b); n++ {
		c := b[len(b)-n]
		if !utf8.RuneStart(c) {
			continue
		}
		// c starts a sequence of the length its high bits say.
		want := 0
		switch {
		case c&0xE0 == 0xC0:
			want = 2
		case c&0xF0 == 0xE0:
			want = 3
		case c&0xF8 == 0xF0:
			want = 4
		}
		if want > n && !utf8.FullRune(b[len(b)-n:]) {
			return n
		}
		return 0
	}
	return 0
}
