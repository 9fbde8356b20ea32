package tutorials

import (
	"bufio"
	"embed"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
)

//go:embed [0-9][0-9]-*.md
var lessonFiles embed.FS

// Lesson is one lesson file: its front matter, its Markdown body and the
// cells in it. README.md describes the format.
type Lesson struct {
	File          string // e.g. "01-hello-rank.md"
	Number        int
	Slug          string
	Title         string
	Kernels       []string // kernel files, as "kernels/NN_name.py"
	Prerequisites []int    // step numbers
	Body          string   // the Markdown after the front matter
	Cells         []Cell
}

// Cell is one runnable block of a lesson: a fenced block whose info string
// is "cell ACTION KERNEL [ARGS...]". Its body must be empty: the code a
// cell shows or runs comes from the kernel file, so it cannot drift. The
// one exception is a predict cell, whose body is the answer (Markdown,
// figures allowed), which the page shows only after the learner runs it.
type Cell struct {
	Line   int      // 1-based line of the opening fence in the lesson file
	Action string   // one of CellActions
	Kernel string   // "kernels/NN_name.py"
	Args   []string // the rest of the info string: a second kernel, flags
	Answer string   // a predict cell's body: the answer to its question
}

// CellActions are the things a cell may do with its kernel, each the
// command-line equivalent the browser runs.
var CellActions = map[string]string{
	"show":    "print the kernel's source, or one function of it with --function NAME",
	"run":     "workbench run KERNEL [--entry E] [--ranks P] [--schedule S]: outputs, stats, races, deadlocks",
	"check":   "workbench step N --check KERNEL [--ranks P]: the step's check on the (edited) kernel",
	"ir":      "workbench ir KERNEL [--entry E] [--ranks P] [--after PASS]",
	"compare": "workbench compare KERNEL OTHER [--ranks P]: same inputs, outputs and lowered kernels side by side",
	"bug":     "workbench step N --kernel bug [--ranks P]: the step's classic bug, failing its check as documented",
	"starter": "workbench step N --kernel starter [--ranks P]: the learner's editable kernel, runnable, its gaps marked TODO",
	"predict": "a run cell whose body is the answer to the question the prose asks just before it; the page shows the answer only after the learner runs the cell",
	"sweep":   "workbench sweep KERNEL [--ranks 2,4,8] [--sizes 1K:16M]: every #! sweep: variant over rank counts and sizes, bandwidth plotted on a log axis",
}

// Lessons parses every embedded lesson, in file order.
func Lessons() ([]Lesson, error) {
	names, err := lessonFiles.ReadDir(".")
	if err != nil {
		return nil, err
	}
	var out []Lesson
	for _, d := range names {
		src, err := lessonFiles.ReadFile(d.Name())
		if err != nil {
			return nil, err
		}
		l, err := ParseLesson(d.Name(), src)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out, nil
}

// ParseLesson reads a lesson: front matter between two "---" lines (one
// "key: value" per line, lists as "[a, b]"), then Markdown. Unknown keys
// are errors, so a typo cannot hide a field.
func ParseLesson(file string, src []byte) (Lesson, error) {
	l := Lesson{File: path.Base(file)}
	text := string(src)
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return l, fmt.Errorf("%s:1: want front matter opening with ---", file)
	}
	front, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		return l, fmt.Errorf("%s: front matter has no closing ---", file)
	}
	l.Body = body
	for i, line := range strings.Split(front, "\n") {
		at := fmt.Sprintf("%s:%d", file, i+2)
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return l, fmt.Errorf("%s: got %q, want key: value", at, line)
		}
		val = strings.TrimSpace(val)
		var err error
		switch strings.TrimSpace(key) {
		case "number":
			l.Number, err = strconv.Atoi(val)
		case "slug":
			l.Slug = val
		case "title":
			l.Title = val
		case "ranks", "default_ranks":
			// One source: a step's rank counts are its kernels' `#!
			// ranks:` lines (check.Step.Ranks, DefaultRanks).
			err = fmt.Errorf("%s is not a front matter key: the step's rank counts come from its kernels' #! ranks: lines", strings.TrimSpace(key))
		case "kernels":
			l.Kernels, err = list(val)
		case "prerequisites":
			l.Prerequisites, err = intList(val)
		default:
			err = fmt.Errorf("unknown key %q", strings.TrimSpace(key))
		}
		if err != nil {
			return l, fmt.Errorf("%s: %v", at, err)
		}
	}
	cells, err := parseCells(file, body, strings.Count(front, "\n")+4)
	l.Cells = cells
	return l, err
}

// parseCells finds the cell fences of body, whose first line is line first
// of the file.
func parseCells(file, body string, first int) ([]Cell, error) {
	var cells []Cell
	sc := bufio.NewScanner(strings.NewReader(body))
	line := first - 1
	var open *Cell
	for sc.Scan() {
		line++
		t := sc.Text()
		if open != nil {
			if strings.TrimSpace(t) == "```" {
				if open.Action == "predict" && strings.TrimSpace(open.Answer) == "" {
					return cells, fmt.Errorf("%s:%d: a predict cell's body is its answer, and it is empty", file, open.Line)
				}
				cells = append(cells, *open)
				open = nil
				continue
			}
			if open.Action == "predict" {
				open.Answer += t + "\n"
				continue
			}
			return cells, fmt.Errorf("%s:%d: a cell's body must be empty; its code comes from %s", file, line, open.Kernel)
		}
		info, ok := strings.CutPrefix(t, "```cell")
		if !ok {
			continue
		}
		f := strings.Fields(info)
		if len(f) < 2 {
			return cells, fmt.Errorf("%s:%d: got %q, want ```cell ACTION kernels/FILE.py [ARGS]", file, line, t)
		}
		if _, known := CellActions[f[0]]; !known {
			return cells, fmt.Errorf("%s:%d: cell action %q unknown", file, line, f[0])
		}
		open = &Cell{Line: line, Action: f[0], Kernel: f[1], Args: f[2:]}
	}
	if open != nil {
		return cells, fmt.Errorf("%s:%d: cell never closed", file, open.Line)
	}
	return cells, nil
}

func list(val string) ([]string, error) {
	inner, ok := strings.CutPrefix(val, "[")
	inner, ok2 := strings.CutSuffix(inner, "]")
	if !ok || !ok2 {
		return nil, fmt.Errorf("got %q, want a list [a, b]", val)
	}
	var out []string
	for _, f := range strings.Split(inner, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out, nil
}

func intList(val string) ([]int, error) {
	items, err := list(val)
	var out []int
	for _, s := range items {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("got %q in %s, want integers", s, val)
		}
		out = append(out, n)
	}
	return out, err
}
