package server

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"pldworkbench/engine/limits"
)

// storeWriter writes finished runs to the store from one goroutine of
// its own (loop), in group commits: a run's record joins the pending
// batch (queue) and its done, with the share link, goes out at once;
// the batch is committed in one transaction limits.StoreDelay after its
// first record was queued, or as soon as writeBatch records are pending,
// or when a reader needs the rows (storedRunOf kicks it). A commit per
// run was a fifth of a run's CPU through the server: the pages every
// transaction rewrites (the header page, the index leaves, the runs
// leaf) are written once per batch. SQLite sees one writer (a second one waits in
// its busy handler, which sleeps in steps of milliseconds), and while
// runs wait for a worker slot the commit waits too, at most
// limits.StoreYield: in a burst the CPU goes first to the runs that have
// not sent their first event. Until its record is committed the writer
// holds the run (holding), and it answers from memory as a stored one
// would: stored says yes (a post is cached, the share page opens),
// replayOf replays it from memory, getRunJSON answers its record, and
// storedRunOf has it committed first. Server.saved ends the hold. The
// writer's goroutine also applies the pins.
type storeWriter struct {
	s        *Server
	mu       sync.Mutex
	pending  []*writeJob
	pins     []string             // runs whose share link a client was sent (Server.pin)
	pinTimer *time.Timer          // kicks the writer's goroutine a PinDelay after a pin, if no write came
	delay    time.Duration        // Options.StoreDelay (negative: none); the tests lengthen it
	due      *time.Timer          // kicks the writer's goroutine a delay after a batch's first record
	armed    bool                 // due is set for the pending batch
	stopped  bool                 // the loop has ended: queue writes nothing more
	held     map[string]*run      // runs queued and not yet committed (or failed), by id (holding)
	commits  atomic.Int64         // transactions that committed runs (the tests hold a batch to one)
	cmu      sync.Mutex           // guards conn, has and closed: held for a whole transaction
	conn     *sql.Conn            // the writer's own connection (inTx, lookup), nil until first used
	stmts    map[string]*sql.Stmt // statements prepared on conn (writeTx.exec), BEGIN and COMMIT among them
	closed   bool                 // the loop ended: conn is closed for good
	idsMu    sync.Mutex
	ids      map[storedKey]struct{} // every run stored, as far as this server knows (known); nil: unknown
	wake     chan struct{}          // a token when a batch is due
	quit     chan struct{}          // closed by Shutdown once the runs are done
	exited   chan struct{}
}

// writeJob is one run's write: its rows in a transaction, returning
// their size, and what to do once they are committed or have failed
// (called on the writer's goroutine, without the writer's locks).
type writeJob struct {
	id     string
	rows   func(ctx context.Context, tx writeTx) (int64, error)
	run    *run // held until its commit ends; nil for none (write)
	queued time.Time
	done   func(err error)
}

// writeBatch bounds the runs one transaction writes; that many pending
// commit at once, without waiting for the delay.
const writeBatch = 64

func newStoreWriter(s *Server) *storeWriter {
	w := &storeWriter{s: s, delay: s.opts.StoreDelay, held: map[string]*run{}, wake: make(chan struct{}, 1), quit: make(chan struct{}), exited: make(chan struct{})}
	w.due = time.AfterFunc(time.Hour, w.fire)
	w.due.Stop()
	if err := w.loadIDs(); err != nil {
		s.logf("store: reading the stored runs' ids: %v (every post asks the store)", err)
	}
	go w.loop()
	return w
}

// storedKey is a run id in 12 bytes: runID's 16 characters of base64.
type storedKey [12]byte

// keyOf is id's storedKey; ok false for an id runID did not make.
func keyOf(id string) (k storedKey, ok bool) {
	if len(id) != 16 {
		return k, false
	}
	n, err := base64.RawURLEncoding.Decode(k[:], []byte(id))
	return k, err == nil && n == len(k)
}

