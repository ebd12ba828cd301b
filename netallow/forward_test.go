package netallow

import (
	"slices"
	"testing"
)

func TestLoopbackForwards(t *testing.T) {
	m, err := NewMatcher(
		[]string{"localhost:3000", "127.0.0.1:8080", "[::1]:5432", "localhost", "localhost:*", "example.com:9000", "127.0.0.1:6000", "localhost:3000"},
		[]string{"127.0.0.1:6000"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range m.LoopbackForwards() {
		got = append(got, f.String())
	}
	want := []string{"localhost:3000", "127.0.0.1:8080", "[::1]:5432"}
	if !slices.Equal(got, want) {
		t.Errorf("forwards %q, want %q (explicit loopback ports only, once each, never a denied one)", got, want)
	}
}
