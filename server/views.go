package server

// The routes behind the page's richer views (issue 18): the pass list for
// the IR pane's picker, the IR with every statement's source line, so the
// pane can colour IR by the line it came from, and the schedule explorer.

import (
	"context"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/lower"
	"pldworkbench/engine/sweep"
)

// getPasses answers GET /api/passes: "checked" (before any pass), then the
// lowering passes in the order they run, from the engine's pass table, as
// `workbench ir --passes` lists them.
func (s *Server) getPasses(c *fiber.Ctx) error {
	out := []passJSON{{Name: "checked", Doc: "the program as the checker built it, before any pass"}}
	for _, p := range lower.Passes {
		out = append(out, passJSON{Name: p.Name, Doc: p.Doc})
	}
	return c.JSON(map[string]any{"passes": out})
}

// postIRLines answers POST /api/ir/lines: POST /api/ir's answer with every
// statement's source line in a trailing comment (`# line 42`, or the
// builtin's `# from pld.tensor.allreduce (line 42)` on lowered code).
func (s *Server) postIRLines(c *fiber.Ctx) error {
	return s.answerIR(c, ir.PrintOptions{Lines: true})
}

// postSchedules answers POST /api/schedules: Program.Schedules on the code,
// the fair run and then seeds 1..n, in one worker slot under one timeout
// (the run timeout for the whole request, so n seeds cannot hold a slot n
// times as long); seeds it cut off are not in seeds (ran < n).
func (s *Server) postSchedules(c *fiber.Ctx) error {
	var req schedulesRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if req.N < 1 || req.N > limits.MaxSchedules {
		return errorf(fiber.StatusBadRequest, fmt.Sprintf("ask for 1 to %d schedules", limits.MaxSchedules), "schedules %d out of range: want 1..%d", req.N, limits.MaxSchedules)
	}
	opts, err := req.options()
	if err != nil {
		return err
	}
	fill, err := emu.ParseFill(req.Fill)
	if err != nil {
		return errorf(fiber.StatusBadRequest, "fill is index, randn, ones or zeros", "%v", err)
	}
	seed := uint64(defaultSeed)
	if req.Seed != nil {
		seed = *req.Seed
	}
	b := s.budget()
	opts.Budget = b
	var out schedulesResponse
	if err := s.withSlot("schedules", func() {
		ctx, cancel := context.WithTimeout(s.base, b.Timeout)
		defer cancel()
		prog := s.compile(ctx, fileName, []byte(req.Code), opts.Entry, opts.Ranks, opts.Platform)
		switch {
		case prog.NoEntry != "":
			// The coded E0412 naming the entries, as POST /api/runs has it.
			out.Error, out.Diagnostics = prog.NoEntry, prog.Diags
			return
		case prog.Entry == "" && prog.Internal != nil:
			out.Error = prog.Internal.Error()
			return
		case prog.Entry == "":
			out.Error = prog.Diags.Error()
			return
		}
		fair, seeds := prog.Schedules(ctx, engine.RunOptions{Options: opts, Fill: fill, Seed: seed}, req.N)
		out.Entry, out.Ranks, out.Fair, out.N, out.Seeds = prog.Entry, fair.Ranks, string(fair.Status), req.N, seeds
		if fair.Error != nil {
			out.Error = fair.Error.Message
		}
		out.Ran = len(seeds)
		for _, so := range seeds {
			if so.Failed {
				out.Failed++
			}
		}
	}); err != nil {
		return err
	}
	if out.Seeds == nil {
		out.Seeds = []engine.SeedOutcome{}
	}
	return c.JSON(out)
}

// postSweep answers POST /api/sweep: sweep.Run in one worker slot, each
// point under the run budget and the whole under limits.SweepTime.
func (s *Server) postSweep(c *fiber.Ctx) error {
	var req sweepRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if len(req.Code) > limits.MaxCode {
		return errorf(fiber.StatusRequestEntityTooLarge, "", "code is %d bytes, more than the %d allowed", len(req.Code), limits.MaxCode)
	}
	if len(req.Ranks) == 0 {
		req.Ranks = []int{2, 4, 8}
	}
	for _, p := range req.Ranks {
		if p < 1 || p > limits.MaxRanks {
			return errorf(fiber.StatusBadRequest, "", "ranks %d out of range: want 1..%d", p, limits.MaxRanks)
		}
	}
	if req.Sizes == "" {
		req.Sizes = "1K:16M"
	}
	sizes, err := sweep.ParseSizes(req.Sizes)
	if err != nil {
		return errorf(fiber.StatusBadRequest, "sizes is LO:HI in powers of two, as 1K:16M", "%v", err)
	}
	variants, _, _, err := sweep.Header([]byte(req.Code))
	if err != nil {
		return errorf(fiber.StatusBadRequest, "a sweep reads the kernel's `#! sweep: NAME TEMPLATE` lines", "%v", err)
	}
	if len(variants) == 0 {
		return errorf(fiber.StatusBadRequest, "add `#! sweep: NAME TEMPLATE` lines, as kernels/19_mesh_or_ring.py has", "the kernel has no #! sweep: lines")
	}
	if n := len(variants) * len(req.Ranks) * len(sizes); n > limits.MaxSweepPoints {
		return errorf(fiber.StatusBadRequest, "fewer rank counts or a narrower size range", "the sweep has %d points, more than the %d allowed", n, limits.MaxSweepPoints)
	}
	opts := sweep.Options{Ranks: req.Ranks, Sizes: sizes, Platform: req.Platform, Budget: s.budget()}
	var res *sweep.Result
	var serr error
	if err := s.withSlot("sweep", func() {
		ctx, cancel := context.WithTimeout(s.base, limits.SweepTime)
		defer cancel()
		mod := engine.Load(ctx, fileName, []byte(req.Code), engine.Options{Budget: opts.Budget})
		res, serr = sweep.Run(ctx, mod, opts)
	}); err != nil {
		return err
	}
	if serr != nil {
		return errorf(fiber.StatusBadRequest, "", "sweep: %v", serr)
	}
	out := sweepResponse{Result: res, CrossoverLines: map[int]string{}}
	out.Done = len(res.Rows) == len(res.Variants)*len(req.Ranks)*len(sizes)
	for _, p := range req.Ranks {
		out.CrossoverLines[p] = res.CrossoverLine(p)
	}
	return c.JSON(out)
}
