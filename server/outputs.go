package server

import (
	"math"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
	"pldworkbench/engine/limits"
)

func statsOf(data []float64) tensorStats {
	st := tensorStats{Count: int64(len(data))}
	lo, hi, sum, n := math.Inf(1), math.Inf(-1), 0.0, 0
	for _, v := range data {
		if math.IsNaN(v) {
			st.NaN++
			continue
		}
		lo, hi, sum, n = math.Min(lo, v), math.Max(hi, v), sum+v, n+1
	}
	if n > 0 {
		st.Min, st.Max, st.Mean = floats.Float(lo), floats.Float(hi), floats.Float(sum/float64(n))
	} else {
		st.Min, st.Max, st.Mean = floats.Float(math.NaN()), floats.Float(math.NaN()), floats.Float(math.NaN())
	}
	return st
}

// capOutputs turns a run's outputs, in order, into what is sent and
// stored: whole while the running total of elements stays within full,
// else per-rank prefixes of prefix elements.
func capOutputs(order []string, outs map[string]*floats.TensorJSON, full, prefix int) map[string]*outTensor {
	res := make(map[string]*outTensor, len(order))
	left := full
	for _, name := range order {
		t := outs[name]
		if t == nil {
			continue
		}
		o := &outTensor{TensorJSON: *t, Stats: statsOf(t.Data)}
		if len(t.Data) <= left {
			left -= len(t.Data)
			res[name] = o
			continue
		}
		left = 0
		rows := 1
		if len(t.Shape) > 1 && t.Shape[0] > 0 {
			rows = t.Shape[0]
		}
		per := len(t.Data) / rows
		k := min(prefix, per)
		data := make([]float64, 0, rows*k)
		for r := 0; r < rows; r++ {
			data = append(data, t.Data[r*per:r*per+k]...)
		}
		o.FullShape = t.Shape
		o.Shape = []int{rows, k}
		if len(t.Shape) <= 1 {
			o.Shape = []int{k}
		}
		o.Data = data
		o.Truncated = true
		res[name] = o
	}
	return res
}

// defaultCap caps a run's outputs with the table's limits.
func defaultCap(order []string, outs map[string]*emu.Tensor) map[string]*outTensor {
	wire := make(map[string]*floats.TensorJSON, len(order))
	for _, name := range order {
		if t, ok := outs[name]; ok {
			wire[name] = floats.NewTensorJSON(t.DType, t.Shape, t.Floats())
		}
	}
	return capOutputs(order, wire, limits.OutputFull, limits.OutputPrefix)
}
