package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"pldworkbench/engine/check"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/trace"
)

// RunOptions says what to run and how.
type RunOptions struct {
	Options
	Fill     emu.Fill
	Seed     uint64
	Args     map[string]float64 // host scalar parameters by name
	Schedule string
	NoRaces  bool // turn the race detector off (it is on by default)
	OnEvent  trace.Sink
	// EventBytes and KeepEvents say what OnEvent keeps of the events
	// (emu.Options): the memory budget is charged for that, not more.
	EventBytes, KeepEvents int64
	// JSONAhead, when positive, has the run format its inputs' JSON text
	// on another core while the emulator runs, into at most that many
	// bytes, for WriteJSON to write: `run --json` sets limits.JSONAhead.
	// The bytes WriteJSON writes are the same either way, and so is the
	// run: the buffer is bounded by its own limit, not charged to the
	// run's memory budget, so --json cannot make a run that fits fail.
	JSONAhead int64

	// Inputs, when set, replaces the fill name by name: a comparison hands one side's inputs
	// to the other.
	Inputs map[string]*emu.Tensor
	// Dims gives pl.dynamic dimensions of the host's tensors their values
	// (M = 64); a dimension it does not name is the rank count, and a
	// composite one (M * 2) is its arithmetic on them.
	Dims map[string]int64
}

// RunResult is everything a run produced, as domain values: the
// diagnostics, the tensors, the program that ran. It marshals to the JSON
// that `workbench run --json` prints (MarshalJSON), each fact once.
type RunResult struct {
	Status   emu.Status
	Ranks    int
	Entry    string
	Diags    diag.List
	Deadlock *emu.Deadlock
	Error    *emu.RunError
	Races    []emu.Race
	// RacesOmitted counts distinct races beyond the emulator's cap.
	RacesOmitted int
	Stats        emu.Stats

	Program *ir.Program
	// In and Out are the host tensors the run started from and ended with,
	// by parameter name; InputOrder and OutputOrder list the ones the wire
	// form carries, in signature order.
	In, Out                 map[string]*emu.Tensor
	InputOrder, OutputOrder []string
	// Internal is set when the engine panicked (Status is runtime_error and
	// Error carries E0599): the stack is for the caller's log.
	Internal *InternalError

	ownInputs bool       // the inputs are those the run's own fill makes
	ahead     *aheadText // the start of the inputs' JSON text, when RunOptions.JSONAhead
}

// OwnInputs reports whether the run's inputs were the ones its own fill
// and seed make — true unless RunOptions.Inputs replaced some with other
// values (a comparison's B run on A's inputs) — so the run is the one
// Program.Run without Inputs would have made.
func (r *RunResult) OwnInputs() bool { return r.ownInputs }

// MarshalJSON writes the run's wire form: status, ranks, entry, inputs,
// outputs (TensorJSON, by name), diagnostics, deadlock, error, races,
// races_omitted, stats.
func (r *RunResult) MarshalJSON() ([]byte, error) {
	races := r.Races
	if races == nil {
		races = []emu.Race{}
	}
	return json.Marshal(struct {
		Status       emu.Status                    `json:"status"`
		Ranks        int                           `json:"ranks"`
		Entry        string                        `json:"entry"`
		Inputs       map[string]*floats.TensorJSON `json:"inputs"`
		Outputs      map[string]*floats.TensorJSON `json:"outputs"`
		Diagnostics  diag.List                     `json:"diagnostics"`
		Deadlock     *emu.Deadlock                 `json:"deadlock,omitempty"`
		Error        *emu.RunError                 `json:"error,omitempty"`
		Races        []emu.Race                    `json:"races"`
		RacesOmitted int                           `json:"races_omitted,omitempty"`
		Stats        emu.Stats                     `json:"stats"`
	}{r.Status, r.Ranks, r.Entry, tensorsJSON(r.InputOrder, r.In), tensorsJSON(r.OutputOrder, r.Out),
		r.Diags, r.Deadlock, r.Error, races, r.RacesOmitted, r.Stats})
}

// tensorsJSON is the wire form of the tensors named in order.
func tensorsJSON(order []string, ts map[string]*emu.Tensor) map[string]*floats.TensorJSON {
	out := make(map[string]*floats.TensorJSON, len(order))
	for _, name := range order {
		if t, ok := ts[name]; ok {
			out[name] = floats.NewTensorJSON(t.DType, t.Shape, t.Floats())
		}
	}
	return out
}

