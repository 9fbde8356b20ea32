package server

// The routes behind the page's richer views (issue 18): the pass list for
// the IR pane's picker and the IR with every statement's source line, so
// the pane can colour IR by the line it came from.

import (
	"errors"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
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
