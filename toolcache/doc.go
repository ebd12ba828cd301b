// Package toolcache points the tools' caches of a sandboxed command at a
// directory of safeexec's own (one per project, see package workspace),
// and lets the tools read the host's caches read-only where a tool has a
// way to do that, so warm caches stay warm and offline builds stay
// offline.
//
// [Env] rewrites the command's environment. Per tool:
//
//   - Go: GOCACHE and GOMODCACHE are the project's. GOCACHEPROG runs
//     safeexec itself ([ServeGoCache]): build results come from the
//     project's cache, else from the host's GOCACHE (read-only, copied
//     into the project's), and new ones go to the project's. Once a
//     session found everything in the project's cache, the same kind of
//     command (same go subcommands, build flags and Go variables, same go
//     on PATH) runs for a day without GOCACHEPROG, with no round trip per
//     cache lookup (sync.go). Modules come first from the host's module
//     cache through GOPROXY=file://…/cache/download, then from the
//     configured proxy.
//   - Gradle: GRADLE_USER_HOME is the project's; the host's dependency
//     cache is GRADLE_RO_DEP_CACHE, Gradle's read-only cache. The host's
//     gradle.properties and init.d are linked in.
//   - Maven: -Dmaven.repo.local (the project's) and
//     -Dmaven.repo.local.tail (the host's ~/.m2/repository, read-only;
//     Maven 3.9 and later) in MAVEN_OPTS.
//   - NuGet: NUGET_PACKAGES is the project's, the host's packages folder
//     is NUGET_FALLBACK_PACKAGES.
//   - Cargo: CARGO_HOME is the project's, with the host's config.toml and
//     bin linked in (read-only).
//   - npm, Yarn, pnpm, Bun, pip, uv, Poetry, Deno, ccache, sccache and
//     everything under XDG_CACHE_HOME: the project's directory only.
//
// # Limits
//
//   - npm, Yarn, pnpm, Bun, pip, uv, Poetry, Cargo's registry and Maven
//     before 3.9 have no way to read a second cache read-only: their
//     per-project caches start empty and fill from the network (through
//     safeexec's proxy). An offline install in a new project finds only
//     what that project downloaded before.
//   - Go build results of dependencies are not found in the host's cache:
//     their source lives in the project's module cache, whose path is part
//     of every build key. The standard library and the project's own
//     packages are found.
//   - Without GOCACHEPROG the host's cache is not read: a standard
//     library package the project's cache lacks (a new import, a build
//     flag hidden in a Makefile, a go other than the one on PATH) is
//     compiled in the project although the host's cache has it. The kind
//     of a command is read from its words, not from what it runs.
//   - Copied entries take the project's disk space (the standard library
//     a project uses, tens of megabytes), as building them would.
//   - A GOCACHE set in Go's own settings file (go env -w) rather than in
//     the environment is not seen as the host's cache. A GOCACHEPROG the
//     user set is kept, and the host's build cache is then not read.
//   - Tools that keep their cache somewhere of their own (not under
//     XDG_CACHE_HOME, not in the list) write to the read-only home and
//     fail or run without a cache.
package toolcache
