package emu

import (
	"fmt"
	"testing"

	"pldworkbench/engine/ir"
)

// TestSigKeyCellMatchesGeneral checks sigKeyCell, the signal ops' key and
// cell in one call, against signalKey and lookupCell: over offset lists
// of variables and constants, every offset in and just outside 1-, 2- and
// 3-D windows of integer and float dtypes, ranks below and above
// tileRanks (pages per rank and tiles of ranks), with race detection on
// and off, before and after the cells' pages are made. Where it answers
// (ok), signalKey must resolve the same key without failing and
// lookupCell(key, false) give the same bookkeeping, or sigKeyCell none
// where madeCell finds none either (its callers' fallback, for a page not
// made or a cell off the grain); and it must answer for every in-range [row, col] of an integer
// window.
func TestSigKeyCellMatchesGeneral(t *testing.T) {
	intVar := func(slot int) opnd {
		return opnd{k: oSlot, intVar: true, slot: slot, dt: ir.INDEX, name: fmt.Sprint("v", slot)}
	}
	konst := func(v int64) opnd {
		return opnd{k: oConst, intConst: true, c: val{i: v}, dt: ir.INDEX, name: fmt.Sprint(v)}
	}
	for _, P := range []int{4, tileRanks} {
		for _, race := range []bool{false, true} {
			for _, shape := range [][]int{{5}, {3, 4}, {20, 1}, {2, 3, 2}} {
				for _, dt := range []ir.DType{ir.INT32, ir.INT64, ir.INT8, ir.FP32} {
					s := &sim{P: P, bigCells: map[cellKey]*cell{}}
					if race {
						s.race = &detector{}
					}
					buf := &bufDesc{name: "sig", off: 64, size: numElems(shape) * dt.Bytes()}
					view := &tref{name: "sig", dt: dt, shape: shape, buf: buf}
					list := make([]opnd, len(shape))
					for k := range list {
						list[k] = intVar(k)
					}
					if len(list) > 1 {
						list[1] = konst(0)
					}
					n := &node{op: opWait, irop: &ir.Op{Name: "pld.system.wait"}, args: []opnd{{k: oSlot, slot: 3, name: "sig"}, {k: oList, list: list}}}
					n.sigOffs = decodeOffs(n.args, 1)
					m := &machine{s: s, rank: 1}
					m.pushFrame(&cfunc{nslots: 4}, nil, nil, -1)
					for pass := 0; pass < 2; pass++ {
						for rank := 0; rank < P; rank += max(1, P/5) {
							for a := int64(-1); a <= 21; a++ {
								for b := int64(-1); b <= 4; b++ {
									m.fr.env[0], m.fr.env[1], m.fr.env[2] = val{i: a}, val{i: b}, val{i: b}
									what := fmt.Sprintf("P %d race %v shape %v %s pass %d rank %d offsets %d %d", P, race, shape, dt, pass, rank, a, b)
									key, c, ok := m.sigKeyCell(n, view, rank)
									want, f := m.signalKey(n, view, &n.args[1], rank)
									inRange := len(shape) == 2 && a >= 0 && a < int64(shape[0]) && list[1].c.i < int64(shape[1]) && (dt.IsInt() || dt.IsBool())
									if inRange != ok {
										t.Fatalf("%s: ok %v, want %v", what, ok, inRange)
									}
									if !ok {
										continue
									}
									if f != nil || key != want {
										t.Fatalf("%s: sigKeyCell %+v, signalKey %+v %v", what, key, want, f)
									}
									// nil: the caller's madeCell and lookupCell resolve it.
									if wc := s.lookupCell(key, false); c != nil && c != wc || c == nil && s.madeCell(key) != nil {
										t.Fatalf("%s: sigKeyCell's cell %p, lookupCell's %p", what, c, wc)
									}
									if pass == 0 && (a+b)%3 == 0 {
										s.lookupCell(key, true) // make its page, for the second pass
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestMarkDeadCompares checks which comparisons markDeadCompares leaves
// unwritten: one whose result only the if after it reads, and not one
// whose result another statement, a nested block, a list operand or a
// task's dependencies also read.
func TestMarkDeadCompares(t *testing.T) {
	slot := func(s int) opnd { return opnd{k: oSlot, intVar: true, slot: s, dt: ir.INDEX} }
	mk := func() (*node, *node) {
		cmp := &node{kind: nBin, bin: ir.Ne, x: slot(0), y: slot(1), res: 2}
		ifn := &node{kind: nIf, x: slot(2), res: -1, body: []*node{{kind: nOp, op: opNotify, res: -1}}}
		return cmp, ifn
	}
	for _, c := range []struct {
		name  string
		extra func(cmp *node) *node // another statement of the function, nil for none
		dead  bool
	}{
		{"only the if", nil, true},
		{"an assignment", func(*node) *node { return &node{kind: nAssign, x: slot(2), res: 5} }, false},
		{"a list operand", func(*node) *node {
			return &node{kind: nOp, op: opWait, res: -1, args: []opnd{slot(4), {k: oList, list: []opnd{slot(2), slot(1)}}}}
		}, false},
		{"a nested block", func(*node) *node {
			return &node{kind: nFor, loopVar: 6, res: -1, body: []*node{{kind: nReturn, x: slot(2), res: -1}}}
		}, false},
		{"a task's dependencies", func(*node) *node {
			return &node{kind: nCall, res: -1, task: &taskInfo{slot: -1, deps: []opnd{slot(2)}}}
		}, false},
		{"another variable", func(*node) *node { return &node{kind: nAssign, x: slot(3), res: 5} }, true},
	} {
		cmp, ifn := mk()
		b := []*node{cmp, ifn}
		if c.extra != nil {
			b = append(b, c.extra(cmp))
		}
		markCompareIfs(b)
		markDeadCompares(b)
		if !cmp.ifNext || cmp.ifn != ifn {
			t.Fatalf("%s: ifNext %v, ifn %p, want the if %p", c.name, cmp.ifNext, cmp.ifn, ifn)
		}
		if cmp.resDead != c.dead {
			t.Errorf("%s: resDead %v, want %v", c.name, cmp.resDead, c.dead)
		}
	}
}
