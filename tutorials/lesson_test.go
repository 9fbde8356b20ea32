package tutorials_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/limits"
	"pldworkbench/kernels"
	"pldworkbench/tutorials"
	"pldworkbench/tutorials/check"
)

// TestLessons is the Go tour's TestContent for the lessons: every cell
// names a real kernel and does something that works.
func TestLessons(t *testing.T) {
	lessons, err := tutorials.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	if len(lessons) == 0 {
		t.Fatal("no lessons embedded")
	}
	for _, l := range lessons {
		t.Run(l.File, func(t *testing.T) { testLesson(t, l) })
	}
}

func testLesson(t *testing.T, l tutorials.Lesson) {
	if l.Number < 1 || l.Number > len(tutorials.Syllabus) {
		t.Fatalf("number %d out of range", l.Number)
	}
	s := tutorials.Syllabus[l.Number-1]
	if want := fmt.Sprintf("%02d-%s.md", s.Number, s.Slug); l.File != want || l.Slug != s.Slug || l.Title != s.Title {
		t.Errorf("file %s, slug %q, title %q; the syllabus says %s, %q", l.File, l.Slug, l.Title, want, s.Title)
	}
	for _, p := range l.Prerequisites {
		if p < 1 || p >= l.Number {
			t.Errorf("prerequisite %d is not an earlier step", p)
		}
	}
	if strings.Contains(l.Body, "```py") {
		t.Error("a pasted code block: lessons show code only through cells")
	}
	if len(l.Cells) == 0 {
		t.Error("no cells")
	}
	used := map[string]bool{}
	for _, c := range l.Cells {
		used[c.Kernel] = true
		t.Run(fmt.Sprintf("line%d_%s", c.Line, c.Action), func(t *testing.T) { testCell(t, l, c) })
	}
	for _, k := range l.Kernels {
		if !used[k] {
			t.Errorf("front matter lists %s, which no cell uses", k)
		}
	}
	links := regexp.MustCompile(`\]\(([^)#:]+)(#[^)]*)?\)`)
	for _, m := range links.FindAllStringSubmatch(l.Body, -1) {
		if _, err := os.Stat(filepath.Join(".", m[1])); err != nil {
			t.Errorf("link %s does not resolve: %v", m[1], err)
		}
	}
}

func testCell(t *testing.T, l tutorials.Lesson, c tutorials.Cell) {
	k := kernelOf(t, l, c.Kernel)
	flags := map[string]string{}
	var rest []string
	for i := 0; i < len(c.Args); i++ {
		if name, ok := strings.CutPrefix(c.Args[i], "--"); ok && i+1 < len(c.Args) {
			flags[name] = c.Args[i+1]
			i++
			continue
		}
		rest = append(rest, c.Args[i])
	}
	step, _ := check.StepOf(l.Number)
	ranks := step.DefaultRanks()
	if v, ok := flags["ranks"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || !k.Supports(n) {
			t.Fatalf("--ranks %s: %s runs at %v", v, k.File, k.Ranks)
		}
		ranks = n
	}
	entry := flags["entry"]
	if entry == "" {
		entry = k.EntriesAt(ranks)[0]
	}
	ctx := context.Background()
	switch c.Action {
	case "show":
		if fn, ok := flags["function"]; ok && !strings.Contains(string(k.Source), "def "+fn+"(") {
			t.Errorf("%s has no function %s", k.File, fn)
		}
	case "run":
		res := engine.Load(ctx, k.File, k.Source, engine.Options{}).Run(ctx, engine.RunOptions{Options: engine.Options{Entry: entry, Ranks: ranks}, Schedule: flags["schedule"]})
		if res.Status != emu.StatusOK {
			t.Errorf("%s at %d ranks: %s", k.File, ranks, res.Status)
		}
	case "predict":
		// A predict cell may run a bug on purpose; it must run, and its
		// answer must not be empty (ParseLesson refuses that).
		res := engine.Load(ctx, k.File, k.Source, engine.Options{}).Run(ctx, engine.RunOptions{Options: engine.Options{Entry: entry, Ranks: ranks}, Schedule: flags["schedule"]})
		if res.Status == emu.StatusCompileError {
			t.Errorf("%s at %d ranks does not compile", k.File, ranks)
		}
	case "check":
		var only []int
		if _, ok := flags["ranks"]; ok {
			only = []int{ranks}
		}
		step, _ := check.StepOf(l.Number)
		if kr := check.CheckFile(ctx, limits.Budget{}, step, k.File, k.Source, only); !kr.OK || kr.Err != "" {
			t.Errorf("the step's check fails on %s: %+v", k.File, kr)
		}
	case "ir":
		if res := engine.Load(context.Background(), k.File, k.Source, engine.Options{}).Check(context.Background(), engine.Options{Entry: entry, Ranks: ranks}); res.Diags.HasErrors() {
			t.Errorf("%s does not check: %v", k.File, res.Diags)
		}
	case "compare":
		if len(rest) != 1 {
			t.Fatalf("compare wants one more kernel file, got %v", rest)
		}
		kernelOf(t, l, rest[0])
	case "bug":
		if !k.IsBug() {
			t.Errorf("%s is not a bug variant", k.File)
		}
	case "starter":
		if !k.IsStarter() {
			t.Errorf("%s is not a starter", k.File)
		}
	}
}

