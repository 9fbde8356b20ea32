package server

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine"
	"pldworkbench/engine/compare"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/lower"
	"pldworkbench/engine/trace"
	"pldworkbench/kernels"
)

// fileName is what diagnostics call a program posted without a step.
const fileName = "main.py"

func (req *frontRequest) options() (engine.Options, error) {
	if err := checkCode("code", req.Code); err != nil {
		return engine.Options{}, err
	}
	if err := validRanks(req.Ranks, false); err != nil {
		return engine.Options{}, err
	}
	if err := validPlatform(&req.Platform); err != nil {
		return engine.Options{}, err
	}
	return engine.Options{Entry: strings.TrimSpace(req.Entry), Ranks: req.Ranks, Platform: req.Platform}, nil
}

// postCheck answers POST /api/check with exactly what `workbench check
// --json` prints: both call engine.Result.JSON.
func (s *Server) postCheck(c *fiber.Ctx) error {
	var req frontRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	opts, err := req.options()
	if err != nil {
		return err
	}
	opts.Budget = s.budget()
	var b []byte
	if err := s.withSlot("check", func() {
		// The budget's clock starts here, once the slot is had.
		mod := engine.Load(s.base, fileName, []byte(req.Code), opts)
		res := mod.Check(s.base, opts)
		if res.Internal != nil {
			err = internalAPIError(s.engineInternal("check", res.Internal))
			return
		}
		b, err = res.JSON()
	}); err != nil {
		return err
	}
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(b)
}

// postIR answers POST /api/ir: the program's IR after a pass (fully
// lowered by default, "checked" = before any), as `workbench ir` prints it.
func (s *Server) postIR(c *fiber.Ctx) error { return s.answerIR(c, ir.PrintOptions{}) }

// answerIR is POST /api/ir and POST /api/ir/lines: one request, printed
// with print (the lines route adds each statement's source line).
func (s *Server) answerIR(c *fiber.Ctx, print ir.PrintOptions) error {
	var req frontRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	opts, err := req.options()
	if err != nil {
		return err
	}
	if req.After != "" && req.After != "checked" && !slices.Contains(lower.PassNames(), req.After) {
		return errorf(fiber.StatusBadRequest, "after is checked or one of "+strings.Join(lower.PassNames(), ", "), "no lowering pass %q", req.After)
	}
	opts.Budget = s.budget()
	var text string
	var diags diag.List
	if err := s.withSlot("ir", func() {
		prog := s.compile(s.base, fileName, []byte(req.Code), opts.Entry, opts.Ranks, opts.Platform)
		text, diags, err = prog.IRText(s.base, opts, req.After, print)
	}); err != nil {
		return err
	}
	if ie := (*engine.InternalError)(nil); errors.As(err, &ie) {
		return internalAPIError(s.engineInternal("ir", ie))
	}
	out := irResponse{Diagnostics: diags}
	switch {
	case diags.HasErrors():
	case err != nil:
		out.Error = err.Error()
	default:
		out.IR = text
	}
	return c.JSON(out)
}