// loadIDs reads the ids of the runs stored. A post asked SQLite whether
// its run was stored, and on every post of a new run (most posts: a new
// seed, a changed line) the answer was no, a read transaction and an
// index probe of 25 µs; the ids held here answer that no at once (about
// 20 bytes a run: 2 MiB for the 100,000 runs of a full store). A yes is
// still asked of SQLite (known), and rows another process writes to the
// same file after this one opened it are not seen here: their content
// runs again and its write keeps their row (putRunTx).
func (w *storeWriter) loadIDs() error {
	rows, err := w.s.db.Query(`SELECT id FROM runs`)
	if err != nil {
		return err
	}
	defer rows.Close()
	ids := map[storedKey]struct{}{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		k, ok := keyOf(id)
		if !ok {
			return fmt.Errorf("run id %q is not the store's form", id)
		}
		ids[k] = struct{}{}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	w.ids = ids
	return nil
}

// known reports whether run id may be stored: false only when it
// certainly is not (loadIDs).
func (w *storeWriter) known(id string) bool {
	k, ok := keyOf(id)
	w.idsMu.Lock()
	defer w.idsMu.Unlock()
	if !ok || w.ids == nil {
		return true
	}
	_, in := w.ids[k]
	return in
}

// noteIDs adds (stored) or removes (evicted) ids.
func (w *storeWriter) noteIDs(ids []string, stored bool) {
	w.idsMu.Lock()
	defer w.idsMu.Unlock()
	if w.ids == nil {
		return
	}
	for _, id := range ids {
		k, ok := keyOf(id)
		switch {
		case !ok && stored:
			w.ids = nil // an id of another form: ask SQLite from now on
			return
		case !ok:
		case stored:
			w.ids[k] = struct{}{}
		default:
			delete(w.ids, k)
		}
	}
}

// queue adds a run's rows to the pending batch and returns at once;
// done is called once they are committed, or have failed, in the
// writer's goroutine. Until then r (when not nil) is held: lookups find
// it (holding). The first record of a batch sets the delay; a full batch
// is committed at once.
func (w *storeWriter) queue(id string, r *run, rows func(ctx context.Context, tx writeTx) (int64, error), done func(err error)) {
	j := &writeJob{id: id, run: r, rows: rows, queued: time.Now(), done: done}
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		done(errors.New("the store writer has stopped"))
		return
	}
	if r != nil {
		w.held[id] = r
	}
	w.pending = append(w.pending, j)
	full := len(w.pending) >= writeBatch || w.delay < 0 // no delay: commit now
	if !full && !w.armed {
		w.armed = true
		w.due.Reset(w.delay)
	}
	w.mu.Unlock()
	if full {
		w.kick()
	}
}

// write queues a run's rows, has them committed now and waits for the
// commit (a PyPTO run, whose answer carries its link and follows its
// write).
func (w *storeWriter) write(id string, rows func(ctx context.Context, tx writeTx) (int64, error)) error {
	errc := make(chan error, 1)
	w.queue(id, nil, rows, func(err error) { errc <- err })
	w.kick()
	return <-errc
}

// holding is the run queued under id whose commit has not ended, or nil.
func (w *storeWriter) holding(id string) *run {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.held[id]
}

// finished ends j: its done, then it is no longer held (a failed run's
// done puts it back in the live map first: Server.saved).
func (w *storeWriter) finished(j *writeJob, err error) {
	j.done(err)
	if j.run != nil {
		w.mu.Lock()
		if w.held[j.id] == j.run {
			delete(w.held, j.id)
		}
		w.mu.Unlock()
	}
}

// fire is the delay's end: the pending batch is due.
func (w *storeWriter) fire() {
	w.mu.Lock()
	w.armed = false
	w.mu.Unlock()
	w.kick()
}

// kick wakes the writer's goroutine: it commits what is pending now.
func (w *storeWriter) kick() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// pin marks run id pinned in the next transaction: the next run's write,
// or, when none comes within limits.PinDelay, one of its own. A run
// posted and then watched has mostly finished, stored unpinned, by the
// time its client connects, and a transaction of its own for each such
// pin was a twentieth of the server's CPU per run. Until it is applied
// the run is kept by the evictions as if pinned (commit).
func (w *storeWriter) pin(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pins = append(w.pins, id)
	if len(w.pins) > 1 {
		return // the timer is set already
	}
	if w.pinTimer == nil {
		w.pinTimer = time.AfterFunc(limits.PinDelay, w.kick)
	} else {
		w.pinTimer.Reset(limits.PinDelay)
	}
}

// stop ends the writer after what is pending (Shutdown calls it once no
// run is left to write) is committed.
func (w *storeWriter) stop() {
	close(w.quit)
	<-w.exited
}

func (w *storeWriter) loop() {
	defer close(w.exited)
	defer func() {
		w.cmu.Lock()
		w.dropConn()
		w.closed = true
		w.cmu.Unlock()
	}()
	for {
		select {
		case <-w.wake:
			for w.flush() {
			}
		case <-w.quit:
			// Every run has ended and queued its record (Shutdown waited
			// for them) unless Shutdown's context ran out: a run queued
			// from now on is told the writer has stopped, and what is
			// pending is committed, whatever its delay.
			w.mu.Lock()
			w.stopped = true
			w.due.Stop()
			w.mu.Unlock()
			for w.flush() {
			}
			return
		}
	}
}

