package syntax

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pldworkbench/engine/diag"
)

// fuzzSeeds returns the seed programs: this package's testdata and, when
// they exist, the engine's test programs and the kernels of every step.
func fuzzSeeds(t testing.TB) []string {
	var files []string
	for _, pattern := range []string{
		filepath.Join("testdata", "*.py"),
		filepath.Join("..", "testdata", "programs", "*.py"),
		filepath.Join("..", "testdata", "errors", "*.py"),
		filepath.Join("..", "testdata", "heads", "*.py"),
		filepath.Join("..", "check", "testdata", "errors", "*.py"),
		filepath.Join("..", "check", "testdata", "ok", "*.py"),
	} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	kernels := filepath.Join("..", "..", "kernels")
	if _, err := os.Stat(kernels); err == nil {
		_ = filepath.WalkDir(kernels, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".py") {
				files = append(files, path)
			}
			return nil
		})
	}
	return files
}

// FuzzParse checks that ParseFile never panics or hangs, that it reports at
// most one error, and that every diagnostic position and every node span lies
// inside the source with lines and columns that agree with the offsets.
func FuzzParse(f *testing.F) {
	for _, name := range fuzzSeeds(f) {
		src, err := os.ReadFile(name)
		if err == nil {
			f.Add(src)
		}
	}
	for _, c := range errorCases {
		f.Add([]byte(c.src))
	}
	for _, c := range statementCases {
		f.Add([]byte(c.src))
	}
	for _, c := range scanCases {
		f.Add([]byte(c.src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		type result struct {
			file *File
			errs diag.List
		}
		done := make(chan result, 1)
		go func() {
			file, errs := ParseFile("fuzz.py", src)
			done <- result{file, errs}
		}()
		var file *File
		var errs diag.List
		select {
		case r := <-done:
			file, errs = r.file, r.errs
		case <-time.After(5 * time.Second):
			t.Fatalf("ParseFile did not finish in 5s on %q", src)
		}
		if len(errs) > 1 {
			t.Fatalf("got %d errors, want at most 1: %v", len(errs), errs)
		}
		lines := newLineIndex(src)
		for _, d := range errs {
			for _, p := range []Pos{d.Span.Start, d.Span.End} {
				if msg := lines.check(p); msg != "" {
					t.Fatalf("diagnostic %q: %s", d.Msg, msg)
				}
			}
			if d.Code == "" || d.Hint == "" {
				t.Fatalf("diagnostic %q has no code or hint", d.Msg)
			}
		}
		if file == nil {
			t.Fatal("ParseFile returned no file")
		}
		// A partial tree from a failed parse holds only whole statements, so
		// its nodes must sit on their tokens too.
		for _, problem := range spanProblems(file, src, true) {
			t.Fatal(problem)
		}
		_ = Dump(file)
	})
}
