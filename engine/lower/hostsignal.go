package lower

import (
	"pldworkbench/engine/ir"
)

// The host-signals pass (upstream SynthesizeAllReduceSignals): a HOST
// allreduce called without a signal, data = pld.tensor.allreduce(data), gets
// the one the compiler allocates just before the call (pld-spec §4.8.3):
//
//	ws = pld.world_size()
//	buf = pld.alloc_window_buffer(ws * core_num * 4)
//	sig = pld.window(buf, [ws, core_num], dtype=pl.INT32)
//
// one INT32 lane per block on every rank. The checker rejects such a call
// inside a loop, as upstream does: the synthesized allocation is one
// binding, not one per iteration. An explicit signal is allowed there (the
// kernel's epilogue clears it for the next iteration).

func synthesizeSignals(p *ir.Program) (*ir.Program, error) {
	for _, f := range p.Funcs {
		if f.Level != ir.Host {
			continue
		}
		names := newNamer(f)
		err := expandOps(f.Body, func(op *ir.Op, out *ir.Block) (bool, error) {
			if op.Kind() != ir.OpAllreduce || arg(op, "signal") != nil {
				return false, nil
			}
			b := newBuilder(names, out, op)
			if mode := attrStr(op, "mode", "mesh"); mode != "mesh" {
				return true, b.errorf("mode=%q without a signal (the checker should have rejected it)", mode)
			}
			if len(op.Args) != 1 {
				return true, b.errorf("has %d operands, want the target alone", len(op.Args))
			}
			cores := attrInt(op, "core_num", 1)
			ws := b.value(b.temp(&ir.Scalar{DType: ir.INT64}), ir.OpWorldSize, nil)
			bytes := b.mul(ws, idx(cores*int64(ir.INT32.Bytes())))
			buf := b.value(b.newVar("allreduce_signal_buf", &ir.Ptr{Bytes: ir.ConstDim(int64(p.Ranks) * cores * 4)}),
				ir.OpAllocWindowBuffer, nil, bytes)
			sigT := &ir.DistributedTensor{Shape: ir.ConstShape(int64(p.Ranks), cores), DType: ir.INT32}
			sig := b.value(b.newVar("allreduce_signal", sigT), ir.OpWindow,
				[]ir.Attr{{Key: "dtype", Value: ir.DTypeAttr(ir.INT32)}}, buf, list(ws, idx(cores)))
			op.Args = append(op.Args, sig)
			out.Add(op)
			return true, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return p, nil
}
