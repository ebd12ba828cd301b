package catalog

import (
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Programs that turn their input into other text that a reader of the
// script cannot see: decoders, decompressors, decrypters.

func decodes(flags ...string) *Tool {
	return &Tool{Tool: shell.Tool{Decodes: func(c *shell.Command) bool { return hasFlagWord(c.Args, flags...) }}}
}

var decoder = &Tool{Tool: shell.Tool{Decodes: always}}

var codecTools = map[string]*Tool{
	"base64": decodes("-d", "--decode", "-D"), "base32": decodes("-d", "--decode", "-D"), "basenc": decodes("-d", "--decode", "-D"),
	"xxd":      {Tool: shell.Tool{Decodes: func(c *shell.Command) bool { return hasFlagWord(c.Args, "-r", "-revert") }, Writes: xxdWrites}},
	"uudecode": {Tool: shell.Tool{Decodes: always, Writes: outputOption}},
	"gunzip":   decoder, "zcat": decoder, "gzcat": decoder, "bzcat": decoder, "xzcat": decoder, "zstdcat": decoder, "unxz": decoder,
	"bunzip2": decoder, "unzstd": decoder, "lzcat": decoder, "unlzma": decoder, "lz4cat": decoder, "rev": decoder, "tr": decoder,
	"uncompress": decoder, "unpigz": decoder,
	"gzip": decodes("-d", "--decompress", "--uncompress"), "bzip2": decodes("-d", "--decompress", "--uncompress"),
	"lz4": decodes("-d", "--decompress", "--uncompress"), "lzma": decodes("-d", "--decompress", "--uncompress"),
	"pigz": decodes("-d", "--decompress", "--uncompress"), "brotli": decodes("-d", "--decompress", "--uncompress"),
	"xz":   {Tool: shell.Tool{Decodes: decodeFlags("-d", "--decompress", "--uncompress"), Writes: outputOption}},
	"zstd": {Tool: shell.Tool{Decodes: decodeFlags("-d", "--decompress", "--uncompress"), Writes: outputOption}},
	"gpg":  {Tool: shell.Tool{Decodes: decodeFlags("-d", "--decrypt"), Writes: outputOption}, HomeWrites: gpgHome},
	"gpg2": {Tool: shell.Tool{Decodes: decodeFlags("-d", "--decrypt"), Writes: outputOption}, HomeWrites: gpgHome},
	"age":  decodes("-d", "--decrypt"),
}

func decodeFlags(flags ...string) func(*shell.Command) bool {
	return func(c *shell.Command) bool { return hasFlagWord(c.Args, flags...) }
}

// hasFlagWord reports whether one of the flags is given, a one-letter
// one also inside a cluster (-di).
func hasFlagWord(args []shell.Word, flags ...string) bool {
	for _, a := range args[1:] {
		if a.Dynamic {
			continue
		}
		for _, f := range flags {
			if a.Value == f {
				return true
			}
			if len(f) == 2 && f[0] == '-' && strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "--") && strings.IndexByte(a.Value[1:], f[1]) >= 0 {
				return true
			}
		}
	}
	return false
}

// xxdWrites: xxd -r IN OUT writes OUT.
func xxdWrites(c *shell.Command) shell.Writes {
	if anyArgs.Has(c.Args, "r", "revert") {
		if ops := (&shell.ArgSpec{Short: "cglosn"}).Operands(c.Args); len(ops) > 1 {
			return shell.Writes{Files: ops[1:2]}
		}
	}
	return shell.Writes{}
}

// gpgHome: gpg's key management changes the keyring in ~/.gnupg.
func gpgHome(c *shell.Command) []string {
	if anyArgs.Has(c.Args, "", "import", "gen-key", "generate-key", "full-generate-key", "full-gen-key", "quick-generate-key", "quick-gen-key", "delete-key", "delete-keys", "delete-secret-key", "delete-secret-keys", "delete-secret-and-public-key", "edit-key", "import-ownertrust", "recv-keys", "refresh-keys", "sign-key", "lsign-key") && !anyArgs.Has(c.Args, "", "homedir") {
		return []string{".gnupg"}
	}
	return nil
}
