package catalog

import (
	"path"
	"slices"
	"strings"

	"github.com/safeexec/safeexec/shell"
)

// Archivers: what they extract where, what they create, the trees they
// read, and the programs they run (tar --to-command, zip -TT).

var tarArgs = gnu(shell.ArgSpec{Short: "bCfFgHIKLNTVX", Long: []string{"blocking-factor", "directory", "file", "info-script",
	"new-volume-script", "listed-incremental", "format", "use-compress-program", "starting-file", "tape-length", "newer",
	"after-date", "files-from", "label", "exclude-from", "exclude", "transform", "xform", "owner", "group", "mode", "mtime",
	"to-command", "rsh-command", "checkpoint-action", "record-size", "volno-file", "index-file", "suffix", "backup",
	"newer-mtime", "occurrence", "strip-components", "owner-map", "group-map", "sort", "quoting-style", "rmt-command",
	"warning", "hole-detection", "pax-option", "exclude-tag", "exclude-tag-under", "exclude-tag-all", "atime-preserve"},
	Flags: []string{"create", "append", "update", "extract", "get", "list", "diff", "compare", "delete", "concatenate",
		"absolute-names", "gzip", "bzip2", "xz", "zstd", "verbose", "keep-old-files", "overwrite", "unlink-first",
		"recursive-unlink", "same-permissions", "preserve-permissions", "to-stdout", "dereference", "one-file-system"}})

var zipArgs = &shell.ArgSpec{Short: "bnPtTxi", Long: []string{"temp-path", "suffixes", "password", "exclude", "include", "unzip-command"}}
var unzipArgs = &shell.ArgSpec{Short: "dxP", Long: []string{"exdir"}}

var archiveTools = map[string]*Tool{
	"tar":    {Tool: shell.Tool{Args: tarArgs, Follow: followTar, Writes: tarWrites}, Targets: tarTargets, TreeReads: tarReads},
	"bsdtar": {Tool: shell.Tool{Args: tarArgs, Follow: followTar, Writes: tarWrites}, Targets: tarTargets, TreeReads: tarReads},
	"gtar":   {Tool: shell.Tool{Args: tarArgs, Follow: followTar, Writes: tarWrites}, Targets: tarTargets, TreeReads: tarReads},
	"zip":    {Tool: shell.Tool{Args: zipArgs, Follow: followZip, Writes: zipWrites}, TreeReads: zipReads},
	"unzip":  {Tool: shell.Tool{Args: unzipArgs, Decodes: decodeFlags("-p"), Writes: unzipWrites}},
	"7z":     {Tool: shell.Tool{Writes: sevenZipWrites}}, "7za": {Tool: shell.Tool{Writes: sevenZipWrites}},
	"7zr": {Tool: shell.Tool{Writes: sevenZipWrites}}, "7zz": {Tool: shell.Tool{Writes: sevenZipWrites}},
	"cpio": {Tool: shell.Tool{Args: &shell.ArgSpec{Short: "DEFHIMOR", Long: []string{"directory", "pattern-file", "file", "format", "message", "owner"}}, Writes: cpioWrites}},
}

// TarArgs returns tar's arguments with an old-style first word (tar xzf
// a.tgz) spelled as options (-x -z -f a.tgz), so that they read like any
// other options.
func TarArgs(args []shell.Word) []shell.Word {
	if len(args) < 2 || args[1].Dynamic || args[1].Value == "" || strings.HasPrefix(args[1].Value, "-") {
		return args
	}
	out := []shell.Word{args[0]}
	next := 2
	for _, c := range args[1].Value {
		out = append(out, shell.Static("-"+string(c)))
		if strings.ContainsRune(tarArgs.Short, c) && next < len(args) {
			out = append(out, args[next])
			next++
		}
	}
	return append(out, args[next:]...)
}

// tarModes says whether tar extracts and whether it creates (or adds to)
// an archive.
func tarModes(args []shell.Word) (extract, create bool) {
	for a := range tarArgs.Args(args) {
		switch {
		case a.Operand:
		case a.Name == "x" || a.Name == "extract" || a.Name == "get":
			extract = true
		case slices.Contains([]string{"c", "r", "u", "create", "append", "update"}, a.Name):
			create = true
		}
	}
	return extract, create
}

// tarTargets: extraction writes under -C DIR (anywhere with -P); creation
// writes the archive.
func tarTargets(c *shell.Command) []shell.Word {
	args := TarArgs(c.Args)
	extract, create := tarModes(args)
	var out []shell.Word
	if extract {
		if w, ok := tarArgs.Value(args, "C", "directory"); ok {
			out = append(out, w)
		}
		if tarArgs.Has(args, "P", "absolute-names") {
			// Absolute names in the archive are kept: it may write
			// anywhere.
			out = append(out, shell.Word{Value: "the absolute paths the archive holds", Dynamic: true})
		}
	}
	if create {
		if w, ok := tarArgs.Value(args, "f", "file"); ok && w.Value != "-" {
			out = append(out, w)
		}
	}
	return out
}

