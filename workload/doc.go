// Package workload holds tests, and nothing else, that run everyday
// developer work twice, in twin copies of the same project: once bare and
// once under safeexec, and compare exit status and output. git, Go, Node,
// Python, Rust, make and cc, a program built and run in one script, three
// million lines of output and a megabyte on standard input. Package
// registries are the test's own servers on loopback (a Go module proxy,
// an npm registry, a PEP 503 index with a wheel the test builds), reached
// through safeexec's proxy like the real ones would be.
//
// The tests use the machine's real home directory (version managers and
// their shims live there) and its tools; a missing tool skips its part,
// except under SAFEEXEC_REQUIRE_SANDBOX=1 (CI), where it fails.
//
// # Limits
//
//   - Output is compared after the project's path and durations are
//     replaced by placeholders; a difference elsewhere (a path in the
//     module cache, a temporary file name) fails the test.
//   - The registries serve one package each: dependency resolution,
//     authentication and the registries' other endpoints are not
//     exercised.
package workload
