package server

// The wire types of the HTTP and websocket API (API.md), in one place: the
// request bodies the handlers decode, the answers they encode, the run
// record the store keeps and GET /api/runs/{id} answers, and the messages
// of a run's websocket stream. The engine hands the handlers domain values
// (programs, diagnostics, tensors, events); these structs are where they
// become JSON.

import (
	"pldworkbench/engine"
	"pldworkbench/engine/compare"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
	"pldworkbench/engine/npu"
	"pldworkbench/engine/sweep"
	"pldworkbench/tutorials/check"
)

// frontRequest is the body of POST /api/check and POST /api/ir.
type frontRequest struct {
	Code     string `json:"code"`
	Entry    string `json:"entry"`
	Ranks    int    `json:"ranks"`
	Platform string `json:"platform"`
	After    string `json:"after"`
}

// irResponse is POST /api/ir's answer. Error says why there is no IR when
// no diagnostic does (a module with several host orchestrators and no
// entry).
type irResponse struct {
	IR          string    `json:"ir"`
	Diagnostics diag.List `json:"diagnostics"`
	Error       string    `json:"error,omitempty"`
}

// compareSide is one side of POST /api/compare: code, or (side b only)
// an embedded kernel by name.
type compareSide struct {
	Code   string `json:"code"`
	Kernel string `json:"kernel"`
	Entry  string `json:"entry"`
}

type compareRequest struct {
	A        compareSide `json:"a"`
	B        compareSide `json:"b"`
	Ranks    int         `json:"ranks"`
	Fill     string      `json:"fill"`
	Seed     *uint64     `json:"seed"`
	Schedule string      `json:"schedule"`
	Platform string      `json:"platform"`
}

// compareResponse is compare.Result on the wire, plus each side's
// lowered IR.
type compareResponse struct {
	Verdict    string                  `json:"verdict"`
	Ranks      int                     `json:"ranks"`
	A          *engine.RunResult       `json:"a"`
	B          *engine.RunResult       `json:"b"`
	Outputs    []compare.OutputVerdict `json:"outputs"`
	KernelDiff string                  `json:"kernel_diff"`
	IRA        string                  `json:"ir_a"`
	IRB        string                  `json:"ir_b"`
	// RunA and RunB are the ids of each side run on its own as an
	// ordinary run (POST /api/runs with the side's code and the
	// comparison's settings): /ws/runs/{id} streams or replays its events,
	// /r/{id} shares it.
	RunA string `json:"run_a"`
	RunB string `json:"run_b"`
}

// exportRequest is the body of POST /api/export.
type exportRequest struct {
	Code     string `json:"code"`
	Entry    string `json:"entry"`
	Ranks    int    `json:"ranks"`
	Fill     string `json:"fill"`
	Seed     uint64 `json:"seed"`
	Platform string `json:"platform"` // a PyPTO platform (engine/platform; default the default platform's simulator, a2a3sim)
	// Kernel names the course kernel the code is a copy of (a step's
	// kernel, "08_allreduce_mesh"), whose golden the script checks.
	Kernel string `json:"kernel"`
}

// exportResponse is the exported script, ready to save, or why not.
type exportResponse struct {
	Filename    string    `json:"filename,omitempty"`
	Script      string    `json:"script,omitempty"`
	DataName    string    `json:"data_name,omitempty"`
	Data        string    `json:"data_base64,omitempty"` // the randn inputs, base64
	Entry       string    `json:"entry,omitempty"`
	Ranks       int       `json:"ranks,omitempty"`
	Diagnostics diag.List `json:"diagnostics"`
	Error       string    `json:"error,omitempty"`
}

// pyptoResponse is GET /api/pypto: what the backend would run with.
type pyptoResponse struct {
	npu.Toolchain
	// Ready lists the platforms an exported script can run on here,
	// Platforms every platform an export may name.
	Ready     []string `json:"ready"`
	Platforms []string `json:"platforms"`
}

// pyptoCheckResponse is POST /api/pypto/check: the workbench's verdict
// under the NPU's rules beside PyPTO's compiler's.
type pyptoCheckResponse struct {
	Diagnostics diag.List `json:"diagnostics"`
	Exported    bool      `json:"exported"`
	PyPTO       string    `json:"pypto,omitempty"`
	// Status is PyPTO's verdict: compiled, error (refused) or timeout;
	// empty when it was not asked.
	Status string `json:"status,omitempty"`
	// Messages are PyPTO's, without its debug and info log, places in the
	// exported script named as lines of the cell; Refusal is its error,
	// where it points and whether it is PyPTO's own defect.
	Messages string       `json:"messages,omitempty"`
	Refusal  *npu.Refusal `json:"refusal,omitempty"`
	Seconds  float64      `json:"seconds,omitempty"`
	Missing  []string     `json:"missing,omitempty"`
}

