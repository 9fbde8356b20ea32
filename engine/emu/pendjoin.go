package emu

// Pending joins. A barrier's wait acquires its notifier's clock with
// join's O(1) case (fastWait): the snapshot adds only the notifier's own
// epoch to the waiter's base, one entry. At large P that entry is the
// detector's costliest byte: every rank has its own P-entry base (4 KiB at
// P = 1024) and the scheduler runs every other rank between two waits of
// one, so the line is out of the cache at every wait. The wait therefore
// notes (tid, epoch) in its thread's pend buffer, which lives in the
// machine's hot lines, and the entries reach the base in one pass when the
// buffer is full or before anything reads or publishes the base: a
// barrier's waits go through the notifiers in order, so a pass over
// pendLen entries writes one or two lines of the base instead of missing
// on one per wait.
//
// The base is the thread's own to write (held once) while entries
// are pending: whatever would share it (view, snap, forkBlock) or read it
// (at, join, forkRank) flushes first. And the wait does not read the base
// at all: priv remembers the base the thread last saw held once (with its
// length), until the thread publishes it or a join changes it, the only
// ways its holds can grow (every other holder got its hold from one of
// the thread's snapshots). The version only ends a copy record
// (copyjoin.go): a base whose record is current when the thread sees it
// (privCopy) is bumped at the first entry after that, before the write it
// stands for, so copyable never takes a changed clock for a copy; a
// record already ended stays so without a bump (a new one is made only
// by a join, which lets go of priv), and the wait then reads nothing of
// the base but at its flush. An entry that changes nothing costs a
// needless bump at most, which only makes copyable more cautious.

// pendLen is the size of a thread's pend buffer: a flush of 16 entries
// of a barrier's waits writes 64 bytes of its base. Only its first entry
// shares the cache line of the fields a wait reads anyway (machine puts
// them beside parent, in a line the interpreter reads at every op; two
// entries did when hb had a line of its own, three before plainClk came
// there, which cost a barrier at P = 1024 under cachegrind 0.2% more
// first-level misses, and saved a ring one an access); a buffer of the first three alone missed the
// first-level cache less at P = 256, but its flushes, five times as many,
// met the bases (4 KiB each at P = 1024, out of the second-level cache)
// as often: barrier P = 1024 under a 2 MiB last-level cache missed it
// 3.84M times against 3.42M with 16.
const pendLen = 16

// pendJoin is a pending O(1) join: base.v[tid] = max(base.v[tid], own),
// and the same for the next tids of its run (see Runs).
type pendJoin struct {
	tid int32
	own uint32
}

// Runs. A barrier's rank waits on its notifiers in the order of their
// tids, and each of them notified it at the same epoch (the ranks run the
// same loop from the same fork: rank r's is the r-th notify of each
// notifier below r, and one more above it), so most of its joins are
// (tid, clk), (tid+1, clk), ...: one entry stands for a run of them. The
// open run is always pend[0], its tid the run's last, with how many tids
// before it the run has in run, both in the line of the fields a wait
// reads anyway;
// a wait that extends it writes that line alone, where each entry had
// written the next slot, in a line of its own out of the cache at each
// wait at P = 1024 (the flushes write the base's entries as before). A
// wait that does not extend it moves it to pend[npend], run in the high
// half of its tid (pendTid: the fast path's tids are below 2¹³,
// rwTidBits), and starts the new one in pend[0], which thus still holds
// a join the thread made, its tid as it is (knows, shadowseg.go).
// pendRunMax bounds run (a byte).
const (
	pendRunMax = 255
	pendTid    = 1<<16 - 1
)

// pendAdd adds the pending join of (tid, clk) to h's pend buffer, as a
// run's next tid when it is one, flushing a full buffer first.
func (h *hbThread) pendAdd(tid int32, clk uint32) {
	if n, p := h.npend, &h.pend[0]; n != 0 {
		if *p == (pendJoin{tid: tid - 1, own: clk}) && h.run != pendRunMax {
			p.tid, h.run = tid, h.run+1
			return
		}
		if n == pendLen {
			h.flush()
		} else {
			h.pend[n] = pendJoin{tid: p.tid | int32(h.run)<<16, own: p.own}
		}
	}
	h.pend[0], h.run = pendJoin{tid: tid, own: clk}, 0
	h.npend++
}

// ownsBase reports whether h alone holds its base, as
// join's O(1) case needs, reading the base only when h has not seen it
// so since it last changed or shared it.
func (d *detector) ownsBase(h *hbThread) bool {
	if h.priv == h.base {
		return true
	}
	if b := h.base; b.refs == 1 {
		h.priv, h.privLen, h.privCopy = b, int32(len(b.v)), b.copy.ver == b.ver
		return true
	}
	return false
}

// flush applies h's pending joins to its base.
func (h *hbThread) flush() {
	if h.npend != 0 {
		h.flushRuns()
	}
}

// flushRuns is flush's work, out of its callers' line.
func (h *hbThread) flushRuns() {
	v := h.base.v
	n := h.npend
	h.npend = 0
	maxRun(v[h.pend[0].tid-int32(h.run):h.pend[0].tid+1], h.pend[0].own)
	for i := uint8(1); i < n; i++ {
		p := h.pend[i]
		t := p.tid & pendTid
		maxRun(v[t-p.tid>>16:t+1], p.own)
	}
}

// maxRun makes every entry of v at least e; no branch: the base is the
// thread's alone.
func maxRun(v []uint32, e uint32) {
	for ; len(v) >= 4; v = v[4:] { // a barrier's runs are long: four at a time
		v[0], v[1], v[2], v[3] = max(v[0], e), max(v[1], e), max(v[2], e), max(v[3], e)
	}
	for i := range v {
		v[i] = max(v[i], e)
	}
}
