package ir

import (
	"bytes"
	"strings"
)

// A txtar archive (the format of golang.org/x/tools/txtar, hand-rolled so
// the module needs no dependency): an optional comment, then files, each
// introduced by a line "-- name --".

type archiveFile struct {
	Name string
	Data string
}

type archive struct {
	Comment string
	Files   []archiveFile
}

func parseArchive(data []byte) *archive {
	a := &archive{}
	var cur *archiveFile
	var buf bytes.Buffer
	flush := func() {
		if cur == nil {
			a.Comment = buf.String()
		} else {
			cur.Data = buf.String()
			a.Files = append(a.Files, *cur)
		}
		buf.Reset()
	}
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if line == "" {
			continue
		}
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			flush()
			cur = &archiveFile{Name: strings.TrimSpace(trimmed[3 : len(trimmed)-3])}
			continue
		}
		buf.WriteString(line)
	}
	flush()
	return a
}

func formatArchive(a *archive) []byte {
	var b bytes.Buffer
	b.WriteString(a.Comment)
	for _, f := range a.Files {
		b.WriteString("-- " + f.Name + " --\n")
		b.WriteString(f.Data)
		if f.Data != "" && !strings.HasSuffix(f.Data, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func (a *archive) file(name string) (string, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return "", false
}
