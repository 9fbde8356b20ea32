package lower

import (
	"fmt"
	"strconv"

	"pldworkbench/engine/check"
	"pldworkbench/engine/ir"
)

// The host-collectives pass (upstream LowerHostTensorCollectives): a
// collective called in the host orchestrator runs, on the hardware, as a
// prebuilt AIV kernel dispatched to every rank. Here each such call becomes
// that kernel, written out in IR (pld-spec §4.8.3):
//
//   - an InCore function __host_<builtin>_<line> whose parameters are the
//     call's window operands and whose body is the builtin kernel's
//     protocol in primitives;
//   - an orchestration wrapper <kernel>_orch that launches it, as a grid of
//     core_num blocks for the multi-core mesh allreduce (ir.Call.Blocks);
//   - in place of the call, a dispatch loop over every rank,
//     for r in range(pld.world_size()): <kernel>_orch(..., device=r),
//     then the caller's rebind as an assignment.
//
// Each kernel ends with the self-clearing epilogue of upstream HEAD (see
// hostkernels.go), so a signal window may serve many HOST calls.

// hostRule lowers one HOST builtin into the body of its kernel.
type hostRule struct {
	returns string
	// stem names the kernel: "allreduce_mesh" for __host_allreduce_mesh_42.
	stem func(op *ir.Op) string
	// blocks is the kernel's grid size (1 for all but the mesh allreduce).
	blocks func(op *ir.Op) int
	body   func(k *hostKernel) error
}

// hostKernel is a kernel being synthesized: its builder, the call it
// implements, and the kernel's parameters by operand name.
type hostKernel struct {
	b     *builder
	op    *ir.Op
	prog  *ir.Program
	param map[string]*ir.Var
}

func named(s string) func(*ir.Op) string { return func(*ir.Op) string { return s } }
func oneBlock(*ir.Op) int                { return 1 }

// hostRules is the table of HOST builtins.
var hostRules = map[ir.OpKind]hostRule{
	ir.OpBarrier: {"signal", named("barrier"), oneBlock, hostBarrier},
	ir.OpAllreduce: {"target",
		func(op *ir.Op) string { return "allreduce_" + attrStr(op, "mode", "mesh") },
		func(op *ir.Op) int { return int(attrInt(op, "core_num", 1)) },
		onTargetSignal(hostAllreduce)},
	ir.OpBroadcast:     {"target", named("broadcast"), oneBlock, onTargetSignal(hostBroadcast)},
	ir.OpReduceScatter: {"target", named("reduce_scatter"), oneBlock, onTargetSignal(hostReduceScatter)},
	ir.OpAllgather:     {"target", named("allgather"), oneBlock, hostPush},
	ir.OpAllToAll:      {"target", named("all_to_all"), oneBlock, hostPush},
	ir.OpAllToAllV:     {"target", named("all_to_all_v"), oneBlock, hostAllToAllV},
}

// readOnly lists the operands a HOST kernel only reads; the others are
// InOut parameters.
var readOnly = map[string]bool{"local_data": true, "input": true, "send_counts": true}

func lowerHost(p *ir.Program) (*ir.Program, error) {
	hosts := []*ir.Func{}
	for _, f := range p.Funcs {
		if f.Level == ir.Host {
			hosts = append(hosts, f)
		}
	}
	for _, f := range hosts {
		names := newNamer(f)
		err := expandOps(f.Body, func(op *ir.Op, out *ir.Block) (bool, error) {
			r, ok := hostRules[op.Kind()]
			if !ok {
				return false, nil
			}
			b := newBuilder(names, out, op)
			wrapper, args, err := synthesize(p, op, r)
			if err != nil {
				return true, err
			}
			ws := b.value(b.temp(&ir.Scalar{DType: ir.INT64}), ir.OpWorldSize, nil)
			b.loop("r", idx(0), ws, idx(1), func(lb *builder, rank *ir.Var) {
				lb.emit(&ir.Call{Callee: wrapper, Args: args, Device: rank, Site: lb.site})
			})
			b.rebind(op, r.returns)
			return true, nil
		})
		if err != nil {
			return nil, err
		}
	}
	orderFuncs(p)
	return p, nil
}