// pickEntry is defaultEntry as a piece of work under opts.Budget: a
// diagnostic of loading the module comes back as a diag.List error, a
// panic as an *InternalError.
func (m *Module) pickEntry(ctx context.Context, opts Options) (entry string, err error) {
	meter, done := m.start(ctx, opts.budget())
	defer done()
	defer func() {
		if p := recover(); p != nil {
			entry, err = "", recovered(p)
		}
	}()
	return m.defaultEntry(meter, opts.Ranks)
}

// defaultEntry is the one rule for an empty entry: the module's only host
// orchestrator at ranks, else, in a module with none, the only chip
// orchestration of a program with no HOST level (an L2-only program, run on
// one chip). Anything else has no default: a *noEntryError naming the
// entries to pick from, as PyPTO's CompiledProgram of several L2
// orchestrations refuses a plain call ("select one explicitly"). A module
// that does not load, or a factory that refuses the rank count, gives a
// diag.List.
func (m *Module) defaultEntry(meter *limits.Meter, ranks int) (string, error) {
	name := m.name
	if m.diags.HasErrors() || m.mod == nil {
		return "", m.diags
	}
	if ranks > 0 {
		var r Result
		if !r.ranksFit(meter, ranks, diag.Span{File: name, Start: diag.Pos{Line: 1, Col: 1}, End: diag.Pos{Line: 1, Col: 1}}) {
			return "", r.Diags
		}
	}
	list, chip, at, cdiags := entries(m.mod, ranks)
	if d := stopDiag(meter, name, "picking the entry"); d != nil {
		return "", append(cdiags, *d)
	}
	if len(list) == 0 && cdiags.HasErrors() {
		// A factory refused this rank count: its own message says why.
		return "", cdiags
	}
	if len(list) == 1 && !strings.Contains(list[0], "<") {
		return list[0], nil
	}
	quoted := make([]string, len(list))
	for i, e := range list {
		quoted[i] = "'" + e + "'"
	}
	var msg string
	hint := "name one with --entry on the command line, or in a request's entry field"
	switch {
	case len(list) == 0:
		msg = "no entry named, and the file defines no host orchestrator and no chip orchestration of a program without a HOST level"
		hint = "write a host orchestrator (@pl.jit.host, or level=pl.Level.HOST, role=pl.Role.Orchestrator), or name a function with --entry"
	case len(list) == 1:
		// One orchestrator, from a factory whose other arguments are not
		// the rank count.
		msg = "no entry named, and the file's host orchestrator comes from a factory that needs more than the rank count: " + quoted[0]
		hint = "name it with --entry (or a run request's entry field), its arguments filled in"
	case chip:
		msg = fmt.Sprintf("no entry named, and the file has %d chip orchestrations and no host orchestrator, so none is the default; pick one: %s", len(list), strings.Join(quoted, ", "))
	default:
		msg = fmt.Sprintf("no entry named, and the file has %d host orchestrators, so none is the default; pick one: %s", len(list), strings.Join(quoted, ", "))
	}
	if len(list) > 1 {
		hint += fmt.Sprintf(", e.g. --entry %s", quoted[0])
	}
	return "", &noEntryError{Entries: list, Diag: diag.Diagnostic{Span: at, Code: string(check.ErrEntry), Severity: diag.Error, Msg: msg, Hint: hint}}
}

// noEntryError is why a module has no default entry: no entry was named,
// and the module offers none or several (Entries). Diag is its coded
// diagnostic (E0412).
type noEntryError struct {
	Entries []string
	Diag    diag.Diagnostic
}

func (e *noEntryError) Error() string { return e.Diag.Msg }

// Run compiles the module at opts.Entry ("" = its default entry) and
// runs it in one piece of work under opts.Budget less what loading took,
// for a caller that runs the module once: compiling and running share one
// clock and one memory account, and a front end stopped by the deadline
// ends with status timeout. A caller that runs more than once compiles
// once (Compile) and calls Program.Run. It never panics.
func (m *Module) Run(ctx context.Context, opts RunOptions) (res *RunResult) {
	meter, done := m.start(ctx, opts.budget())
	defer done()
	defer giveBack(meter)
	defer recoverRun(&res, opts.Entry)
	return m.compile(meter, opts.Entry, opts.Options).run(meter, opts)
}

// newResult is the empty result of a run of p.
func (p *Program) newResult() *RunResult {
	r := &RunResult{Entry: p.Entry}
	r.init()
	return r
}

func (r *RunResult) init() {
	r.Races = []emu.Race{}
}

