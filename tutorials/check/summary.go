package check

import "pldworkbench/tutorials"

// Summary is one step of the ladder as `workbench steps --json` and
// GET /api/steps list it: the syllabus row joined with the step's check.
type Summary struct {
	Number       int       `json:"number"`
	Slug         string    `json:"slug"`
	Title        string    `json:"title"`
	Teaches      string    `json:"teaches"`
	Reveals      string    `json:"reveals,omitempty"`
	Ranks        []int     `json:"ranks"`
	DefaultRanks int       `json:"default_ranks"`
	Variants     []Variant `json:"variants"`
}

// Summaries returns every step's summary, in syllabus order.
func Summaries() []Summary {
	out := make([]Summary, 0, len(tutorials.Syllabus))
	for _, s := range tutorials.Syllabus {
		c, _ := StepOf(s.Number)
		sum := Summary{Number: s.Number, Slug: s.Slug, Title: s.Title, Teaches: s.Teaches, Reveals: s.Reveals,
			Ranks: c.Ranks(), DefaultRanks: c.DefaultRanks(), Variants: c.Variants()}
		if sum.Ranks == nil {
			sum.Ranks = []int{}
		}
		out = append(out, sum)
	}
	return out
}
