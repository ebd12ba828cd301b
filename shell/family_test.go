package shell_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/safeexec/safeexec/shell"
)

// One table per family of programs in package catalog: what the parser
// finds in a command line once the catalog describes the programs. A row
// is a script and the commands it runs, in order ("?" for a name only
// known at run time); a name written NAME/WRAPPER,… says which wrappers
// were peeled off it.

type familyCase struct {
	src  string
	want string
}

func runFamily(t *testing.T, cases []familyCase) {
	t.Helper()
	for _, tc := range cases {
		prog := shell.Parse(tc.src, testOpts)
		var got []string
		for _, c := range prog.Commands {
			n := "<redir>"
			switch {
			case len(c.Args) > 0 && c.Args[0].Dynamic:
				n = "?"
			case len(c.Args) > 0:
				n = c.Name()
			}
			if len(c.Wrappers) > 0 {
				var ws []string
				for _, w := range c.Wrappers {
					ws = append(ws, w.Name)
				}
				n += "/" + strings.Join(ws, ",")
			}
			got = append(got, n)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%q: got %q, want %q%s", tc.src, strings.Join(got, " "), tc.want, dump(prog))
		}
	}
}

func TestFamilyWrappers(t *testing.T) {
	runFamily(t, []familyCase{
		{`env -i A=1 ls`, "ls/env"},
		{`env -u HOME -C /tmp ls`, "ls/env"},
		{`env -S 'nice ls -l'`, "ls/env,nice"},
		{`nice -n 5 ls`, "ls/nice"},
		{`nice -n5 -- ls`, "ls/nice"},
		{`timeout -s KILL 5 rm x`, "rm/timeout"},
		{`timeout --kill-after=1 5 rm x`, "rm/timeout"},
		{`stdbuf -oL tail -f x`, "tail/stdbuf"},
		{`sudo -u root -g wheel id`, "id/sudo"},
		{`sudo -l`, "sudo"},
		{`doas -u root id`, "id/doas"},
		{`ionice -c 3 make`, "make/ionice"},
		{`ionice -p 123`, "ionice"},
		{`taskset 0x1 make`, "make/taskset"},
		{`chrt -f 10 make`, "make/chrt"},
		{`busybox rm -rf x`, "rm/busybox"},
		{`strace -o log -f make`, "make/strace"},
		{`command -v rm`, "command"},
		{`exec -a name ls`, "ls/exec"},
		{`flock /tmp/l make`, "make/flock"},
		{`flock -c 'rm x' /tmp/l`, "flock rm"},
		{`su -c 'rm x' root`, "su rm"},
		{`su - root -c 'rm x'`, "su rm"},
		{`runuser -u nobody -- id`, "id/runuser"},
		{`sg wheel 'rm x'`, "sg rm"},
		{`capsh --caps=x -- -c 'rm y'`, "capsh bash rm"},
		{`echo a | xargs rm -f`, "echo rm/xargs"},
		{`xargs -I{} rm {}`, "rm/xargs"},
	})
}

func TestFamilyRunners(t *testing.T) {
	runFamily(t, []familyCase{
		{`watch -n1 make test`, "watch make"},
		{`watch -x make test`, "make/watch"},
		{`entr make < files`, "make/entr"},
		{`uv run --with x pytest -q`, "pytest/uv"},
		{`poetry run pytest`, "pytest/poetry"},
		{`conda run -n env python x.py`, "python/conda"},
		{`direnv exec . make`, "make/direnv"},
		{`nix develop -c make`, "make/nix"},
		{`nix-shell --run 'make test'`, "nix-shell make"},
		{`parallel -j2 rm ::: a b`, "parallel rm"},
		{`parallel ::: 'rm a' 'ls'`, "parallel rm ls"},
		{`hyperfine --prepare 'make clean' 'make'`, "hyperfine make make"},
		{`bundle exec rake`, "rake/bundle"},
		{`npx -c 'rm x'`, "npx rm"},
		{`npx -y prettier --write .`, "prettier/npx"},
		{`npm exec --package=x -- rm y`, "rm/npm"},
		{`pnpm dlx rm y`, "rm/pnpm"},
		{`cargo run --release -- rm y`, "cargo rm"},
		{`go run ./cmd/x rm y`, "go rm"},
		{`go run -exec 'rm -f' ./x`, "go rm"},
		{`gdb --args sudo id`, "gdb id/sudo"},
		{`entr -s 'rm x' < files`, "entr rm"},
		// A program nothing describes is presumed to run a command its
		// first arguments name (past options, their likely values and
		// NAME=value settings, by a path's last element too); a known
		// one is not.
		{`xvfb-run -a rm x`, "xvfb-run rm"},
		{`xvfb-run -a -s '-screen 0 1x1x8' rm x`, "xvfb-run rm"},
		{`faketime yesterday rm x`, "faketime rm"},
		{`faketime -f X sudo id`, "faketime id/sudo"},
		{`unknowntool a b rm x`, "unknowntool rm"},
		{`unknowntool a b c d rm x`, "unknowntool"},
		{`unknowntool --timeout 30 --retries 3 rm x`, "unknowntool rm"},
		{`unknowntool --verbose rm x`, "unknowntool rm"},
		{`unknowntool run --env A=B -- rm x`, "unknowntool rm"},
		{`unknowntool A=1 B=2 rm x`, "unknowntool rm"},
		{`unknowntool /usr/bin/rm x`, "unknowntool rm"},
		{`unknowntool -- ./build/app rm x`, "unknowntool"},
		{`unknowntool lint src/python`, "unknowntool"},
		{`unknowntool --to rm`, "unknowntool rm"},
		{`which rm`, "which"},
		{`apt-get install -y sudo`, "apt-get"},
	})
}

