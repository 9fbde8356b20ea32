package check_test

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"pldworkbench/kernels"
	"pldworkbench/tutorials"
	"pldworkbench/tutorials/check"
)

var (
	codeToken = regexp.MustCompile(`[A-Za-z_]\w*|\d+`)
	htmlTag   = regexp.MustCompile(`<[^>]*>`)
	docstring = regexp.MustCompile(`(?s)""".*?"""`)
	// noise are tokens that say nothing about which code a text dictates.
	noise = map[string]bool{"for": true, "in": true, "if": true, "not": true, "and": true, "or": true,
		"else": true, "return": true, "def": true, "pl": true, "pld": true, "range": true, "with": true}
)

func tokens(s string) []string {
	var out []string
	for _, t := range codeToken.FindAllString(s, -1) {
		if !noise[t] {
			out = append(out, t)
		}
	}
	return out
}

// covered is the share of line's tokens that text contains.
func covered(line string, text map[string]bool) float64 {
	ts := tokens(line)
	if len(ts) == 0 {
		return 0
	}
	n := 0
	for _, t := range ts {
		if text[t] {
			n++
		}
	}
	return float64(n) / float64(len(ts))
}

func tokenSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, t := range tokens(s) {
		m[t] = true
	}
	return m
}

// missingLines are the solution's code lines the starter does not have:
// the code the learner is asked to write.
func missingLines(solution, starter string) []string {
	solution, starter = docstring.ReplaceAllString(solution, ""), docstring.ReplaceAllString(starter, "")
	have := map[string]int{}
	for _, l := range strings.Split(starter, "\n") {
		have[strings.TrimSpace(l)]++
	}
	var out []string
	for _, l := range strings.Split(solution, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") || len(tokens(t)) < 4 {
			continue
		}
		if have[t] > 0 {
			have[t]--
			continue
		}
		out = append(out, t)
	}
	return out
}

// todoRegions returns the comment text of each TODO(you) region of a
// starter, keyed by its first line.
func todoRegions(src string) map[int]string {
	out := map[int]string{}
	start := 0
	var b strings.Builder
	for i, l := range strings.Split(src, "\n") {
		t := strings.TrimSpace(l)
		if strings.Contains(t, "TODO(you)") && strings.HasPrefix(t, "#") {
			if start != 0 { // a second TODO in one block: keep the first
				out[start] = b.String()
			}
			start = i + 1
			b.Reset()
		}
		if start == 0 {
			continue
		}
		if !strings.HasPrefix(t, "#") || strings.Contains(t, "end of TODO") {
			out[start] = b.String()
			start = 0
			continue
		}
		b.WriteString(t + "\n")
	}
	return out
}

// dictated lists the starters whose TODOs still spell out the code; each
// is a step still to be rewritten as a goal (issue 14). The list only
// shrinks: a listed starter whose TODOs no longer dictate is an error.
var dictated = map[string]bool{}

// TestStartersAskForGoals compares each starter's TODO regions with the
// code its step's solution has and the starter lacks: a TODO comment that
// holds most of a solution line's tokens dictates the code, and fails.
func TestStartersAskForGoals(t *testing.T) {
	for _, s := range check.Steps() {
		ref, ok := s.Reference()
		if !ok {
			continue
		}
		for _, name := range s.Starter {
			k, _ := kernels.Get(name)
			missing := missingLines(string(ref.Source), string(k.Source))
			bad := 0
			for line, text := range todoRegions(string(k.Source)) {
				set := tokenSet(text)
				for _, m := range missing {
					if covered(m, set) >= 0.6 {
						bad++
						if !dictated[name] {
							t.Errorf("%s: the TODO at line %d dictates the solution's line %q; state the goal, put the code in the hints", name, line, m)
						}
					}
				}
			}
			if dictated[name] && bad == 0 {
				t.Errorf("%s no longer dictates its solution: remove it from the dictated list", name)
			}
		}
	}
}

// lastHintSolves lists the steps whose last hint does not yet give the
// whole solution, each with its reason. The list only shrinks.
var lastHintSolves = map[int]string{}

// TestHintLadders: every step that has a starter has hints, and its last
// hint holds the code the starter asks for (most of each missing line's
// tokens), so the ladder ends with the answer.
func TestHintLadders(t *testing.T) {
	ls, err := tutorials.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		s, _ := check.StepOf(l.Number)
		ref, ok := s.Reference()
		if !ok || len(s.Starter) == 0 {
			continue
		}
		hints, err := l.Hints()
		if err != nil {
			t.Fatal(err)
		}
		if len(hints) < 2 {
			t.Errorf("%s: %d hints; a ladder has at least two rungs", l.File, len(hints))
			continue
		}
		last := tokenSet(html.UnescapeString(htmlTag.ReplaceAllString(hints[len(hints)-1], " ")))
		k, _ := kernels.Get(s.Starter[0])
		var short []string
		for _, m := range missingLines(string(ref.Source), string(k.Source)) {
			if covered(m, last) < 0.7 {
				short = append(short, m)
			}
		}
		_, listed := lastHintSolves[l.Number]
		switch {
		case len(short) > 0 && !listed:
			t.Errorf("%s: the last hint does not give %d of the lines the starter asks for, e.g. %q", l.File, len(short), short[0])
		case len(short) == 0 && listed:
			t.Errorf("%s: the last hint now solves the step: remove it from lastHintSolves", l.File)
		}
	}
}
