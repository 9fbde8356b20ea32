package check

import (
	"sort"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/syntax"
)

// Communication domains: PyPTO's MaterializeCommDomainScopes gives every
// window buffer the set of devices its views are dispatched to (the
// union over its dispatches: a constant device=, or the range of the
// pl.range loop whose variable is device=, all ranks for a loop over
// pld.world_size()). Buffers with the same set share a communicator; a
// peer of a window is a rank of its set, numbered from 0 in device order,
// and pld.nranks / pld.rank of its comm context count and number the set.
// upstream's test_l3_multi_group.py runs two overlapping two-device groups
// {0, 1} and {1, 2} on three devices, each swapping with "the other one",
// peer 1 - r in group-local numbers.
//
// The checker records each buffer's device set here and, when the set is
// not every rank, writes it on the buffer's pld.alloc_window_buffer as
// domain=[d0, d1, ...] (ir.IntsAttr); the emulator maps peers through it.

// dispatchDevices returns the devices a dispatch with device operand dv
// reaches, in order; nil for every rank, or when they are not known.
func (fc *funcChecker) dispatchDevices(dv *operand) []int64 {
	p := int64(fc.c.opts.Ranks)
	if dv.known {
		return []int64{dv.kv}
	}
	li := dv.loop
	if x, _, _ := dv.scalar(); li != nil && x != ir.Operand(li.v) {
		li = nil // d = r: not the loop variable (deviceOperand)
	}
	if li == nil || !li.known || li.step != 1 || li.start == 0 && li.stop >= p {
		return nil
	}
	var out []int64
	for d := max(li.start, 0); d < min(li.stop, p); d++ {
		out = append(out, d)
	}
	return out
}

// checkDeviceStep refuses device=r of a loop with a step other than 1:
// PyPTO infers a dispatch's devices from a unit-step range (it lets a
// stepped loop over pld.world_size() pass as every rank, which dispatches
// only some; the checker refuses that too).
func (fc *funcChecker) checkDeviceStep(o *operand) {
	li := o.loop
	if li == nil || !li.known || li.step == 1 {
		return
	}
	fc.errorf(li.span, ErrDeviceStep, "", "device=%s is the variable of a pl.range with step %d: PyPTO infers the devices of a dispatch from a unit-step range",
		fc.c.text(o.expr), li.step)
}

// looseDevice is a host dispatch's device= that names no devices at
// compile time: a run-time rank number (a while-loop counter, a computed
// rank), or the variable of a pl.range whose bounds are not constants.
type looseDevice struct {
	sp   diag.Span
	text string
	loop *loopInfo // nil when not a pl.range variable
}

// checkLooseDevices refuses a loose device= in a host that allocates a
// window buffer, as PyPTO's MaterializeCommDomainScopes does: it infers
// each buffer's devices from every dispatch of that host, so each device=
// must be a constant or the variable of a pl.range with constant bounds
// (or pld.world_size()). A host with no window buffer dispatches to any
// rank number, which the run checks against [0, P) (E0512).
func (fc *funcChecker) checkLooseDevices() {
	if fc.firstAlloc == nil {
		return
	}
	al := fc.firstAlloc
	for _, d := range fc.looseDevices {
		what := "is neither a constant rank nor the variable of a pl.range"
		if d.loop != nil {
			what = "is the variable of a pl.range whose bounds are not compile-time constants"
		}
		fc.errorf(d.sp, ErrDeviceValue, "dispatch from for r in pl.range(pld.world_size()) (or a constant range) with device=r, or a constant rank",
			"device=%s %s, and this host allocates window buffers (%s, line %d): PyPTO infers the devices of each buffer from the host's device= values",
			d.text, what, al.name, al.span.Start.Line)
	}
}

// isName says whether a device= expression is a variable, as PyPTO's
// parser hands it to the host codegen (parentheses are Python's only).
func isName(e syntax.Expr) bool {
	for {
		switch x := e.(type) {
		case *syntax.ParenExpr:
			e = x.X
		case *syntax.Ident:
			return true
		default:
			return false
		}
	}
}

// addDevices joins the devices of one dispatch to the buffer's set; a nil
// devs (every rank) makes the buffer's domain the world.
func (al *alloc) addDevices(devs []int64) {
	if devs == nil {
		al.world = true
		return
	}
	for _, d := range devs {
		if !containsInt(al.devices, d) {
			al.devices = append(al.devices, d)
		}
	}
	sort.Slice(al.devices, func(i, j int) bool { return al.devices[i] < al.devices[j] })
}

func containsInt(xs []int64, x int64) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// markDomains writes the device set of every buffer whose views reach
// only some ranks on its allocation.
func (c *checker) markDomains(prog *ir.Program) {
	byName := map[string]*alloc{}
	for _, al := range c.allocs {
		if !al.world && len(al.devices) > 0 && len(al.devices) < c.opts.Ranks {
			byName[al.name] = al
		}
	}
	if len(byName) == 0 {
		return
	}
	for _, f := range prog.Funcs {
		if f.Level != ir.Host {
			continue
		}
		ir.Walk(f.Body, func(s ir.Stmt) bool {
			op, ok := s.(*ir.Op)
			if !ok || op.Kind() != ir.OpAllocWindowBuffer || op.Result == nil {
				return true
			}
			if al := byName[op.Result.Name]; al != nil {
				op.Attrs = append(op.Attrs, ir.Attr{Key: ir.DomainAttr, Value: ir.IntsAttr(al.devices)})
			}
			return true
		})
	}
}