func TestFamilyGit(t *testing.T) {
	runFamily(t, []familyCase{
		{`git -c alias.x='!rm -rf y' x`, "git rm"},
		{`git -c alias.st=status st`, "git git"},
		{`git -c core.pager='less -R' log`, "git less"},
		{`git -c core.pager=true log`, "git true"},
		{`git --config-env=core.sshCommand=CMD fetch`, "git ?"},
		{`git -C sub -c core.editor=vim commit`, "git vim"},
		{`git rebase --exec 'make test' main`, "git make"},
		{`git rebase -x 'make' main`, "git make"},
		{`git submodule foreach --recursive 'git pull'`, "git git"},
		{`git bisect run make test`, "git make"},
		{`git clone ext::'sh -c touch% /tmp/x' y`, "git sh touch"},
		{`git fetch --upload-pack='rm x' origin`, "git rm"},
		{`git config core.sshCommand 'ssh -i k'`, "git ssh"},
		{`git config user.email x@y`, "git"},
		{`GIT_SSH_COMMAND='ssh -v' git fetch`, "git ssh"},
		{`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=less git log`, "git less"},
		{`GIT_CONFIG_PARAMETERS="'core.pager=less'" git log`, "git less"},
		{`export GIT_CONFIG_GLOBAL=~/x; git log`, "? git"},
		{`git --no-pager -c core.pager=less log`, "git less"},
	})
}

func TestFamilyEditorsAndTerminals(t *testing.T) {
	runFamily(t, []familyCase{
		{`vim -c ':!rm x' f`, "vim rm"},
		{`vim +':r !ls' f`, "vim ls"},
		{`vim -c ':wq' f`, "vim"},
		{`gdb -ex 'shell rm x' prog`, "gdb rm"},
		{`gdb -batch -ex '!ls'`, "gdb ls"},
		{`tmux new-session -d 'make test'`, "tmux make"},
		{`tmux -c 'rm x'`, "tmux rm"},
		{`screen -dm make`, "make/screen"},
		{`screen -r`, "screen"},
		{`script -c 'rm x' log`, "script rm"},
		{`wsl -e rm x`, "wsl rm"},
		{`wsl ls -l`, "wsl ls"},
		{`EDITOR='rm -rf x' git commit`, "git rm"},
		{`PAGER=less man ls`, "man less"},
	})
}

func TestFamilyArchiveAndRemote(t *testing.T) {
	runFamily(t, []familyCase{
		{`tar --to-command='sh -c x' -xf a.tar`, "tar sh x"},
		{`tar xf a.tar --checkpoint=1 --checkpoint-action=exec='rm y'`, "tar rm"},
		{`tar -I 'gzip -9' -cf a.tgz .`, "tar gzip"},
		{`tar cf a.tar -C dir .`, "tar"},
		{`zip -TT 'rm x' a.zip f`, "zip rm"},
		{`zip -T a.zip f`, "zip"},
		{`ssh -o ProxyCommand='nc %h %p' host`, "ssh nc"},
		{`ssh -oProxyCommand=none host`, "ssh"},
		{`scp -o 'LocalCommand rm x' a host:b`, "scp rm"},
		{`rsync -e 'ssh -p 2' a host:b`, "rsync ssh"},
		{`rsync --rsh='rm x' a host:b`, "rsync rm"},
	})
}

func TestFamilyBuildAndFiles(t *testing.T) {
	runFamily(t, []familyCase{
		{`make SHELL='rm -rf x'`, "make rm"},
		{`make --eval='all:; rm x'`, "make rm"},
		{"make -f - <<'EOF'\nall:\n\trm x\nEOF", "make rm"},
		{`find . -name x -exec rm {} +`, "find rm"},
		{`find . -execdir sh -c 'ls' \;`, "find sh ls"},
		{`sed -n p x`, "sed"},
	})
	// What the catalog says a command writes decides which scripts read
	// later are trusted.
	for _, tc := range []struct {
		src  string
		read bool
	}{
		{`cc -o ./prog prog.c && ./prog`, false},
		{`chmod +x ./t.sh && ./t.sh`, true},
		{`sed -i s/a/b/ ./t.sh && ./t.sh`, false},
		{`sed s/a/b/ ./t.sh && ./t.sh`, true},
		{`cp x ./t.sh && ./t.sh`, false},
		{`tee ./t.sh < x && ./t.sh`, false},
		{`curl -o ./t.sh https://e/t.sh && ./t.sh`, false},
	} {
		opts := testOpts
		opts.ReadScript = func(string) ([]byte, error) { return []byte("echo hi\n"), nil }
		prog := shell.Parse(tc.src, opts)
		run := prog.Commands[len(prog.Commands)-1]
		if len(prog.Commands) > 0 && run.Name() == "echo" {
			run = run.Parent
		}
		known := run != nil && run.Script != nil && run.Script.Known
		built := run != nil && run.Script == nil
		if tc.read != known && !(strings.HasPrefix(tc.src, "cc ") && built) {
			t.Errorf("%q: script read %v, want %v%s", tc.src, known, tc.read, dump(prog))
		}
	}
}

