package server

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/trace"
)

// item is one message of a run's log, encoded once when it is appended:
// every subscriber sends the same bytes and the store keeps the event's
// line from them, so an event costs one encoding per run however many
// watch it (each subscriber encoding its own copy made the server's CPU
// per run grow with its watchers).
type item struct {
	raw     []byte
	isEvent bool // raw is eventMessage(line)
	isQueue bool // raw is a queue message
}

// encode returns the message's JSON.
func (it *item) encode() []byte { return it.raw }

// line returns an event item's JSON line (raw without the message around
// it).
func (it *item) line() []byte { return it.raw[len(eventHead) : len(it.raw)-len(eventTail)] }

const eventHead, eventTail = `{"type":"event","event":`, `}`

// eventMessage wraps an event's JSON line as an event message; live runs
// and replays both go through it, so their bytes agree.
func eventMessage(line []byte) []byte {
	b := make([]byte, 0, len(eventHead)+len(line)+len(eventTail))
	b = append(b, eventHead...)
	b = append(b, line...)
	return append(b, eventTail...)
}

// subscriber is one websocket watching a run: wake gets a token whenever
// the log grows (never blocking the appender: capacity one, and a token
// already there says the same thing).
type subscriber struct {
	wake chan struct{}
}

// run is one execution (or one replay) and its message log. The log only
// grows; each subscriber reads it from its own cursor.
type run struct {
	id       string
	code     string
	settings Settings
	step     *stepCheck
	created  time.Time
	replay   bool

	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{} // closed when the log is complete
	started chan struct{} // closed when the run leaves the queue (leaveQueue)

	mu        sync.Mutex
	items     []item
	finished  bool
	status    string // queued, running, then the final status
	ranks     int
	entry     string
	events    int // events in the log
	truncated bool
	arena     []byte // the event messages' bytes, in chunks (event)
	subs      map[*subscriber]struct{}
	watched   bool // a client has subscribed at some point
	queuePos  int  // position in the slot queue (1 = next), 0 when not queued
	queueLen  int
	queueSent int           // the position the last queue message said
	onWatch   func()        // called (without r.mu) when the first client subscribes
	replayed  *replayLog    // a stored run's log, read page by page (replays only)
	shared    bool          // stored: its done carries the share link
	pinned    bool          // stored pinned (watched when it was written): Server.pin has nothing to do
	lingers   bool          // stored and kept in the live map for its client (Server.lingerLocked; under Server.mu)
	saving    chan struct{} // queued for the store (Server.store): closed once the commit is done, either way; nil if never queued
	unsaved   *record       // the record while it is not committed (pending, or its commit failed): answered from memory
	saveErr   error         // the commit's failure

	codeSum [sha256.Size]byte // sha256.Sum256 of code (runIDSum): its program's and its stored code's key
	prog    *engine.Program   // compiled by the caller (a comparison's side), else nil
	ran     *ranResult        // run by the caller too, else nil

	lingerTimer *time.Timer // ends the stay in the live map lingerLocked began (under Server.mu)
}

// isWatched reports whether a client watches r now.
func (r *run) isWatched() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.subs) > 0
}

// setQueuePos records r's place in the slot queue and, when someone
// watches and it changed, tells them (a queue message).
func (r *run) setQueuePos(pos, of int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queuePos, r.queueLen = pos, of
	if len(r.subs) > 0 && pos != r.queueSent && !r.finished {
		r.queueLocked(pos, of)
		r.wakeLocked()
	}
}

// queueLocked logs a queue message. One that is the log's last item still
// is replaced instead: in a burst every slot handed over moves every
// queued run up one place, and a message per move made the messages (and
// the frames carrying them) grow with the square of the queue; a reader
// past the old one has sent it, one before it sends the newer place.
// Called with r.mu held.
func (r *run) queueLocked(pos, of int) {
	r.queueSent = pos
	it := item{raw: queueMessage(pos, of), isQueue: true}
	if n := len(r.items); n > 0 && r.items[n-1].isQueue {
		r.items[n-1] = it
		return
	}
	r.items = append(r.items, it)
}

// leaveQueue says r has a slot: no more queue messages.
func (r *run) leaveQueue() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queuePos = 0
	close(r.started)
}

func newRun(parent context.Context, id, code string, st Settings, sc *stepCheck) *run {
	r := &run{id: id, code: code, settings: st, step: sc, created: time.Now().UTC(), items: make([]item, 0, itemsAhead),
		done: make(chan struct{}), started: make(chan struct{}), subs: map[*subscriber]struct{}{}, status: "queued", ranks: st.Ranks, entry: st.Entry}
	r.ctx, r.cancel = context.WithCancel(parent)
	return r
}

// itemsAhead is the log's first capacity: a step's run logs about a
// hundred messages (step 8 at 4 ranks: 95 events), and growing the log
// from nothing by doublings was six allocations and copies a run.
const itemsAhead = 128

// drop cancels a run nobody watched within the grace.
func (r *run) drop() { r.cancel() }

// newReplay makes a finished run from a stored log.
func newReplay(id string, l *replayLog) *run {
	r := &run{id: id, replay: true, replayed: l, finished: true, done: make(chan struct{}), started: make(chan struct{}), subs: map[*subscriber]struct{}{}}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	close(r.done)
	close(r.started)
	return r
}

