package catalog

import (
	"path"
	"slices"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Programs whose output is data from the network, and the files they
// write and send.

func always(*shell.Command) bool { return true }

// network is a program whose output comes from the network.
var network = &Tool{Tool: shell.Tool{Network: always}}

var curlArgs = &shell.ArgSpec{Short: "AbcCdDeEFHKmorTuUwxXyYzQtP", Long: []string{"user-agent", "cookie", "cookie-jar", "continue-at",
	"data", "data-ascii", "data-binary", "data-raw", "data-urlencode", "json", "dump-header", "referer", "cert", "form", "form-string",
	"header", "proxy-header", "config", "max-time", "output", "output-dir", "range", "upload-file", "user", "proxy-user", "write-out",
	"proxy", "request", "speed-time", "speed-limit", "time-cond", "quote", "telnet-option", "ftp-port", "trace", "trace-ascii",
	"stderr", "libcurl", "etag-save", "etag-compare", "hsts", "alt-svc", "variable", "url", "connect-timeout", "retry", "cacert",
	"key", "resolve", "connect-to", "interface", "limit-rate", "max-redirs", "oauth2-bearer", "unix-socket"}}

var wgetArgs = &shell.ArgSpec{Short: "oaOPeiBtTwQUY", Long: []string{"output-file", "append-output", "output-document", "directory-prefix",
	"execute", "input-file", "use-askpass", "base", "tries", "timeout", "wait", "quota", "user-agent", "header", "user", "password", "save-cookies",
	"load-cookies", "post-data", "post-file", "body-data", "body-file", "method", "referer", "ca-certificate", "certificate"}}

var fetchTools = map[string]*Tool{
	"curl":  {Tool: shell.Tool{Network: always, Args: curlArgs, Writes: curlWrites}, Reads: curlReads},
	"wget":  {Tool: shell.Tool{Network: always, Args: wgetArgs, Writes: wgetWrites, Runs: []shell.CodeArg{{Long: "use-askpass"}}}, Targets: wgetDirs},
	"fetch": network, "http": network, "https": network, "xh": network, "xhs": network, "curlie": network, "http-prompt": network,
	"aria2c": network, "nc": network, "ncat": network, "netcat": network, "socat": network, "telnet": network,
	"lynx": network, "links": network, "w3m": network, "elinks": network, "tftp": network, "ftp": network,
	"dig": network, "nslookup": network, "host": network, "drill": network, "kdig": network,
	"invoke-webrequest": network, "iwr": network, "invoke-restmethod": network, "irm": network,
	"start-bitstransfer": network, "bitsadmin": network, "certutil": network,
	"openssl": {Tool: shell.Tool{Network: opensslClient, Decodes: opensslDecodes, Writes: opensslWrites}},
}

func opensslClient(c *shell.Command) bool {
	return len(c.Args) > 1 && c.Args[1].Value == "s_client"
}

func opensslDecodes(c *shell.Command) bool {
	return hasFlagWord(c.Args, "-d", "-base64", "-a", "enc", "base64")
}

// opensslWrites: -out, -keyout, -certout name the files it writes.
func opensslWrites(c *shell.Command) shell.Writes {
	var w shell.Writes
	args := c.Args
	for i := 1; i+1 < len(args); i++ {
		if slices.Contains([]string{"-out", "-keyout", "-certout"}, args[i].Value) {
			w.Files = append(w.Files, args[i+1])
		}
	}
	return w
}

// curlWrites are the files curl writes: -o (each of them, under
// --output-dir when given), the names -O takes from the URLs, the header,
// cookie and trace files.
func curlWrites(c *shell.Command) shell.Writes {
	args := c.Args
	var out []shell.Word
	dir, hasDir := curlArgs.Value(args, "", "output-dir")
	if hasDir {
		out = append(out, dir)
	}
	for _, w := range curlArgs.Values(args, "o", "output", 0) {
		if !w.Dynamic && w.Value == "-" {
			continue
		}
		if hasDir && !w.Dynamic && !dir.Dynamic && !path.IsAbs(w.Value) {
			j := path.Join(dir.Value, w.Value)
			w = shell.Word{Value: j, Prefix: j}
		}
		out = append(out, w)
	}
	for _, o := range [][2]string{{"D", "dump-header"}, {"c", "cookie-jar"}, {"", "trace"}, {"", "trace-ascii"}, {"", "stderr"}, {"", "libcurl"}, {"", "etag-save"}, {"", "hsts"}, {"", "alt-svc"}} {
		for _, w := range curlArgs.Values(args, o[0], o[1], 0) {
			if w.Dynamic || w.Value != "-" && w.Value != "%" {
				out = append(out, w)
			}
		}
	}
	remoteName := false
	for _, a := range args[1:] {
		v := a.Value
		if v == "--" {
			break
		}
		if v == "--remote-name" || v == "--remote-name-all" || len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsAny(v, "OJ") {
			remoteName = true
		}
	}
	if remoteName {
		for _, u := range args[1:] {
			if b := urlBase(u.Value); b != "" {
				if hasDir && !dir.Dynamic {
					b = path.Join(dir.Value, b)
				}
				out = append(out, shell.Static(b))
			}
		}
	}
	return shell.Writes{Files: out}
}

// curlReads are the files curl sends or reads: @file and <file values of
// the data, form and header options, cookie files, the config.
func curlReads(c *shell.Command) []shell.Word {
	if c.Dialect != shell.Sh {
		return nil
	}
	args := c.Args
	var out []shell.Word
	for _, o := range [][2]string{{"d", "data"}, {"", "data-binary"}, {"", "data-ascii"}, {"", "data-urlencode"}, {"", "json"},
		{"F", "form"}, {"H", "header"}, {"", "proxy-header"}, {"b", "cookie"}, {"w", "write-out"}, {"", "variable"}} {
		for _, w := range curlArgs.Values(args, o[0], o[1], 0) {
			v := w.Value
			if w.Dynamic {
				v = w.Prefix
			}
			k := strings.IndexAny(v, "@<")
			if k < 0 {
				if o[0] == "b" && !strings.ContainsAny(v, "=;") && v != "" {
					out = append(out, w)
				}
				continue
			}
			f := v[k+1:]
			if i := strings.IndexByte(f, ';'); i >= 0 {
				f = f[:i]
			}
			if f == "" || f == "-" {
				continue
			}
			out = append(out, shell.Word{Value: f, Prefix: f, Dynamic: w.Dynamic})
		}
	}
	return out
}

// wgetWrites are the files wget writes: -O, or the names it takes from
// the URLs (under -P), its log and cookie files.
func wgetWrites(c *shell.Command) shell.Writes {
	args := c.Args
	var out []shell.Word
	outs := wgetArgs.Values(args, "O", "output-document", 0)
	for _, w := range outs {
		if w.Dynamic || w.Value != "-" {
			out = append(out, w)
		}
	}
	if len(outs) == 0 {
		prefix, hasPrefix := wgetArgs.Value(args, "P", "directory-prefix")
		for _, u := range args[1:] {
			if b := urlBase(u.Value); b != "" {
				if hasPrefix && !prefix.Dynamic {
					b = path.Join(prefix.Value, b)
				}
				out = append(out, shell.Static(b))
			}
		}
	}
	for _, o := range [][2]string{{"o", "output-file"}, {"a", "append-output"}, {"", "save-cookies"}} {
		for _, w := range wgetArgs.Values(args, o[0], o[1], 0) {
			if w.Dynamic || w.Value != "-" {
				out = append(out, w)
			}
		}
	}
	return shell.Writes{Files: out}
}

// wgetDirs: -P names the directory wget writes into.
func wgetDirs(c *shell.Command) []shell.Word {
	return wgetArgs.Values(c.Args, "P", "directory-prefix", 0)
}

// urlBase is the file name a download of a URL is saved as.
func urlBase(u string) string {
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	rest := u[i+3:]
	if j := strings.IndexAny(rest, "?#"); j >= 0 {
		rest = rest[:j]
	}
	k := strings.IndexByte(rest, '/')
	if k < 0 {
		return ""
	}
	b := path.Base(rest[k:])
	if b == "/" || b == "." || b == "" {
		return ""
	}
	return b
}
