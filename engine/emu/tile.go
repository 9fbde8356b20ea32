package emu

import (
	"encoding/binary"
	"math"
	"slices"
	"unsafe"

	"pldworkbench/engine/ir"
)

// Tile compute: pl.add, pl.sub, pl.mul, pl.div, pl.maximum, pl.minimum on
// two tiles (broadcasting extents of 1) or a tile and a scalar, and pl.cast.
// Float tiles compute in float32 and round the result to their dtype, as
// the vector unit does for FP32, FP16 and BF16; integer tiles compute in
// int64 and wrap to their width.

// f32At reads the FP32 element at byte offset i.
func f32At(b []byte, i int) float32 { return math.Float32frombits(le.Uint32(b[i : i+4])) }

// f32Put writes the FP32 element at byte offset i.
func f32Put(b []byte, i int, v float32) { le.PutUint32(b[i:i+4], math.Float32bits(v)) }

// nativeLE reports whether this machine stores a float32 the way the
// device does, so FP32 bytes can be read in place as []float32.
var nativeLE = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// asF32 views FP32 bytes as float32s without copying, or returns nil when
// that is not possible (a big-endian host, a misaligned slice). Summing
// through the view runs at about 1 ns per element against 2.5 ns through
// binary.LittleEndian on this machine, and reductions are the data path of
// every all-reduce.
func asF32(b []byte) []float32 {
	if !nativeLE || len(b) < 4 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 != 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

// addF32 is dst = a + b over FP32 bytes: the hot loop of every reduction.
func addF32(dst, a, b []byte) {
	n := len(dst) &^ 3
	a, b = a[:n], b[:n]
	if d, x, y := asF32(dst), asF32(a), asF32(b); d != nil && x != nil && y != nil {
		x, y = x[:len(d)], y[:len(d)]
		for i := range d {
			d[i] = x[i] + y[i]
		}
		return
	}
	for i := 0; i < n; i += 4 {
		f32Put(dst, i, f32At(a, i)+f32At(b, i))
	}
}

// f32Op applies op to two float32 values.
func f32Op(op opKind, x, y float32) float32 {
	switch op {
	case opAdd:
		return x + y
	case opSub:
		return x - y
	case opMul:
		return x * y
	case opDiv:
		return x / y
	case opMax:
		if x != x || y != y {
			return x + y // NaN in, NaN out
		}
		return max(x, y)
	case opMin:
		if x != x || y != y {
			return x + y
		}
		return min(x, y)
	}
	return 0
}

// elemBin is the scalar operator of each element-wise op, so integer
// elements are computed by ir.IntArith, the rule the checker folds
// constants with and the scalar path runs (// truncating, as pl.div on
// integer tiles does).
var elemBin = [...]ir.BinOp{opAdd: ir.Add, opSub: ir.Sub, opMul: ir.Mul, opDiv: ir.FloorDiv, opMax: ir.Max, opMin: ir.Min}

// broadcastShape returns the element-wise result shape of a and b.
func broadcastShape(a, b []int) ([]int, bool) {
	if len(a) != len(b) {
		return nil, false
	}
	out := make([]int, len(a))
	for i := range a {
		switch {
		case a[i] == b[i]:
			out[i] = a[i]
		case a[i] == 1:
			out[i] = b[i]
		case b[i] == 1:
			out[i] = a[i]
		default:
			return nil, false
		}
	}
	return out, true
}

// tileBinary computes op over tile a and either tile b or the scalar s of
// dtype sdt into out (a tile of dtype dt and the result's shape, possibly
// a itself, when a's valid shape is the result's already). out.valid,
// when it has an extent per dimension, is the result's own and is filled
// in place. ok is false on an integer division by zero.
func tileBinary(op opKind, dt ir.DType, a, b *tile, s val, sdt ir.DType, out *tile) (*tile, bool) {
	shape := out.shape
	if out != a {
		valid := out.valid
		if len(valid) != len(shape) {
			valid = make([]int, len(shape))
		}
		for i := range shape {
			valid[i] = shape[i]
			if a.shape[i] == shape[i] {
				valid[i] = a.valid[i]
			}
		}
		out.valid = valid
	}
	if dt == ir.FP32 && a.dt == ir.FP32 {
		switch {
		case b != nil && b.dt == ir.FP32 && slices.Equal(a.shape, b.shape):
			if op == opAdd {
				addF32(out.data, a.data, b.data)
				return out, true
			}
			for i := 0; i < len(out.data); i += 4 {
				f32Put(out.data, i, f32Op(op, f32At(a.data, i), f32At(b.data, i)))
			}
			return out, true
		case b == nil:
			y := float32(s.num(sdt))
			for i := 0; i < len(out.data); i += 4 {
				f32Put(out.data, i, f32Op(op, f32At(a.data, i), y))
			}
			return out, true
		}
	}
	// The general path: any dtypes, broadcasting by index.
	n := numElems(shape)
	aesz, oesz := a.dt.Bytes(), dt.Bytes()
	var bst, ast []int
	var besz int
	if b != nil {
		besz = b.dt.Bytes()
		ast, bst = bcastStrides(a.shape, shape), bcastStrides(b.shape, shape)
	}
	ost := strides(shape)
	for i := 0; i < n; i++ {
		ai, bi := i, i
		if b != nil && !slices.Equal(a.shape, b.shape) {
			ai, bi = 0, 0
			rem := i
			for k := range shape {
				x := rem / ost[k]
				rem %= ost[k]
				ai += x * ast[k]
				bi += x * bst[k]
			}
		}
		av := getVal(a.data[ai*aesz:], a.dt)
		bv, bdt := s, sdt
		if b != nil {
			bv, bdt = getVal(b.data[bi*besz:], b.dt), b.dt
		}
		dst := out.data[i*oesz:]
		if dt.IsFloat() {
			putFloat(dst, dt, float64(f32Op(op, float32(av.num(a.dt)), float32(bv.num(bdt)))))
			continue
		}
		r, fine := ir.IntArith(elemBin[op], av.integer(a.dt), bv.integer(bdt))
		if !fine {
			return nil, false
		}
		putInt(dst, dt, r)
	}
	return out, true
}

// bcastStrides returns the strides of shape within a broadcast to full:
// 0 along the dimensions it broadcasts.
func bcastStrides(shape, full []int) []int {
	st := strides(shape)
	for i := range shape {
		if shape[i] == 1 && full[i] != 1 {
			st[i] = 0
		}
	}
	return st
}

// castMode is the rounding of a float-to-integer cast (CANN's CastMode;
// its order gives the integer form of mode=).
type castMode uint8

const (
	castNone  castMode = iota // truncate
	castRint                  // nearest, ties to even
	castRound                 // nearest, ties away from zero
	castFloor
	castCeil
	castTrunc
	castOdd // truncate, then make an inexact result odd
)

var castModeNames = map[string]castMode{
	"none": castNone, "rint": castRint, "round": castRound, "floor": castFloor,
	"ceil": castCeil, "trunc": castTrunc, "odd": castOdd,
}

// roundWith rounds v to an integral value by mode.
func roundWith(mode castMode, v float64) float64 {
	switch mode {
	case castRint:
		return math.RoundToEven(v)
	case castRound:
		return math.Round(v)
	case castFloor:
		return math.Floor(v)
	case castCeil:
		return math.Ceil(v)
	case castOdd:
		t := math.Trunc(v)
		if t != v && math.Mod(t, 2) == 0 {
			if v > 0 {
				t++
			} else {
				t--
			}
		}
		return t
	}
	return math.Trunc(v)
}

// castTile converts every element of t to dtype to. Float to float rounds
// to nearest-even; float to integer rounds by mode, then wraps.
// out is the result tile, of t's shape in dtype to.
func castTile(out, t *tile, mode castMode) *tile {
	to := out.dt
	fesz, tesz := t.dt.Bytes(), to.Bytes()
	n := numElems(t.shape)
	for i := 0; i < n; i++ {
		src, dst := t.data[i*fesz:], out.data[i*tesz:]
		switch {
		case to.IsFloat():
			putFloat(dst, to, getFloat(src, t.dt))
		case t.dt.IsFloat():
			putInt(dst, to, floatToInt(to, roundWith(mode, getFloat(src, t.dt))))
		default:
			putInt(dst, to, getInt(src, t.dt))
		}
	}
	return out
}
