package server

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/npu"
	"pldworkbench/engine/trace"
)

// pyptoRunResponse answers POST /api/pypto/run: the stored run's id (watch
// it on /ws/runs/{id} and share /r/{id}, as an emulator run), how the
// script ended, and what the lanes show.
type pyptoRunResponse struct {
	ID       string  `json:"id,omitempty"`
	Cached   bool    `json:"cached,omitempty"`
	Status   string  `json:"status,omitempty"` // the driver's: ok, mismatch, no_golden, timeout, error
	Platform string  `json:"platform,omitempty"`
	PyPTO    string  `json:"pypto,omitempty"`
	Seconds  float64 `json:"seconds,omitempty"`
	Events   int     `json:"events"`
	Lanes    string  `json:"lanes,omitempty"`
	// Diagnostics and Error say why nothing ran: the program does not
	// export (as POST /api/export says).
	Diagnostics diag.List `json:"diagnostics"`
	Error       string    `json:"error,omitempty"`
}

// postPyPTORun answers POST /api/pypto/run (the body of POST /api/export):
// it exports the program, runs the script through PyPTO on the platform
// (npu.Run: a temporary directory, the server's run deadline and memory
// budget) and stores what came back as a run, its swimlane records as the
// run's events, so the page's lanes, Outputs, Traffic and share link work
// on it. Where PyPTO cannot run the platform it answers 409 with what is
// missing; the emulator stays the default everywhere.
func (s *Server) postPyPTORun(c *fiber.Ctx) error {
	var req exportRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	x, err := s.export(&req)
	if err != nil {
		return err
	}
	out := pyptoRunResponse{Platform: req.Platform}
	if diags, msg, ok := x.outcome(); !ok {
		out.Diagnostics, out.Error = diags, msg
		return c.JSON(out)
	}
	var tc npu.Toolchain
	if err := s.withSlot("pypto", func() { tc = npu.Detect(s.base, npu.DetectOptions{}) }); err != nil {
		return err
	}
	if !tc.Usable(req.Platform) {
		return errorf(fiber.StatusConflict, strings.Join(tc.MissingFor(req.Platform), "; "),
			"PyPTO cannot run %s on this machine; the emulator needs none of it", req.Platform)
	}
	st := Settings{Kernel: req.Kernel, Ranks: x.res.Ranks, Entry: x.res.Entry, Fill: string(x.opts.Fill), Seed: req.Seed,
		Platform: req.Platform, Backend: "pypto " + tc.PyPTO}
	id := runID(req.Code, st)
	out.ID, out.PyPTO = id, tc.PyPTO
	// UserContext, as every handler: database/sql derives a context from
	// the one it is given, and one derived from fasthttp's RequestCtx
	// reads a field Shutdown writes (the race detector found it).
	if stored, err := hasRun(c.UserContext(), s.db, id); err != nil {
		return err
	} else if stored {
		out.Cached = true
		return c.JSON(out)
	}
	bud := s.budget()
	var res *npu.Result
	if err := s.withSlot("pypto", func() {
		res, err = npu.Run(s.base, npu.RunSpec{Script: x.res.Script, Data: x.res.Data, DataFile: x.opts.DataFile, Platform: req.Platform,
			Swimlane: true, Python: tc.Python, Timeout: bud.Timeout, Memory: bud.Memory})
	}); err != nil {
		return err
	}
	if err != nil {
		return errorf(fiber.StatusInternalServerError, "run the exported script by hand to see PyPTO's own messages", "running PyPTO: %v", err)
	}
	rec := pyptoRecord(id, req.Code, st, res)
	if err := s.storePyPTO(rec, res.Events); err != nil {
		return err
	}
	out.Status, out.Seconds, out.Events, out.Lanes = res.Status, res.Elapsed.Seconds(), len(res.Events), res.Lanes
	return c.JSON(out)
}

// pyptoRecord turns a PyPTO run into the record a stored run has: the
// manifest's outputs, the driver's golden verdict as the run's check, and
// a note saying what was run and what its lanes are.
func pyptoRecord(id, code string, st Settings, res *npu.Result) *record {
	rec := &record{ID: id, Code: code, Settings: st, Status: string(emu.StatusOK), Ranks: st.Ranks, Entry: st.Entry,
		Outputs: map[string]*outTensor{}, Races: []emu.Race{}, Events: len(res.Events)}
	note := fmt.Sprintf("run by %s on %s in %.2f s", st.Backend, st.Platform, res.Elapsed.Seconds())
	if res.Lanes != "" {
		note += "; the lanes are " + res.Lanes
	}
	rec.Diagnostics = diag.List{{Severity: diag.Info, Msg: note}}
	switch res.Status {
	case npu.StatusTimeout:
		rec.Status = string(emu.StatusTimeout)
		rec.Error = &emu.RunError{Rank: -1, Message: "the PyPTO run passed the server's run deadline and was killed"}
	case npu.StatusError:
		rec.Status = string(emu.StatusRuntimeError)
		rec.Error = &emu.RunError{Rank: -1, Message: "the exported script failed under PyPTO: " + lastLines(res.Stderr, 6)}
	}
	if m := res.Manifest; m != nil {
		outs := map[string]*floats.TensorJSON{}
		for name, o := range m.Outputs {
			rec.OutputOrder = append(rec.OutputOrder, name)
			outs[name] = &floats.TensorJSON{DType: o.DType, Shape: o.Shape, Data: floats.Floats(o.Data)}
		}
		sort.Strings(rec.OutputOrder)
		rec.Outputs = capOutputs(rec.OutputOrder, outs, limits.OutputFull, limits.OutputPrefix)
		switch m.Status {
		case "ok":
			rec.Check = &verdict{Pass: true, Status: "ok"}
		case "mismatch":
			var why []string
			for _, mm := range m.Mismatches {
				why = append(why, fmt.Sprintf("%s: %d of %d elements wrong, the first at %d", mm.Output, mm.Wrong, mm.Of, mm.First))
			}
			rec.Check = &verdict{Status: "wrong_data", Reason: strings.Join(why, "; ") + " (PyPTO's driver, against the step's golden)"}
		case "no_golden":
			rec.Check = &verdict{Status: "no_golden", Reason: m.NoGolden}
		}
	}
	return rec
}

// storePyPTO writes a PyPTO run to the store through the store writer,
// pinned (its link is handed out at once), its events in pages as an
// emulator run's are.
func (s *Server) storePyPTO(rec *record, events []trace.Event) error {
	rec.Created = time.Now().UTC().Format(time.RFC3339Nano)
	return s.writer.write(rec.ID, func(ctx context.Context, tx writeTx) (int64, error) {
		i := 0
		return s.putRecord(ctx, tx, rec.ID, rec.Code, nil, rec, true, func() ([]byte, bool) {
			if i == len(events) {
				return nil, false
			}
			b := appendEvent(nil, &events[i]) // as an emulator run's events are encoded
			i++
			return b, true
		})
	})
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
