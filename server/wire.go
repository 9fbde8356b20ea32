package server

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
)

// floats is tensor data on the wire. JSON has no NaN or infinity, and a
// learner's program can make both, so those elements are written as the
// strings "NaN", "Infinity" and "-Infinity"; every finite element is a
// number, written as encoding/json writes a float64.
type floats []float64

// MarshalJSON writes the elements.
func (f floats) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+len(f)*8)
	b = append(b, '[')
	for i, v := range f {
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case math.IsNaN(v):
			b = append(b, `"NaN"`...)
		case math.IsInf(v, 1):
			b = append(b, `"Infinity"`...)
		case math.IsInf(v, -1):
			b = append(b, `"-Infinity"`...)
		default:
			b = appendFloat(b, v)
		}
	}
	return append(b, ']'), nil
}

// appendFloat formats v the way encoding/json does.
func appendFloat(b []byte, v float64) []byte {
	abs := math.Abs(v)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, v, format, -1, 64)
	if format == 'e' {
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
func (f *floats) UnmarshalJSON(b []byte) error {
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

// tensor is a tensor on the wire: {dtype, shape, data}, data flat,
// row-major.
type tensor struct {
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
	Data  floats `json:"data"`
}

func wireTensor(t *engine.TensorJSON) *tensor {
	if t == nil {
		return nil
	}
	shape := t.Shape
	if shape == nil {
		shape = []int{}
	}
	return &tensor{DType: t.DType, Shape: shape, Data: floats(t.Data)}
}

func wireTensors(m map[string]*engine.TensorJSON) map[string]*tensor {
	out := make(map[string]*tensor, len(m))
	for k, t := range m {
		out[k] = wireTensor(t)
	}
	return out
}

// runJSON is an engine.RunResult on the wire (compare's sides), with
// tensors that survive NaN.
type runJSON struct {
	Status       emu.Status         `json:"status"`
	Ranks        int                `json:"ranks"`
	Entry        string             `json:"entry"`
	Inputs       map[string]*tensor `json:"inputs"`
	Outputs      map[string]*tensor `json:"outputs"`
	Diagnostics  []diag.JSON        `json:"diagnostics"`
	Deadlock     *emu.Deadlock      `json:"deadlock,omitempty"`
	Error        *emu.RunError      `json:"error,omitempty"`
	Races        []emu.Race         `json:"races"`
	RacesOmitted int                `json:"races_omitted,omitempty"`
	Stats        emu.Stats          `json:"stats"`
}

func wireRun(r *engine.RunResult) *runJSON {
	return &runJSON{
		Status: r.Status, Ranks: r.Ranks, Entry: r.Entry,
		Inputs: wireTensors(r.Inputs), Outputs: wireTensors(r.Outputs),
		Diagnostics: r.Diagnostics, Deadlock: r.Deadlock, Error: r.Error,
		Races: r.Races, RacesOmitted: r.RacesOmitted, Stats: r.Stats,
	}
}

// jfloat is a float64 that writes NaN and infinities as null.
type jfloat float64

// MarshalJSON writes f, or null when it is not finite.
func (f jfloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return appendFloat(nil, v), nil
}
