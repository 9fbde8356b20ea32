package emu

import (
	"fmt"
	"slices"
	"testing"

	"pldworkbench/engine/ir"
)

// TestSignalKeyMatchesSignalCell checks the signal ops' decoded path
// against the general one: for offset lists of variables and constants
// (decoded at compile time into sigOffs), of a float variable (not
// decoded) and of a non-list operand, over every offset in and just
// outside the window's shape, of an integer and a float window,
// signalKey must resolve the cell signalCell resolves from the evaluated
// offsets, or fail with the same code, message and hint; and cellOffs
// must give back the offsets of every cell it resolved.
func TestSignalKeyMatchesSignalCell(t *testing.T) {
	const slots = 3
	intVar := func(slot int) opnd {
		return opnd{k: oSlot, intVar: true, slot: slot, dt: ir.INDEX, name: fmt.Sprint("v", slot)}
	}
	floatVar := opnd{k: oSlot, slot: 2, dt: ir.FP32, name: "f"}
	konst := func(v int64) opnd { return opnd{k: oConst, c: val{i: v}, dt: ir.INDEX, name: fmt.Sprint(v)} }
	for _, shape := range [][]int{{5}, {3, 4}, {2, 3, 2}} {
		for _, dt := range []ir.DType{ir.INT32, ir.INT64, ir.FP32} {
			buf := &bufDesc{name: "sig", off: 64, size: numElems(shape) * dt.Bytes()}
			view := &tref{name: "sig", dt: dt, shape: shape, buf: buf}
			// Offset lists: every element a variable; a constant first;
			// a float variable last (not decoded); too few elements.
			lists := [][]opnd{}
			vars := make([]opnd, len(shape))
			for k := range vars {
				vars[k] = intVar(k % 2)
			}
			lists = append(lists, vars)
			withConst := slices.Clone(vars)
			withConst[0] = konst(1)
			lists = append(lists, withConst)
			withFloat := slices.Clone(vars)
			withFloat[len(withFloat)-1] = floatVar
			lists = append(lists, withFloat, vars[:len(vars)-1])
			for li, list := range lists {
				n := &node{op: opWait, irop: &ir.Op{Name: "pld.system.wait"}, span: ir.Span{Line: 3, Col: 5},
					args: []opnd{{k: oSlot, slot: 0, name: "sig"}, {k: oList, list: list}}}
				n.sigOffs = decodeOffs(n.args, 1)
				if decoded := n.sigOffs != nil; decoded != (li != 2) {
					t.Fatalf("shape %v list %d: decoded %v", shape, li, decoded)
				}
				m := &machine{s: &sim{P: 4}, rank: 1}
				m.pushFrame(&cfunc{nslots: slots}, nil, nil, -1)
				for a := int64(-1); a <= 4; a++ {
					for b := int64(-1); b <= 4; b++ {
						m.fr.env[0], m.fr.env[1], m.fr.env[2] = val{i: a}, val{i: b}, val{f: float64(b) + 0.5}
						key, f := m.signalKey(n, view, &n.args[1], 2)
						offs := slices.Clone(m.intsScratch(&n.args[1]))
						want, wf := m.signalCell(n, view, offs, 2)
						what := fmt.Sprintf("shape %v %s list %d offsets %v", shape, dt, li, offs)
						switch {
						case (f == nil) != (wf == nil):
							t.Fatalf("%s: signalKey fails %v, signalCell %v", what, f, wf)
						case f != nil:
							if *f.err != *wf.err {
								t.Fatalf("%s: signalKey fails %+v, signalCell %+v", what, *f.err, *wf.err)
							}
						case key != want:
							t.Fatalf("%s: signalKey %+v, signalCell %+v", what, key, want)
						default:
							if got := cellOffs(view, key, nil); !slices.Equal(got, offs) {
								t.Fatalf("%s: cellOffs %v", what, got)
							}
						}
					}
				}
			}
		}
	}
}