// flush commits up to writeBatch pending runs and the pending pins, after
// yielding to queued runs; false when there was nothing to write.
func (w *storeWriter) flush() bool {
	w.mu.Lock()
	if len(w.pending) == 0 && len(w.pins) == 0 {
		w.mu.Unlock()
		return false
	}
	oldest := time.Now()
	if len(w.pending) > 0 {
		oldest = w.pending[0].queued
	}
	w.mu.Unlock()
	for w.s.slots.waiting() > 0 && time.Since(oldest) < limits.StoreYield {
		time.Sleep(time.Millisecond)
	}
	w.mu.Lock()
	n := min(len(w.pending), writeBatch)
	batch := w.pending[:n:n]
	w.pending = w.pending[n:]
	if len(w.pending) == 0 && w.armed {
		w.armed = false // the next record starts a batch and its delay
		w.due.Stop()
	}
	// A pin of a run still pending beyond this batch waits for the batch
	// that writes its row: applied before it, it would match no row.
	var pins, later []string
	for _, id := range w.pins {
		if w.held[id] != nil && !slices.ContainsFunc(batch, func(j *writeJob) bool { return j.id == id }) {
			later = append(later, id)
		} else {
			pins = append(pins, id)
		}
	}
	w.pins = later
	w.mu.Unlock()
	if len(batch) == 0 {
		w.applyPins(pins)
	} else {
		w.commit(batch, pins)
	}
	return true
}

// writeTx is a transaction on the writer's own connection (w.cmu held
// until it ends: inTx). A write on whichever pooled connection was free
// found its page cache stale (in WAL mode a connection drops its cache
// when another one has written), and read back the pages it was about to
// change: 7% of the server's CPU per run was SQLite's reads. Its
// statements, BEGIN and COMMIT too, are prepared once on that connection
// (exec): a database/sql transaction has the driver prepare its BEGIN and
// COMMIT again each time, and a statement prepared on the pool is looked
// up and bound to the transaction's connection per call; together a
// fifth of a run's store write.
type writeTx struct{ w *storeWriter }

// exec runs query with args in the transaction, through the statement
// prepared for it on the writer's connection.
func (t writeTx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := t.w.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// stmt is query's statement on the writer's connection, prepared on
// first use (w.cmu held, conn open).
func (w *storeWriter) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st := w.stmts[query]; st != nil {
		return st, nil
	}
	st, err := w.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if w.stmts == nil {
		w.stmts = map[string]*sql.Stmt{}
	}
	w.stmts[query] = st
	return st, nil
}

// connect opens the writer's connection if it has none (w.cmu held).
func (w *storeWriter) connect(ctx context.Context) error {
	if w.conn != nil {
		return nil
	}
	if w.closed {
		return errors.New("the store writer has stopped")
	}
	c, err := w.s.db.Conn(ctx)
	if err != nil {
		return err
	}
	w.conn = c
	return nil
}

// dropConn closes the writer's connection and its statements (w.cmu
// held).
func (w *storeWriter) dropConn() {
	for _, st := range w.stmts {
		st.Close()
	}
	w.stmts = nil
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
}

// stored reports whether run id is stored, looked up on the writer's
// connection between its transactions. On a pooled connection the
// lookup began with the cache the last write had dropped (see begin):
// 6–9% of the server's CPU per run. The writer's connection sees every
// commit, its own and any other process's, and nothing uncommitted.
func (w *storeWriter) stored(ctx context.Context, id string) (bool, error) {
	if w.holding(id) != nil {
		return true, nil // committed soon (or its failure makes it linger: Server.saved)
	}
	if !w.known(id) {
		return false, nil
	}
	w.cmu.Lock()
	defer w.cmu.Unlock()
	if w.closed {
		return hasRun(ctx, w.s.db, id)
	}
	if err := w.connect(ctx); err != nil {
		return false, err
	}
	// Without ctx: an index probe of microseconds, and a cancellable
	// context made the driver start a goroutine to watch it.
	ctx = context.WithoutCancel(ctx)
	has, err := w.stmt(ctx, `SELECT 1 FROM runs WHERE id = ?`)
	if err != nil {
		w.dropConn()
		return false, err
	}
	var one int
	err = has.QueryRowContext(ctx, id).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		w.dropConn()
		return false, err
	}
	return true, nil
}