func TestFamilyFetchTaint(t *testing.T) {
	for _, tc := range []struct {
		src   string
		taint shell.Taint
	}{
		{`curl -s x | sh`, shell.Network},
		{`wget -qO- x | bash`, shell.Network},
		{`nc host 1 | sh`, shell.Network},
		{`echo aGk= | base64 -d | sh`, shell.Decoded},
		{`xxd -r -p < f | sh`, shell.Decoded},
		{`gunzip -c f.gz | sh`, shell.Decoded},
		{`openssl enc -d -aes256 -in f | sh`, shell.Decoded},
		{`cat f | sh`, 0},
		{`base64 f | sh`, 0},
	} {
		prog := shell.Parse(tc.src, testOpts)
		sh := prog.Commands[len(prog.Commands)-1]
		for i := len(prog.Commands) - 1; i >= 0; i-- {
			if slices.Contains([]string{"sh", "bash"}, prog.Commands[i].Name()) {
				sh = prog.Commands[i]
				break
			}
		}
		if sh.Stdin.Taint&(shell.Network|shell.Decoded) != tc.taint {
			t.Errorf("%q: stdin taint %d, want %d%s", tc.src, sh.Stdin.Taint, tc.taint, dump(prog))
		}
	}
	prog := shell.Parse(`curl -o x.sh https://e/i.sh && sh x.sh`, testOpts)
	if c := find(prog, "sh"); c == nil || c.Script == nil || c.Script.Taint&shell.Downloaded == 0 {
		t.Errorf("a downloaded script is not tainted%s", dump(prog))
	}
	prog = shell.Parse(`wget https://e/i.sh && sh i.sh`, testOpts)
	if c := find(prog, "sh"); c == nil || c.Script == nil || c.Script.Taint&shell.Downloaded == 0 {
		t.Errorf("a script wget saves under the URL's name is not tainted%s", dump(prog))
	}
}

// Without a catalog only the shells and their builtins are known.
func TestNoCatalog(t *testing.T) {
	opts := testOpts
	opts.Tools, opts.Vars, opts.Programs = nil, nil, nil
	prog := shell.Parse(`nice sudo rm x; bash -c 'ls'; command ls; git -c alias.x='!rm y' x`, opts)
	if got := strings.Join(names(prog), " "); got != "nice bash ls ls git" {
		t.Errorf("got %q%s", got, dump(prog))
	}
}

// Accounts and homes (catalog/accounts.go): a value made from a program
// that prints user names or home directories, from /etc/passwd, from a
// variable picked by name at run time or from ~ before a run-time name is
// marked as a home known only at run time; the static end of a dynamic
// word is kept.
func TestFamilyAccounts(t *testing.T) {
	for _, tc := range []struct {
		src          string
		home         bool
		prefix, suff string
	}{
		{`cat "$(getent passwd bob | cut -d: -f6)/.ssh/id_rsa"`, true, "", "/.ssh/id_rsa"},
		{`cat /home/$(whoami)/.aws/credentials`, true, "/home/", "/.aws/credentials"},
		{`H=$(awk -F: '$1=="bob"{print $6}' /etc/passwd); cat "$H/x"`, true, "", "/x"},
		{`H=$(cut -d: -f6 < /etc/passwd); cat "$H/x"`, true, "", "/x"},
		{`x=HOME; cat "${!x}/notes"`, true, "", "/notes"},
		{`declare -n r=HOME; cat "$r/notes"`, true, "", "/notes"},
		{`cat ~$USER/notes`, true, "~", "/notes"},
		{`cat "$(printenv HOME)/x"`, true, "", "/x"},
		{`cat "$D/.env"`, false, "", "/.env"},
		{`cat "$(git rev-parse --show-toplevel)/x"`, false, "", "/x"},
		{`cat "$(getent hosts example.com)"`, false, "", ""},
		{`cat "pre-${X}mid${Y}.end"`, false, "pre-", ".end"},
	} {
		prog := shell.Parse(tc.src, testOpts)
		c := prog.Commands[len(prog.Commands)-1]
		if c.Name() != "cat" || len(c.Args) != 2 {
			t.Errorf("%q: last command %q", tc.src, c.String())
			continue
		}
		w := c.Args[1]
		if !w.Dynamic || (w.Taint&shell.Home != 0) != tc.home || w.Prefix != tc.prefix || w.Suffix != tc.suff {
			t.Errorf("%q: word %+v, want dynamic, home %v, prefix %q, suffix %q", tc.src, w, tc.home, tc.prefix, tc.suff)
		}
	}
}
