package netallow

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Benchmarks run against loopback servers on 127.0.0.1, which the proxy
// lets through because the entries list that address.

func benchProxy(b *testing.B) *Proxy {
	b.Helper()
	p, _ := startProxy(b, []string{"127.0.0.1:*"}, nil)
	return p
}

// echoServer echoes every byte; sinkServer discards; sourceServer sends
// forever.
func startServer(b *testing.B, serve func(net.Conn)) string {
	b.Helper()
	ln := listen(b, "127.0.0.1:0")
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return ln.Addr().String()
}

func echo(c net.Conn) { io.Copy(c, c) }
func sink(c net.Conn) { io.Copy(io.Discard, c) }
func source(c net.Conn) {
	buf := make([]byte, 1<<20)
	for {
		if _, err := c.Write(buf); err != nil {
			return
		}
	}
}

// dialConnect opens a CONNECT tunnel through the proxy's HTTP listener
// (network "tcp" or "unix").
func dialConnect(b *testing.B, network, proxy, target string) net.Conn {
	c, err := net.Dial(network, proxy)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	// The reply is exactly this; reading byte-exact keeps no buffer.
	const ok = "HTTP/1.1 200 Connection established\r\n\r\n"
	buf := make([]byte, len(ok))
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != ok {
		b.Fatalf("CONNECT %s: %q %v", target, buf, err)
	}
	return c
}

// BenchmarkConnectThroughput moves data through one CONNECT tunnel, each
// way, over the TCP and the unix-socket listener, and directly for
// comparison.
func BenchmarkConnectThroughput(b *testing.B) {
	p := benchProxy(b)
	sinkAddr := startServer(b, sink)
	sourceAddr := startServer(b, source)
	const chunk = 1 << 20
	for _, via := range []string{"direct", "tcp", "unix"} {
		open := func(target string) net.Conn {
			switch via {
			case "direct":
				c, err := net.Dial("tcp", target)
				if err != nil {
					b.Fatal(err)
				}
				return c
			case "tcp":
				return dialConnect(b, "tcp", fmt.Sprintf("127.0.0.1:%d", p.HTTPPort()), target)
			}
			return dialConnect(b, "unix", p.HTTPSocket(), target)
		}
		b.Run(via+"/up", func(b *testing.B) {
			c := open(sinkAddr)
			defer c.Close()
			buf := make([]byte, chunk)
			b.SetBytes(chunk)
			for b.Loop() {
				if _, err := c.Write(buf); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(via+"/down", func(b *testing.B) {
			c := open(sourceAddr)
			defer c.Close()
			buf := make([]byte, chunk)
			b.SetBytes(chunk)
			for b.Loop() {
				if _, err := io.ReadFull(c, buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkConnectLatency opens a connection, exchanges one byte and
// closes it: directly, through CONNECT (TCP and unix listener), through
// SOCKS5, and as a plain proxied HTTP request. The difference to "direct"
// is what the proxy adds per connection.
func BenchmarkConnectLatency(b *testing.B) {
	p := benchProxy(b)
	run := func(name string, f func(b *testing.B)) {
		b.Run(name, func(b *testing.B) {
			start := cpuTime()
			f(b)
			// CPU of the whole process (client, proxy and server)
			// per connection: less sensitive to a busy machine than
			// the wall time.
			b.ReportMetric(float64((cpuTime()-start).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
	echoAddr := startServer(b, echo)
	_, port, _ := net.SplitHostPort(echoAddr)
	httpAddr := startServer(b, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			if _, err := readHead(br); err != nil {
				return
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx")
		}
	})
	exchange := func(c net.Conn) {
		var one [1]byte
		if _, err := c.Write([]byte{'x'}); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(c, one[:]); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
	run("direct", func(b *testing.B) {
		for b.Loop() {
			c, err := net.Dial("tcp", echoAddr)
			if err != nil {
				b.Fatal(err)
			}
			exchange(c)
		}
	})
	run("connect-tcp", func(b *testing.B) {
		for b.Loop() {
			exchange(dialConnect(b, "tcp", fmt.Sprintf("127.0.0.1:%d", p.HTTPPort()), echoAddr))
		}
	})
	run("connect-unix", func(b *testing.B) {
		for b.Loop() {
			exchange(dialConnect(b, "unix", p.HTTPSocket(), echoAddr))
		}
	})
	run("socks5-unix", func(b *testing.B) {
		req := []byte{5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, 0, 0}
		var n int
		fmt.Sscan(port, &n)
		req[11], req[12] = byte(n>>8), byte(n)
		for b.Loop() {
			c, err := net.Dial("unix", p.SOCKSSocket())
			if err != nil {
				b.Fatal(err)
			}
			c.Write(req)
			var reply [12]byte
			if _, err := io.ReadFull(c, reply[:]); err != nil || reply[3] != 0 {
				b.Fatalf("socks: % x %v", reply, err)
			}
			exchange(c)
		}
	})
	run("http-unix", func(b *testing.B) {
		req := "GET http://" + httpAddr + "/ HTTP/1.1\r\nHost: " + httpAddr + "\r\nConnection: close\r\n\r\n"
		for b.Loop() {
			c, err := net.Dial("unix", p.HTTPSocket())
			if err != nil {
				b.Fatal(err)
			}
			io.WriteString(c, req)
			resp, err := io.ReadAll(c)
			if err != nil || !strings.HasSuffix(string(resp), "\r\n\r\nx") {
				b.Fatalf("%q %v", resp, err)
			}
			c.Close()
		}
	})
}

// BenchmarkStart measures starting (and closing) a proxy with both unix
// sockets and both TCP ports, as the pipeline does once per run.
func BenchmarkStart(b *testing.B) {
	m, err := NewMatcher([]string{"registry.npmjs.org", "*.github.com", "pypi.org"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	parent, err := os.MkdirTemp("", "na")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(parent)
	dir := filepath.Join(parent, "s")
	for b.Loop() {
		p, err := Start(m, Options{Dir: dir, TCP: true})
		if err != nil {
			b.Fatal(err)
		}
		p.Close()
	}
}
