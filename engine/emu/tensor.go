package emu

import (
	"encoding/json"
	"fmt"

	"pldworkbench/engine/ir"
)

// Tensor is a host tensor at the API boundary: a data type, a row-major
// shape and one float64 per element. Integer elements are exact (INT64
// values beyond 2^53 are not). Inside a run every tensor is raw
// little-endian bytes of its dtype; Run converts at the boundary, rounding
// FP32, FP16 and BF16 inputs the way a torch tensor of that dtype would
// hold them and truncating integer inputs toward zero.
type Tensor struct {
	DType ir.DType
	Shape []int
	Data  []float64
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
	return &Tensor{DType: dt, Shape: append([]int(nil), shape...), Data: data}
}

// Zeros returns a zero tensor of dtype dt and shape.
func Zeros(dt ir.DType, shape ...int) *Tensor { return NewTensor(dt, shape, nil) }

// Iota returns a tensor whose element i (in flat row-major order) is i,
// converted to dt: the `--fill index` input.
func Iota(dt ir.DType, shape ...int) *Tensor {
	t := Zeros(dt, shape...)
	for i := range t.Data {
		t.Data[i] = roundScalar(dt, float64(i))
	}
	return t
}

// Len returns the element count.
func (t *Tensor) Len() int { return len(t.Data) }

// Clone returns a deep copy of t.
func (t *Tensor) Clone() *Tensor {
	return &Tensor{DType: t.DType, Shape: append([]int(nil), t.Shape...), Data: append([]float64(nil), t.Data...)}
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
func (t *Tensor) At(idx ...int) float64 { return t.Data[t.offset(idx)] }

// Set stores v at idx, rounded to the tensor's dtype.
func (t *Tensor) Set(v float64, idx ...int) { t.Data[t.offset(idx)] = roundScalar(t.DType, v) }

// Row returns the flat data of t[i] (a view, not a copy): the slice rank i
// sees of a per-rank host tensor.
func (t *Tensor) Row(i int) []float64 {
	if len(t.Shape) == 0 || i < 0 || i >= t.Shape[0] {
		panic(fmt.Sprintf("emu.Tensor: row %d out of range for shape %v", i, t.Shape))
	}
	n := len(t.Data) / t.Shape[0]
	return t.Data[i*n : (i+1)*n]
}

// tensorJSON is the wire form: the dtype by name.
type tensorJSON struct {
	DType string    `json:"dtype"`
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

// MarshalJSON writes {"dtype": "FP32", "shape": [...], "data": [...]}.
func (t *Tensor) MarshalJSON() ([]byte, error) {
	shape, data := t.Shape, t.Data
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
	*t = Tensor{DType: dt, Shape: w.Shape, Data: w.Data}
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
