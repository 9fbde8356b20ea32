package server

import (
	"encoding/base64"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/npu"
	"pldworkbench/engine/platform"
	"pldworkbench/kernels"
	"pldworkbench/tutorials/check"
)

// postExport answers POST /api/export with what `workbench export` writes.
func (s *Server) postExport(c *fiber.Ctx) error {
	var req exportRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	x, err := s.export(&req)
	if err != nil {
		return err
	}
	out := exportResponse{}
	var ok bool
	if out.Diagnostics, out.Error, ok = x.outcome(); ok {
		res := x.res
		out.Filename, out.Script, out.Entry, out.Ranks = x.base+".py", string(res.Script), res.Entry, res.Ranks
		if res.Data != nil {
			out.DataName, out.Data = x.opts.DataFile, base64.StdEncoding.EncodeToString(res.Data)
		}
	}
	return c.JSON(out)
}

// exported is an export: its result or its own error (diagnostics, a
// program that cannot export), the options it used and the base of its
// file names.
type exported struct {
	res  *engine.ExportResult
	err  error
	opts engine.ExportOptions
	base string
}

// outcome is what an export's answer says of it: its diagnostics, or the
// error of a program that cannot export, and whether it has a script.
func (x exported) outcome() (diags diag.List, msg string, ok bool) {
	var l diag.List
	switch {
	case errors.As(x.err, &l):
		return l, "", false
	case x.err != nil:
		return nil, x.err.Error(), false
	}
	return x.res.Diags, "", x.res.Script != nil
}

// export validates an export request (filling in the default platform)
// and exports it in a worker slot. Its error is the API error of a
// request it refused; the export's own error is exported.err.
func (s *Server) export(req *exportRequest) (exported, error) {
	var x exported
	if err := checkCode("code", req.Code); err != nil {
		return x, err
	}
	if err := validRanks(req.Ranks, false); err != nil {
		return x, err
	}
	fill, err := emu.ParseFill(req.Fill)
	if err != nil {
		return x, errorf(fiber.StatusBadRequest, "fill is index, ones, zeros or randn", "%v", err)
	}
	if req.Platform == "" {
		req.Platform = platform.DefaultPyPTO()
	}
	if _, ok := npu.Profile(req.Platform); !ok {
		return x, errorf(fiber.StatusBadRequest, "platform is one of "+strings.Join(npu.Platforms, ", "), "unknown platform %q", req.Platform)
	}
	kernel, file := "main", fileName
	if req.Kernel != "" {
		k, ok := kernels.Get(req.Kernel)
		if !ok {
			return x, errorf(fiber.StatusNotFound, "kernel names are file names without .py, e.g. 08_allreduce_mesh", "no kernel %q", req.Kernel)
		}
		kernel, file = k.Name, k.File
	}
	x.base = strings.TrimSuffix(file, ".py") + "_pypto"
	x.opts = engine.ExportOptions{Options: engine.Options{Entry: expandP(strings.TrimSpace(req.Entry), req.Ranks), Ranks: req.Ranks, Budget: s.budget()},
		NPUPlatform: req.Platform, Fill: fill, Seed: req.Seed, DataFile: x.base + ".inputs.bin"}
	if err := s.withSlot("export", func() {
		x.res, x.err = check.Export(s.base, kernel, file, []byte(req.Code), x.opts)
	}); err != nil {
		return x, err
	}
	if ie := (*engine.InternalError)(nil); errors.As(x.err, &ie) {
		return x, internalAPIError(s.engineInternal("export", ie))
	}
	return x, nil
}

// getPyPTO answers GET /api/pypto: python3, pypto and torch as
// `python3 -c "import pypto"` finds them, the cards, and what is missing
// and how to get it. It probes on every call (on demand, in a worker
// slot: the probe imports torch, which takes seconds).
func (s *Server) getPyPTO(c *fiber.Ctx) error {
	var tc npu.Toolchain
	if err := s.withSlot("pypto", func() {
		tc = npu.Detect(s.base, npu.DetectOptions{})
	}); err != nil {
		return err
	}
	out := pyptoResponse{Toolchain: tc, Ready: []string{}, Platforms: npu.Platforms}
	for _, p := range npu.Platforms {
		if tc.Usable(p) {
			out.Ready = append(out.Ready, p)
		}
	}
	return c.JSON(out)
}

// postPyPTOCheck answers POST /api/pypto/check (the body of POST
// /api/export) with what `workbench check --with-pypto` prints: the
// program exported, then compiled by PyPTO (--compile-only) under the
// server's budget.
func (s *Server) postPyPTOCheck(c *fiber.Ctx) error {
	var req exportRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if err := checkCode("code", req.Code); err != nil {
		return err
	}
	if err := validRanks(req.Ranks, false); err != nil {
		return err
	}
	if req.Platform == "" {
		req.Platform = platform.DefaultPyPTO()
	}
	if _, ok := npu.Profile(req.Platform); !ok {
		return errorf(fiber.StatusBadRequest, "platform is one of "+strings.Join(npu.Platforms, ", "), "unknown platform %q", req.Platform)
	}
	opts := engine.ExportOptions{Options: engine.Options{Entry: expandP(strings.TrimSpace(req.Entry), req.Ranks), Ranks: req.Ranks, Budget: s.budget()},
		NPUPlatform: req.Platform, DataFile: "exported.inputs.bin"}
	out := pyptoCheckResponse{}
	var err error
	if serr := s.withSlot("pypto check", func() {
		var res *engine.ExportResult
		res, err = engine.Load(s.base, fileName, []byte(req.Code), opts.Options).Export(s.base, opts)
		var l diag.List
		switch {
		case errors.As(err, &l):
			out.Diagnostics, err = l, nil
			return
		case err != nil:
			return
		}
		out.Diagnostics = res.Diags
		if res.Script == nil {
			return
		}
		out.Exported = true
		tc := npu.Detect(s.base, npu.DetectOptions{})
		if tc.PyPTO == "" || tc.Torch == "" {
			out.Missing = tc.MissingFor(platform.DefaultPyPTO())
			return
		}
		b := s.budget()
		var r *npu.Result
		r, err = npu.Run(s.base, npu.RunSpec{Script: res.Script, Platform: req.Platform, CompileOnly: true, Python: tc.Python, Timeout: b.Timeout, Memory: b.Memory})
		if err != nil {
			return
		}
		out.PyPTO, out.Status, out.Seconds = tc.PyPTO, r.Status, r.Elapsed.Seconds()
		out.Messages = npu.Messages(r.Stderr, res.Script, fileName)
		if r.Status == npu.StatusError {
			if ref := npu.RefusalOf(r.Stderr, res.Script, fileName); ref.Error != "" {
				out.Refusal = &ref
			}
		}
	}); serr != nil {
		return serr
	}
	if ie := (*engine.InternalError)(nil); errors.As(err, &ie) {
		return internalAPIError(s.engineInternal("pypto check", ie))
	}
	if err != nil {
		return errorf(fiber.StatusBadRequest, "name the host orchestrator with entry", "%v", err)
	}
	return c.JSON(out)
}