func tarWrites(c *shell.Command) shell.Writes {
	w := shell.Writes{Here: true}
	args := TarArgs(c.Args)
	if d, ok := tarArgs.Value(args, "C", "directory"); ok {
		w.Dirs = append(w.Dirs, d)
	}
	return w
}

// tarReads: tar c reads the trees it archives (under -C DIR).
func tarReads(c *shell.Command) []shell.Word {
	args := TarArgs(c.Args)
	if _, create := tarModes(args); !create {
		return nil
	}
	base := ""
	if d, ok := tarArgs.Value(args, "C", "directory"); ok && !d.Dynamic {
		base = d.Value
	}
	var out []shell.Word
	for _, o := range tarArgs.Operands(args) {
		if base != "" && !o.Dynamic && !path.IsAbs(o.Value) && !strings.HasPrefix(o.Value, "~") {
			o = shell.Static(path.Join(base, o.Value))
		}
		out = append(out, o)
	}
	return out
}

// followTar follows the commands tar runs: --to-command,
// --checkpoint-action=exec=, --use-compress-program (-I), --rsh-command,
// --info-script/--new-volume-script (-F).
func followTar(f *shell.Follower) {
	args := TarArgs(f.Cmd().Args)
	// The commands get the archive's content: from standard input, or
	// from the -f file (tainted when downloaded).
	in := shell.Input{Kind: shell.InputPipe, Taint: f.Cmd().Stdin.Taint}
	if w, ok := tarArgs.Value(args, "f", "file"); ok && (w.Dynamic || w.Value != "-") {
		in.Taint = w.Taint
	}
	for a := range tarArgs.Args(args) {
		if !a.HasValue {
			continue
		}
		switch a.Name {
		case "checkpoint-action":
			if strings.HasPrefix(a.Value.Prefix, "exec=") || !a.Value.Dynamic && strings.HasPrefix(a.Value.Value, "exec=") {
				f.Code(after(a.Value, 5), shell.ShellC)
			}
		case "to-command", "use-compress-program", "I":
			f.CodeReading(a.Value, shell.ShellC, in)
		case "rsh-command", "info-script", "new-volume-script", "F", "rmt-command":
			f.Code(a.Value, shell.ShellC)
		}
	}
}

// zipWrites: zip ARCHIVE FILES… writes the archive.
func zipWrites(c *shell.Command) shell.Writes {
	if ops := zipArgs.Operands(c.Args); len(ops) > 0 {
		return shell.Writes{Files: ops[:1], Here: false}
	}
	return shell.Writes{}
}

// zipReads: zip -r ARCHIVE DIR… reads the trees.
func zipReads(c *shell.Command) []shell.Word {
	if !zipArgs.Has(c.Args, "r", "recurse-paths") {
		return nil
	}
	if ops := zipArgs.Operands(c.Args); len(ops) > 0 {
		return ops[1:]
	}
	return nil
}

// followZip follows zip's -TT CMD / --unzip-command CMD (-TT is one
// two-letter option, not a cluster).
func followZip(f *shell.Follower) {
	args := f.Cmd().Args
	for i := 1; i < len(args); i++ {
		v := args[i].Value
		switch {
		case args[i].Dynamic:
		case v == "--":
			return
		case (v == "-TT" || v == "--unzip-command") && i+1 < len(args):
			f.Script(args[i+1])
			return
		case strings.HasPrefix(v, "--unzip-command="):
			f.Script(after(args[i], len("--unzip-command=")))
			return
		case strings.HasPrefix(v, "-TT") && len(v) > 3:
			f.Script(after(args[i], 3))
			return
		}
	}
}

// unzipWrites: unzip extracts here, or under -d DIR.
func unzipWrites(c *shell.Command) shell.Writes {
	w := shell.Writes{Here: true}
	if d, ok := unzipArgs.Value(c.Args, "d", "exdir"); ok {
		w.Files = append(w.Files, d)
		w.Dirs = append(w.Dirs, d)
	}
	return w
}

// sevenZipWrites: 7z x -oDIR extracts under DIR.
func sevenZipWrites(c *shell.Command) shell.Writes {
	w := shell.Writes{Here: true}
	for _, a := range c.Args[1:] {
		if strings.HasPrefix(a.Prefix, "-o") {
			d := after(a, 2)
			w.Files = append(w.Files, d)
			w.Dirs = append(w.Dirs, d)
			break
		}
	}
	return w
}

// cpioWrites: cpio -i extracts here, or under -D DIR.
func cpioWrites(c *shell.Command) shell.Writes {
	w := shell.Writes{Here: true}
	spec := Args("cpio")
	if d, ok := spec.Value(c.Args, "D", "directory"); ok {
		w.Dirs = append(w.Dirs, d)
		if spec.Has(c.Args, "i", "extract") {
			w.Files = append(w.Files, d)
		}
	}
	return w
}
