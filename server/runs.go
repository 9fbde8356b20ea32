package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/trace"
	"pldworkbench/tutorials/check"
)

// record is a run as GET /api/runs/{id} answers it and as the store keeps
// it (the result column holds it without the code, which has its own).
type record struct {
	ID              string                        `json:"id"`
	Code            string                        `json:"code"`
	Settings        Settings                      `json:"settings"`
	Status          string                        `json:"status"`
	Ranks           int                           `json:"ranks"`
	Entry           string                        `json:"entry"`
	Outputs         map[string]*engine.TensorJSON `json:"outputs"`
	OutputOrder     []string                      `json:"output_order"`
	OutputChecks    map[string]check.OutputCheck  `json:"output_checks,omitempty"`
	Races           []emu.Race                    `json:"races"`
	RacesOmitted    int                           `json:"races_omitted,omitempty"`
	Deadlock        *emu.Deadlock                 `json:"deadlock,omitempty"`
	Error           *emu.RunError                 `json:"error,omitempty"`
	Diagnostics     []diag.JSON                   `json:"diagnostics"`
	Stats           emu.Stats                     `json:"stats"`
	Check           *verdict                      `json:"check,omitempty"`
	Events          int                           `json:"events"`
	EventsTruncated bool                          `json:"events_truncated,omitempty"`
	Created         string                        `json:"created"`
}

