package emu

import (
	"pldworkbench/engine/ir"
	"pldworkbench/engine/trace"
)

// The tile ops of upstream's gemm program. The emulator holds every tile
// in one kind of memory, so the memory spaces (Mat, Left, Right, Acc)
// place nothing: a move is a copy, and the product reads its operands
// wherever they were loaded.

// full is pl.tile.full(shape, dtype=, value=): a tile of one value.
func (m *machine) full(n *node) *failure {
	t, ok := n.resT.(*ir.Tile)
	if !ok {
		return m.fail(n, codeInternal, "", "pl.tile.full without a tile result")
	}
	shape := m.ints(n.args[0])
	out := m.makeTile(n, t.DType, shape, append([]int(nil), shape...), false)
	v := m.eval(n.args[1])
	esz := t.DType.Bytes()
	for i := 0; i < len(out.data); i += esz {
		putVal(out.data[i:], t.DType, v, n.args[1].dt)
	}
	start := m.compute(numElems(shape))
	m.set(n, val{o: out})
	m.s.emit(m, n, trace.Event{StartNs: start / 1000, EndNs: m.clock / 1000})
	return nil
}

// move is pl.move(tile, target_memory=): a copy of the tile.
func (m *machine) move(n *node) *failure {
	a, ok := m.eval(n.args[0]).o.(*tile)
	if !ok {
		return m.fail(n, codeUnsupported, "", "pl.move needs a tile")
	}
	out := m.makeTile(n, a.dt, a.shape, append([]int(nil), a.valid...), false)
	copy(out.data, a.data)
	start := m.compute(numElems(a.shape))
	m.set(n, val{o: out})
	m.s.emit(m, n, trace.Event{StartNs: start / 1000, EndNs: m.clock / 1000})
	return nil
}

// matmul is pl.matmul(lhs, rhs): [M, K] x [K, N] into an [M, N]
// accumulator (FP32 for float operands, INT32 for integer ones), summed in
// float64 and rounded once, as the cube unit accumulates in FP32.
func (m *machine) matmul(n *node) *failure {
	a, ok1 := m.eval(n.args[0]).o.(*tile)
	b, ok2 := m.eval(n.args[1]).o.(*tile)
	t, ok3 := n.resT.(*ir.Tile)
	if !ok1 || !ok2 || !ok3 || len(a.shape) != 2 || len(b.shape) != 2 || a.shape[1] != b.shape[0] {
		return m.fail(n, codeShape, "", "pl.matmul needs tiles [M, K] and [K, N]")
	}
	M, K, N := a.shape[0], a.shape[1], b.shape[1]
	// The product's valid region is the operands' (PyPTO: valid [M, N] of
	// lhs's valid rows and rhs's valid columns).
	out := m.makeTile(n, t.DType, []int{M, N}, []int{a.valid[0], b.valid[1]}, false)
	ae, be, oe := a.dt.Bytes(), b.dt.Bytes(), t.DType.Bytes()
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			var s float64
			for k := 0; k < K; k++ {
				s += getFloat(a.data[(i*K+k)*ae:], a.dt) * getFloat(b.data[(k*N+j)*be:], b.dt)
			}
			putFloat(out.data[(i*N+j)*oe:], t.DType, s)
		}
	}
	start := m.compute(M * N * K)
	m.set(n, val{o: out})
	m.s.emit(m, n, trace.Event{StartNs: start / 1000, EndNs: m.clock / 1000})
	return nil
}
