// Package server is the web workbench's back end: a Fiber app that serves
// the page (web.Assets), the lessons and kernels as JSON, checks and lowers
// programs, runs them on the emulator with their events streamed over a
// websocket, and keeps every finished run in a SQLite file so its share
// link (/r/{id}) replays it later, byte for byte. API.md beside this file
// is the contract with the page; routes.go lists every route in one place.
//
// A run's life (runs.go, session.go): POST /api/runs normalizes the
// settings, hashes code and settings into the run's id, and either finds
// the id in the store (cached: nothing executes), joins the run already
// executing under that id, or queues a new one for a worker slot
// (slots.go: Options.MaxConcurrentRuns slots shared with checks, IR,
// compares and step checks; watched work first; the queue bounded, a post
// beyond it 503). A run nobody watches within Options.UnwatchedGrace is
// dropped. Once it has a slot, its deadline starts and the engine hands
// every event to the run's log, an in-memory list that only grows; each
// websocket client (ws.go) reads the log from its own cursor, so a slow
// client never slows the engine, and a client that connects late still
// sees the whole run. When the engine returns, `done`, with the share
// link, is appended to the log, and the run's record (outputs capped,
// outputs.go) and its events (pages of compressed JSON lines) join the
// store writer's batch, committed in one transaction limits.StoreDelay
// later (writer.go, store.go); until then the run answers from memory as
// a stored one. A replay reads the pages back one at a time (replay.go). A run cut short (timeout,
// cancelled, a panic) is not stored. A run whose last watching client
// goes away mid-run is cancelled. Every piece of user work runs under
// guard (errors.go): a panic is an internal error for its client, a stack
// in the log, and the server goes on.
package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine/limits"
)

// Options configure a Server.
// Zero fields take their defaults from engine/limits.
type Options struct {
	DataDir           string        // where runs.db lives; created if missing
	Logger            io.Writer     // request/run log; nil = discard
	MaxConcurrentRuns int           // worker slots; 0 = limits.MaxRuns
	MaxQueue          int           // runs waiting for a slot; 0 = limits.MaxQueue
	RunTimeout        time.Duration // one run, from when it has a slot; 0 = limits.DefaultTimeout
	UnwatchedGrace    time.Duration // 0 = limits.UnwatchedGrace
	SlotWait          time.Duration // a request's wait for a slot; 0 = limits.SlotWait
	StoreBudget       int64         // bytes; 0 = limits.StoreBudget
	// StoreDelay is how long a finished run's record waits in the store
	// writer's batch before the batch is committed; 0 = limits.StoreDelay.
	// A negative delay commits at once and sends each run's done only
	// after its commit (`--store-delay 0`): a link shown is a run stored.
	StoreDelay   time.Duration
	MemoryBudget int64 // bytes one piece of work may make; 0 = limits.DefaultMemory
	RunSteps     int64 // emulator statements of one run; 0 = limits.DefaultRunSteps
	// Token, when set, is required on every request (gate.go): the
	// command line sets it when it binds a non-loopback address.
	Token string
	// TuneProcs makes GOMAXPROCS follow the worker slots in use
	// (procs.go); the command line sets it. It is the process's setting,
	// so a server embedded in another program leaves it alone by default.
	TuneProcs bool
	// LogEvery, when set, joins the log's lines into one write at most
	// this often (logbuf.go; the command line sets limits.LogEvery); 0
	// writes each line at once.
	LogEvery time.Duration
}

// Limits of the server: the values live in engine/limits's table.
const (
	// MaxCode is the largest program accepted, in bytes (API.md: 413 above).
	MaxCode = limits.MaxCode
	// bodyLimit bounds a request body: the code JSON-escaped (six bytes
	// for a control character written \u00XX) plus the settings, with
	// room to spare, so an oversized program reaches the handler and gets
	// its JSON 413 rather than a connection reset; fasthttp refuses a body
	// past this limit before reading it.
	bodyLimit = limits.BodySize
	// maxEvents is how many events a run keeps for its live stream and its
	// stored record (about 150 bytes each in memory); a run with more still
	// counts them in its stats, and its record says events_truncated.
	maxEvents = 500_000
)

// budget is what one piece of work in the server may spend: the engine's
// server budget (limits.ServerBudget: 1 GiB, the 64-rank cap) with the
// configured run timeout.
func (s *Server) budget() limits.Budget {
	b := limits.ServerBudget()
	b.Timeout = s.opts.RunTimeout
	if s.opts.MemoryBudget > 0 {
		b.Memory = s.opts.MemoryBudget
	}
	if s.opts.RunSteps > 0 {
		b.RunSteps = s.opts.RunSteps
	}
	return b
}

// Server is the workbench's HTTP server and run store.
type Server struct {
	opts    Options
	app     *fiber.App
	db      *sql.DB
	lessons *lessons
	slots   *slots
	lines   *logLines // the log (Options.LogEvery)

	// testHook, when set, is called at the start of every guarded piece of
	// work with its name: the tests inject panics through it.
	testHook atomic.Pointer[func(string)]

	// base is cancelled by Shutdown: every run and comparison derives its
	// context from it.
	base       context.Context
	cancelBase context.CancelFunc
	quit       chan struct{} // closed by Shutdown: websocket writers say goodbye
	closing    atomic.Bool

	mu        sync.Mutex
	live      map[string]*run // runs executing or just finished, by id
	lingering int             // stored runs kept in live for their client (execute)
	ln        net.Listener    // what Serve serves, closed by Shutdown

	runs       sync.WaitGroup // run goroutines
	conns      connGroup      // websocket connections
	executions atomic.Int64
	programs   *programCache // compiled programs, by source hash and settings
	texts      *codeTexts    // program texts by their JSON spelling and their text
	workers    *workers      // the goroutines of runs and their session streams

	writer     *storeWriter
	storeMu    sync.Mutex // guards storeBytes and eviction
	storeBytes int64      // the run store's size in bytes, -1 until summed (store)
	shutOnce   sync.Once
	shutErr    error
}

