package server

// Reading a run back: its record (GET /api/runs/{id}), its events and
// trace, and the replay a socket sends, from the store or, while the run
// waits for its commit, from memory.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine/emu"
	"pldworkbench/engine/floats"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/trace"
)

// loadRecord reads a stored run's record. Rows written before outputs were
// capped are capped here, so every reader gets the same shape.
func loadRecord(sr *storedRun) (*record, error) {
	var rec record
	if err := json.Unmarshal([]byte(sr.Result), &rec); err != nil {
		return nil, fmt.Errorf("run %s: stored result: %w", sr.ID, err)
	}
	rec.Code = sr.Code
	if rec.Outputs == nil {
		rec.Outputs = map[string]*outTensor{}
	}
	for name, t := range rec.Outputs {
		if !t.Truncated && len(t.Data) > limits.OutputFull {
			rec.Outputs[name] = capOutputs([]string{name}, map[string]*floats.TensorJSON{name: &t.TensorJSON}, 0, limits.OutputPrefix)[name]
		}
	}
	return &rec, nil
}

// notStored is the 404 of an id the store does not have.
func notStored(id string) error {
	return errorf(fiber.StatusNotFound, "runs are stored when they finish; a cancelled or timed-out run is not, and unpinned runs are evicted past the store budget", "no run %s", id)
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
		finished, unsaved := r.finished, r.unsaved
		rec := record{ID: r.id, Code: r.code, Settings: r.settings, Status: r.status, Ranks: r.ranks, Entry: r.entry,
			Events: r.events, EventsTruncated: r.truncated, Created: r.created.Format(time.RFC3339Nano),
			Outputs: map[string]*outTensor{}, OutputOrder: []string{}, Races: []emu.Race{}}
		r.mu.Unlock()
		if !finished {
			return c.JSON(rec)
		}
		if unsaved != nil {
			return s.unsavedJSON(c, r, unsaved)
		}
	}
	if r := s.writer.holding(id); r != nil {
		r.mu.Lock()
		unsaved := r.unsaved
		r.mu.Unlock()
		if unsaved != nil {
			return s.unsavedJSON(c, r, unsaved)
		}
	}
	sr, ok, err := getRun(c.UserContext(), s.db, id)
	if err != nil {
		return err
	}
	if !ok {
		return notStored(id)
	}
	rec, err := loadRecord(sr)
	if err != nil {
		return err
	}
	return c.JSON(rec)
}

// unsavedJSON answers GET /api/runs/{id} for a finished run whose record
// is not committed.
func (s *Server) unsavedJSON(c *fiber.Ctx, r *run, rec *record) error {
	back, err := unsavedRecord(r, rec)
	if err != nil {
		return err
	}
	return c.JSON(back)
}

// unsavedRecord is run r's record rec as the store will give it back
// (the same JSON, read back by loadRecord), so what is answered from it
// is the same bytes before the commit and after.
func unsavedRecord(r *run, rec *record) (*record, error) {
	cp := *rec // recordJSON sets fields for a moment; rec is shared with the commit
	result, err := recordJSON(&cp)
	if err != nil {
		return nil, err
	}
	return loadRecord(&storedRun{ID: r.id, Code: r.code, Result: string(result)})
}

// storedRunOf reads a stored run's row, 404 when it is not stored. A
// run whose record waits for the writer's commit has it committed now
// (these readers want the stored pages), and then is read as any other.
func (s *Server) storedRunOf(ctx context.Context, id string) (*storedRun, error) {
	if r := s.writer.holding(id); r != nil {
		r.mu.Lock()
		saving := r.saving
		r.mu.Unlock()
		if saving != nil {
			s.writer.kick()
			select {
			case <-saving:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	sr, ok, err := getRun(ctx, s.db, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notStored(id)
	}
	return sr, nil
}

// eachPage calls f with every stored page of sr's events, in order.
func (s *Server) eachPage(ctx context.Context, sr *storedRun, f func([][]byte) error) error {
	for n := 0; ; n++ {
		if (sr.Pages == 0 && n > 0) || (sr.Pages > 0 && n >= sr.Pages) {
			return nil
		}
		lines, err := getPage(ctx, s.db, sr, n)
		if err != nil {
			return err
		}
		if err := f(lines); err != nil {
			return err
		}
	}
}

// getEvents answers GET /api/runs/{id}/events: the events as JSON lines,
// streamed a page at a time.
func (s *Server) getEvents(c *fiber.Ctx) error {
	// A copy: Fiber's Params point into the request buffer, reused once
	// the handler returns, and the body is streamed after that.
	id := strings.Clone(c.Params("id"))
	sr, err := s.storedRunOf(c.UserContext(), id)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "application/x-ndjson")
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		err := s.eachPage(ctx, sr, func(lines [][]byte) error {
			for _, l := range lines {
				w.Write(l)
				w.WriteByte('\n')
			}
			return w.Flush()
		})
		if err != nil {
			s.logf("events %s: %v", id, err)
		}
	})
	return nil
}