// kernelOf resolves "kernels/NN_name.py" to an embedded kernel of the
// lesson's own step or an earlier one, listed in the front matter.
func kernelOf(t *testing.T, l tutorials.Lesson, file string) kernels.Kernel {
	t.Helper()
	name, ok := strings.CutPrefix(file, "kernels/")
	k, found := kernels.Get(name)
	if !ok || !found {
		t.Fatalf("cell names %q, want kernels/NN_name.py of an existing kernel", file)
	}
	if !slices.Contains(l.Kernels, file) {
		t.Errorf("cell names %s, which the front matter does not list", file)
	}
	if n, _ := strconv.Atoi(k.Name[:2]); n > l.Number {
		t.Errorf("cell names %s, a kernel of a later step", file)
	}
	if _, err := os.Stat(filepath.Join("..", file)); err != nil {
		t.Errorf("%s: %v", file, err)
	}
	return k
}

// TestParseLesson covers the format's errors.
func TestParseLesson(t *testing.T) {
	good := "---\nnumber: 1\nslug: s\ntitle: T\nkernels: [kernels/01_hello_rank.py]\nprerequisites: []\n---\n\ntext\n\n```cell run kernels/01_hello_rank.py --ranks 4\n```\n"
	l, err := tutorials.ParseLesson("01-s.md", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if l.Number != 1 || len(l.Cells) != 1 || l.Cells[0].Line != 11 ||
		l.Cells[0].Action != "run" || !slices.Equal(l.Cells[0].Args, []string{"--ranks", "4"}) {
		t.Errorf("ParseLesson = %+v", l)
	}
	for _, bad := range []struct{ src, msg string }{
		{"# no front matter\n", "want front matter"},
		{"---\nnumber: 1\n", "no closing ---"},
		{"---\ncolour: red\n---\n", `unknown key "colour"`},
		{"---\nprerequisites: 2 4\n---\n", "want a list"},
		{"---\nranks: [2, 4]\n---\n", "come from its kernels' #! ranks: lines"},
		{"---\nnumber: 1\n---\n```cell run kernels/01_hello_rank.py\nx = 1\n```\n", "a cell's body must be empty"},
		{"---\nnumber: 1\n---\n```cell paint kernels/01_hello_rank.py\n```\n", `cell action "paint" unknown`},
		{"---\nnumber: 1\n---\n```cell run kernels/01_hello_rank.py\n", "never closed"},
	} {
		if _, err := tutorials.ParseLesson("x.md", []byte(bad.src)); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("ParseLesson(%q) error = %v, want %q", bad.src, err, bad.msg)
		}
	}
}
