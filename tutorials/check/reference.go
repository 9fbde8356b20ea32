package check

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	echeck "pldworkbench/engine/check"
	"pldworkbench/engine/platform"
	"pldworkbench/kernels"
)

// ReferenceCard writes the lessons' op reference (tutorials/reference.md)
// from the checker's operation table and the kernels that use each op, so
// a signature on the card is the one the checker enforces.
func ReferenceCard() string {
	var b strings.Builder
	b.WriteString("<!-- Generated from the checker's operation table: go test ./tutorials/check -run TestReferenceCard -update. Do not edit. -->\n\n")
	b.WriteString("# The pl and pld operations\n\n")
	b.WriteString("Every operation the workbench checks, runs and lowers, as its checker\n" +
		"reads it: the parameters in order (positional first; the ones after `*`\n" +
		"are keyword-only), what each accepts, which level of the program may\n" +
		"call it (host, orchestration or InCore: [step 02](02-three-levels.md)),\n" +
		"what it returns, and the steps whose kernels use it. Words are in\n" +
		"[the glossary](glossary.md).\n\n")
	used := opUse()
	slugs := map[int]string{}
	for _, sum := range Summaries() {
		slugs[sum.Number] = sum.Slug
	}
	for _, s := range echeck.Signatures() {
		fmt.Fprintf(&b, "## %s\n\n", s.Name)
		fmt.Fprintf(&b, "`%s`\n\n", signatureLine(s))
		if len(s.Aliases) > 0 {
			fmt.Fprintf(&b, "Also spelled `%s`.\n\n", strings.Join(s.Aliases, "`, `"))
		}
		if len(s.Params) > 0 {
			b.WriteString("| parameter | accepts | passed |\n|---|---|---|\n")
			for _, p := range s.Params {
				how := "positional or by name"
				if p.Keyword {
					how = "by name only"
				}
				switch {
				case p.Required:
					how += ", required"
				case p.Default != "":
					how += ", default `" + p.Default + "`"
				default:
					how += ", optional"
				}
				fmt.Fprintf(&b, "| `%s` | %s | %s |\n", p.Name, p.Accepts, how)
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Where: %s. Returns: %s.", s.Levels, s.Returns)
		if steps := used[s.Name]; len(steps) > 0 {
			var links []string
			for _, n := range steps {
				links = append(links, fmt.Sprintf("[%02d](%02d-%s.md)", n, n, slugs[n]))
			}
			fmt.Fprintf(&b, " Used in step %s.", strings.Join(links, ", "))
		} else {
			b.WriteString(" No lesson kernel uses it.")
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

func signatureLine(s echeck.OpSignature) string {
	var parts []string
	star := false
	for _, p := range s.Params {
		if p.Keyword && !star {
			parts = append(parts, "*")
			star = true
		}
		switch {
		case p.Required:
			parts = append(parts, p.Name)
		case p.Default != "":
			parts = append(parts, p.Name+"="+p.Default)
		default:
			parts = append(parts, p.Name+"=None")
		}
	}
	return s.Name + "(" + strings.Join(parts, ", ") + ")"
}

var opCall = regexp.MustCompile(`\b(pld?(?:\.[a-z_]+)+)\s*\(`)

// opUse maps each canonical op name to the steps whose shipped kernels
// (not starters or bugs) call it, under any of its spellings.
func opUse() map[string][]int {
	canon := map[string]string{}
	for _, s := range echeck.Signatures() {
		canon[s.Name] = s.Name
		for _, a := range s.Aliases {
			canon[a] = s.Name
		}
	}
	seen := map[string]map[int]bool{}
	for _, k := range kernels.All() {
		if k.Starter != "" || k.Bug != "" {
			continue
		}
		for _, m := range opCall.FindAllStringSubmatch(string(k.Source), -1) {
			if c, ok := canon[m[1]]; ok {
				if seen[c] == nil {
					seen[c] = map[int]bool{}
				}
				seen[c][k.Step()] = true
			}
		}
	}
	out := map[string][]int{}
	for c, steps := range seen {
		for n := range steps {
			out[c] = append(out[c], n)
		}
		sort.Ints(out[c])
	}
	return out
}

// CostTable writes the cost model's constants per platform, from the
// platform table (engine/platform), for the introduction
// (tutorials/intro.md).
func CostTable() string {
	ps := platform.All()
	var b strings.Builder
	b.WriteString("| constant | what it prices |")
	for _, p := range ps {
		b.WriteString(" " + p.Name + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(ps)) + "\n")
	rows := []struct {
		name, what string
		v          func(platform.Platform) float64
		unit       string
	}{
		{"clock", "one scalar statement or call: one cycle", func(p platform.Platform) float64 { return p.ClockGHz }, "GHz"},
		{"issue", "the fixed cost of a tile op, a DMA or a signal access", func(p platform.Platform) float64 { return p.IssueNs }, "ns"},
		{"HBM", "local moves (pl.load, pl.store, RMA to yourself)", func(p platform.Platform) float64 { return p.HBMGBs }, "GB/s"},
		{"vector", "element-wise compute, per result byte", func(p platform.Platform) float64 { return p.VectorGBs }, "GB/s"},
		{"stream", "what one core moves over a peer link alone", func(p platform.Platform) float64 { return p.StreamGBs }, "GB/s"},
		{"link", "one link, one direction, shared by its streams", func(p platform.Platform) float64 { return p.LinkGBs }, "GB/s"},
		{"chip", "one chip's links together, one direction", func(p platform.Platform) float64 { return p.ChipGBs }, "GB/s"},
		{"latency", "one way, a remote transfer or a notify", func(p platform.Platform) float64 { return p.LatencyNs }, "ns"},
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s |", r.name, r.what)
		for _, p := range ps {
			fmt.Fprintf(&b, " %s %s |", strconv.FormatFloat(r.v(p), 'g', 4, 64), r.unit)
		}
		b.WriteString("\n")
	}
	return b.String()
}