// push appends messages and wakes the subscribers. Called with r.mu held.
func (r *run) wakeLocked() {
	for s := range r.subs {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// add appends encoded messages.
func (r *run) add(msgs ...[]byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range msgs {
		r.items = append(r.items, item{raw: m})
	}
	r.wakeLocked()
}

// event is the engine's sink: it appends the event and returns at once.
// Past maxEvents the events are dropped from the log (the stats still
// count them) and the record says events_truncated.
func (r *run) event(e trace.Event) {
	// Encoded in place, into the run's arena: chunks of eventChunk bytes
	// the messages share (an allocation per event was a tenth of the
	// server's allocations per run). Encoding into a pooled buffer first
	// and copying it in, so as to encode outside the lock, cost a pool's
	// get and put and a copy per event; the lock's only other takers are
	// the log's readers, a few times a run.
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.events >= maxEvents {
		r.truncated = true
		return
	}
	if cap(r.arena)-len(r.arena) < eventRoom {
		r.arena = make([]byte, 0, eventChunk)
	}
	at := len(r.arena)
	// An event longer than the room left grows the arena into a new
	// array: the messages before it keep the old one, whose bytes never
	// change.
	msg := append(r.arena, eventHead...)
	msg = appendEvent(msg, &e)
	r.arena = append(msg, eventTail...)
	r.events++
	r.items = append(r.items, item{raw: r.arena[at:len(r.arena):len(r.arena)], isEvent: true})
	r.wakeLocked()
}

// eventChunk is the size of a run's arena chunks: about 80 events;
// eventRoom is the room a chunk must have left for the next event, more
// than an event's message takes but for long names (step 8's are 300 to
// 400 bytes).
const eventChunk, eventRoom = 16 << 10, 1 << 10

// setStatus records the run's status and what is known of it.
func (r *run) setStatus(status string, ranks int, entry string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status, r.ranks, r.entry = status, ranks, entry
}

// finish appends the last messages and closes the log.
func (r *run) finish(status string, msgs ...[]byte) {
	r.mu.Lock()
	for _, m := range msgs {
		r.items = append(r.items, item{raw: m})
	}
	r.status, r.finished = status, true
	r.wakeLocked()
	r.mu.Unlock()
	close(r.done)
}

// subscribe adds a watcher; ok is false when the run was cancelled before
// anyone watched it.
func (r *run) subscribe() *subscriber {
	s := &subscriber{wake: make(chan struct{}, 1)}
	s.wake <- struct{}{} // read what is already there
	r.mu.Lock()
	r.subs[s] = struct{}{}
	first := !r.watched
	r.watched = true
	if r.queuePos > 0 && r.queuePos != r.queueSent && !r.finished {
		r.queueLocked(r.queuePos, r.queueLen)
	}
	onWatch := r.onWatch
	r.mu.Unlock()
	if first && onWatch != nil {
		onWatch() // a watched run goes ahead of the unwatched ones
	}
	return s
}

// unsubscribe removes a watcher. When the last one leaves a run still
// executing, the run is cancelled (and so not stored): nobody is left to
// see it, and API.md promises a closed tab stops its run.
func (r *run) unsubscribe(s *subscriber) {
	r.mu.Lock()
	delete(r.subs, s)
	last := len(r.subs) == 0 && !r.finished
	r.mu.Unlock()
	if last && !r.replay {
		r.cancel()
	}
}

// read returns up to max messages from cursor on, and whether the log is
// complete and the cursor reached its end.
func (r *run) read(cursor, max int) (msgs [][]byte, end bool) {
	if r.replayed != nil {
		return r.replayed.read(cursor, max)
	}
	// The messages are taken under the lock, straight from the items:
	// an item's bytes never change once appended (a queue message is
	// replaced by a new item, not rewritten), so the slice headers are
	// all a reader needs, and copying the items out first was a second
	// allocation a read.
	r.mu.Lock()
	defer r.mu.Unlock()
	n := min(len(r.items)-cursor, max)
	msgs = make([][]byte, n)
	for i, it := range r.items[cursor : cursor+n] {
		msgs[i] = it.encode()
	}
	return msgs, r.finished && cursor+n == len(r.items)
}

// The messages of API.md, in the order a run sends them.

// queueMessage is queueMsg's JSON, written out by hand: a burst of runs
// makes one per queued run per slot handed over (TestQueueMessageJSON
// holds it to json.Marshal).
func queueMessage(pos, of int) []byte {
	b := make([]byte, 0, 48)
	b = append(b, `{"type":"queue","position":`...)
	b = strconv.AppendInt(b, int64(pos), 10)
	b = append(b, `,"of":`...)
	b = strconv.AppendInt(b, int64(of), 10)
	return append(b, '}')
}

// mustJSON encodes a message built from plain fields.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // every message type is plain data; tensors use floats.Floats
	}
	return b
}

func statusMessage(status, id string, st Settings, ranks int, entry string) []byte {
	return mustJSON(statusMsg{Type: "status", Status: status, ID: id, Settings: st, Ranks: ranks, Entry: entry})
}

func diagMessages(ds diag.List) [][]byte {
	out := make([][]byte, 0, len(ds))
	for _, d := range ds {
		out = append(out, mustJSON(diagMsg{Type: "diagnostic", Diagnostic: d}))
	}
	return out
}

// resultMessages are the outputs, races and deadlock of a finished run.
func resultMessages(rec *record) [][]byte {
	var out [][]byte
	for _, name := range rec.OutputOrder {
		out = append(out, outputMessage(rec, name))
	}
	for _, rc := range rec.Races {
		out = append(out, mustJSON(raceMsg{Type: "race", Race: rc}))
	}
	if rec.Deadlock != nil {
		out = append(out, mustJSON(deadlockMsg{Type: "deadlock", Deadlock: rec.Deadlock}))
	}
	return out
}

func doneMessage(rec *record, share string) []byte {
	return mustJSON(doneMsg{Type: "done", Status: rec.Status, Stats: rec.Stats, Error: rec.Error, Check: rec.Check,
		Share: share, RacesOmitted: rec.RacesOmitted, EventsTruncated: rec.EventsTruncated})
}
