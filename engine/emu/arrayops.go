package emu

import (
	"fmt"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/trace"
)

// pl.array's on-core arrays and the tile ops of upstream's
// ep_dispatch_combine. An array is a []int64 of its elements, wrapped to
// its dtype. PyPTO's writes are functional (arr[i] = v makes a new array
// value, which its codegen turns back into an in-place store), so
// update_element copies: a name that still holds the old value (b = arr
// before the write) keeps seeing it. The copy is charged nothing more than
// the array's creation was: arrays are register-file sized, and the old
// value is garbage once the name is rebound.

// arrayVal is the run-time value of an array.
type arrayVal struct {
	dt    ir.DType
	elems []int64
}

const (
	opArrayCreate = ir.OpArrayCreate
	opArrayGet    = ir.OpArrayGet
	opArrayUpdate = ir.OpArrayUpdate
	opTileCreate  = ir.OpTileCreate
	opRowSum      = ir.OpRowSum
	opReshape     = ir.OpReshape
)

// execArrayOp executes the operations of this file; ok is false for any
// other kind.
func (m *machine) execArrayOp(n *node) (f *failure, ok bool) {
	switch n.op {
	case opArrayCreate:
		return m.arrayCreate(n), true
	case opArrayGet:
		return m.arrayGet(n), true
	case opArrayUpdate:
		return m.arrayUpdate(n), true
	case opTileCreate:
		return m.tileCreate(n), true
	case opRowSum:
		return m.rowSum(n), true
	case opReshape:
		return m.reshape(n), true
	}
	return nil, false
}

// arrayCreate is pl.array.create(extent, dtype): extent zeros (PyPTO's
// C-stack array is uninitialised; the emulator zero-fills it).
func (m *machine) arrayCreate(n *node) *failure {
	t, ok := n.resT.(*ir.Array)
	if !ok {
		return m.fail(n, codeInternal, "", "pl.array.create without an array result")
	}
	bytes := t.Extent * 8
	if !m.s.meter.Reserve(bytes) {
		return m.memoryFail(n, fmt.Sprintf("pl.array.create of %d elements wants %s", t.Extent, limits.Bytes(bytes)))
	}
	m.set(n, val{o: &arrayVal{dt: t.DType, elems: make([]int64, t.Extent)}})
	m.s.emit(m, n, trace.Event{StartNs: m.clock / 1000, EndNs: m.clock / 1000})
	return nil
}

// arrayAt returns the array operand and the index, failing on an index
// outside it.
func (m *machine) arrayAt(n *node) (*arrayVal, int64, *failure) {
	a, ok := m.eval(n.args[0]).o.(*arrayVal)
	if !ok {
		return nil, 0, m.fail(n, codeInternal, "", "%s without an array", n.irop.Name)
	}
	i := m.intOf(n.args[1])
	if i < 0 || i >= int64(len(a.elems)) {
		return nil, 0, m.fail(n, codeBounds, "index the array within [0, extent)",
			"%s index %d is outside the array of %d elements", n.irop.Name, i, len(a.elems))
	}
	return a, i, nil
}

func (m *machine) arrayGet(n *node) *failure {
	a, i, f := m.arrayAt(n)
	if f != nil {
		return f
	}
	m.set(n, val{i: a.elems[i]})
	m.clock += m.s.prof.issuePs
	m.s.emit(m, n, trace.Event{StartNs: m.clock / 1000, EndNs: m.clock / 1000})
	return nil
}

func (m *machine) arrayUpdate(n *node) *failure {
	a, i, f := m.arrayAt(n)
	if f != nil {
		return f
	}
	v := scalarVal(m.eval(n.args[2]), n.args[2].dt, a.dt)
	out := &arrayVal{dt: a.dt, elems: append([]int64(nil), a.elems...)}
	out.elems[i] = v.i
	m.set(n, val{o: out})
	m.clock += m.s.prof.issuePs
	m.s.emit(m, n, trace.Event{StartNs: m.clock / 1000, EndNs: m.clock / 1000})
	return nil
}

// tileCreate is pl.tile.create(shape, dtype=): a fresh tile, zero-filled
// here (PyPTO's is uninitialised on-chip memory).
func (m *machine) tileCreate(n *node) *failure {
	t, ok := n.resT.(*ir.Tile)
	if !ok {
		return m.fail(n, codeInternal, "", "pl.tile.create without a tile result")
	}
	shape := m.ints(n.args[0])
	out := m.makeTile(n, t.DType, shape, append([]int(nil), shape...), true)
	m.set(n, val{o: out})
	m.s.emit(m, n, trace.Event{StartNs: m.clock / 1000, EndNs: m.clock / 1000})
	return nil
}

// rowSum is pl.tile.row_sum(tile, tmp_tile): each row's sum of its valid
// columns into a [..., rows, 1] tile, summed in float64 and rounded once
// to the dtype (the scratch tile holds nothing the result depends on).
func (m *machine) rowSum(n *node) *failure {
	a, ok := m.eval(n.args[0]).o.(*tile)
	t, ok2 := n.resT.(*ir.Tile)
	if !ok || !ok2 || len(a.shape) < 2 {
		return m.fail(n, codeShape, "", "pl.tile.row_sum needs a tile of 2 or more dimensions")
	}
	cols := a.shape[len(a.shape)-1]
	rows := numElems(a.shape) / cols
	shape := append(append([]int(nil), a.shape[:len(a.shape)-1]...), 1)
	valid := append(append([]int(nil), a.valid[:len(a.valid)-1]...), 1)
	out := m.makeTile(n, t.DType, shape, valid, true)
	vcols := a.valid[len(a.valid)-1]
	esz := a.dt.Bytes()
	for r := 0; r < rows; r++ {
		var s float64
		for c := 0; c < vcols; c++ {
			s += getFloat(a.data[(r*cols+c)*esz:], a.dt)
		}
		putFloat(out.data[r*esz:], t.DType, s)
	}
	start := m.compute(numElems(a.shape))
	m.set(n, val{o: out})
	m.s.emit(m, n, trace.Event{StartNs: start / 1000, EndNs: m.clock / 1000})
	return nil
}

// reshape is pl.tile.reshape(tile, shape): the same elements, row-major,
// in the new shape. A tile whose valid region is not the whole tile has
// no valid region in the new shape the emulator can name, so it refuses
// that rather than guess.
func (m *machine) reshape(n *node) *failure {
	a, ok := m.eval(n.args[0]).o.(*tile)
	if !ok {
		return m.fail(n, codeShape, "", "pl.tile.reshape needs a tile")
	}
	shape := m.ints(n.args[1])
	if numElems(shape) != numElems(a.shape) {
		return m.fail(n, codeShape, "", "pl.tile.reshape of %v into %v changes the element count", dims(a.shape), dims(shape))
	}
	for i := range a.shape {
		if a.valid[i] != a.shape[i] {
			return m.fail(n, codeUnsupported, "reshape a tile whose every element is valid",
				"pl.tile.reshape of a tile %v with valid region %v is not modelled by the emulator", dims(a.shape), dims(a.valid))
		}
	}
	out := m.makeTile(n, a.dt, shape, append([]int(nil), shape...), false)
	copy(out.data, a.data)
	start := m.compute(numElems(shape))
	m.set(n, val{o: out})
	m.s.emit(m, n, trace.Event{StartNs: start / 1000, EndNs: m.clock / 1000})
	return nil
}