// New opens (or creates) the run store in opts.DataDir and builds the app.
func New(opts Options) (*Server, error) {
	if opts.DataDir == "" {
		return nil, errors.New("server: Options.DataDir is empty")
	}
	if opts.Logger == nil {
		opts.Logger = io.Discard
	}
	if opts.MaxConcurrentRuns <= 0 {
		opts.MaxConcurrentRuns = limits.MaxRuns
	}
	if opts.MaxQueue <= 0 {
		opts.MaxQueue = limits.MaxQueue
	}
	if opts.RunTimeout <= 0 {
		opts.RunTimeout = limits.DefaultTimeout
	}
	if opts.UnwatchedGrace <= 0 {
		opts.UnwatchedGrace = limits.UnwatchedGrace
	}
	if opts.SlotWait <= 0 {
		opts.SlotWait = limits.SlotWait
	}
	if opts.StoreBudget <= 0 {
		opts.StoreBudget = limits.StoreBudget
	}
	if opts.StoreDelay == 0 {
		opts.StoreDelay = limits.StoreDelay
	}
	if err := os.MkdirAll(opts.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("server: data directory: %w", err)
	}
	ls, err := loadLessons()
	if err != nil {
		return nil, fmt.Errorf("server: lessons: %w", err)
	}
	db, err := openStore(filepath.Join(opts.DataDir, "runs.db"))
	if err != nil {
		return nil, err
	}
	lines := newLogLines(opts.Logger, opts.LogEvery)
	s := &Server{
		lines:   lines,
		opts:    opts,
		db:      db,
		lessons: ls,
		slots:   newSlots(opts.MaxConcurrentRuns, opts.MaxQueue, procsIf(opts.TuneProcs)),
		quit:    make(chan struct{}),
		live:    map[string]*run{},

		programs:   newProgramCache(limits.ProgramCache),
		texts:      newCodeTexts(limits.CodeTexts),
		storeBytes: -1,
	}
	s.workers = newWorkers(limits.IdleWorkers, limits.WorkerIdle, s.quit)
	s.writer = newStoreWriter(s)
	s.base, s.cancelBase = context.WithCancel(context.Background())
	s.app = fiber.New(fiber.Config{
		AppName:               "PLD Workbench",
		BodyLimit:             bodyLimit,
		DisableStartupMessage: true,
		ErrorHandler:          s.errorHandler,
		ReadTimeout:           30 * time.Second,
		IdleTimeout:           120 * time.Second,
	})
	s.routes()
	return s, nil
}

// App returns the Fiber app, for app.Test in tests.
func (s *Server) App() *fiber.App { return s.app }

// Serve serves HTTP on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		ln.Close()
		return nil
	}
	tl := newTrackListener(ln)
	s.ln = tl
	s.mu.Unlock()
	err := s.app.Listener(tl)
	if s.closing.Load() {
		return nil
	}
	return err
}

// Shutdown stops accepting connections, cancels the runs still executing
// (a run that already ended finishes its store write), closes the
// websockets, and closes the store. It waits at most until ctx is done for
// the runs and connections; the store is closed either way.
func (s *Server) Shutdown(ctx context.Context) error {
	s.shutOnce.Do(func() {
		s.mu.Lock()
		s.closing.Store(true)
		ln := s.ln
		s.mu.Unlock()
		s.cancelBase()
		if ln != nil {
			// Stop accepting first (fasthttp closes only the listeners it
			// has started serving; a Serve that has not got that far stops
			// here), then drop the connections that never sent a request,
			// which fasthttp's shutdown would otherwise wait for.
			ln.Close()
			if tl, ok := ln.(*trackListener); ok {
				tl.closeUnused()
			}
		}
		err := s.app.ShutdownWithContext(ctx)
		if werr := waitCtx(ctx, &s.runs); err == nil {
			err = werr
		}
		close(s.quit)
		if werr := waitCtx(ctx, s.conns.close()); err == nil {
			err = werr
		}
		s.writer.stop() // no run is left to write (or the context ran out: it writes what is pending)
		forgetStatements(s.db)
		if cerr := s.db.Close(); err == nil {
			err = cerr
		}
		s.slots.procs.restore()
		s.lines.flush()
		s.shutErr = err
	})
	return s.shutErr
}

// procsIf is newProcs when on, else nil.
func procsIf(on bool) *procs {
	if !on {
		return nil
	}
	return newProcs()
}

// waitCtx waits for wg or ctx, whichever comes first.
func waitCtx(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Executions counts the runs that executed the engine (not the replays of
// stored runs, not the posts that joined a run already executing).
func (s *Server) Executions() int64 { return s.executions.Load() }

// logf writes one line to the log (when due: logLines).
func (s *Server) logf(format string, args ...any) { s.lines.printf(format, args...) }