// record is a run as GET /api/runs/{id} answers it and as the store keeps
// it (the result column holds it without the code, which has its own).
type record struct {
	ID              string                       `json:"id"`
	Code            string                       `json:"code"`
	Settings        Settings                     `json:"settings"`
	Status          string                       `json:"status"`
	Ranks           int                          `json:"ranks"`
	Entry           string                       `json:"entry"`
	Outputs         map[string]*outTensor        `json:"outputs"`
	OutputOrder     []string                     `json:"output_order"`
	OutputChecks    map[string]check.OutputCheck `json:"output_checks,omitempty"`
	Races           []emu.Race                   `json:"races"`
	RacesOmitted    int                          `json:"races_omitted,omitempty"`
	Deadlock        *emu.Deadlock                `json:"deadlock,omitempty"`
	Error           *emu.RunError                `json:"error,omitempty"`
	Diagnostics     diag.List                    `json:"diagnostics"`
	Stats           emu.Stats                    `json:"stats"`
	Check           *verdict                     `json:"check,omitempty"`
	Events          int                          `json:"events"`
	EventsTruncated bool                         `json:"events_truncated,omitempty"`
	Created         string                       `json:"created"`

	internal error             // the engine panicked: the run is a workbench bug, not stored
	checkRaw map[string][]byte // OutputChecks' JSON, once encoded (checkJSON)
}