// inTx runs fn in a transaction on the writer's connection and commits
// it unless fn fails; lookups (stored) wait until it ends. A failed
// BEGIN or COMMIT drops the connection, so the next write starts on a
// new one whatever state this one was left in.
func (w *storeWriter) inTx(ctx context.Context, fn func(tx writeTx) error) error {
	w.cmu.Lock()
	defer w.cmu.Unlock()
	if err := w.connect(ctx); err != nil {
		return err
	}
	tx := writeTx{w}
	if _, err := tx.exec(ctx, `BEGIN`); err != nil {
		w.dropConn()
		return err
	}
	err := fn(tx)
	if err == nil {
		if _, err = tx.exec(ctx, `COMMIT`); err == nil {
			return nil
		}
	}
	// A failed COMMIT (SQLITE_BUSY) can leave the transaction open;
	// ROLLBACK ends it either way.
	if _, rerr := tx.exec(ctx, `ROLLBACK`); rerr != nil {
		w.dropConn()
	}
	return err
}

// applyPins marks ids pinned, in one transaction.
func (w *storeWriter) applyPins(ids []string) {
	if len(ids) == 0 {
		return
	}
	ctx := context.Background() // as commit's
	err := w.inTx(ctx, func(tx writeTx) error { return pinTx(ctx, tx, ids) })
	if err != nil {
		w.s.logf("pinning %d runs: %v", len(ids), err)
	}
}

// pinTx marks ids pinned in tx.
func pinTx(ctx context.Context, tx writeTx, ids []string) error {
	for _, id := range ids {
		if _, err := tx.exec(ctx, `UPDATE runs SET pinned = 1 WHERE id = ? AND pinned = 0`, id); err != nil {
			return err
		}
	}
	return nil
}

// commit writes batch, and marks pins pinned, in one transaction; when
// that fails, each run in a transaction of its own, so one run's error is
// its own, and the pins in one more.
func (w *storeWriter) commit(batch []*writeJob, pins []string) {
	s := w.s
	// The write must land even when Shutdown cancelled the base context
	// after the run ended, so it is not the run's context; and it is one
	// that is never done: for a context that can be, the SQLite driver
	// starts a goroutine per statement (BEGIN, each INSERT, COMMIT) to
	// interrupt it, four a run. A write waits at most the store's
	// busy_timeout for another process's lock (openStore).
	ctx := context.Background()
	sizes := make([]int64, len(batch))
	// The rows before the pins: a pin may be of a run of this batch (its
	// client read its done before the commit).
	err := w.inTx(ctx, func(tx writeTx) (err error) {
		for i, j := range batch {
			if sizes[i], err = j.rows(ctx, tx); err != nil {
				return err
			}
		}
		return pinTx(ctx, tx, pins)
	})
	if err != nil && (len(batch) > 1 || len(pins) > 0) {
		for _, j := range batch {
			w.commit([]*writeJob{j}, nil)
		}
		w.applyPins(pins)
		return
	}
	if err == nil {
		w.commits.Add(1)
		// The runs just written are kept, and so are the runs whose pins
		// wait for the next transaction (pin).
		w.mu.Lock()
		keep := make(map[string]bool, len(batch)+len(w.pins))
		for _, id := range w.pins {
			keep[id] = true
		}
		w.mu.Unlock()
		ids := make([]string, len(batch))
		var size int64
		for i, j := range batch {
			keep[j.id] = true
			ids[i] = j.id
			size += sizes[i]
		}
		// Known before any post is answered from the live map's absence:
		// a run leaves it after this.
		w.noteIDs(ids, true)
		s.account(ctx, size, keep)
	}
	for _, j := range batch {
		w.finished(j, err)
	}
}

// account adds size bytes just written to the store's size and evicts the
// oldest unpinned runs (other than keep) once it passes the budget. The
// size is summed from SQLite once (a full scan of the runs, which grew
// with the store and was a tenth of the server's CPU per run) and kept up
// to date here.
func (s *Server) account(ctx context.Context, size int64, keep map[string]bool) {
	s.storeMu.Lock()
	defer s.storeMu.Unlock()
	if s.storeBytes >= 0 {
		s.storeBytes += size
	}
	if s.storeBytes >= 0 && s.storeBytes <= s.opts.StoreBudget {
		return
	}
	ids, total, err := evict(ctx, s.db, s.opts.StoreBudget, keep)
	switch {
	case err != nil:
		s.storeBytes = -1 // unknown: summed again next time
		s.logf("store: evicting: %v", err)
		return
	case len(ids) > 0:
		s.writer.noteIDs(ids, false)
		s.logf("store: evicted %d unpinned runs past the %d-byte budget", len(ids), s.opts.StoreBudget)
		// An evicted run still lingering for its client goes too: its
		// share link answers 404 from now on.
		s.mu.Lock()
		for _, id := range ids {
			if lr := s.live[id]; lr != nil && lr.lingers {
				s.unlingerLocked(lr)
			}
		}
		s.mu.Unlock()
	}
	s.storeBytes = total
}
