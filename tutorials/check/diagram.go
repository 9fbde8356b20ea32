package check

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/trace"
)

// A diagram is the lesson's picture of an algorithm, drawn from the
// emulator's own trace of the step's kernel (so it cannot drift from what
// the kernel does): one panel per round, the ranks on a circle, an arrow
// per pair of ranks that moved data in that round (solid, with the bytes)
// or only signalled (dashed). A rank's rounds are cut at its waits: the
// operations before its first wait are round 1, those between its first
// and its second group of waits round 2, and so on, which is where a
// barrier or a handshake separates one step of the algorithm from the
// next.

// move is one arrow of a round: data or a signal from one rank to another.
type move struct {
	from, to int
	bytes    int64
	data     bool
}

// rounds groups a run's transfers and notifies by round.
func rounds(events []trace.Event) [][]move {
	round := map[int]int{}   // rank → current round
	inWait := map[int]bool{} // rank → the last op was a wait
	type key struct{ r, from, to int }
	acc := map[key]*move{}
	var keys []key
	maxRound := -1
	for _, e := range events {
		if e.Rank < 0 {
			continue
		}
		kind := ir.KindOf(e.Op)
		if kind == ir.OpWait {
			inWait[e.Rank] = true
			continue
		}
		if inWait[e.Rank] {
			round[e.Rank]++
			inWait[e.Rank] = false
		}
		if e.Peer == nil || *e.Peer == e.Rank {
			continue
		}
		var from, to int
		data := true
		switch kind {
		case ir.OpRemoteLoad, ir.OpGet:
			from, to = *e.Peer, e.Rank
		case ir.OpRemoteStore, ir.OpPut:
			from, to = e.Rank, *e.Peer
		case ir.OpNotify:
			from, to, data = e.Rank, *e.Peer, false
		default:
			continue
		}
		k := key{round[e.Rank], from, to}
		m := acc[k]
		if m == nil {
			m = &move{from: from, to: to}
			acc[k] = m
			keys = append(keys, k)
		}
		m.bytes += e.Bytes
		m.data = m.data || data
		maxRound = max(maxRound, k.r)
	}
	out := make([][]move, maxRound+1)
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.r != b.r {
			return a.r < b.r
		}
		if a.from != b.from {
			return a.from < b.from
		}
		return a.to < b.to
	})
	for _, k := range keys {
		out[k.r] = append(out[k.r], *acc[k])
	}
	// Drop empty rounds (a rank that only waited), keeping the order.
	var kept [][]move
	for _, r := range out {
		if len(r) > 0 {
			kept = append(kept, r)
		}
	}
	return kept
}

// diagramSVG draws the rounds of a run at p ranks.
func diagramSVG(title string, p int, rs [][]move) string {
	const panel, radius, top = 180, 58, 44
	cols := min(len(rs), 4)
	rows := (len(rs) + cols - 1) / max(cols, 1)
	w, h := max(cols*panel, 560), rows*(panel+24)+top
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" font-family="sans-serif" font-size="11">`, w, h, w, h)
	b.WriteString(`<defs><marker id="d" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#1f5fa8"/></marker>`)
	b.WriteString(`<marker id="s" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#999"/></marker></defs>`)
	fmt.Fprintf(&b, `<text x="8" y="18" font-size="13" font-weight="bold">%s</text>`, esc(title))
	b.WriteString(`<text x="8" y="34" fill="#555">solid: data moved (bytes); dashed: signal only</text>`)
	for i, r := range rs {
		cx := float64((i%cols)*panel + panel/2)
		cy := float64(top + (i/cols)*(panel+24) + panel/2 + 8)
		var bytes int64
		for _, m := range r {
			bytes += m.bytes
		}
		what := fmt.Sprintf("%d bytes", bytes)
		if bytes == 0 {
			what = "signals only"
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle" fill="#333">round %d: %s</text>`, cx, cy-float64(radius)-22, i+1, what)
		pos := func(k int) (float64, float64) {
			a := -math.Pi/2 + 2*math.Pi*float64(k)/float64(p)
			return cx + radius*math.Cos(a), cy + radius*math.Sin(a)
		}
		for _, m := range r {
			x1, y1 := pos(m.from)
			x2, y2 := pos(m.to)
			dx, dy := x2-x1, y2-y1
			l := math.Hypot(dx, dy)
			ux, uy := dx/l, dy/l
			// Shorten to the node circles and shift sideways so that the
			// two directions of a pair do not overlap.
			ox, oy := -uy*3, ux*3
			x1, y1 = x1+ux*12+ox, y1+uy*12+oy
			x2, y2 = x2-ux*12+ox, y2-uy*12+oy
			if m.data {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#1f5fa8" stroke-width="1.6" marker-end="url(#d)"><title>rank %d → rank %d: %d bytes</title></line>`, x1, y1, x2, y2, m.from, m.to, m.bytes)
			} else {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999" stroke-dasharray="3,2" marker-end="url(#s)"><title>rank %d notifies rank %d</title></line>`, x1, y1, x2, y2, m.from, m.to)
			}
		}
		for k := 0; k < p; k++ {
			x, y := pos(k)
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="11" fill="#fff" stroke="#333"/><text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`, x, y, x, y+4, k)
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}

func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