// synthesize adds the kernel and the wrapper of one HOST builtin call to p
// and returns the wrapper with the host operands to dispatch it with.
func synthesize(p *ir.Program, op *ir.Op, r hostRule) (*ir.Func, []ir.Operand, error) {
	from := &ir.Origin{Op: op.Name, Span: op.Span}
	name := funcName(p, "__host_"+r.stem(op)+"_"+strconv.Itoa(op.Span.Line))
	kernel := &ir.Func{Name: name, Level: ir.InCore, Body: &ir.Block{}, Span: op.Span, From: from}
	wrapper := &ir.Func{Name: name + "_orch", Level: ir.Orchestration, Body: &ir.Block{}, Span: op.Span, From: from}
	k := &hostKernel{op: op, prog: p, param: map[string]*ir.Var{}}
	var hostArgs, wrapArgs []ir.Operand
	for _, pname := range check.OpArgs(op.Name) {
		a := arg(op, pname)
		if a == nil {
			continue
		}
		v, ok := a.(*ir.Var)
		if _, win := ir.TypeOf(a).(*ir.DistributedTensor); !ok || !win {
			return nil, nil, &Error{Span: op.Span, Op: op.Name,
				Msg: fmt.Sprintf("HOST %s is %s, want a window (the checker should have rejected it)", pname, ir.TypeOf(a))}
		}
		dir := ir.InOut
		if readOnly[pname] {
			dir = ir.In
		}
		kv := &ir.Var{Name: pname, Type: v.Type}
		wv := &ir.Var{Name: pname, Type: v.Type}
		kernel.Params = append(kernel.Params, &ir.Param{Var: kv, Dir: dir})
		wrapper.Params = append(wrapper.Params, &ir.Param{Var: wv, Dir: dir})
		k.param[pname] = kv
		hostArgs = append(hostArgs, v)
		wrapArgs = append(wrapArgs, wv)
	}
	k.b = newBuilder(newNamer(kernel), kernel.Body, op)
	k.b.syms = rankSyms(p)
	if err := r.body(k); err != nil {
		return nil, nil, err
	}
	blocks := r.blocks(op)
	if blocks <= 1 {
		blocks = 0
	}
	wrapper.Body.Add(&ir.Call{Callee: kernel, Args: wrapArgs, Blocks: blocks, Site: ir.Site{Span: op.Span, From: from}})
	p.Funcs = append(p.Funcs, wrapper, kernel)
	return wrapper, hostArgs, nil
}

// funcName returns name, or name_2, name_3, ... if p already has it.
func funcName(p *ir.Program, name string) string {
	out := name
	for k := 2; p.Func(out) != nil || p.Func(out+"_orch") != nil; k++ {
		out = name + "_" + strconv.Itoa(k)
	}
	return out
}

// orderFuncs restores the Program.Funcs convention after functions were
// added: host orchestrators first (the entry leading), then orchestration
// functions, then kernels, each group in first-call order; functions no
// call reaches keep their relative order at the end of their group.
func orderFuncs(p *ir.Program) {
	seen := map[*ir.Func]bool{}
	var order []*ir.Func
	add := func(f *ir.Func) {
		if f != nil && !seen[f] {
			seen[f] = true
			order = append(order, f)
		}
	}
	add(p.Entry)
	for _, lvl := range []ir.Level{ir.Host, ir.Orchestration, ir.InCore} {
		for _, f := range p.Funcs {
			if f.Level == lvl {
				add(f)
			}
		}
	}
	// order now groups by level; sort each group by first call, walking the
	// callers in their final order.
	var out []*ir.Func
	placed := map[*ir.Func]bool{}
	for _, lvl := range []ir.Level{ir.Host, ir.Orchestration, ir.InCore} {
		var group []*ir.Func
		for _, caller := range out {
			ir.Walk(caller.Body, func(s ir.Stmt) bool {
				if c, ok := s.(*ir.Call); ok && c.Callee != nil && c.Callee.Level == lvl && !placed[c.Callee] {
					placed[c.Callee] = true
					group = append(group, c.Callee)
				}
				return true
			})
		}
		for _, f := range order {
			if f.Level == lvl && !placed[f] {
				placed[f] = true
				group = append(group, f)
			}
		}
		out = append(out, group...)
	}
	p.Funcs = out
}