// verdict is a step run's check: pass, a status (ok, the run's failure
// status, wrong_data, no_golden) and a one-line reason.
type verdict struct {
	Pass   bool   `json:"pass"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
}

// statusCancelled is the done status of a cancelled run (the emulator says
// "canceled"; API.md spells it the British way).
const statusCancelled = "cancelled"

// postResponse answers POST /api/runs.
type postResponse struct {
	ID       string   `json:"id"`
	Cached   bool     `json:"cached"`
	Settings Settings `json:"settings"`
}

// postRun starts a run, joins the one executing under the same id, or
// finds it stored.
func (s *Server) postRun(c *fiber.Ctx) error {
	var req runRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	pr, err := s.startRun(c.UserContext(), &req)
	if err != nil {
		return err
	}
	return c.JSON(pr)
}

// startRun is POST /api/runs after decoding (POST /api/compare starts its
// two sides through it too): it validates and normalizes req, hashes it
// into the run's id, and finds the run stored, joins it executing, or
// starts it on its own goroutine.
func (s *Server) startRun(ctx context.Context, req *runRequest) (postResponse, error) {
	if err := checkCode("code", req.Code); err != nil {
		return postResponse{}, err
	}
	st, sc, err := normalize(req)
	if err != nil {
		return postResponse{}, err
	}
	id := runID(req.Code, st)
	if s.closing.Load() {
		return postResponse{}, errorf(fiber.StatusServiceUnavailable, "the server is shutting down", "not accepting runs")
	}
	// The store is asked under s.mu: a run leaves the live map only after
	// its store write, so a post sees it in one place or the other.
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.live[id]; ok {
		return postResponse{ID: id, Settings: st}, nil
	}
	stored, err := hasRun(ctx, s.db, id)
	if err != nil {
		return postResponse{}, err
	}
	if stored {
		return postResponse{ID: id, Cached: true, Settings: st}, nil
	}
	r := newRun(s.base, id, req.Code, st, sc)
	s.live[id] = r
	s.runs.Add(1)
	go s.execute(r)
	return postResponse{ID: id, Settings: st}, nil
}

// execute runs r on the engine and stores it.
func (s *Server) execute(r *run) {
	defer s.runs.Done()
	start := time.Now()
	defer func() {
		s.mu.Lock()
		delete(s.live, r.id)
		s.mu.Unlock()
		r.mu.Lock()
		status := r.status
		r.mu.Unlock()
		s.logf("run %s %s %dms", r.id, status, time.Since(start).Milliseconds())
	}()
	select {
	case s.sem <- struct{}{}:
	default:
		r.add(statusMessage("queued", r.id, r.settings, r.settings.Ranks, r.settings.Entry))
		select {
		case s.sem <- struct{}{}:
		case <-r.ctx.Done():
			r.finish(statusCancelled, mustJSON(doneMsg{Type: "done", Status: statusCancelled}))
			return
		}
	}
	defer func() { <-s.sem }()
	s.executions.Add(1)
	rec := s.runEngine(r)
	if rec.Status == statusCancelled {
		r.finish(statusCancelled, doneMessage(rec, ""))
		return
	}
	r.add(resultMessages(rec)...)
	share := ""
	if err := s.store(r, rec); err != nil {
		s.logf("run %s: storing: %v", r.id, err)
	} else {
		share = "/r/" + r.id
	}
	r.finish(rec.Status, doneMessage(rec, share))
}

// runEngine resolves the entry, checks, runs and judges r, appending the
// status, diagnostics and events to its log as they come.
func (s *Server) runEngine(r *run) *record {
	st := r.settings
	rec := &record{ID: r.id, Settings: st, Ranks: st.Ranks, Entry: st.Entry, Outputs: map[string]*engine.TensorJSON{},
		OutputOrder: []string{}, Races: []emu.Race{}, Diagnostics: []diag.JSON{}}
	name := "main.py"
	if r.step != nil {
		name = r.step.File
	}
	src := []byte(r.code)
	fail := func(ds diag.List, e *emu.RunError) *record {
		rec.Status, rec.Error = string(engine.StatusCompileError), e
		for _, d := range ds {
			rec.Diagnostics = append(rec.Diagnostics, diag.ToJSON(d))
		}
		r.setStatus("running", rec.Ranks, rec.Entry)
		r.add(statusMessage("running", r.id, st, rec.Ranks, rec.Entry))
		r.add(diagMessages(rec.Diagnostics)...)
		rec.Check = judge(r.step, rec, nil)
		return rec
	}
	if rec.Entry == "" {
		entry, err := engine.DefaultEntry(r.ctx, name, src, engine.Options{Ranks: st.Ranks, Budget: s.budget()})
		if err != nil {
			var l diag.List
			if errors.As(err, &l) {
				return fail(l, nil)
			}
			return fail(nil, &emu.RunError{Rank: -1, Message: err.Error(), Hint: "name the host orchestrator to run in entry"})
		}
		rec.Entry = entry
	}
	opts := engine.Options{Entry: rec.Entry, Ranks: st.Ranks, Platform: st.Platform, Budget: s.budget()}
	pre := engine.Check(r.ctx, name, src, opts)
	if len(pre.Units) == 1 && pre.Units[0].Program != nil {
		rec.Ranks = pre.Units[0].Program.Ranks
	}
	for _, d := range pre.Diags {
		rec.Diagnostics = append(rec.Diagnostics, diag.ToJSON(d))
	}
	r.setStatus("running", rec.Ranks, rec.Entry)
	r.add(statusMessage("running", r.id, st, rec.Ranks, rec.Entry))
	r.add(diagMessages(rec.Diagnostics)...)

	fill, _ := engine.ParseFill(st.Fill) // validated by normalize
	res := engine.Run(r.ctx, name, src, engine.RunOptions{
		Options: opts, Fill: fill, Seed: st.Seed, Args: st.Args, Schedule: st.Schedule,
		OnEvent: r.event,
	})
	rec.Status = string(res.Status)
	if res.Status == emu.StatusCanceled {
		rec.Status = statusCancelled
		return rec
	}
	if res.Ranks > 0 {
		rec.Ranks = res.Ranks
	}
	rec.Deadlock, rec.Error, rec.Stats = res.Deadlock, res.Error, res.Stats
	rec.Races, rec.RacesOmitted = res.Races, res.RacesOmitted
	for _, n := range res.OutputOrder {
		rec.OutputOrder = append(rec.OutputOrder, n)
		rec.Outputs[n] = res.Outputs[n]
	}
	r.mu.Lock()
	rec.Events, rec.EventsTruncated = r.events, r.truncated
	r.mu.Unlock()
	if r.step != nil && r.step.Entry != "" && res.In != nil {
		checks, ok := check.RankChecks(r.step.Kernel, r.step.Entry, rec.Ranks, res.In, res.Out)
		if ok {
			rec.OutputChecks = checks
		}
	}
	rec.Check = judge(r.step, rec, res)
	return rec
}

// judge gives a step run's verdict. It judges the run already done, under
// the schedule the learner picked, against the golden: pass when the run
// ended ok and every output passes its per-rank check. It does not rerun
// under check.Schedules (fair and adversarial) as check.Run and `workbench
// step` do: a web run must not cost three runs, and the learner can pick
// the adversarial schedule to hunt the races the fair one hides.
func judge(sc *stepCheck, rec *record, res *engine.RunResult) *verdict {
	if sc == nil {
		return nil
	}
	if sc.Entry == "" {
		return &verdict{Status: check.NoGolden, Reason: fmt.Sprintf("%s has no entry %s to check against", sc.Kernel, rec.Entry)}
	}
	if rec.Status != string(emu.StatusOK) {
		return &verdict{Status: rec.Status, Reason: failure(rec)}
	}
	if rec.OutputChecks == nil {
		return &verdict{Status: check.NoGolden, Reason: fmt.Sprintf("no golden for %s/%s", sc.Kernel, sc.Entry)}
	}
	names := make([]string, 0, len(rec.OutputChecks))
	for n := range rec.OutputChecks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		oc := rec.OutputChecks[n]
		if oc.Pass {
			continue
		}
		reason := oc.Reason
		if reason == "" {
			for _, rc := range oc.Ranks {
				if !rc.Pass {
					reason = fmt.Sprintf("%s: rank %d differs from the golden at element %d (max abs diff %v)", n, rc.Rank, rc.FirstBad, rc.MaxAbsDiff)
					break
				}
			}
		}
		return &verdict{Status: check.WrongData, Reason: reason}
	}
	if len(rec.OutputChecks) != len(rec.OutputOrder) {
		return &verdict{Status: check.WrongData, Reason: fmt.Sprintf("the entry has %d outputs %v, the golden names %d", len(rec.OutputOrder), rec.OutputOrder, len(rec.OutputChecks))}
	}
	return &verdict{Pass: true, Status: string(emu.StatusOK)}
}

