// Package header reads the `#!` header lines of a DSL program: the lines
// through which a kernel, a test program or a sweep says what it needs to
// be run (its entries, rank counts, goldens, sweep variants), since the
// engine never executes a program's Python harness. engine/testdata/README.md
// describes the format:
//
//	#! entry: build_ring_allreduce({P}).ring_allreduce
//	#! ranks: 2 4 8
//	#! sweep: mesh build_allreduce({P}, {SIZE}, "mesh").run
//
// A header line is a comment starting with "#!" (at any indentation) of the
// form "key: value". This package only splits the lines; what a key means,
// and which keys are errors, is the reader's business (package kernels for
// the kernels' keys, the sweep for sweep and sweep-op). It imports nothing,
// so every layer can share the one parser.
package header

import "strings"

// Line is one `#!` line of a source.
type Line struct {
	Line  int    // 1-based line number in the source
	Key   string // the text before the first colon, trimmed
	Value string // the text after it, trimmed
}

// Parse returns the `#!` lines of src in source order. A `#!` line without
// a colon is not a header line (a shebang, say) and is skipped.
func Parse(src []byte) []Line {
	var out []Line
	s := string(src)
	for n := 1; len(s) > 0; n++ {
		line, rest, _ := strings.Cut(s, "\n")
		s = rest
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "#!") {
			continue
		}
		key, val, ok := strings.Cut(line[2:], ":")
		if !ok {
			continue
		}
		out = append(out, Line{Line: n, Key: strings.TrimSpace(key), Value: strings.TrimSpace(val)})
	}
	return out
}