// run runs p charging meter.
func (p *Program) run(meter *limits.Meter, opts RunOptions) *RunResult {
	res := p.newResult()
	res.Diags = p.Diags
	if p.Internal != nil {
		res.Internal = p.Internal
	}
	if p.lowered == nil {
		res.Status, res.Error = p.status, p.failure
		return res
	}
	prog := p.lowered
	res.Program, res.Ranks = prog, prog.Ranks
	// The inputs are made as float64s, which the emulator converts to its
	// dtype's bytes (and charges those): charged before they are made.
	inBytes := inputBytes(prog, opts.Dims)
	if !meter.Reserve(inBytes) {
		res.Status = emu.StatusRuntimeError
		res.Error = &emu.RunError{Rank: -1, Line: prog.Entry.Span.Line, Code: emu.CodeMemory,
			Message: fmt.Sprintf("the host tensors' inputs want %s (a float64 of every element); the limit is %s", limits.Bytes(inBytes), limits.Bytes(meter.Budget.Memory)),
			Hint:    "use smaller host tensors, or raise the limit (workbench --mem-limit)"}
		return res
	}
	defer meter.Release(inBytes)
	in, fills, err := newInputs(prog, opts.Fill, opts.Seed, opts.Args, opts.Dims)
	if err != nil {
		res.Status = emu.StatusRuntimeError
		res.Error = &emu.RunError{Rank: -1, Line: prog.Entry.Span.Line, Message: err.Error()}
		return res
	}
	res.In = in
	for _, p := range prog.Entry.Params {
		if _, ok := in[p.Var.Name]; ok {
			res.InputOrder = append(res.InputOrder, p.Var.Name)
		}
	}
	// The inputs' JSON text is formatted behind the fill as it writes
	// them, then beside the run (randn takes about as long as the mesh
	// all-reduce it feeds); with inputs handed over, once they are in.
	// Deferred, so that no formatter outlives the run whatever ends it (a
	// panic included).
	if len(opts.Inputs) == 0 {
		res.ownInputs = true
		var p *fillProgress
		if opts.JSONAhead > 0 {
			p = newFillProgress(fills)
		}
		defer startAhead(res, opts.JSONAhead, p)()
		fills.run(p)
	} else {
		fills.run(nil)
		// Inputs handed over by a comparison replace the fill's, name by
		// name; whatever the other side could not supply keeps the fill.
		res.ownInputs = true
		for name, t := range cloneInputs(opts.Inputs) {
			if own, ok := in[name]; ok {
				res.ownInputs = res.ownInputs && sameTensor(own, t)
				in[name] = t
			}
		}
		defer startAhead(res, opts.JSONAhead, nil)()
	}
	limits.CountRun(meter.Context())
	r := p.emulated().Run(meter.Context(), emu.Options{
		Inputs: cloneInputs(in), Scalars: opts.Args, Dims: opts.Dims, Schedule: opts.Schedule, NoRaces: opts.NoRaces,
		MaxSteps: meter.Budget.RunSteps, Timeout: meter.Budget.Timeout, OnEvent: opts.OnEvent, Platform: p.Platform,
		EventBytes: opts.EventBytes, KeepEvents: opts.KeepEvents,
		Meter: meter,
	})
	res.Status, res.Deadlock, res.Error, res.Stats, res.Out = r.Status, r.Deadlock, r.Error, r.Stats, r.Outputs
	if r.Races != nil {
		res.Races, res.RacesOmitted = r.Races, r.RacesOmitted
	}
	for _, p := range prog.Entry.Params {
		if _, isTensor := p.Var.Type.(*ir.Tensor); !isTensor || p.Dir == ir.In {
			continue
		}
		if _, ok := r.Outputs[p.Var.Name]; ok {
			res.OutputOrder = append(res.OutputOrder, p.Var.Name)
		}
	}
	return res
}

// inputBytes is what MakeInputs holds: a float64 per element of every
// input host tensor (saturating, so a shape of absurd size is refused
// rather than wrapped).
func inputBytes(prog *ir.Program, dims map[string]int64) int64 {
	dim := hostDim(prog, dims)
	var total int64
	for _, p := range prog.Entry.Params {
		t, ok := p.Var.Type.(*ir.Tensor)
		if !ok || p.Dir == ir.Out {
			continue
		}
		n := int64(8)
		for _, d := range t.Shape {
			k := dim(d)
			if k < 0 || (k > 0 && n > math.MaxInt64/4/k) {
				return math.MaxInt64 / 2
			}
			n *= k
		}
		total += n
		if total > math.MaxInt64/4 {
			return math.MaxInt64 / 2
		}
	}
	return total
}

// makeInputs builds every host tensor parameter that is not pl.Out: its
// shape from the annotation with dynamic dimensions bound by dims or else to the rank count,
// its elements from fill. Host scalar parameters must all be in args.
func makeInputs(prog *ir.Program, fill emu.Fill, seed uint64, args map[string]float64, dims map[string]int64) (map[string]*emu.Tensor, error) {
	in, fills, err := newInputs(prog, fill, seed, args, dims)
	if err == nil {
		fills.run(nil)
	}
	return in, err
}

