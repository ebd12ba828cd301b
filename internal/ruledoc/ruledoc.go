// Package ruledoc renders the classifier's rule table for the places that
// show it: the package documentation of risk (a Go comment) and the
// README (a Markdown table). risk's go generate writes both; a test of
// risk compares them with what this package renders.
package ruledoc

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// Row is one rule as the documentation shows it.
type Row struct {
	ID, Tier, Matches string
}

const (
	idWidth   = 20
	tierWidth = 20
	textWidth = 66
)

// Comment renders the table as the lines of a Go doc comment, indented
// so that godoc shows it as preformatted text.
func Comment(rows []Row) string {
	var b strings.Builder
	line := func(id, tier, text string) {
		b.WriteString("//\t")
		if id == "" && tier == "" {
			b.WriteString(strings.Repeat(" ", idWidth+tierWidth))
		} else {
			b.WriteString(pad(id, idWidth))
			b.WriteString(pad(tier, tierWidth))
		}
		b.WriteString(text)
		b.WriteByte('\n')
	}
	line("id", "tier", "what it matches")
	for _, r := range rows {
		for i, l := range wrap(r.Matches, textWidth) {
			if i == 0 {
				line(r.ID, r.Tier, l)
			} else {
				line("", "", l)
			}
		}
	}
	return b.String()
}

// Markdown renders the table as a Markdown table with a header.
func Markdown(rows []Row) string {
	var b strings.Builder
	b.WriteString("| rule | tier | what it matches |\n|---|---|---|\n")
	for _, r := range rows {
		b.WriteString("| `" + r.ID + "` | " + r.Tier + " | " + strings.ReplaceAll(r.Matches, "|", `\|`) + " |\n")
	}
	return b.String()
}

// ReplaceComment puts table in place of the rule table of a Go file's
// doc comment: the block of //<TAB> lines that starts with the header.
func ReplaceComment(src, table string) (string, error) {
	start := strings.Index(src, "//\tid ")
	if start < 0 || (start > 0 && src[start-1] != '\n') {
		return "", errors.New("no rule table (a line starting //<TAB>id) in the doc comment")
	}
	end := start
	for end < len(src) && strings.HasPrefix(src[end:], "//\t") {
		nl := strings.IndexByte(src[end:], '\n')
		if nl < 0 {
			end = len(src)
			break
		}
		end += nl + 1
	}
	return src[:start] + table + src[end:], nil
}

// ReplaceMarkdown puts table in place of the Markdown rule table: the
// lines from its header to the first line that is not a table row.
func ReplaceMarkdown(src, table string) (string, error) {
	start := strings.Index(src, "| rule | tier | what it matches |\n")
	if start < 0 || (start > 0 && src[start-1] != '\n') {
		return "", errors.New("no rule table (a line | rule | tier | what it matches |)")
	}
	end := start
	for end < len(src) && strings.HasPrefix(src[end:], "|") {
		nl := strings.IndexByte(src[end:], '\n')
		if nl < 0 {
			end = len(src)
			break
		}
		end += nl + 1
	}
	return src[:start] + table + src[end:], nil
}

func pad(s string, n int) string {
	if k := utf8.RuneCountInString(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s + " "
}

// wrap breaks text into lines of at most width characters at blanks.
func wrap(text string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
			line += " " + w
		default:
			out = append(out, line)
			line = w
		}
	}
	if line != "" || len(out) == 0 {
		out = append(out, line)
	}
	return out
}
