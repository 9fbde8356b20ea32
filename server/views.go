package server

// The routes behind the page's richer views (issue 18): the pass list for
// the IR pane's picker, the IR with every statement's source line, so the
// pane can colour IR by the line it came from, and the schedule explorer.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/lower"
)

// passJSON is one entry of GET /api/passes.
type passJSON struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
}

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
		text, diags, err = engine.IRTextWith(s.base, fileName, []byte(req.Code), opts, req.After, ir.PrintOptions{Lines: true})
	}); err != nil {
		return err
	}
	if ie := (*engine.InternalError)(nil); errors.As(err, &ie) {
		return internalAPIError(s.engineInternal("ir", ie))
	}
	out := irResponse{Diagnostics: diagJSON(diags)}
	switch {
	case diags.HasErrors():
	case err != nil:
		out.Error = err.Error()
	default:
		out.IR = text
	}
	return c.JSON(out)
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
	Entry  string               `json:"entry"`
	Ranks  int                  `json:"ranks"`
	Fair   string               `json:"fair"`
	Error  string               `json:"error,omitempty"`
	N      int                  `json:"n"`
	Ran    int                  `json:"ran"`
	Failed int                  `json:"failed"`
	Seeds  []engine.SeedOutcome `json:"seeds"`
}

// postSchedules answers POST /api/schedules: engine.Schedules on the code,
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
	fill, err := engine.ParseFill(req.Fill)
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
		if opts.Entry == "" {
			e, err := engine.DefaultEntry(ctx, fileName, []byte(req.Code), opts)
			if err != nil {
				out.Error = err.Error()
				return
			}
			opts.Entry = e
		}
		fair, seeds := engine.Schedules(ctx, fileName, []byte(req.Code), engine.RunOptions{Options: opts, Fill: fill, Seed: seed}, req.N)
		out.Entry, out.Ranks, out.Fair, out.N, out.Seeds = opts.Entry, fair.Ranks, string(fair.Status), req.N, seeds
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
