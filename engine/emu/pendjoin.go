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

// pendJoin is a pending O(1) join: base.v[tid] = max(base.v[tid], own).
type pendJoin struct {
	tid int32
	own uint32
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
	if h.npend == 0 {
		return
	}
	v := h.base.v
	for _, p := range h.pend[:h.npend] {
		v[p.tid] = max(v[p.tid], p.own) // no branch: the base is h's alone
	}
	h.npend = 0
}
