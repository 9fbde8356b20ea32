// Package floats holds the numbers of the engine's wire forms: Float and
// Floats write NaN and the infinities, which JSON lacks, as strings;
// TensorJSON is a tensor on the wire; Close is the comparison tolerance
// every check of outputs uses (torch.allclose's).
package floats

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"pldworkbench/engine/ir"
)

// Floats is tensor data on the wire. JSON has no NaN or infinity, and a
// learner's program can make both, so those elements are written as the
// strings "NaN", "Infinity" and "-Infinity"; every finite element is a
// number, written as encoding/json writes a float64 (a TensorJSON of
// FP32, FP16 or BF16 writes its Floats as float32s: AppendData).
type Floats []float64

// MarshalJSON writes the elements.
func (f Floats) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+len(f)*8)
	b = append(b, '[')
	for i, v := range f {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendElem(b, v)
	}
	return append(b, ']'), nil
}

// AppendElem appends one tensor element as Floats writes it: a number, or
// "NaN", "Infinity", "-Infinity" as strings.
func AppendElem(b []byte, v float64) []byte {
	u := math.Float64bits(v)
	switch {
	case u&(0x7ff<<52) == 0x7ff<<52: // NaN or an infinity
		return appendNonFinite(b, v)
	case math.Abs(v) < 1e16 && v == float64(int64(v)) && u != 1<<63:
		// An integer other than -0 (the index, ones and zeros fills, INT
		// tensors): the digits strconv's shortest 'f' form writes, for a
		// fraction of its cost (TestIntegerFastPath, BenchmarkAppendElem).
		return appendInt(b, int64(v))
	}
	return appendNumber(b, v)
}

// appendNonFinite appends v, a NaN or an infinity, as the string JSON
// cannot spell as a number.
func appendNonFinite(b []byte, v float64) []byte {
	switch {
	case v != v:
		return append(b, `"NaN"`...)
	case v > 0:
		return append(b, `"Infinity"`...)
	}
	return append(b, `"-Infinity"`...)
}

// AppendElems appends the elements of f as AppendElem does, separated
// by commas, with a comma first when lead is set. The shortest digits of
// a batch of elements are found first, then all are written: finding
// one element's digits is a chain of dependent multiplies, and
// independent chains side by side overlap (5-10% less time an element
// than AppendElem in a loop, BenchmarkAppendElem).
func AppendElems(b []byte, f []float64, lead bool) []byte { return appendElems(b, f, lead, false) }

// appendElems is AppendElems, or AppendElems32 when f32 is set: one batch
// loop for both (the branch on f32 goes the same way for every element,
// so it costs nothing measurable, BenchmarkAppendElem).
func appendElems(b []byte, f []float64, lead, f32 bool) []byte {
	const batch = 16
	var ds [batch]uint64
	var es [batch]int
	for len(f) > 0 {
		n := min(len(f), batch)
		for i, v := range f[:n] {
			ds[i] = 0 // not a normal non-integer: AppendElem or AppendElem32 writes it
			if f32 {
				x := float32(v)
				if u := math.Float32bits(x); u&(0xff<<23) != 0 && u&(0xff<<23) != 0xff<<23 &&
					!(x < 1<<28 && x > -1<<28 && x == float32(int32(x)) && intDigits32(u, int32(x))) {
					ds[i], es[i] = shortest32(u &^ (1 << 31))
				}
			} else if u := math.Float64bits(v); u&(0x7ff<<52) != 0 && u&(0x7ff<<52) != 0x7ff<<52 &&
				!(math.Abs(v) < 1e16 && v == float64(int64(v))) {
				ds[i], es[i] = shortest(u &^ (1 << 63))
			}
		}
		for i, v := range f[:n] {
			if lead || i > 0 {
				b = append(b, ',')
			}
			switch {
			case ds[i] == 0 && f32:
				b = AppendElem32(b, v)
			case ds[i] == 0:
				b = AppendElem(b, v)
			case f32:
				x := float32(v)
				b = appendDigits(b, uint64(math.Float32bits(x)>>31), exp32(x), ds[i], es[i])
			default:
				b = appendDecimal(b, math.Float64bits(v), ds[i], es[i])
			}
		}
		f, lead = f[n:], true
	}
	return b
}