// failure says in one line why a run did not end ok.
func failure(rec *record) string {
	switch {
	case rec.Status == string(emu.StatusRace) && len(rec.Races) > 0:
		return rec.Races[0].Message
	case rec.Deadlock != nil:
		var waits []string
		for _, b := range rec.Deadlock.Ranks {
			waits = append(waits, fmt.Sprintf("rank %d line %d waits on %s = %d (%s %d)", b.Rank, b.Line, b.Cell, b.Value, b.Cmp, b.Expected))
		}
		return strings.Join(waits, "; ")
	case rec.Error != nil:
		return rec.Error.Error()
	}
	for _, d := range rec.Diagnostics {
		if d.Severity == "error" {
			return fmt.Sprintf("line %d: %s %s", d.Line, d.Code, d.Message)
		}
	}
	return "the run ended with status " + rec.Status
}

// store writes a finished run: its record and its events, in one
// transaction.
func (s *Server) store(r *run, rec *record) error {
	rec.Created = r.created.Format(time.RFC3339Nano)
	r.mu.Lock()
	lines := make([][]byte, 0, r.events)
	for i := range r.items {
		if r.items[i].isEvent {
			b, _ := json.Marshal(r.items[i].ev)
			lines = append(lines, b)
		}
	}
	r.mu.Unlock()
	blob, err := gzipLines(lines)
	if err != nil {
		return err
	}
	code := rec.Code
	rec.Code = ""
	result, err := json.Marshal(rec)
	rec.Code = code
	if err != nil {
		return err
	}
	settings, _ := json.Marshal(rec.Settings)
	// The write must land even when Shutdown cancelled the base context
	// after the run ended: give it its own deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return putRun(ctx, s.db, &storedRun{ID: r.id, Code: r.code, Settings: string(settings), Status: rec.Status,
		Result: string(result), Events: blob, EventCount: len(lines), Created: rec.Created})
}

