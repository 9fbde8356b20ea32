package engine

import "pldworkbench/engine/ir"

// stmtBytes is what one IR statement of a program costs the heap once it
// has run: its checked and its lowered form (each with its operands,
// types and attributes) and the emulator's compiled node. Measured by
// TestFootprint: step 8's kernel holds about 66 KiB after a run, a
// 250 KiB program of 5,000 statements about 9 MiB.
const stmtBytes = 800

// Footprint estimates the bytes p holds once it has run: its text, its
// checked and lowered IR and the emulator's form of it (made by the first
// run). A server keeping compiled programs bounds them by it.
func (p *Program) Footprint() int64 {
	n := int64(len(p.src) + len(p.entrySrc))
	for _, prog := range []*ir.Program{p.checked, p.lowered} {
		if prog == nil {
			continue
		}
		for _, f := range prog.Funcs {
			ir.Walk(f.Body, func(ir.Stmt) bool { n += stmtBytes; return true })
		}
	}
	return n
}
