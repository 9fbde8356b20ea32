package emu

import (
	"fmt"
	"strconv"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
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

// createTensor is pl.create_tensor(shape, dtype=, init_value=): a fresh
// tensor of the machine that makes it, filled with init_value
// (zero without one; PyPTO's is then uninitialised memory).
func (m *machine) createTensor(n *node) *failure {
	t, ok := n.resT.(*ir.Tensor)
	if !ok {
		return m.fail(n, codeInternal, "", "pl.create_tensor without a tensor result")
	}
	shape := m.ints(n.args[0])
	bytes := int64(numElems(shape) * t.DType.Bytes())
	if !m.s.meter.Reserve(bytes) {
		return m.memoryFail(n, fmt.Sprintf("pl.create_tensor %v %s wants %s", dims(shape), t.DType, limits.Bytes(bytes)))
	}
	ht := &hostTensor{name: "create_tensor", dt: t.DType, shape: shape, data: make([]byte, bytes)}
	switch v := n.irop.Attr("init_value").(type) {
	case ir.IntAttr:
		fillBytes(ht.data, t.DType, val{i: int64(v), f: float64(v)}, ir.INT64)
	case ir.StrAttr: // a float, as the checker records it
		if f, err := strconv.ParseFloat(string(v), 64); err == nil {
			fillBytes(ht.data, t.DType, val{f: f}, ir.FP32)
		}
	}
	m.set(n, val{o: &tref{name: "create_tensor", dt: t.DType, shape: shape, host: ht}})
	m.s.emit(m, n, trace.Event{StartNs: m.clock / 1000, EndNs: m.clock / 1000})
	return nil
}

// fillBytes writes v (of dtype from) into every element of b.
func fillBytes(b []byte, dt ir.DType, v val, from ir.DType) {
	esz := dt.Bytes()
	for i := 0; i+esz <= len(b); i += esz {
		putVal(b[i:], dt, v, from)
	}
}