// verdict is a step run's check: pass, a status (ok, the run's failure
// status, wrong_data, no_golden) and a one-line reason.
type verdict struct {
	Pass   bool   `json:"pass"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// postResponse answers POST /api/runs.
type postResponse struct {
	ID       string   `json:"id"`
	Cached   bool     `json:"cached"`
	Settings Settings `json:"settings"`
}

type statusMsg struct {
	Type     string   `json:"type"`
	Status   string   `json:"status"`
	ID       string   `json:"id"`
	Settings Settings `json:"settings"`
	Ranks    int      `json:"ranks"`
	Entry    string   `json:"entry,omitempty"`
}

// queueMsg tells a queued run's client where it stands: position 1 runs
// next; of is how much work waits in all.
type queueMsg struct {
	Type     string `json:"type"`
	Position int    `json:"position"`
	Of       int    `json:"of"`
}

type diagMsg struct {
	Type       string          `json:"type"`
	Diagnostic diag.Diagnostic `json:"diagnostic"`
}

type outputMsg struct {
	Type   string             `json:"type"`
	Name   string             `json:"name"`
	Tensor *outTensor         `json:"tensor"`
	Check  *check.OutputCheck `json:"check,omitempty"`
}

type raceMsg struct {
	Type string   `json:"type"`
	Race emu.Race `json:"race"`
}

type deadlockMsg struct {
	Type     string        `json:"type"`
	Deadlock *emu.Deadlock `json:"deadlock"`
}

type doneMsg struct {
	Type            string        `json:"type"`
	Status          string        `json:"status"`
	Stats           emu.Stats     `json:"stats"`
	Error           *emu.RunError `json:"error,omitempty"`
	Check           *verdict      `json:"check,omitempty"`
	Share           string        `json:"share,omitempty"`
	RacesOmitted    int           `json:"races_omitted,omitempty"`
	EventsTruncated bool          `json:"events_truncated,omitempty"`
}

// runRequest is the body of POST /api/runs.
type runRequest struct {
	Code     string             `json:"code"`
	Step     int                `json:"step"`
	Variant  string             `json:"variant"`
	Kernel   string             `json:"kernel"`
	Ranks    int                `json:"ranks"`
	Entry    string             `json:"entry"`
	Fill     string             `json:"fill"`
	Seed     *uint64            `json:"seed"`
	Schedule string             `json:"schedule"`
	Platform string             `json:"platform"`
	Args     map[string]float64 `json:"args"`

	// prog, when set, is the program the code compiles to at these
	// settings, already compiled by the caller (a comparison's side);
	// ran, when set, is its run at these settings, already done.
	prog *engine.Program
	ran  *ranResult
	// text is Code's entry in the server's codeTexts, when decoding found
	// or kept it (nil: not known; runIDSum hashes the text).
	text *codeText
}

// Settings are a run's normalized settings: every default filled in, so
// two posts that mean the same run hash to the same id. Entry stays empty
// for a run without a step that names none (the engine's DefaultEntry
// picks it when the run starts); Ranks stays 0 when neither the post nor a
// step says (the engine's default: what the host tensors pin, else 4).
type Settings struct {
	Step     int                `json:"step,omitempty"`
	Variant  string             `json:"variant,omitempty"`
	Kernel   string             `json:"kernel,omitempty"`
	Ranks    int                `json:"ranks"`
	Entry    string             `json:"entry"`
	Fill     string             `json:"fill"`
	Seed     uint64             `json:"seed"`
	Schedule string             `json:"schedule"`
	Platform string             `json:"platform"`
	Args     map[string]float64 `json:"args,omitempty"`
	// Backend is empty for the emulator; "pypto VERSION" for a run PyPTO
	// made (POST /api/pypto/run), on Platform a2a3, a2a3sim, a5 or a5sim.
	Backend string `json:"backend,omitempty"`
}

// stepCheckRequest is the body of POST /api/steps/{n}/check.
type stepCheckRequest struct {
	Code    string `json:"code"`
	Variant string `json:"variant"`
	Kernel  string `json:"kernel"`
}

// stepCheckResponse is POST /api/steps/{n}/check's answer: the verdicts
// of `workbench step N --check FILE` (or, for the bug and starter
// variants, of the rule `workbench verify` holds those kernels to).
type stepCheckResponse struct {
	// OK says the code did what its variant must: every verdict passes
	// (solution, builtin); every verdict fails the way the bug kernel's
	// header documents (bug); every run checks clean and completes, its
	// outputs right or wrong (starter).
	OK      bool   `json:"ok"`
	Variant string `json:"variant"`
	// Kernel is the step kernel whose entries, rank counts and goldens
	// judge the code.
	Kernel string `json:"kernel"`
	// Bug is the documented failure of a bug variant, as its header
	// writes it.
	Bug      string          `json:"bug,omitempty"`
	Ranks    []int           `json:"ranks"`
	Verdicts []check.Verdict `json:"verdicts"`
	Error    string          `json:"error,omitempty"`
}

// outTensor is an output as the page gets it and the store keeps it: the
// tensor whole while the run's outputs stay within limits.OutputFull
// elements, else the first limits.OutputPrefix elements of each rank's
// row (shape [P, k], so the page draws it as it draws any tensor) with
// truncated and full_shape saying so. Stats always cover every element.
// A 16M-element output thus costs a few KiB to store and to read back,
// not 268 MB.
type outTensor struct {
	floats.TensorJSON
	FullShape []int       `json:"full_shape,omitempty"`
	Truncated bool        `json:"truncated,omitempty"`
	Stats     tensorStats `json:"stats"`

	raw []byte // its JSON, once encoded (MarshalJSON)
}

// MarshalJSON encodes t the first time and hands out the same bytes after:
// a run's outputs go out in its output messages and again in its stored
// record, and formatting their floats twice was a tenth of the server's
// CPU per run. An outTensor is not changed once made (capOutputs makes
// it), and one run's goroutine encodes its own.
func (t *outTensor) MarshalJSON() ([]byte, error) {
	if t.raw == nil {
		t.raw = appendTensor(make([]byte, 0, jsonRoom(len(t.Data))), t)
	}
	return t.raw, nil
}

// tensorStats summarise a tensor: min, max and mean over the elements that
// are not NaN, how many elements, how many NaN.
type tensorStats struct {
	Count int64        `json:"count"`
	NaN   int64        `json:"nan"`
	Min   floats.Float `json:"min"`
	Max   floats.Float `json:"max"`
	Mean  floats.Float `json:"mean"`
}

// passJSON is one entry of GET /api/passes.
type passJSON struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
}

// schedulesRequest is POST /api/schedules' body: a run's code and settings
// and how many random schedules to try.
type schedulesRequest struct {
	frontRequest
	Fill string  `json:"fill"`
	Seed *uint64 `json:"seed"`
	N    int     `json:"n"`
}

// schedulesResponse lists the seeds as `workbench run --schedules N` does.
type schedulesResponse struct {
	Entry string `json:"entry"`
	Ranks int    `json:"ranks"`
	Fair  string `json:"fair"`
	Error string `json:"error,omitempty"`
	// Diagnostics is set when the program has no default entry: E0412.
	Diagnostics diag.List            `json:"diagnostics,omitempty"`
	N           int                  `json:"n"`
	Ran         int                  `json:"ran"`
	Failed      int                  `json:"failed"`
	Seeds       []engine.SeedOutcome `json:"seeds"`
}

// sweepRequest is POST /api/sweep's body: a kernel with `#! sweep:` lines
// and what to sweep, as `workbench sweep FILE --ranks 2,4,8 --sizes 1K:16M`.
type sweepRequest struct {
	Code     string `json:"code"`
	Ranks    []int  `json:"ranks"`
	Sizes    string `json:"sizes"`
	Platform string `json:"platform"`
}

// sweepResponse is sweep.Result with, per rank count, the crossover
// sentence `workbench sweep` prints, and whether every point was measured.
type sweepResponse struct {
	*sweep.Result
	CrossoverLines map[int]string `json:"crossover_lines"`
	Done           bool           `json:"done"`
}
