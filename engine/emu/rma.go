package emu

import (
	"fmt"
	"slices"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/trace"
)

// The pld primitives that cross ranks (pld-spec §4.3, §4.5, §4.6): notify
// and wait on signal cells, remote_load and remote_store of tiles, put and
// get of tensor regions. Every one is atomic with respect to the others
// (they run one at a time in the scheduler's order) and peer == me is a
// local access.

// peer evaluates the peer argument i and checks it is a rank (ruling 14).
func (m *machine) peer(n *node, i int) (int, *failure) {
	p := m.intArg(&n.args[i])
	if p >= 0 && p < int64(m.s.P) {
		return int(p), nil
	}
	hint := "a peer is a rank in [0, nranks)"
	if p < 0 {
		hint = "% truncates toward zero on the device, so (my_rank - 1) % nranks is -1 at rank 0: write (my_rank - 1 + nranks) % nranks"
	}
	return 0, m.fail(n, codePeer, hint, "%s: peer %d out of range [0, %d)", n.irop.Name, p, m.s.P)
}

// window returns argument i as a window view.
func (m *machine) windowArg(n *node, i int) (*tref, *failure) {
	t, f := m.ref(n, i)
	if f != nil {
		return nil, f
	}
	if t.buf == nil {
		return nil, m.fail(n, codeShape, "pass the pld.DistributedTensor view of a window", "%s argument %s is a host tensor, want a window view", n.irop.Name, n.args[i].name)
	}
	return t, nil
}

// windowPeer is the window operand i and the peer rank operand i+1, a rank
// of the window's device group: the target and peer of notify, remote_load
// and remote_store.
func (m *machine) windowPeer(n *node, i int) (*tref, int, *failure) {
	t, f := m.windowArg(n, i)
	if f != nil {
		return nil, 0, f
	}
	p, f := m.peer(n, i+1)
	if f == nil {
		p, f = m.inDomain(n, t, p)
	}
	return t, p, f
}

// sigWindow is windowArg(n, 0) of a notify or wait in the common case, a
// variable (n.sigWin) holding a window view of a dtype the emulator
// holds, read in place; nil sends the op through windowArg, which also
// reports what is wrong.
func (m *machine) sigWindow(n *node) *tref {
	if n.sigWin == 0 {
		return nil
	}
	if t, ok := m.fr.env[n.sigWin-1].o.(*tref); ok && t.buf != nil && sigSupported[t.dt] {
		return t
	}
	return nil
}

// intsScratch evaluates a list operand into m's scratch slice, valid until
// the next call.
func (m *machine) intsScratch(o *opnd) []int {
	m.scratch = m.scratch[:0]
	for i := range o.list {
		m.scratch = append(m.scratch, int(m.intArg(&o.list[i])))
	}
	return m.scratch
}

// cellName renders the cell a notify or wait at n addresses: "signal[2, 0]".
func cellName(n *node, offs []int) string { return string(appendCellName(nil, n, offs)) }

// signalKey resolves the cell that list operand o (n's offsets) names in
// rank's copy of t. Its common shape (one integer variable or constant
// per dimension, decoded at compile time into n.sigOffs, inside the
// shape, of an integer window) reads the offsets in place into the flat
// index, without the scratch slice; anything else, every failure
// included, goes through signalCell, which reports it. notify and wait
// call it only when sigKeyCell, their [row, col] case, did not resolve
// the cell.
func (m *machine) signalKey(n *node, t *tref, o *opnd, rank int) (cellKey, *failure) {
	offs, shape := n.sigOffs, t.shape
	if esz := int(sigCellBytes[t.dt]); esz != 0 && offs != nil && len(offs) == len(shape) {
		at, ok, env := 0, true, m.fr.env
		for k, so := range offs {
			x := int(so.c)
			if so.slot >= 0 {
				x = int(env[so.slot].i)
			}
			if x < 0 || x >= shape[k] {
				ok = false
				break
			}
			at = at*shape[k] + x
		}
		if ok {
			return cellKey{buf: t.buf, rank: rank, off: t.buf.off + at*esz}, nil
		}
	}
	return m.signalCell(n, t, m.intsScratch(o), rank)
}

