package emu

import (
	"encoding/json"
	"fmt"

	"pldworkbench/engine/ir"
)

// Tensor is a host tensor at the API boundary: a data type, a row-major
// shape and its elements, held in one of two forms. A tensor made from
// float64s (NewTensor) keeps them; one a run hands back, or one made by
// Zeros, Iota or NewTensorBytes, keeps its dtype's little-endian bytes,
// 4 bytes an FP32 element rather than 8 (the outputs of a run alias the
// host tensor's own memory: nothing is copied or converted when it ends).
// Floats converts a byte-form tensor to float64s when a caller asks for
// them, once. Integer elements are exact (INT64 values beyond 2^53 are
// not as float64s). Inside a run every tensor is raw bytes of its dtype;
// Run converts float64 inputs at the boundary, rounding FP32, FP16 and
// BF16 inputs the way a torch tensor of that dtype would hold them and
// truncating integer inputs toward zero.
//
// The bytes of a tensor are never written in place once it exists (Set
// and Floats move it to the float64 form), so tensors may share them: a
// run reads a byte-form input without copying it, and copies it only
// where the program writes it. Like a slice, a Tensor is not safe for
// concurrent use when one of the users calls Floats or Set.
type Tensor struct {
	DType ir.DType
	Shape []int
	f64   []float64 // the float64 form, or nil
	raw   []byte    // the byte form, when f64 is nil
}

// NewTensor returns a tensor of dtype dt and shape holding data (which it
// keeps, not copies). A nil data means zeros. It panics when len(data) does
// not match the shape, which is a programming error.
func NewTensor(dt ir.DType, shape []int, data []float64) *Tensor {
	n := numElems(shape)
	if data == nil {
		data = make([]float64, n)
	}
	if len(data) != n {
		panic(fmt.Sprintf("emu.NewTensor: %d values for shape %v (%d elements)", len(data), shape, n))
	}
	return &Tensor{DType: dt, Shape: append([]int(nil), shape...), f64: data}
}

// NewTensorBytes returns a tensor of dtype dt and shape whose elements are
// raw, little-endian bytes of dt (kept, not copied; the caller must not
// change them afterwards). It panics when the length does not match.
func NewTensorBytes(dt ir.DType, shape []int, raw []byte) *Tensor {
	if n := numElems(shape) * dt.Bytes(); len(raw) != n {
		panic(fmt.Sprintf("emu.NewTensorBytes: %d bytes for shape %v of %s (%d bytes)", len(raw), shape, dt, n))
	}
	return &Tensor{DType: dt, Shape: append([]int(nil), shape...), raw: raw}
}

// Zeros returns a zero tensor of dtype dt and shape, in the byte form.
func Zeros(dt ir.DType, shape ...int) *Tensor {
	return &Tensor{DType: dt, Shape: append([]int(nil), shape...), raw: make([]byte, numElems(shape)*dt.Bytes())}
}

// Iota returns a tensor whose element i (in flat row-major order) is i,
// converted to dt: the `--fill index` input.
func Iota(dt ir.DType, shape ...int) *Tensor {
	n := numElems(shape)
	data := make([]float64, n)
	for i := range data {
		data[i] = roundScalar(dt, float64(i))
	}
	return NewTensor(dt, shape, data)
}

// NewTensorFunc returns a tensor of dtype dt and shape, in the byte form,
// whose element i (flat, row-major) is f(i) as NewTensor would hold it
// once a run converts it: the same bytes, without a float64 copy of every
// element on the way (an input of 16 Mi FP32 per rank at P = 8 is
// 512 MiB of bytes, 1 GiB more as float64s).
func NewTensorFunc(dt ir.DType, shape []int, f func(i int) float64) *Tensor {
	t := Zeros(dt, shape...)
	t.FillRange(0, t.Len(), f)
	return t
}

