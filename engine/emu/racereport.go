package emu

import (
	"fmt"
	"strconv"
	"strings"
)

// Race reports: both accesses with the region each touched, and the edge
// that is missing between them, in words a learner can act on.

// Race is two conflicting accesses that no notify/wait chain orders. A is
// the one that ran first in this run's schedule, B the later one, which
// found A in the shadow.
type Race struct {
	A       RaceAccess `json:"a"`
	B       RaceAccess `json:"b"`
	Message string     `json:"message"`
}

// RaceAccess is one side of a race.
type RaceAccess struct {
	Rank int `json:"rank"`
	// Block is the block of a kernel launched as a grid (0 otherwise).
	Block int    `json:"block,omitempty"`
	Line  int    `json:"line"`
	Op    string `json:"op"` // the IR operation, e.g. "pld.tile.remote_load"
	// Region is the bytes both sides touched, in this side's view of them:
	// "part[0, 0:64] on rank 2" for a window (on rank 2's copy),
	// "y[1, 0, 0:64] on the host" for a host tensor.
	Region string `json:"region"`
}

// raceKey is what makes a race distinct: the two lines and the memory.
type raceKey struct {
	lineA, lineB int
	buf          *bufDesc
	host         *hostTensor
}

// report records the race between the earlier access a and the current
// access b on bytes [lo, hi) of the memory key (offsets in the buffer or
// the host tensor's data).
func (d *detector) report(key shadowKey, a, b entry, lo, hi int) {
	la, lb := a.n.line(), b.n.line()
	k := raceKey{lineA: min(la, lb), lineB: max(la, lb), buf: key.buf, host: key.host}
	if d.seen[k] {
		return
	}
	d.seen[k] = true
	if len(d.races) >= MaxRaces {
		d.omitted++
		return
	}
	ra, rb := d.side(key, a, lo, hi), d.side(key, b, lo, hi)
	d.races = append(d.races, Race{A: ra, B: rb, Message: d.message(a, b, ra, rb)})
}

// side describes access e for a report.
func (d *detector) side(key shadowKey, e entry, lo, hi int) RaceAccess {
	w := d.who[e.tid]
	ra := RaceAccess{Rank: w.rank, Block: w.block, Line: e.n.line(), Op: e.n.irop.Name}
	if key.host != nil {
		h := key.host
		ra.Region = regionName(h.name, h.shape, h.dt.Bytes(), lo, hi) + " on the host"
	} else {
		v := e.view
		ra.Region = regionName(v.name, v.shape, v.dt.Bytes(), lo-v.off, hi-v.off) + " on rank " + strconv.Itoa(key.rank)
	}
	return ra
}

// thread names the thread of e: "rank 2", or "rank 2 block 1" in a grid.
func (d *detector) thread(e entry) string {
	w := d.who[e.tid]
	if w.grid {
		return fmt.Sprintf("rank %d block %d", w.rank, w.block)
	}
	return fmt.Sprintf("rank %d", w.rank)
}

// verbNoun says what an access did and names it: "stored", "the store".
func verbNoun(e entry) (string, string) {
	switch e.n.op {
	case opNotify:
		return "notified", "the notify"
	case opWait:
		return "waited on", "the wait"
	case opPut:
		if e.kind == accAtomicWrite {
			return "added into", "the atomic put"
		}
		if e.kind == accWrite {
			return "put", "the put"
		}
		return "read", "the put"
	case opGet:
		if e.kind == accWrite {
			return "got", "the get"
		}
		return "read", "the get"
	}
	switch e.kind {
	case accRead:
		return "read", "the read"
	case accAtomicWrite:
		return "added into", "the atomic store"
	}
	return "stored", "the store"
}

// message says which edge is missing between a (earlier) and b. For a
// read and a write the advice follows the source: when the write's line
// comes first (or it is the same line) the read is taken to need the
// written data, so the writer must notify after writing and the reader
// wait before reading; when the read's line comes first, the write is
// taken to be the next round, which must wait until the read is done.
// The first clause says what happened in this run, which went the wrong
// way when the read ran first in the one case or last in the other.
func (d *detector) message(a, b entry, ra, rb RaceAccess) string {
	if a.kind.writes() && b.kind.writes() {
		wa, wb := d.thread(a), d.thread(b)
		va, na := verbNoun(a)
		vb, nb := verbNoun(b)
		both, order := va, na+" and "+nb
		if va != vb {
			both = va + " and " + vb
		}
		if na == nb {
			order = "the two " + strings.TrimPrefix(na, "the ") + "s"
		}
		msg := fmt.Sprintf("%s (line %d) and %s (line %d) both %s these bytes; no notify/wait orders them, so which value stays depends on timing: "+
			"give each rank its own region, or order %s with a notify/wait", wa, ra.Line, wb, rb.Line, both, order)
		// Two plain puts (or stores) into one region are often meant to
		// add up, as a reduce-scatter's pushes do: the atomic form says so.
		if a.kind == accWrite && b.kind == accWrite && a.n.op == b.n.op {
			switch a.n.op {
			case opPut:
				msg += ", or, if the values are meant to add up, put with atomic=pld.AtomicType.Add"
			case opStore:
				msg += ", or, if the values are meant to add up, store with atomic=pl.AtomicType.Add"
			}
		}
		return msg
	}
	w, r, rw, rr := a, b, ra, rb
	readFirst := !a.kind.writes()
	if readFirst {
		w, r, rw, rr = b, a, rb, ra
	}
	ww, wr := d.thread(w), d.thread(r)
	vw, nw := verbNoun(w)
	vr, nr := verbNoun(r)
	nounW := strings.TrimPrefix(nw, "the ")
	if rr.Line < rw.Line { // the read is meant to come first
		what := fmt.Sprintf("%s %s at line %d over what %s %s at line %d", ww, vw, rw.Line, wr, vr, rr.Line)
		if !readFirst {
			what = fmt.Sprintf("%s's %s at line %d overwrote the bytes before %s %s them at line %d, so it saw the new data",
				ww, nounW, rw.Line, wr, vr, rr.Line)
		}
		return fmt.Sprintf("%s; no notify/wait orders them: put a barrier between %s and %s "+
			"(%s notifies after %s, %s waits for that notify before %s)", what, nr, nw, wr, nr, ww, nw)
	}
	what := fmt.Sprintf("%s %s at line %d what %s %s at line %d", wr, vr, rr.Line, ww, vw, rw.Line)
	if readFirst {
		what = fmt.Sprintf("%s %s at line %d before %s's %s at line %d wrote the same bytes, so it saw the old data",
			wr, vr, rr.Line, ww, nounW, rw.Line)
	}
	return fmt.Sprintf("%s; no notify/wait orders them: put a barrier between %s and %s "+
		"(%s notifies after %s, %s waits for that notify before %s)", what, nw, nr, ww, nw, wr, nr)
}

// regionName renders bytes [lo, hi) of a row-major array name of shape
// and element size esz in element coordinates: "part[0, 0:64]". A range
// that is not a box (it wraps from the middle of one row into another)
// is given as a flat element range.
func regionName(name string, shape []int, esz, lo, hi int) string {
	e0, e1 := lo/esz, (hi+esz-1)/esz
	if n := numElems(shape); e1 > n {
		e1 = n
	}
	if len(shape) == 0 || e0 >= e1 {
		return name
	}
	st := strides(shape)
	for k := len(shape) - 1; k >= 0; k-- {
		outer := st[k] * shape[k]
		if e0%st[k] != 0 || e1%st[k] != 0 || e0/outer != (e1-1)/outer {
			continue
		}
		parts := make([]string, len(shape))
		for d := range shape {
			switch {
			case d < k:
				parts[d] = strconv.Itoa(e0 / st[d] % shape[d])
			case d == k:
				a := e0 % outer / st[k]
				b := a + (e1-e0)/st[k]
				parts[d] = strconv.Itoa(a) + ":" + strconv.Itoa(b)
				if b == a+1 && k == len(shape)-1 {
					parts[d] = strconv.Itoa(a)
				}
			default:
				parts[d] = "0:" + strconv.Itoa(shape[d])
			}
		}
		return name + "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("%s (elements %d:%d of %v, flat)", name, e0, e1, dims(shape))
}