// getTrace answers GET /api/runs/{id}/trace.json: the Perfetto export, as
// `workbench run --trace out.json` writes it. The export needs every event
// at once (flows pair events across the run), so this one reader holds the
// run's events: at most maxEvents.
func (s *Server) getTrace(c *fiber.Ctx) error {
	id := c.Params("id")
	sr, err := s.storedRunOf(c.UserContext(), id)
	if err != nil {
		return err
	}
	rec, err := loadRecord(sr)
	if err != nil {
		return err
	}
	events := make([]trace.Event, 0, sr.EventCount)
	err = s.eachPage(c.UserContext(), sr, func(lines [][]byte) error {
		for _, l := range lines {
			var e trace.Event
			if err := json.Unmarshal(l, &e); err != nil {
				return fmt.Errorf("run %s: stored event: %w", id, err)
			}
			events = append(events, e)
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="pld-%s.json"`, id))
	title := fmt.Sprintf("%s at P=%d", rec.Entry, rec.Ranks)
	return trace.WritePerfetto(c.Response().BodyWriter(), events, trace.PerfettoOptions{Title: title})
}

// replayOf makes the message log of a stored run: the same messages the
// live run sent, from the store, with status "replay", its events read a
// page at a time as the viewer's socket takes them.
func (s *Server) replayOf(ctx context.Context, id string) (*run, error) {
	id = strings.Clone(id) // the replay outlives the request whose Params id came from
	if r := s.writer.holding(id); r != nil {
		if rp, err := memoryReplay(r); rp != nil || err != nil {
			return rp, err
		}
	}
	sr, err := s.storedRunOf(ctx, id)
	if err != nil {
		return nil, err
	}
	rec, err := loadRecord(sr)
	if err != nil {
		return nil, err
	}
	head := [][]byte{statusMessage("replay", id, rec.Settings, rec.Ranks, rec.Entry)}
	head = append(head, diagMessages(rec.Diagnostics)...)
	tail := append(resultMessages(rec), doneMessage(rec, "/r/"+id))
	r := newReplay(id, &replayLog{db: s.db, sr: sr, head: head, tail: tail, logf: s.logf})
	r.shared = true
	return r, nil
}

// memoryReplay is the replay of run r, held by the store writer until
// its record is committed: the messages a replay from the store will
// send (head and tail from the record as the store gives it back, the
// event messages the run logged), from memory. nil when r's commit has
// ended meanwhile (the caller reads the store).
func memoryReplay(r *run) (*run, error) {
	r.mu.Lock()
	rec := r.unsaved
	items := r.items[:len(r.items):len(r.items)] // the log only grows: this prefix never changes
	r.mu.Unlock()
	if rec == nil {
		return nil, nil
	}
	back, err := unsavedRecord(r, rec)
	if err != nil {
		return nil, err
	}
	rp := newReplay(r.id, nil)
	rp.shared = true
	rp.items = append(rp.items, item{raw: statusMessage("replay", r.id, back.Settings, back.Ranks, back.Entry)})
	for _, m := range diagMessages(back.Diagnostics) {
		rp.items = append(rp.items, item{raw: m})
	}
	for _, it := range items {
		if it.isEvent {
			rp.items = append(rp.items, it)
		}
	}
	for _, m := range append(resultMessages(back), doneMessage(back, "/r/"+r.id)) {
		rp.items = append(rp.items, item{raw: m})
	}
	return rp, nil
}