// sigKeyCell is signalKey and madeCell in one call in their common case,
// offsets [row, col] of integer variables or constants (every lesson's)
// inside a 2-D integer window: the key of rank's cell, and its
// bookkeeping when its page was made (else nil, for the caller's
// lookupCell). ok false sends the op through signalKey.
func (m *machine) sigKeyCell(n *node, t *tref, rank int) (key cellKey, c *cell, ok bool) {
	offs, sh := n.sigOffs, t.shape
	if len(offs) != 2 || len(sh) != 2 {
		return
	}
	env := m.fr.env
	x0, x1 := offs[0].c, offs[1].c
	if offs[0].slot >= 0 {
		x0 = env[offs[0].slot].i
	}
	if offs[1].slot >= 0 {
		x1 = env[offs[1].slot].i
	}
	esz := int(sigCellBytes[t.dt])
	if esz == 0 || uint64(x0) >= uint64(sh[0]) || uint64(x1) >= uint64(sh[1]) {
		return
	}
	key = cellKey{buf: t.buf, rank: rank, off: t.buf.off + (int(x0)*sh[1]+int(x1))*esz}
	return key, m.s.madeCell(key), true
}

// sigCellBytes is, by dtype, the bytes of a signal cell of that dtype
// (dtBytes) when signal cells may have it (an integer or BOOL), else 0:
// signalKey's test of the dtype and its element size in one load.
var sigCellBytes = func() (t [256]uint8) {
	for d := range t {
		if dt := ir.DType(d); dt.IsInt() || dt.IsBool() {
			t[d] = dtBytes[d]
		}
	}
	return t
}()

// sigSupported is supported as a table, for sigWindow.
var sigSupported = func() (t [256]bool) {
	for d := range t {
		t[d] = supported(ir.DType(d))
	}
	return t
}()

// cellOffs returns the offsets of the cell at key in view t (the inverse
// of signalKey's flat index) in buf: the name of a cell is rebuilt only
// when a trace or a deadlock report asks for it.
func cellOffs(t *tref, key cellKey, buf []int) []int {
	at := (key.off - t.buf.off) / int(dtBytes[t.dt])
	offs := append(buf[:0], make([]int, len(t.shape))...)
	for k := len(t.shape) - 1; k >= 0; k-- {
		offs[k] = at % t.shape[k]
		at /= t.shape[k]
	}
	return offs
}

// signalCell resolves the cell at offs in rank's copy of t.
func (m *machine) signalCell(n *node, t *tref, offs []int, rank int) (cellKey, *failure) {
	if !t.dt.IsInt() && !t.dt.IsBool() {
		return cellKey{}, m.fail(n, codeSignal, "allocate signal windows with dtype=pl.INT32", "%s on %s: signal cells must be integers", n.irop.Name, t.what())
	}
	at := flatIndex(t.shape, offs)
	if at < 0 {
		return cellKey{}, m.fail(n, codeBounds, "offsets name one cell: one index per dimension, each inside the signal's shape",
			"%s cell %s is outside %s", n.irop.Name, cellName(n, offs), t.what())
	}
	return cellKey{buf: t.buf, rank: rank, off: t.buf.off + at*t.dt.Bytes()}, nil
}

