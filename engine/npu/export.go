// Package npu is the real-hardware backend: it hands a checked program over
// to PyPTO's own toolchain instead of imitating it. It has three parts.
//
//   - Export (export.go, driver.go) writes one self-contained Python file:
//     the learner's program byte for byte, then a driver that makes the
//     inputs the workbench makes, compiles the entry with PyPTO
//     (ir.compile for a @pl.program class, .compile for a @pl.jit.host
//     function, as upstream's examples/distributed/*.py main() do), runs it
//     on the device ids it is given, checks the outputs against the step's
//     golden in plain Python, and writes a JSON manifest. PyPTO runs the
//     file unchanged.
//   - Detect (detect.go) finds python3, an importable pypto and its
//     version, and the NPUs (npu-smi, else /dev/davinci* nodes), and says
//     exactly what is missing.
//   - Run and Swimlane (run.go, swimlane.go) run an exported file in a
//     temporary directory under a deadline and a memory limit, read the
//     manifest back, and turn the runtime's per-rank swimlane records into
//     trace events: one slice per task the hardware recorded, never per op.
//
// The package imports only engine/ir, engine/trace and engine/limits (its
// probe's deadline and what a run keeps of the script's output): the
// engine facade checks the program and hands the result in, and nothing
// here runs the emulator.
package npu

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/platform"
)

// Platforms lists the targets PyPTO knows, as its examples' --platform
// choices spell them: each engine/platform row's cards and simulator.
var Platforms = platform.PyPTONames()

// Profile maps a PyPTO platform to the workbench's cost-model profile.
func Profile(name string) (string, bool) {
	p, ok := platform.ByPyPTO(name)
	return p.Name, ok
}

// Param is one host parameter as the driver passes it: tensors in
// signature order, pl.Out ones made as zeros, scalars from the run's args.
type Param struct {
	Name   string
	DType  ir.DType
	Shape  []int
	Dir    ir.Dir
	Scalar bool
	Value  float64 // a scalar's value
}

// Golden is a step's golden written in Python: Code defines
// `golden(p, inp)` over the helpers of goldenPrelude and returns the
// expected flat values of every pl.Out tensor by name. Exact asks for bit
// equality; otherwise floats compare as torch.allclose(rtol=1e-5,
// atol=1e-5) does.
type Golden struct {
	Code  string
	Exact bool
	Prose string // the kernel header's golden line, for the script's header
}

// Spec is everything Export needs. The caller (the engine facade) has
// checked the program at Ranks and resolved the entry.
type Spec struct {
	File     string // the program's file name, for the header
	Source   []byte
	Entry    string // the entry expression, {P} expanded
	Ranks    int
	Platform string // one of Platforms
	Fill     string // index, ones, zeros or randn
	Seed     uint64
	Params   []Param
	// Program is set when the entry is a method of a @pl.program class:
	// the expression naming the class (Entry without ".method"), and
	// Method, the host orchestrator to call when the class has several.
	Program string
	Method  string
	// Inputs holds, for randn, the values of every input tensor by name,
	// already rounded to its dtype; Export writes them to the data file.
	Inputs map[string][]float64
	// DataFile is the base name of the randn data file beside the script.
	DataFile string
	Golden   *Golden
	NoGolden string // why there is no golden, said in the script
}

// Export writes the script for spec and, for randn inputs, the data file
// it reads (nil otherwise).
func Export(spec Spec) (script, data []byte, err error) {
	if _, ok := Profile(spec.Platform); !ok {
		return nil, nil, fmt.Errorf("platform %q unknown: want one of %s", spec.Platform, strings.Join(Platforms, ", "))
	}
	if bytes.Contains(spec.Source, []byte("from __future__")) {
		// A __future__ import must open the module, and the driver's
		// prologue has to come first.
		return nil, nil, fmt.Errorf("%s has a `from __future__` import, which must stay the file's first statement; the exported file needs its own first lines: remove the import", spec.File)
	}
	if spec.Fill == "randn" {
		if spec.DataFile == "" {
			return nil, nil, fmt.Errorf("randn inputs need a data file name")
		}
		// A program without input tensors has nothing to write.
		if data = inputData(spec); len(data) == 0 {
			data = nil
		}
	}
	var b strings.Builder
	if err := writeScript(&b, spec, data); err != nil {
		return nil, nil, err
	}
	return []byte(b.String()), data, nil
}

// inputData lays the randn inputs out as the driver reads them: for every
// input tensor in signature order, its elements as little-endian float64s.
// Each value is already what its dtype holds, so the driver's conversion
// is exact and both sides see the same numbers.
func inputData(spec Spec) []byte {
	var buf bytes.Buffer
	for _, p := range spec.Params {
		if p.Scalar || p.Dir == ir.Out {
			continue
		}
		for _, v := range spec.Inputs[p.Name] {
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], math.Float64bits(v))
			buf.Write(w[:])
		}
	}
	return buf.Bytes()
}

// torchDTypes names the torch dtype of every element type a host tensor
// may have; the others (FP8, FP4, the sub-byte integers) have no torch
// tensor to hand PyPTO and are refused at export.
var torchDTypes = map[ir.DType]string{
	ir.BOOL: "torch.bool", ir.INT8: "torch.int8", ir.INT16: "torch.int16", ir.INT32: "torch.int32",
	ir.INT64: "torch.int64", ir.UINT8: "torch.uint8", ir.INDEX: "torch.int64",
	ir.FP16: "torch.float16", ir.BF16: "torch.bfloat16", ir.FP32: "torch.float32",
}

// TorchDType returns the torch dtype the driver makes a tensor of d with.
func TorchDType(d ir.DType) (string, bool) {
	s, ok := torchDTypes[d]
	return s, ok
}

// ParamsOf lists the entry's host parameters with their shapes at the
// program's rank count (a dynamic dimension is the rank count, as
// engine.MakeInputs binds it) and scalar values from args.
func ParamsOf(prog *ir.Program, args map[string]float64) ([]Param, error) {
	var out []Param
	for _, p := range prog.Entry.Params {
		switch t := p.Var.Type.(type) {
		case *ir.Scalar:
			v, ok := args[p.Var.Name]
			if !ok {
				return nil, fmt.Errorf("host parameter %s is a scalar: give it with --arg %s=VALUE", p.Var.Name, p.Var.Name)
			}
			out = append(out, Param{Name: p.Var.Name, DType: t.DType, Scalar: true, Value: v, Dir: p.Dir})
		case *ir.Tensor:
			if _, ok := torchDTypes[t.DType]; !ok {
				return nil, fmt.Errorf("host tensor %s is %s, which torch has no tensor type for; PyPTO takes host tensors as torch tensors", p.Var.Name, t.DType)
			}
			shape := make([]int, len(t.Shape))
			for i, d := range t.Shape {
				if d.IsStatic() {
					shape[i] = int(d.N)
				} else {
					shape[i] = prog.Ranks
				}
			}
			out = append(out, Param{Name: p.Var.Name, DType: t.DType, Shape: shape, Dir: p.Dir})
		default:
			return nil, fmt.Errorf("host parameter %s is a %s; the driver passes host tensors and scalars only", p.Var.Name, p.Var.Type)
		}
	}
	return out, nil
}