// loadRecord reads a stored run's record.
func loadRecord(sr *storedRun) (*record, error) {
	var rec record
	if err := json.Unmarshal([]byte(sr.Result), &rec); err != nil {
		return nil, fmt.Errorf("run %s: stored result: %w", sr.ID, err)
	}
	rec.Code = sr.Code
	return &rec, nil
}

// getRunJSON answers GET /api/runs/{id}: the stored record, or what is
// known of a run still executing.
func (s *Server) getRunJSON(c *fiber.Ctx) error {
	id := c.Params("id")
	s.mu.Lock()
	r := s.live[id]
	s.mu.Unlock()
	if r != nil {
		r.mu.Lock()
		finished := r.finished
		rec := record{ID: r.id, Code: r.code, Settings: r.settings, Status: r.status, Ranks: r.ranks, Entry: r.entry,
			Events: r.events, EventsTruncated: r.truncated, Created: r.created.Format(time.RFC3339Nano),
			Outputs: map[string]*engine.TensorJSON{}, OutputOrder: []string{}, Races: []emu.Race{}, Diagnostics: []diag.JSON{}}
		r.mu.Unlock()
		if !finished {
			return c.JSON(rec)
		}
	}
	sr, ok, err := getRun(c.UserContext(), s.db, id, false)
	if err != nil {
		return err
	}
	if !ok {
		return errorf(fiber.StatusNotFound, "runs are stored when they finish; a cancelled run is not", "no run %s", id)
	}
	rec, err := loadRecord(sr)
	if err != nil {
		return err
	}
	return c.JSON(rec)
}

// storedEvents reads a stored run's events as JSON lines.
func (s *Server) storedEvents(ctx context.Context, id string) (*storedRun, [][]byte, error) {
	sr, ok, err := getRun(ctx, s.db, id, true)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, errorf(fiber.StatusNotFound, "runs are stored when they finish; a cancelled run is not", "no run %s", id)
	}
	raw, err := gunzip(sr.Events)
	if err != nil {
		return nil, nil, fmt.Errorf("run %s: stored events: %w", id, err)
	}
	return sr, splitLines(raw), nil
}

// getEvents answers GET /api/runs/{id}/events: the events as JSON lines.
func (s *Server) getEvents(c *fiber.Ctx) error {
	_, lines, err := s.storedEvents(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "application/x-ndjson")
	var out []byte
	for _, l := range lines {
		out = append(append(out, l...), '\n')
	}
	return c.Send(out)
}

// getTrace answers GET /api/runs/{id}/trace.json: the Perfetto export, as
// `workbench run --trace out.json` writes it.
func (s *Server) getTrace(c *fiber.Ctx) error {
	id := c.Params("id")
	sr, lines, err := s.storedEvents(c.UserContext(), id)
	if err != nil {
		return err
	}
	rec, err := loadRecord(sr)
	if err != nil {
		return err
	}
	events := make([]trace.Event, 0, len(lines))
	for _, l := range lines {
		var e trace.Event
		if err := json.Unmarshal(l, &e); err != nil {
			return fmt.Errorf("run %s: stored event: %w", id, err)
		}
		events = append(events, e)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="pld-%s.json"`, id))
	title := fmt.Sprintf("%s at P=%d", rec.Entry, rec.Ranks)
	return trace.WritePerfetto(c.Response().BodyWriter(), events, trace.PerfettoOptions{Title: title})
}

// replayOf builds the message log of a stored run: the same messages the
// live run sent, from the store, with status "replay".
func (s *Server) replayOf(ctx context.Context, id string) (*run, error) {
	sr, lines, err := s.storedEvents(ctx, id)
	if err != nil {
		return nil, err
	}
	rec, err := loadRecord(sr)
	if err != nil {
		return nil, err
	}
	items := []item{{raw: statusMessage("replay", id, rec.Settings, rec.Ranks, rec.Entry)}}
	for _, m := range diagMessages(rec.Diagnostics) {
		items = append(items, item{raw: m})
	}
	for _, l := range lines {
		items = append(items, item{raw: eventMessage(l)})
	}
	for _, m := range resultMessages(rec) {
		items = append(items, item{raw: m})
	}
	items = append(items, item{raw: doneMessage(rec, "/r/"+id)})
	return newReplay(id, items), nil
}