// notify is pld.system.notify(target, peer, offsets, value, op=).
func (m *machine) notify(n *node) *failure {
	// windowPeer(n, 0) in the common case, read in place: a variable
	// (n.sigWin) holding a window view of the world (no domain to map the
	// peer through) of a dtype the emulator holds, and a peer (n.sigPeer)
	// in range. Anything else goes through windowPeer, which also reports
	// what is wrong.
	var (
		t  *tref
		p  int
		ok bool
		f  *failure
	)
	if n.sigWin != 0 {
		env := m.fr.env
		if v, isView := env[n.sigWin-1].o.(*tref); isView && v.buf != nil && sigSupported[v.dt] && v.buf.domain == nil {
			q := n.sigPeer.c
			if n.sigPeer.slot >= 0 {
				q = env[n.sigPeer.slot].i
			}
			if uint64(q) < uint64(m.s.P) {
				t, p, ok = v, int(q), true
			}
		}
	}
	if !ok {
		if t, p, f = m.windowPeer(n, 0); f != nil {
			return f
		}
	}
	key, c, ok := m.sigKeyCell(n, t, p)
	if !ok {
		if key, f = m.signalKey(n, t, &n.args[2], p); f != nil {
			return f
		}
	}
	value := n.sigVal.c // intArg(&n.args[3]), decoded at compile time
	if !n.sigValOK {
		value = m.intArg(&n.args[3])
	} else if n.sigVal.slot >= 0 {
		value = m.fr.env[n.sigVal.slot].i
	}
	var before, after int64
	if w := m.s.windows[p]; t.dt == ir.INT32 && key.off >= 0 && key.off <= len(w)-4 {
		// An INT32 cell, every lesson's: getInt, putInt and getInt
		// again for that dtype, written out.
		b := (*[4]byte)(w[key.off:])
		before = int64(int32(le.Uint32(b[:])))
		after = value
		if !n.sigSet {
			after = before + value
		}
		after = int64(int32(after))
		le.PutUint32(b[:], uint32(after))
	} else {
		cellBytes := w[key.off:]
		before = getInt(cellBytes, t.dt)
		after = value
		if !n.sigSet {
			after = before + value
		}
		putInt(cellBytes, t.dt, after)
		after = getInt(cellBytes, t.dt)
	}

	start := m.clock
	m.clock += m.s.prof.issuePs
	arrive := start + m.s.prof.linkLatPs
	if p == m.rank {
		arrive = m.clock
	}
	if c == nil {
		if c = m.s.madeCell(key); c == nil {
			c = m.s.lookupCell(key, true)
		}
	}
	if c.lastRank != 0 && c.lastRankOf() != m.rank { // addNotifier's first tests, inlined: most calls end there
		m.s.addNotifier(c, key, m.rank)
	}
	o := m.owner()
	ref := trace.Ref{Rank: m.rank, Seq: o.seq}
	// A notify that leaves the value as it was (a second Set(1) on a cell
	// that already holds 1) changes nothing a waiter can see, so it does
	// not become the notify a wait that finds the predicate already true is
	// credited to: that is still the one that made the value what it is.
	if after != before || !c.hasLast() {
		c.setLast(ref, arrive)
	}
	m.s.stats.Notifies++
	if m.tracing() {
		e := trace.Event{StartNs: start / 1000, EndNs: m.clock / 1000}
		a := &m.s.evAlloc
		m.scratch = cellOffs(t, key, m.scratch)
		e.Peer, e.Cell, e.Before, e.After = a.int(p), a.cellName(n, m.scratch), a.int64(before), a.int64(after)
		m.s.emit(m, n, e)
	} else {
		o.seq++ // count, with the owner found above
		m.s.stats.Events++
	}
	if c.waiter != 0 { // wake's first test, inlined
		m.s.wake(key, c, t.dt, ref, arrive)
	}
	// Last, as in waitOp: nothing above reads or changes what the
	// detector does (wake only makes the waiters ready), and nothing of
	// the notify is live across its call.
	if d := m.s.race; d != nil && !d.notifyLeaf(m, n, t, key, c) {
		d.notifyFast(m, n, t, key, c, true) // onNotify, written out
	}
	return nil
}

// waitOp is pld.system.wait(signal, offsets, expected, cmp=). It reports
// blocked, parking the rank on the cell, while the predicate is false.
func (m *machine) waitOp(n *node) (bool, *failure) {
	w := &m.wait
	// What the end of the wait reads: the view, the cell's key and
	// bookkeeping (nil when the wait never parked), the value that made
	// the predicate true, when the wait began, and the notify that
	// released it while it was parked, with its arrival, if released.
	var (
		t        *tref
		key      cellKey
		c        *cell
		v, start int64
		by       trace.Ref
		hasBy    bool
		arrive   int64
	)
	if w.active { // a parked wait, resumed
		if v = m.s.cellValue(w.key, w.dt); !w.cmp.holds(v, w.expected) {
			m.s.addWaiter(w.cell, m) // kept while parked: not looked up again
			w.released = false
			return true, nil
		}
		w.active = false
		t, key, c, start = w.view, w.key, w.cell, w.start
		by, hasBy, arrive = w.release, w.released, w.releaseArrive
	} else {
		if t = m.sigWindow(n); t == nil {
			var f *failure
			if t, f = m.windowArg(n, 0); f != nil {
				return false, f
			}
		}
		var ok bool
		if key, c, ok = m.sigKeyCell(n, t, m.rank); !ok {
			var f *failure
			if key, f = m.signalKey(n, t, &n.args[1], m.rank); f != nil {
				return false, f
			}
		}
		expected := n.sigVal.c // intArg(&n.args[2]), decoded at compile time
		if !n.sigValOK {
			expected = m.intArg(&n.args[2])
		} else if n.sigVal.slot >= 0 {
			expected = m.fr.env[n.sigVal.slot].i
		}
		if w := m.s.windows[key.rank]; t.dt == ir.INT32 && key.off >= 0 && key.off <= len(w)-4 {
			v = int64(int32(le.Uint32(w[key.off:]))) // cellValue's INT32 case, inlined
		} else {
			v = m.s.cellValue(key, t.dt)
		}
		if !n.cmp.holds(v, expected) {
			// Field by field rather than a new waitInfo: the struct is
			// 112 bytes with pointers. release and releaseArrive are
			// read only while released is set. The cell's offsets are
			// not kept: its name is rebuilt from key (cellOffs) when a
			// trace or a deadlock report needs it.
			w.active, w.n, w.key, w.view, w.dt = true, n, key, t, t.dt
			w.cmp, w.expected, w.start, w.released = n.cmp, expected, m.clock, false
			if c == nil {
				if c = m.s.madeCell(key); c == nil {
					c = m.s.lookupCell(key, true)
				}
			}
			w.cell = c
			m.s.addWaiter(c, m)
			return true, nil
		}
		// A wait that finds its predicate true, most waits of a
		// barrier, is over at once: it writes nothing of m.wait, two
		// lines of the machine.
		start = m.clock
	}
	if !hasBy {
		by, arrive = trace.Ref{}, 0 // left from an earlier wait
		if c == nil {
			if c = m.s.madeCell(key); c == nil {
				c = m.s.lookupCell(key, false)
			}
		}
		if c != nil && c.hasLast() {
			by, hasBy, arrive = c.last(), true, c.lastArrive
		}
	}
	m.clock = max(m.clock, arrive) + m.s.prof.issuePs
	m.s.stats.Waits++
	if m.tracing() {
		m.waitEvent(n, t, &key, start, v, by, hasBy)
	} else {
		m.s.count(m)
	}
	if d := m.s.race; d != nil {
		// Last, with nothing of the wait's live across its call (before
		// the event, the wait's values above were kept on the stack:
		// eight stores a wait); nothing above reads or changes what it
		// does. The detector's state of the cell is beside its
		// bookkeeping (raceCell), which the wait read above.
		if c == nil {
			if c = m.s.madeCell(key); c == nil {
				c = m.s.lookupCell(key, true)
			}
		}
		if !d.waitLeaf(m, n, t, &key, c) {
			d.waitFast(m, n, t, &key, c, true) // onWait, written out
		}
	}
	return false, nil
}

