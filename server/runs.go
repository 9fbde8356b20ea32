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
	"pldworkbench/engine/limits"
	"pldworkbench/engine/trace"
	"pldworkbench/tutorials/check"
)

// statusCancelled is the done status of a cancelled run (the emulator says
// "canceled"; API.md spells it the British way).
const statusCancelled = "cancelled"

// postRun starts a run, joins the one executing under the same id, or
// finds it stored.
func (s *Server) postRun(c *fiber.Ctx) error {
	var req runRequest
	if err := decodeRunRequest(c.Body(), &req, s.texts); err != nil {
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
	id, sum := runIDSum(req.Code, st, req.text)
	if s.closing.Load() {
		return postResponse{}, errorf(fiber.StatusServiceUnavailable, "the server is shutting down", "not accepting runs")
	}
	// The live map first, then the store, then the live map again, now to
	// start the run. The store is asked without s.mu: under a burst of
	// posts, one SQLite read at a time under the lock held every post and
	// every socket's lookup behind it. A finished run is held by the
	// store writer from before it leaves the live map until after its
	// row is committed and its id known (writer.go), and stored asks the
	// writer first, so a post sees it in one place or the other. (Should
	// a content run twice all the same, its second write keeps the first
	// row: putRunTx.)
	s.mu.Lock()
	pr, found := s.liveLocked(id, st)
	s.mu.Unlock()
	if found {
		return pr, nil
	}
	stored, err := s.writer.stored(ctx, id)
	if err != nil {
		return postResponse{}, err
	}
	if stored {
		return postResponse{ID: id, Cached: true, Settings: st}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if pr, found := s.liveLocked(id, st); found {
		return pr, nil
	}
	r := newRun(s.base, id, req.Code, st, sc)
	r.codeSum = sum
	r.prog, r.ran = req.prog, req.ran
	w, ok := s.slots.enqueueRun(r)
	if !ok {
		r.cancel()
		return postResponse{}, &apiError{Status: fiber.StatusServiceUnavailable, RetryAfter: s.retryAfter(),
			Msg:  fmt.Sprintf("the run queue is full (%d waiting)", s.opts.MaxQueue),
			Hint: "try again after Retry-After seconds; `workbench serve --queue N` allows more"}
	}
	r.onWatch = s.slots.reorder
	s.live[id] = r
	s.runs.Add(1)
	// A run nobody watches within the grace is dropped, queued or
	// executing: it must not hold a slot or a place in the queue.
	grace := time.AfterFunc(s.opts.UnwatchedGrace, func() {
		r.mu.Lock()
		watched := r.watched
		r.mu.Unlock()
		if !watched {
			r.drop()
		}
	})
	s.workers.do(func() { s.execute(r, w, grace) })
	return postResponse{ID: id, Settings: st}, nil
}

// liveLocked answers a post of id from the live map: found when the run
// is executing (the caller joins it) or finished and stored, lingering
// or with its record waiting for the writer's commit (cached). A run
// that finished unstored, or whose commit failed, is run again. Called
// with s.mu held.
func (s *Server) liveLocked(id string, st Settings) (postResponse, bool) {
	lr, ok := s.live[id]
	if !ok {
		return postResponse{}, false
	}
	if lr.lingers {
		return postResponse{ID: id, Cached: true, Settings: st}, true
	}
	lr.mu.Lock()
	over, saving := lr.finished, lr.saving != nil && lr.saveErr == nil
	lr.mu.Unlock()
	if over && saving {
		return postResponse{ID: id, Cached: true, Settings: st}, true
	}
	// finished and not stored: run it again
	return postResponse{ID: id, Settings: st}, !over
}

// retryAfter is the Retry-After a refused post gets, in seconds: about
// when the queue has moved, the unwatched grace or a run's timeout,
// whichever is shorter.
func (s *Server) retryAfter() int {
	d := min(s.opts.UnwatchedGrace, s.opts.RunTimeout)
	return max(1, int((d+time.Second-1)/time.Second))
}

// execute waits for a slot for r, runs it on the engine and stores it.
func (s *Server) execute(r *run, w *waiter, grace *time.Timer) {
	defer s.runs.Done()
	defer grace.Stop()
	start := time.Now()
	queued, logged := false, false
	defer func() {
		// A run queued for the store is found as a stored one from now
		// on: held by the writer until its commit (replayOf, getRunJSON,
		// storedRunOf), then in the store. One that was not (cut short,
		// or a crash), or whose commit failed already, lingers a grace in
		// the live map, so a client that connects late still gets its
		// done; a post of the same content replaces it (startRun).
		//
		// A stored run nobody watches yet lingers too, when it is small
		// (one page of events) and fewer than the queue's length do: its
		// client posted it and is about to connect, and the log in memory
		// is what it would have seen a moment earlier, where a replay
		// (reading the record and the pages back, decoding the outputs)
		// cost the server more than the run. Later viewers (a share
		// link) get the replay.
		s.mu.Lock()
		r.mu.Lock()
		small := !r.watched && r.events <= limits.EventPage
		failed := r.saveErr != nil
		r.mu.Unlock()
		switch {
		case failed: // saved made it linger unstored
		case !queued:
			s.lingerLocked(r, false)
		case small && s.lingering < s.opts.MaxQueue:
			s.lingerLocked(r, true)
		default:
			delete(s.live, r.id)
		}
		s.mu.Unlock()
		if !logged {
			r.mu.Lock()
			status := r.status
			r.mu.Unlock()
			s.logf("run %s %s %dms", r.id, status, time.Since(start).Milliseconds())
		}
	}()
	if !s.slots.wait(r.ctx, w) {
		r.finish(statusCancelled, mustJSON(doneMsg{Type: "done", Status: statusCancelled}))
		return
	}
	r.leaveQueue()
	s.executions.Add(1)
	var rec *record
	err := s.guard("run "+r.id, func() { rec = s.runEngine(r) })
	if err == nil && rec.internal != nil {
		err = rec.internal
	}
	// Logged before the slot goes back, so the log has the runs in the
	// order they had their slots.
	status := string(emu.StatusRuntimeError)
	if err == nil {
		status = rec.Status
	}
	s.logf("run %s %s %dms", r.id, status, time.Since(start).Milliseconds())
	logged = true
	// The slot goes back before the store write: a queued run's first
	// event must not wait for another run's SQLite write (writes go
	// through one writer, writer.go), and the write is not the engine's
	// work.
	s.slots.release()
	if err != nil {
		r.finish(string(emu.StatusRuntimeError), internalDone(err))
		return
	}
	// A run cut short (cancelled, or out of time, which on a busy machine
	// says more about the machine than the program) is not its content's
	// result: it is not stored, and a re-post runs it again.
	if rec.Status == statusCancelled || rec.Status == string(emu.StatusTimeout) {
		r.add(resultMessages(rec)...)
		r.finish(rec.Status, doneMessage(rec, ""))
		return
	}
	r.add(resultMessages(rec)...)
	// The done, with the share link, goes out before the commit (write
	// behind, writer.go): until the commit the run answers from memory
	// as a stored one (liveLocked, storeWriter.stored, replayOf,
	// getRunJSON; storedRunOf has it committed first), and a commit that
	// fails leaves it lingering unstored (saved).
	rec.Created = r.created.Format(time.RFC3339Nano)
	r.mu.Lock()
	r.saving, r.unsaved, r.shared = make(chan struct{}), rec, true
	r.mu.Unlock()
	// Queued before the done goes out: a client that has its done finds
	// the run held by the writer (or stored) from then on.
	s.store(r, rec)
	queued = true
	share := "/r/" + r.id
	if s.opts.StoreDelay < 0 {
		// --store-delay 0: the done follows the commit, and carries the
		// link only when the run was stored.
		<-r.saving
		r.mu.Lock()
		if r.saveErr != nil {
			share = ""
		}
		r.mu.Unlock()
	}
	r.finish(rec.Status, doneMessage(rec, share))
}

// saved is the end of run r's store write (err nil: committed), called
// by the writer before it stops holding r: a committed run is found in
// the store from now on, and a lingering one lingers on.
//
// A failed commit is logged and the run lingers unstored, as a run cut
// short does: back in the live map (if it had left it), for the
// unwatched grace its share page, GET /api/runs/{id} and its socket
// still answer from memory, the socket with the live log and the done
// its client was sent (share link included); after that the link, the
// record and the socket are 404s, and a post of the same content runs
// it again (at once: it is not cached). Its events and trace.json are
// 404s from the failure on: they are read from the store.
func (s *Server) saved(r *run, err error) {
	if err != nil {
		s.logf("run %s: storing: %v", r.id, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r.mu.Lock()
	r.saveErr = err
	if err == nil {
		r.unsaved = nil
	}
	close(r.saving)
	r.mu.Unlock()
	if err == nil {
		return
	}
	if s.live[r.id] == nil {
		s.live[r.id] = r
	}
	if s.live[r.id] == r {
		if r.lingers {
			r.lingers = false
			s.lingering--
		}
		s.lingerLocked(r, false)
	}
}

// lingerLocked keeps finished run r in the live map for the unwatched
// grace (a post of the same content replaces it: startRun). A stored one
// is counted in s.lingering and leaves as soon as a client has read it to
// its end (unlinger), which stops its timer: the timer held the run, its
// log and its record for the rest of the grace after its client had read
// them, 5 s of every run a client posts and then watches (350 MB resident
// after a few thousand runs one after the other, each run's allocations
// faulting in fresh pages). Called with s.mu held.
func (s *Server) lingerLocked(r *run, stored bool) {
	if stored {
		s.lingering++
		r.lingers = true
	}
	r.lingerTimer = time.AfterFunc(s.opts.UnwatchedGrace, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if r.lingers {
			s.unlingerLocked(r)
		} else if s.live[r.id] == r {
			delete(s.live, r.id)
		}
	})
}

// unlinger ends a stored run's stay in the live map once a client has
// read its log to the end: later viewers replay it from the store.
func (s *Server) unlinger(r *run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.lingers {
		s.unlingerLocked(r)
	}
}

func (s *Server) unlingerLocked(r *run) {
	r.lingers = false
	s.lingering--
	r.lingerTimer.Stop()
	if s.live[r.id] == r {
		delete(s.live, r.id)
	}
}

// runEngine resolves the entry, checks, runs and judges r, appending the
// status, diagnostics and events to its log as they come.
func (s *Server) runEngine(r *run) *record {
	st := r.settings
	rec := &record{ID: r.id, Settings: st, Ranks: st.Ranks, Entry: st.Entry, Outputs: map[string]*outTensor{},
		OutputOrder: []string{}, Races: []emu.Race{}}
	name := "main.py"
	if r.step != nil {
		name = r.step.File
	}
	src := []byte(r.code)
	// One deadline for the whole pipeline (entry pick, check, run),
	// started now that the run has its slot: time queued is not charged.
	ctx, cancel := context.WithTimeoutCause(r.ctx, s.opts.RunTimeout, limits.ErrTimeout)
	defer cancel()
	fail := func(ds diag.List, e *emu.RunError) *record {
		rec.Status, rec.Error = string(emu.StatusCompileError), e
		// A front end cut short by the deadline or a cancellation is that,
		// not a compile error of the program (and so it is not stored).
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			rec.Status = string(emu.StatusTimeout)
		case ctx.Err() != nil:
			rec.Status = statusCancelled
		}
		rec.Diagnostics = ds
		r.setStatus("running", rec.Ranks, rec.Entry)
		r.add(statusMessage("running", r.id, st, rec.Ranks, rec.Entry))
		r.add(diagMessages(rec.Diagnostics)...)
		rec.Check = judge(r.step, rec, nil)
		return rec
	}
	prog := r.prog
	if prog == nil {
		prog = s.compileSum(ctx, name, src, r.codeSum, rec.Entry, st.Ranks, st.Platform)
	}
	if prog.Internal != nil {
		rec.internal = s.engineInternal("run "+r.id, prog.Internal)
		return rec
	}
	// A comparison's side (r.prog) was compiled as a.py or b.py; as a run
	// its diagnostics name the file this run's own compile would.
	diags := prog.Diags.Renamed(prog.Name, name)
	switch {
	case prog.NoEntry != "":
		return fail(diags, prog.Failure()) // E0412, naming the entries
	case prog.Entry == "":
		return fail(diags, nil)
	}
	rec.Entry = prog.Entry
	if prog.Checked() != nil {
		rec.Ranks = prog.Ranks
	}
	rec.Diagnostics = diags
	r.setStatus("running", rec.Ranks, rec.Entry)
	r.add(statusMessage("running", r.id, st, rec.Ranks, rec.Entry))
	r.add(diagMessages(rec.Diagnostics)...)

	var res *engine.RunResult
	if r.ran != nil {
		// Run already, by a comparison: its events go out as this run's.
		for _, e := range r.ran.events {
			r.event(e)
		}
		res = r.ran.res
	} else {
		fill, _ := emu.ParseFill(st.Fill) // validated by normalize
		res = prog.Run(ctx, engine.RunOptions{Options: engine.Options{Budget: s.budget()},
			Fill: fill, Seed: st.Seed, Args: st.Args, Schedule: st.Schedule, OnEvent: r.event,
			KeepEvents: maxEvents}) // the log keeps the first maxEvents; the rest cost nothing
	}
	if res.Internal != nil {
		rec.internal = s.engineInternal("run "+r.id, res.Internal)
		return rec
	}
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
	rec.OutputOrder = append(rec.OutputOrder, res.OutputOrder...)
	rec.Outputs = defaultCap(res.OutputOrder, res.Out)
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
		if d.Severity == diag.Error {
			return fmt.Sprintf("line %d: %s %s", d.Span.Start.Line, d.Code, d.Msg)
		}
	}
	return "the run ended with status " + rec.Status
}

// store queues a finished run, its record and its event pages, for the
// store writer's next commit (writer.go), and has saved called after it.
// A run a client has watched by the commit is stored pinned: that client
// was shown its share link in the done message (a client that gets done
// later pins it then: Server.pin). rec is not written to from here on:
// the commit works on a copy, and GET /api/runs/{id} reads it meanwhile.
func (s *Server) store(r *run, rec *record) {
	s.writer.queue(r.id, r, func(ctx context.Context, tx writeTx) (int64, error) {
		cp := *rec // putRecord and recordJSON set fields for a moment
		rec := &cp
		r.mu.Lock()
		items := r.items[:len(r.items):len(r.items)] // the log only grows: this prefix never changes
		pinned := r.watched
		r.mu.Unlock()
		i := 0
		size, err := s.putRecord(ctx, tx, r.id, r.code, r.codeSum[:], rec, pinned, func() ([]byte, bool) {
			for i < len(items) {
				it := &items[i]
				i++
				if it.isEvent {
					return it.line(), true
				}
			}
			return nil, false
		})
		if err == nil && pinned {
			r.mu.Lock()
			r.pinned = true
			r.mu.Unlock()
		}
		return size, err
	}, func(err error) { s.saved(r, err) })
}

// putRecord writes run id's row in tx: rec without its code (the code has
// a row of its own, keyed by sum, its codeHash; nil: hashed here), its settings, and the event lines line yields (ok
// false: no more), compressed in pages of limits.EventPage. It returns the
// row's size for the store's accounting.
func (s *Server) putRecord(ctx context.Context, tx writeTx, id, code string, sum []byte, rec *record, pinned bool, line func() ([]byte, bool)) (int64, error) {
	keep := rec.Code
	rec.Code = ""
	result, err := recordJSON(rec)
	rec.Code = keep
	if err != nil {
		return 0, err
	}
	settings, _ := json.Marshal(rec.Settings)
	left := rec.Events // sizes the pages' line slices
	next := func() (page, error) {
		lines := make([][]byte, 0, max(0, min(left, limits.EventPage)))
		for len(lines) < limits.EventPage {
			b, ok := line()
			if !ok {
				break
			}
			lines = append(lines, b)
		}
		if len(lines) == 0 {
			return page{}, nil
		}
		left -= len(lines)
		return page{count: len(lines), data: compressLines(lines)}, nil
	}
	return putRunTx(ctx, tx, &storedRun{ID: id, Code: code, CodeHash: sum, Settings: string(settings), Status: rec.Status,
		EventCount: rec.Events, Created: rec.Created, Pinned: pinned}, result, next)
}

// pin records that a client was sent a run's done with its share link:
// the run is kept however full the store gets (API.md). The store writer
// applies it in its next transaction, so the socket does not wait on a
// write of its own (which, beside the writer's, waited in SQLite's busy
// handler).
func (s *Server) pin(id string) { s.writer.pin(id) }

// ranResult is a run done elsewhere (in a comparison) with its events.
type ranResult struct {
	res    *engine.RunResult
	events []trace.Event
}