// FillRange sets elements lo to hi-1 (flat, row-major) of t, which must
// be in the byte form (Zeros, NewTensorFunc), to f(i) as NewTensorFunc
// does. It writes those bytes only, so a caller that publishes how far it
// got (through an atomic) may let another goroutine read the elements
// before lo meanwhile: run --json formats its inputs as they are made.
func (t *Tensor) FillRange(lo, hi int, f func(i int) float64) {
	dt := t.DType
	if v := asF32(t.raw); v != nil && dt == ir.FP32 {
		for i := lo; i < hi; i++ {
			v[i] = float32(f(i))
		}
		return
	}
	esz := dt.Bytes()
	for i := lo; i < hi; i++ {
		putFloat(t.raw[i*esz:], dt, roundScalar(dt, f(i)))
	}
}

// Len returns the element count.
func (t *Tensor) Len() int { return numElems(t.Shape) }

// Floats returns the elements as float64s. A tensor in the float64 form
// returns its own slice, so writes through it change the tensor; a tensor
// in the byte form is converted first, once, and keeps the float64 form
// from then on.
func (t *Tensor) Floats() []float64 {
	if t.f64 == nil {
		t.f64 = decodeFloats(t.DType, t.raw, t.Len())
		t.raw = nil
	}
	return t.f64
}

// Float returns the element at flat index i as a float64, in either form,
// without converting the tensor.
func (t *Tensor) Float(i int) float64 {
	if t.f64 != nil {
		return t.f64[i]
	}
	esz := t.DType.Bytes()
	return getFloat(t.raw[i*esz:], t.DType)
}

// FloatsAt decodes the elements from flat index i on into dst, as many as
// fit, and returns how many it wrote. It reads either form without
// converting the tensor: a writer that streams a large output (run
// --json) goes through it a chunk at a time instead of keeping a float64
// copy of every element beside the dtype's bytes.
func (t *Tensor) FloatsAt(dst []float64, i int) int {
	if t.f64 != nil {
		return copy(dst, t.f64[i:])
	}
	n := min(len(dst), t.Len()-i)
	if n <= 0 {
		return 0
	}
	esz := t.DType.Bytes()
	raw := t.raw[i*esz : (i+n)*esz]
	if t.DType == ir.FP32 {
		if v := asF32(raw); v != nil {
			for k, x := range v {
				dst[k] = float64(x)
			}
			return n
		}
	}
	for k := range n {
		dst[k] = getFloat(raw[k*esz:], t.DType)
	}
	return n
}

// Float32sAt is FloatsAt into float32s: the elements from flat index i on
// as float32(v), as many as fit in dst. An FP32 tensor in the byte form
// is copied straight from its bytes, the way run --json reads FP32, FP16
// and BF16 outputs (they are written with float32 digits).
func (t *Tensor) Float32sAt(dst []float32, i int) int {
	if t.f64 != nil {
		n := min(len(dst), len(t.f64)-i)
		if n <= 0 {
			return 0
		}
		for k, v := range t.f64[i : i+n] {
			dst[k] = float32(v)
		}
		return n
	}
	n := min(len(dst), t.Len()-i)
	if n <= 0 {
		return 0
	}
	esz := t.DType.Bytes()
	raw := t.raw[i*esz : (i+n)*esz]
	if t.DType == ir.FP32 {
		if v := asF32(raw); v != nil {
			return copy(dst, v)
		}
	}
	for k := range n {
		dst[k] = float32(getFloat(raw[k*esz:], t.DType))
	}
	return n
}

// storedElems is how many elements t's storage holds (a Tensor built as
// a literal has none).
func (t *Tensor) storedElems() int {
	if t.f64 != nil {
		return len(t.f64)
	}
	if esz := t.DType.Bytes(); esz > 0 {
		return len(t.raw) / esz
	}
	return 0
}

// IsBytes reports whether t holds its dtype's bytes rather than float64s.
func (t *Tensor) IsBytes() bool { return t.f64 == nil }