// postCompare answers POST /api/compare: both programs on the same
// inputs. It takes a run slot like any run, so comparisons cannot crowd
// out the emulator. Once compared, each side is started (or found stored)
// as an ordinary run through startRun, whose events the page replays as
// that side's swimlanes.
func (s *Server) postCompare(c *fiber.Ctx) error {
	var req compareRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if err := checkCode("a.code", req.A.Code); err != nil {
		return err
	}
	st, _, err := normalize(&runRequest{Code: req.A.Code, Ranks: req.Ranks, Fill: req.Fill, Seed: req.Seed, Schedule: req.Schedule, Platform: req.Platform})
	if err != nil {
		return err
	}
	nameB, srcB := "b.py", []byte(req.B.Code)
	entryB := req.B.Entry
	switch {
	case req.B.Kernel != "" && req.B.Code != "":
		return errorf(fiber.StatusBadRequest, "send b.code or b.kernel", "b has both code and kernel")
	case req.B.Kernel != "":
		k, ok := kernels.Get(req.B.Kernel)
		if !ok {
			return errorf(fiber.StatusNotFound, "kernel names are file names without .py, e.g. 12_broadcast_builtin", "no kernel %q", req.B.Kernel)
		}
		nameB, srcB = k.File, k.Source
		if entryB == "" {
			p := st.Ranks
			if p == 0 {
				p = k.Ranks[0]
			}
			entryB = k.EntriesAt(p)[0]
		}
	default:
		if err := checkCode("b.code", req.B.Code); err != nil {
			return err
		}
	}
	var a, b *engine.Program
	var cr *compare.Result
	var evA, evB trace.Collector
	err = s.withSlot("compare", func() {
		// One deadline, two runs' worth, from when the slot is had, for
		// compiling both sides and running them.
		ctx, cancel := context.WithTimeout(s.base, 2*s.opts.RunTimeout)
		defer cancel()
		a = s.compile(ctx, "a.py", []byte(req.A.Code), strings.TrimSpace(req.A.Entry), st.Ranks, st.Platform)
		b = s.compile(ctx, nameB, srcB, strings.TrimSpace(entryB), st.Ranks, st.Platform)
		fill, _ := emu.ParseFill(st.Fill)
		cr = compare.Programs(ctx, a, b, compare.Options{RunOptions: engine.RunOptions{Options: engine.Options{Budget: s.budget()},
			Fill: fill, Seed: st.Seed, Schedule: st.Schedule}, EventsA: evA.Sink(), EventsB: evB.Sink()})
	})
	if err != nil {
		return err
	}
	for _, p := range []*engine.Program{a, b} {
		// A side with no default entry is compared like one that does not
		// compile: its result and its run end compile_error with the coded
		// E0412 that names the entries, as POST /api/runs ends.
		if p.Internal != nil {
			return internalAPIError(s.engineInternal("compare", p.Internal))
		}
	}
	if cr.Internal != nil {
		return internalAPIError(s.engineInternal("compare", cr.Internal))
	}
	out := compareResponse{Verdict: cr.Verdict, Ranks: cr.Ranks, A: cr.A, B: cr.B,
		Outputs: cr.Outputs, KernelDiff: cr.KernelDiff, IRA: printIR(cr.A), IRB: printIR(cr.B)}
	if cr.A.Status == emu.StatusCanceled || cr.B.Status == emu.StatusCanceled {
		return errorf(fiber.StatusServiceUnavailable, "the server is shutting down", "comparison cancelled")
	}
	// Each side as the run POST /api/runs would make of its code and
	// these settings: same id, so the page's replay of a side and a later
	// post of the same code share one stored run. A side whose run in the
	// comparison is the one POST /api/runs would make (its own inputs, run
	// to the end) is that run: its result and events are handed over, and
	// the emulator runs twice for the whole request.
	seed := st.Seed
	side := func(code, entry string, prog *engine.Program, res *engine.RunResult, events []trace.Event) (string, error) {
		req := &runRequest{Code: code, Ranks: req.Ranks, Entry: entry, Fill: st.Fill,
			Seed: &seed, Schedule: st.Schedule, Platform: st.Platform, prog: prog}
		if res.OwnInputs() && res.Internal == nil && res.Status != emu.StatusTimeout && res.Status != emu.StatusCanceled {
			// The side run's goroutine reads res while this handler
			// encodes it: its tensors are decoded here, once, as either
			// reader would on first use (Tensor.Floats), so neither writes.
			for _, ts := range []map[string]*emu.Tensor{res.In, res.Out} {
				for _, t := range ts {
					t.Floats()
				}
			}
			req.ran = &ranResult{res: res, events: events}
		}
		pr, err := s.startRun(c.UserContext(), req)
		return pr.ID, err
	}
	if out.RunA, err = side(req.A.Code, req.A.Entry, a, cr.A, evA.Events); err != nil {
		return err
	}
	if out.RunB, err = side(string(srcB), entryB, b, cr.B, evB.Events); err != nil {
		return err
	}
	return c.JSON(out)
}

// printIR prints a run's lowered program, "" when it did not compile.
func printIR(r *engine.RunResult) string {
	if r == nil || r.Program == nil {
		return ""
	}
	return ir.Print(r.Program)
}
