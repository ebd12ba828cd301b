package risk

import (
	"testing"

	"github.com/safeexec/safeexec/shell"
)

// The credential gate follows the directory a Windows script changes to
// (cd, cd /d, pushd/popd, Set-Location …) and the variables it sets, in
// every shell: a relative read from there is the credential it names.
func TestWindowsDirectoriesAndVariables(t *testing.T) {
	home := `C:\Users\dev`
	for _, tc := range []struct {
		dialect shell.Dialect
		script  string
		risky   bool
	}{
		{shell.Sh, `cd ~ && cat .aws/credentials`, true},
		{shell.Sh, `cd /c/Users/dev && cat .aws/credentials`, true},
		{shell.Sh, `cd /C/USERS/DEV/.SSH; cat id_rsa`, true},
		{shell.Sh, `cd $USERPROFILE && cat .aws/credentials`, true},
		{shell.Sh, `cd "$USERPROFILE\.ssh" && cat id_rsa`, true},
		{shell.Sh, `cd ~ && cat proj/README.md`, false},
		{shell.Cmd, `cd /d %USERPROFILE% && type .aws\credentials`, true},
		{shell.Cmd, `cd /d C:\Users\dev && type .aws\credentials`, true},
		{shell.Cmd, `cd /D %userprofile%\.aws & type credentials`, true},
		{shell.Cmd, `cd \Users\dev && type .ssh\id_rsa`, true},
		{shell.Cmd, `cd .. && type .ssh\id_rsa`, true},
		{shell.Cmd, `chdir %HOMEDRIVE%%HOMEPATH% && type .ssh\id_rsa`, true}, // unknown directory: judged by the known end, as in sh
		{shell.Cmd, `pushd %USERPROFILE% & type .aws\credentials`, true},
		{shell.Cmd, `pushd %USERPROFILE% & popd & type .aws\credentials`, false},
		{shell.Cmd, `pushd %USERPROFILE% & popd & type ..\.aws\credentials`, true},
		{shell.Cmd, `set X=%USERPROFILE%\.ssh& type %X%\id_rsa`, true},
		{shell.Cmd, `set X=%USERPROFILE%\.ssh & type "%X%\id_rsa"`, true},
		{shell.Cmd, `set "K=%USERPROFILE%\.aws\credentials" && copy "%K%" out.txt`, true},
		{shell.Cmd, "set D=C:\\Users\\dev\r\ncd /d %D%\r\ntype .ssh\\id_rsa", true},
		{shell.Cmd, `set x=%APPDATA%\gcloud& call type %X%\credentials.db`, true},
		{shell.Cmd, `set X=%USERPROFILE%\.ssh& cmd /v:on /c type !X!\id_rsa`, true},
		{shell.Cmd, `set "C=type %USERPROFILE%\.ssh\id_rsa" & %C%`, true},
		{shell.Cmd, `set X=notes& type %X%.txt`, false},
		{shell.Cmd, `set /p X=path? & type %X%`, false},
		{shell.PowerShell, `Set-Location $env:USERPROFILE; Get-Content .aws\credentials`, true},
		{shell.PowerShell, `cd ~; gc .ssh\id_rsa`, true},
		{shell.PowerShell, `sl $HOME; cat .ssh/id_rsa`, true},
		{shell.PowerShell, `chdir C:\Users\dev\.ssh; type id_rsa`, true},
		{shell.PowerShell, `Set-Location -Path "$env:USERPROFILE\.aws"; Get-Content credentials`, true},
		{shell.PowerShell, `Set-Location -LiteralPath C:\Users\DEV; Get-Content .SSH\id_rsa`, true},
		{shell.PowerShell, `pushd $env:USERPROFILE; type .aws\credentials`, true},
		{shell.PowerShell, `Push-Location ~; Pop-Location; type .aws\credentials`, false},
		{shell.PowerShell, `cd ..; Get-Content .ssh\id_rsa`, true},
		{shell.PowerShell, `cd \Users\dev; Get-Content .ssh\id_rsa`, true},
		{shell.PowerShell, `cd ~; Get-Content proj\README.md`, false},
		{shell.PowerShell, `[IO.File]::ReadAllText("$env:USERPROFILE\.ssh\id_rsa")`, true},
		{shell.PowerShell, `[System.IO.File]::ReadAllBytes("$HOME\.aws\credentials")`, true},
		{shell.PowerShell, `$b = [System.IO.File]::ReadAllBytes($env:USERPROFILE + '\.aws\credentials')`, true},
		{shell.PowerShell, `[IO.File]::ReadAllText([Environment]::GetFolderPath('UserProfile') + '\.ssh\id_rsa')`, true},
		{shell.PowerShell, `[IO.File]::ReadAllLines([IO.Path]::Combine($HOME, '.ssh', 'id_rsa'))`, true},
		{shell.PowerShell, `Get-Content "$([Environment]::GetFolderPath('UserProfile'))\.aws\credentials"`, true},
		{shell.PowerShell, `gc ([Environment]::GetFolderPath([Environment+SpecialFolder]::UserProfile) + '\.ssh\id_rsa')`, true},
		{shell.PowerShell, `gc "$([Environment]::GetFolderPath('ApplicationData'))\gcloud\credentials.db"`, true},
		{shell.PowerShell, `Get-Content ([Environment]::GetEnvironmentVariable('USERPROFILE') + '\.ssh\id_rsa')`, true},
		{shell.PowerShell, `Get-Content (Join-Path $HOME .ssh\id_rsa)`, true},
		{shell.PowerShell, `$p = [Environment]::GetFolderPath('UserProfile'); Get-Content "$p\.aws\credentials"`, true},
		{shell.PowerShell, `$d = $env:USERPROFILE + '\.ssh'; Set-Location $d; gc id_rsa`, true},
		{shell.PowerShell, `Get-Content (Get-PSReadLineOption).HistorySavePath`, true},
		{shell.PowerShell, `$h = (Get-PSReadLineOption).HistorySavePath; Select-String password $h`, true},
		{shell.PowerShell, `[IO.File]::ReadAllText("$env:USERPROFILE\proj\notes.txt")`, false},
		{shell.PowerShell, `Get-Content "$([Environment]::GetFolderPath('UserProfile'))\proj\a.txt"`, false},
	} {
		c := &Context{Platform: "windows", Home: home, Cwd: home + `\proj`, WritableRoots: []string{home + `\proj`},
			SensitivePaths: []string{home + `\.ssh`, home + `\.aws`, home + `\AppData\Roaming\gcloud`,
				home + `\AppData\Roaming\Microsoft\Windows\PowerShell\PSReadLine`}, Sandboxed: true, Dialect: tc.dialect,
			Env: map[string]string{"USERPROFILE": home, "APPDATA": home + `\AppData\Roaming`, "HOME": home}}
		v := ClassifyScript(tc.script, c)
		if got := v.Tier == Risky && hasRule(v, ruleCredentialPath); got != tc.risky {
			t.Errorf("%v %q: %v %+v, want credential-path %v", tc.dialect, tc.script, v.Tier, v.Reasons, tc.risky)
		}
	}
}
