package workload

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// registries is one loopback HTTP server playing three package registries:
// a Go module proxy under /go/, an npm registry under /npm/ and a PEP 503
// index under /simple/ (files under /files/). Each serves one package.
type registries struct {
	URL  string // http://127.0.0.1:PORT
	Port int

	mu   sync.Mutex
	hits map[string]int // requests per registry ("go", "npm", "simple", "files")

	goZip, goMod []byte
	npmTgz       []byte
	wheel        []byte
}

// The packages the registries serve.
const (
	goModule   = "example.test/greet"
	goVersion  = "v1.0.0"
	npmPackage = "tiny-greet"
	npmVersion = "1.0.0"
	pyPackage  = "tinygreet"
	pyVersion  = "1.0.0"
	wheelName  = pyPackage + "-" + pyVersion + "-py3-none-any.whl"
)

func startRegistries(t *testing.T) *registries {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &registries{Port: ln.Addr().(*net.TCPAddr).Port, hits: map[string]int{}}
	r.URL = fmt.Sprintf("http://127.0.0.1:%d", r.Port)
	r.goMod = []byte("module " + goModule + "\n\ngo 1.20\n")
	r.goZip = zipOf(t, map[string]string{
		goModule + "@" + goVersion + "/go.mod":   string(r.goMod),
		goModule + "@" + goVersion + "/greet.go": "package greet\n\n// Hello greets.\nfunc Hello(name string) string { return \"hello, \" + name }\n",
	})
	r.npmTgz = tgzOf(t, map[string]string{
		"package/package.json": `{"name":"` + npmPackage + `","version":"` + npmVersion + `","main":"index.js","bin":{"` + npmPackage + `":"bin.js"}}`,
		"package/index.js":     "exports.hello = (name) => 'hello, ' + name;\n",
		"package/bin.js":       "#!/usr/bin/env node\nconsole.log(require('./index.js').hello(process.argv[2] || 'world'));\n",
	})
	r.wheel = wheelOf(t)
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return r
}

func (r *registries) hit(kind string) {
	r.mu.Lock()
	r.hits[kind]++
	r.mu.Unlock()
}

// Hits returns how many requests a registry got.
func (r *registries) Hits(kind string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits[kind]
}

// npmIntegrity is the tarball's Subresource Integrity string.
func (r *registries) npmIntegrity() string {
	sum := sha512.Sum512(r.npmTgz)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

func (r *registries) npmTarballURL() string {
	return r.URL + "/npm/" + npmPackage + "/-/" + npmPackage + "-" + npmVersion + ".tgz"
}

func (r *registries) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	p := req.URL.Path
	send := func(kind, ctype string, body []byte) {
		r.hit(kind)
		w.Header().Set("Content-Type", ctype)
		w.Write(body)
	}
	gp := "/go/" + goModule + "/@v/"
	switch {
	case p == gp+"list":
		send("go", "text/plain", []byte(goVersion+"\n"))
	case p == gp+goVersion+".info", p == "/go/"+goModule+"/@latest":
		send("go", "application/json", []byte(`{"Version":"`+goVersion+`","Time":"2024-01-01T00:00:00Z"}`))
	case p == gp+goVersion+".mod":
		send("go", "text/plain", r.goMod)
	case p == gp+goVersion+".zip":
		send("go", "application/zip", r.goZip)
	case p == "/npm/"+npmPackage:
		sum := sha1.Sum(r.npmTgz)
		doc := map[string]any{
			"name":      npmPackage,
			"dist-tags": map[string]string{"latest": npmVersion},
			"versions": map[string]any{npmVersion: map[string]any{
				"name": npmPackage, "version": npmVersion, "main": "index.js",
				"bin":  map[string]string{npmPackage: "bin.js"},
				"dist": map[string]string{"tarball": r.npmTarballURL(), "integrity": r.npmIntegrity(), "shasum": hex.EncodeToString(sum[:])},
			}},
		}
		b, _ := json.Marshal(doc)
		send("npm", "application/json", b)
	case p == "/npm/"+npmPackage+"/-/"+npmPackage+"-"+npmVersion+".tgz":
		send("npm", "application/octet-stream", r.npmTgz)
	case p == "/simple/":
		send("simple", "text/html", []byte(`<!DOCTYPE html><html><body><a href="`+pyPackage+`/">`+pyPackage+`</a></body></html>`))
	case p == "/simple/"+pyPackage+"/":
		sum := sha256.Sum256(r.wheel)
		send("simple", "text/html", []byte(`<!DOCTYPE html><html><body><a href="/files/`+wheelName+`#sha256=`+hex.EncodeToString(sum[:])+`">`+wheelName+`</a></body></html>`))
	case p == "/files/"+wheelName:
		send("files", "application/octet-stream", r.wheel)
	default:
		r.hit("404")
		http.NotFound(w, req)
	}
}

func zipOf(t *testing.T, files map[string]string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range sortedKeys(files) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(files[name]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func tgzOf(t *testing.T, files map[string]string) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range sortedKeys(files) {
		mode := int64(0o644)
		if strings.HasSuffix(name, "bin.js") {
			mode = 0o755
		}
		body := files[name]
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(body)), ModTime: time.Unix(1700000000, 0), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return buf.Bytes()
}

// wheelOf builds a pure-Python wheel with a RECORD that pip accepts.
func wheelOf(t *testing.T) []byte {
	info := pyPackage + "-" + pyVersion + ".dist-info/"
	files := map[string]string{
		pyPackage + "/__init__.py": "def hello(name):\n    return 'hello, ' + name\n",
		info + "METADATA":          "Metadata-Version: 2.1\nName: " + pyPackage + "\nVersion: " + pyVersion + "\nSummary: a test package\n",
		info + "WHEEL":             "Wheel-Version: 1.0\nGenerator: safeexec-workload-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
		info + "top_level.txt":     pyPackage + "\n",
	}
	var record strings.Builder
	for _, name := range sortedKeys(files) {
		sum := sha256.Sum256([]byte(files[name]))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", name, base64.RawURLEncoding.EncodeToString(sum[:]), len(files[name]))
	}
	record.WriteString(info + "RECORD,,\n")
	files[info+"RECORD"] = record.String()
	return zipOf(t, files)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if keys[j] < keys[i] {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
	}
	return keys
}
