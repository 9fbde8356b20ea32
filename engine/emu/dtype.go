package emu

import (
	"encoding/binary"
	"math"

	"pldworkbench/engine/ir"
)

// Element storage: every element is its dtype's bytes, little-endian, as on
// the device. This file converts between those bytes and the two scalar
// forms the interpreter computes in, int64 (integers, BOOL) and float64
// (floats), with the rounding each dtype needs.

var le = binary.LittleEndian

// supported reports whether the emulator holds elements of dt. The 4- and
// 8-bit float formats and INT4/UINT4 are not modelled.
func supported(dt ir.DType) bool {
	switch dt {
	case ir.BOOL, ir.INT8, ir.INT16, ir.INT32, ir.INT64, ir.INDEX,
		ir.UINT8, ir.UINT16, ir.UINT32, ir.UINT64, ir.FP16, ir.BF16, ir.FP32:
		return true
	}
	return false
}

// wrapInt reduces v to the range of integer dtype dt, two's complement, as
// a register of that width would hold it (INT32 wraps at 2^31).
func wrapInt(dt ir.DType, v int64) int64 {
	switch dt {
	case ir.BOOL:
		if v != 0 {
			return 1
		}
		return 0
	case ir.INT8:
		return int64(int8(v))
	case ir.INT16:
		return int64(int16(v))
	case ir.INT32:
		return int64(int32(v))
	case ir.UINT8:
		return int64(uint8(v))
	case ir.UINT16:
		return int64(uint16(v))
	case ir.UINT32:
		return int64(uint32(v))
	}
	return v
}

// roundFloat rounds v to float dtype dt: FP32 to single precision, FP16 and
// BF16 through float32 to nearest-even half or bfloat16.
func roundFloat(dt ir.DType, v float64) float64 {
	switch dt {
	case ir.FP32:
		return float64(float32(v))
	case ir.FP16:
		return float64(f16ToF32(f32ToF16(float32(v))))
	case ir.BF16:
		return float64(bf16ToF32(f32ToBF16(float32(v))))
	}
	return v
}

// floatToInt converts a float to an integer toward zero, saturating at the
// int64 range (NaN becomes 0), before wrapping to dt.
func floatToInt(dt ir.DType, v float64) int64 {
	switch {
	case math.IsNaN(v):
		return 0
	case v >= math.MaxInt64:
		return wrapInt(dt, math.MaxInt64)
	case v <= math.MinInt64:
		return wrapInt(dt, math.MinInt64)
	}
	return wrapInt(dt, int64(v))
}

// roundScalar converts an API value to what an element of dt holds.
func roundScalar(dt ir.DType, v float64) float64 {
	if dt.IsFloat() {
		return roundFloat(dt, v)
	}
	return float64(floatToInt(dt, v))
}

// getInt reads the integer element at b[0:] of dt.
func getInt(b []byte, dt ir.DType) int64 {
	switch dt {
	case ir.BOOL, ir.UINT8:
		return int64(b[0])
	case ir.INT8:
		return int64(int8(b[0]))
	case ir.INT16:
		return int64(int16(le.Uint16(b)))
	case ir.UINT16:
		return int64(le.Uint16(b))
	case ir.INT32:
		return int64(int32(le.Uint32(b)))
	case ir.UINT32:
		return int64(le.Uint32(b))
	}
	return int64(le.Uint64(b))
}

// putInt writes v as an element of integer dtype dt (wrapping).
func putInt(b []byte, dt ir.DType, v int64) {
	switch dt {
	case ir.BOOL:
		b[0] = byte(wrapInt(dt, v))
	case ir.INT8, ir.UINT8:
		b[0] = byte(v)
	case ir.INT16, ir.UINT16:
		le.PutUint16(b, uint16(v))
	case ir.INT32, ir.UINT32:
		le.PutUint32(b, uint32(v))
	default:
		le.PutUint64(b, uint64(v))
	}
}

// getFloat reads the float element at b[0:] of dt.
func getFloat(b []byte, dt ir.DType) float64 {
	switch dt {
	case ir.FP32:
		return float64(math.Float32frombits(le.Uint32(b)))
	case ir.FP16:
		return float64(f16ToF32(le.Uint16(b)))
	case ir.BF16:
		return float64(bf16ToF32(le.Uint16(b)))
	}
	return float64(getInt(b, dt))
}

// putFloat writes v as an element of float dtype dt, rounding.
func putFloat(b []byte, dt ir.DType, v float64) {
	switch dt {
	case ir.FP32:
		le.PutUint32(b, math.Float32bits(float32(v)))
	case ir.FP16:
		le.PutUint16(b, f32ToF16(float32(v)))
	case ir.BF16:
		le.PutUint16(b, f32ToBF16(float32(v)))
	default:
		putInt(b, dt, floatToInt(dt, v))
	}
}

// getVal reads an element as a scalar value of its dtype.
func getVal(b []byte, dt ir.DType) val {
	if dt.IsFloat() {
		return val{f: getFloat(b, dt)}
	}
	return val{i: getInt(b, dt)}
}

// putVal writes scalar v of dtype from as an element of dt.
func putVal(b []byte, dt ir.DType, v val, from ir.DType) {
	switch {
	case dt.IsFloat():
		putFloat(b, dt, v.num(from))
	case from.IsFloat():
		putInt(b, dt, floatToInt(dt, v.f))
	default:
		putInt(b, dt, v.i)
	}
}

// f32ToF16 rounds f to the nearest IEEE half (ties to even), keeping
// infinities, turning NaN into a quiet NaN and overflow into infinity.
func f32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	switch {
	case exp == 0xff:
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp == 0:
		return sign // float32 subnormals are far below half's smallest value
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e >= 1 {
		h := uint32(e)<<10 | mant>>13
		rem := mant & 0x1fff
		if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
			h++ // a carry into the exponent is the right answer, up to infinity
		}
		return sign | uint16(h)
	}
	// A half subnormal: the value is full * 2^(e-14-10) with full the
	// 24-bit significand, i.e. full >> (14 - e) units of 2^-24.
	full := mant | 0x800000
	s := uint(14 - e)
	if s > 31 {
		return sign
	}
	m := full >> s
	rem := full & (1<<s - 1)
	half := uint32(1) << (s - 1)
	if rem > half || rem == half && m&1 == 1 {
		m++
	}
	return sign | uint16(m)
}

// f16ToF32 widens an IEEE half exactly.
func f16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch exp {
	case 0:
		v := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	case 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// f32ToBF16 rounds f to the nearest bfloat16 (ties to even); NaN stays a
// quiet NaN.
func f32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// bf16ToF32 widens a bfloat16 exactly.
func bf16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }
