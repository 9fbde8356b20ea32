package lower

import (
	"pldworkbench/engine/ir"
)

// Data layout shared by the allreduce-style lowerings: they see a packed
// target of any shape as one [1, N] stream and walk it in tiles.

const (
	// chunkBytes is the UB budget of one InCore allreduce chunk: 16 KiB,
	// 4096 FP32 or 8192 FP16 elements.
	chunkBytes = 16 << 10
	// alignBytes is the hardware's tile row granule: a tile's contiguous
	// extent must be a multiple of 32 bytes.
	alignBytes = 32
	// hostTile is the element count of one tile of the HOST builtin kernels.
	hostTile = 256
)

// alignElems is the 32-byte granule in elements of d (8 FP32, 16 FP16).
func alignElems(d ir.DType) int64 {
	if n := int64(d.Bytes()); n > 0 && alignBytes%n == 0 {
		return alignBytes / n
	}
	return 1
}

// roundUp rounds n up to a multiple of m.
func roundUp(n, m int64) int64 { return (n + m - 1) / m * m }

// flatten returns target viewed as the packed stream [1, N] and N: the
// target itself when it already is [1, N], else a pl.tensor.view of it. A
// symbolic extent is kept when it is the only dimension larger than one;
// anything else symbolic has no [1, N] type and is refused.
func (b *builder) flatten(target *ir.Var, t *ir.DistributedTensor) (*ir.Var, ir.Operand, error) {
	s := make(ir.Shape, len(t.Shape))
	for i, d := range t.Shape {
		s[i] = d
		if n, ok := ir.DimValue(d.Sym, b.syms); ok && !d.IsStatic() {
			s[i] = ir.ConstDim(n)
		}
	}
	if len(s) == 2 && s[0].IsStatic() && s[0].N == 1 {
		return target, dimOperand(s[1]), nil
	}
	last := ir.ConstDim(1)
	if n, ok := s.NumElems(); ok {
		last = ir.ConstDim(n)
	} else {
		for _, d := range s {
			switch {
			case !d.IsStatic() && last == ir.ConstDim(1):
				last = d
			case !d.IsStatic() || d.N != 1:
				return nil, nil, b.errorf("target %s has a dynamic shape the workbench cannot view as one [1, N] stream", t)
			}
		}
	}
	ft := &ir.DistributedTensor{Shape: ir.Shape{ir.ConstDim(1), last}, DType: t.DType}
	flat := b.value(b.newVar(target.Name+"_flat", ft), ir.OpView, nil, target, list(idx(1), dimOperand(last)))
	return flat, dimOperand(last), nil
}

// rankSyms are the symbolic dimensions a program instance fixes: a
// symbol in a host tensor's shape (NR, world_size) is the rank count, as
// the emulator binds it when it makes the host's tensors.
func rankSyms(p *ir.Program) map[string]int64 {
	syms := map[string]int64{}
	if p.Entry == nil {
		return syms
	}
	for _, prm := range p.Entry.Params {
		if t, ok := prm.Var.Type.(*ir.Tensor); ok {
			for _, d := range t.Shape {
				if !d.IsStatic() {
					for _, name := range ir.DimSymbols(d.Sym) {
						syms[name] = int64(p.Ranks)
					}
				}
			}
		}
	}
	return syms
}

// region is the offsets, shape and valid shape of a [1, width] tile at
// column col of a [1, N] stream whose first valid elements are real: the
// load reads them and pads the rest of the tile with zeros, the store
// writes only them.
type region struct {
	at, shape, valid *ir.ListOp // valid is nil when the whole tile is valid
}

func tileRegion(col ir.Operand, width int64, valid ir.Operand) region {
	r := region{at: list(idx(0), col), shape: list(idx(1), idx(width))}
	if n, ok := constOf(valid); !ok || n != width {
		r.valid = list(idx(1), valid)
	}
	return r
}

// load emits pl.load of a region into res.
func (b *builder) load(res *ir.Var, src ir.Operand, r region) *ir.Var {
	if r.valid != nil {
		return b.value(res, ir.OpLoad, nil, src, r.at, r.shape, r.valid)
	}
	return b.value(res, ir.OpLoad, nil, src, r.at, r.shape)
}

// remoteLoad emits pld.tile.remote_load of a region of peer's copy into res.
func (b *builder) remoteLoad(res *ir.Var, src, peer ir.Operand, r region) *ir.Var {
	if r.valid != nil {
		return b.value(res, ir.OpRemoteLoad, nil, src, peer, r.at, r.shape, r.valid)
	}
	return b.value(res, ir.OpRemoteLoad, nil, src, peer, r.at, r.shape)
}

// store emits dst = pl.store(tile, region, dst): only the tile's valid part
// reaches dst.
func (b *builder) store(dst *ir.Var, tile ir.Operand, r region) {
	b.value(dst, ir.OpStore, []ir.Attr{atomicNone}, tile, r.at, dst)
}