// appendFloat formats v the way encoding/json does.
func appendFloat(b []byte, v float64) []byte {
	abs := math.Abs(v)
	return appendStrconv(b, v, abs != 0 && (abs < 1e-6 || abs >= 1e21), 64)
}

// appendStrconv formats v through strconv as encoding/json formats a float
// of bitSize bits (32: v holds a float32), in the exponent form when exp.
func appendStrconv(b []byte, v float64, exp bool, bitSize int) []byte {
	format := byte('f')
	if exp {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, bitSize)
	if exp {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *Floats) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make([]float64, len(raw))
	for i, r := range raw {
		if len(r) > 0 && r[0] == '"' {
			var s string
			if err := json.Unmarshal(r, &s); err != nil {
				return err
			}
			switch s {
			case "NaN":
				out[i] = math.NaN()
			case "Infinity":
				out[i] = math.Inf(1)
			case "-Infinity":
				out[i] = math.Inf(-1)
			default:
				return fmt.Errorf("tensor element %q is not a number", s)
			}
			continue
		}
		if err := json.Unmarshal(r, &out[i]); err != nil {
			return err
		}
	}
	*f = out
	return nil
}

// Float is a float64 that JSON writes as null when it is NaN or an
// infinity (JSON has neither), and reads null back as NaN: a maximum
// difference that a NaN output made NaN still encodes.
type Float float64

// MarshalJSON writes f as encoding/json writes a float64, or null.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// Tolerance is torch.allclose's default in the upstream harness:
// |a-b| <= atol + rtol*|b| with rtol = atol = 1e-5.
const Tolerance = 1e-5

// Close reports whether got is within Tolerance of want, torch.allclose's
// test |got-want| <= atol + rtol*|want|. NaN is close to nothing.
func Close(got, want float64) bool {
	return math.Abs(got-want) <= Tolerance+Tolerance*math.Abs(want)
}

// TensorJSON is a tensor on the wire: data flat, row-major, NaN and the
// infinities as strings (Floats), so a program that makes them still has
// its run encoded; FP32, FP16 and BF16 data with float32 digits
// (MarshalJSON). Data read back from FP32 text is the float64 nearest
// those digits: float32(x) of it is the element again.
type TensorJSON struct {
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
	Data  Floats `json:"data"`
}

// MarshalJSON writes t as encoding/json writes the struct, but its data
// as a tensor of its dtype holds them (AppendData): FP32, FP16 and BF16
// elements with a float32's shortest digits, the rest as Floats does.
func (t *TensorJSON) MarshalJSON() ([]byte, error) {
	dtype, err := json.Marshal(t.DType)
	if err != nil {
		return nil, err
	}
	shape, err := json.Marshal(t.Shape)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, 32+len(dtype)+len(shape)+len(t.Data)*12)
	b = append(b, `{"dtype":`...)
	b = append(b, dtype...)
	b = append(b, `,"shape":`...)
	b = append(b, shape...)
	b = append(b, `,"data":`...)
	b = AppendData(b, t.DType, t.Data) // nil data too: "[]", as Floats writes it
	return append(b, '}'), nil
}

// NewTensorJSON is the wire form of a tensor of dtype and shape holding
// data (an emulator tensor's fields).
func NewTensorJSON(dtype ir.DType, shape []int, data []float64) *TensorJSON {
	if data == nil {
		data = []float64{}
	}
	if shape == nil {
		shape = []int{}
	}
	return &TensorJSON{DType: dtype.String(), Shape: shape, Data: data}
}

// RoundTo converts v to what a tensor of dtype d can hold, so inputs are
// exactly the values the device would see. FP16 and BF16 go through the
// emulator's own rounding when it stores them; here FP32 rounding and
// integer truncation are enough for inputs that are indices or normals.
func RoundTo(d ir.DType, v float64) float64 {
	switch {
	case d == ir.FP32:
		return float64(float32(v))
	case d.IsInt():
		return math.Trunc(v)
	case d.IsBool():
		if v != 0 {
			return 1
		}
		return 0
	}
	return v
}