// bytes returns t's elements as little-endian bytes of its dtype: its own
// when it holds them (shared: never write them), else a conversion.
func (t *Tensor) bytes() (b []byte, shared bool) {
	if t.f64 == nil {
		return t.raw, true
	}
	b = make([]byte, len(t.f64)*t.DType.Bytes())
	if f := asF32(b); f != nil && t.DType == ir.FP32 {
		for k, v := range t.f64 {
			f[k] = float32(v)
		}
		return b, false
	}
	esz := t.DType.Bytes()
	for k, v := range t.f64 {
		putFloat(b[k*esz:], t.DType, roundScalar(t.DType, v))
	}
	return b, false
}

// decodeFloats converts n elements of dt at raw to float64s.
func decodeFloats(dt ir.DType, raw []byte, n int) []float64 {
	out := make([]float64, n)
	if dt == ir.FP32 {
		if v := asF32(raw); v != nil {
			for i, x := range v[:n] {
				out[i] = float64(x)
			}
			return out
		}
	}
	esz := dt.Bytes()
	for i := range out {
		out[i] = getFloat(raw[i*esz:], dt)
	}
	return out
}

// Clone returns a deep copy of t, in the same form.
func (t *Tensor) Clone() *Tensor {
	c := &Tensor{DType: t.DType, Shape: append([]int(nil), t.Shape...)}
	if t.f64 != nil {
		c.f64 = append([]float64(nil), t.f64...)
	} else {
		c.raw = append([]byte(nil), t.raw...)
	}
	return c
}

// offset returns the flat index of idx, panicking when it is out of range.
func (t *Tensor) offset(idx []int) int {
	if len(idx) != len(t.Shape) {
		panic(fmt.Sprintf("emu.Tensor: %d indices for shape %v", len(idx), t.Shape))
	}
	off := 0
	for i, x := range idx {
		if x < 0 || x >= t.Shape[i] {
			panic(fmt.Sprintf("emu.Tensor: index %v out of range for shape %v", idx, t.Shape))
		}
		off = off*t.Shape[i] + x
	}
	return off
}

// At returns the element at idx.
func (t *Tensor) At(idx ...int) float64 { return t.Float(t.offset(idx)) }

// Set stores v at idx, rounded to the tensor's dtype.
func (t *Tensor) Set(v float64, idx ...int) { t.Floats()[t.offset(idx)] = roundScalar(t.DType, v) }

// Row returns the flat data of t[i] as float64s (a view of Floats, not a
// copy): the slice rank i sees of a per-rank host tensor.
func (t *Tensor) Row(i int) []float64 {
	if len(t.Shape) == 0 || i < 0 || i >= t.Shape[0] {
		panic(fmt.Sprintf("emu.Tensor: row %d out of range for shape %v", i, t.Shape))
	}
	data := t.Floats()
	n := len(data) / t.Shape[0]
	return data[i*n : (i+1)*n]
}

// tensorJSON is the wire form: the dtype by name.
type tensorJSON struct {
	DType string    `json:"dtype"`
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

// MarshalJSON writes {"dtype": "FP32", "shape": [...], "data": [...]}.
func (t *Tensor) MarshalJSON() ([]byte, error) {
	shape, data := t.Shape, t.Floats()
	if shape == nil {
		shape = []int{}
	}
	if data == nil {
		data = []float64{}
	}
	return json.Marshal(tensorJSON{DType: t.DType.String(), Shape: shape, Data: data})
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (t *Tensor) UnmarshalJSON(b []byte) error {
	var w tensorJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	dt, ok := ir.DTypeByName(w.DType)
	if !ok {
		return fmt.Errorf("unknown dtype %q", w.DType)
	}
	if len(w.Data) != numElems(w.Shape) {
		return fmt.Errorf("%d values for shape %v", len(w.Data), w.Shape)
	}
	*t = Tensor{DType: dt, Shape: w.Shape, f64: w.Data}
	return nil
}

// checkedElems is numElems that reports false when the count does not fit
// in 2^48 (a shape from the program can be anything).
func checkedElems(shape []int) (int64, bool) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 || (d > 0 && n > (1<<48)/int64(d)) {
			return 0, false
		}
		n *= int64(d)
	}
	return n, true
}

func numElems(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}