// inputFill is the elements still to be written into input tensors, in
// the order the fill draws them.
type inputFill []tensorFill

// tensorFill is a tensor, zero, and its element i's value.
type tensorFill struct {
	t *emu.Tensor
	f func(i int) float64
}

// run writes the elements, chunk by chunk, telling p (if not nil) how
// far each tensor got.
func (fs inputFill) run(p *fillProgress) {
	for _, x := range fs {
		n := x.t.Len()
		for lo := 0; lo < n; lo += chunk {
			hi := min(lo+chunk, n)
			x.t.FillRange(lo, hi, x.f)
			p.filled(x.t, hi)
		}
	}
}

// newInputs is makeInputs in two steps: the tensors, zero, and the fill
// that writes their elements, so that a reader can follow behind the
// writer (RunOptions.JSONAhead).
func newInputs(prog *ir.Program, fill emu.Fill, seed uint64, args map[string]float64, dims map[string]int64) (map[string]*emu.Tensor, inputFill, error) {
	dim := hostDim(prog, dims)
	if fill == "" {
		fill = emu.FillIndex
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	in := map[string]*emu.Tensor{}
	var fills inputFill
	var missing []string
	for _, p := range prog.Entry.Params {
		switch t := p.Var.Type.(type) {
		case *ir.Scalar:
			if _, ok := args[p.Var.Name]; !ok {
				missing = append(missing, p.Var.Name)
			}
		case *ir.Tensor:
			if p.Dir == ir.Out {
				continue
			}
			shape := make([]int, len(t.Shape))
			for i, d := range t.Shape {
				shape[i] = int(dim(d))
			}
			// Straight into the dtype's bytes, in flat order (the draws
			// of randn in the same sequence as ever).
			x := emu.Zeros(t.DType, shape...)
			in[p.Var.Name] = x
			fills = append(fills, tensorFill{x, func(i int) float64 {
				var v float64
				switch fill {
				case emu.FillIndex:
					v = float64(i)
				case emu.FillRandn:
					v = rng.NormFloat64()
				case emu.FillOnes:
					v = 1
				}
				return floats.RoundTo(t.DType, v)
			}})
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, nil, fmt.Errorf("host parameter %s is a scalar: give it with --arg %s=VALUE", strings.Join(missing, ", "), missing[0])
	}
	for name := range args {
		found := false
		for _, p := range prog.Entry.Params {
			if _, ok := p.Var.Type.(*ir.Scalar); ok && p.Var.Name == name {
				found = true
			}
		}
		if !found {
			return nil, nil, fmt.Errorf("--arg %s: the host orchestrator has no scalar parameter %q", name, name)
		}
	}
	return in, fills, nil
}

// sameTensor reports whether a and b hold the same shape and the same
// bits.
func sameTensor(a, b *emu.Tensor) bool {
	if a.DType != b.DType || !slices.Equal(a.Shape, b.Shape) || len(a.Floats()) != len(b.Floats()) {
		return false
	}
	for i := range a.Floats() {
		if math.Float64bits(a.Floats()[i]) != math.Float64bits(b.Floats()[i]) {
			return false
		}
	}
	return true
}

// cloneInputs copies the map of inputs, so that a run's map is its own. The
// tensors themselves are shared: a run never writes its inputs (emu.Run
// copies an input's bytes where the program writes them), so the caller
// (or the other side of a comparison) keeps what it gave.
func cloneInputs(in map[string]*emu.Tensor) map[string]*emu.Tensor {
	out := make(map[string]*emu.Tensor, len(in))
	for k, t := range in {
		out[k] = t
	}
	return out
}

// hostDim gives a host tensor's dimension its value: a constant, a
// symbol dims binds, else the rank count; a composite dimension (M * 2)
// is its arithmetic on those. A value that is not positive (M - 3 at 2
// ranks) is 0, which the emulator refuses with the tensor's name.
func hostDim(prog *ir.Program, dims map[string]int64) func(ir.Dim) int64 {
	syms := map[string]int64{}
	for k, v := range dims {
		syms[k] = v
	}
	return func(d ir.Dim) int64 {
		if d.IsStatic() {
			return d.N
		}
		for _, name := range ir.DimSymbols(d.Sym) {
			if _, ok := syms[name]; !ok {
				syms[name] = int64(prog.Ranks)
			}
		}
		v, ok := ir.DimValue(d.Sym, syms)
		if !ok || v < 0 {
			return 0
		}
		return v
	}
}