// waitEvent emits the event of wait n (tracing), out of waitOp's line:
// the event is 200 bytes of waitOp's frame otherwise.
func (m *machine) waitEvent(n *node, t *tref, key *cellKey, start, v int64, by trace.Ref, hasBy bool) {
	e := trace.Event{StartNs: start / 1000, EndNs: m.clock / 1000}
	a := &m.s.evAlloc
	m.scratch = cellOffs(t, *key, m.scratch)
	e.Cell, e.Value = a.cellName(n, m.scratch), a.int64(v)
	if hasBy {
		e.ReleasedBy = a.ref(by)
	}
	m.s.emit(m, n, e)
}

// remoteLoad is pld.tile.remote_load(target, peer, offsets, shape, valid_shape).
func (m *machine) remoteLoad(n *node) *failure {
	t, p, f := m.windowPeer(n, 0)
	if f != nil {
		return f
	}
	offs, shape := m.ints(n.args[2]), m.ints(n.args[3])
	valid, f := m.validShape(n, 4, shape)
	if f != nil {
		return f
	}
	if !inBounds(t.shape, offs, valid) {
		return m.boundsFail(n, "reads", offs, valid, fmt.Sprintf("rank %d's %s", p, t.what()))
	}
	esz := t.dt.Bytes()
	var tl *tile
	if lo, ok := contiguous(t.shape, offs, valid); ok && lo >= 0 && n.borrow && slices.Equal(shape, valid) {
		// The next statement only reads the tile: lend it the peer's
		// bytes (pinned, so they never reach the tile pool).
		w := m.s.bytesOf(t, p)
		tl = &tile{dt: t.dt, shape: shape, valid: valid, data: w[lo*esz : (lo+numElems(valid))*esz], pinned: true}
	} else {
		tl = m.makeTile(n, t.dt, shape, valid, !slices.Equal(shape, valid))
		copyBlock(tl.data, shape, zeros(len(shape)), m.s.bytesOf(t, p), t.shape, offs, valid, esz, nil)
	}
	m.touch(n, t, p, offs, valid, accRead)
	bytes := numElems(valid) * esz
	start := m.pull(p, bytes)
	m.set(n, val{o: tl})
	m.emitRMA(n, p, bytes, start)
	return nil
}

// remoteStore is pld.tile.remote_store(src_tile, target, peer, offsets).
func (m *machine) remoteStore(n *node) *failure {
	tl, f := m.tileArg(n, 0)
	if f != nil {
		return f
	}
	t, p, f := m.windowPeer(n, 1)
	if f != nil {
		return f
	}
	if tl.dt != t.dt {
		return m.fail(n, codeShape, "", "pld.tile.remote_store sends a %s tile into %s", tl.dt, t.what())
	}
	offs := m.ints(n.args[3])
	ext, src, f := m.storeExtent(n, tl, -1, len(t.shape))
	if f != nil {
		return f
	}
	if !inBounds(t.shape, offs, ext) {
		return m.boundsFail(n, "writes", offs, ext, fmt.Sprintf("rank %d's %s", p, t.what()))
	}
	esz := t.dt.Bytes()
	copyBlock(m.s.bytesFor(t, p), t.shape, offs, tl.data, src, zeros(len(src)), ext, esz, nil)
	m.touch(n, t, p, offs, ext, accWrite)
	bytes := numElems(ext) * esz
	start := m.push(p, bytes)
	m.emitRMA(n, p, bytes, start)
	return nil
}

// putGet is pld.tensor.put (local src into peer's dst) and pld.tensor.get
// (peer's src into local dst): the whole tensor, or the region given by
// dst_offsets, src_offsets and shape; put may accumulate (atomic=Add).
func (m *machine) putGet(n *node) *failure {
	dst, f := m.ref(n, 0)
	if f != nil {
		return f
	}
	p, f := m.peer(n, 1)
	if f != nil {
		return f
	}
	src, f := m.ref(n, 2)
	if f != nil {
		return f
	}
	isPut := n.op == opPut
	win := src
	if isPut {
		win = dst
	}
	if win.buf == nil {
		side := "src"
		if isPut {
			side = "dst"
		}
		return m.fail(n, codeShape, "pass the pld.DistributedTensor view of a window", "%s %s is a host tensor, want a window view", n.irop.Name, side)
	}
	if p, f = m.inDomain(n, win, p); f != nil {
		return f
	}
	if dst.dt != src.dt {
		return m.fail(n, codeShape, "", "%s copies %s src into %s dst", n.irop.Name, src.dt, dst.dt)
	}
	var doff, soff, ext []int
	switch {
	case !given(n, 3) && !given(n, 4) && !given(n, 5):
		if !slices.Equal(dst.shape, src.shape) {
			return m.fail(n, codeShape, "give dst_offsets, src_offsets and shape to copy a region",
				"%s copies the whole tensor, but dst %v and src %v differ", n.irop.Name, dims(dst.shape), dims(src.shape))
		}
		doff, soff, ext = zeros(len(dst.shape)), zeros(len(src.shape)), src.shape
	case given(n, 3) && given(n, 4) && given(n, 5):
		doff, soff, ext = m.ints(n.args[3]), m.ints(n.args[4]), m.ints(n.args[5])
	default:
		return m.fail(n, codeShape, "", "%s needs dst_offsets, src_offsets and shape together", n.irop.Name)
	}
	dstRank, srcRank := m.rank, p
	if isPut {
		dstRank, srcRank = p, m.rank
	}
	if !inBounds(src.shape, soff, ext) {
		return m.boundsFail(n, "reads", soff, ext, fmt.Sprintf("rank %d's %s", srcRank, src.what()))
	}
	if !inBounds(dst.shape, doff, ext) {
		return m.boundsFail(n, "writes", doff, ext, fmt.Sprintf("rank %d's %s", dstRank, dst.what()))
	}
	var acc accFunc
	if isPut && enumMember(n.irop, "atomic") == "Add" {
		acc = accumulator(dst.dt)
	}
	esz := dst.dt.Bytes()
	copyBlock(m.s.bytesFor(dst, dstRank), dst.shape, doff, m.s.bytesOf(src, srcRank), src.shape, soff, ext, esz, acc)
	m.touchCopy(n, dst, dstRank, doff, src, srcRank, soff, ext, acc != nil)
	bytes := numElems(ext) * esz
	transfer := m.pull
	if isPut {
		transfer = m.push
	}
	start := transfer(p, bytes)
	m.emitRMA(n, p, bytes, start)
	return nil
}

func (m *machine) emitRMA(n *node, p, bytes int, start int64) {
	e := trace.Event{Bytes: int64(bytes), StartNs: start / 1000, EndNs: m.clock / 1000}
	if m.tracing() {
		e.Peer = m.s.evAlloc.int(p)
	}
	m.s.emit(m, n, e)
}

// contiguous reports whether the block at off of extent ext is one run of
// row-major shape's elements, and returns the flat index it starts at:
// every dimension after the first with an extent above 1 is whole.
func contiguous(shape, off, ext []int) (int, bool) {
	spread := false
	for k := range shape {
		if spread && (off[k] != 0 || ext[k] != shape[k]) {
			return 0, false
		}
		if ext[k] > 1 {
			spread = true
		}
	}
	return flatIndex(shape, off), len(shape) > 0
}
