package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"runtime/debug"
	"sync/atomic"
	"time"

	fastws "github.com/fasthttp/websocket"
	"github.com/gofiber/contrib/websocket"
	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine/limits"
)

// Websocket timing and limits. A client answers pings within the read
// deadline or is dropped; it only ever sends {"type":"stop"}, so 4 KiB is
// plenty. Events are batched: a frame carries whatever accumulated, at
// most batchMax messages, and frames go out at most every batchEvery
// unless a full batch is waiting — about 33 frames a second however fast
// the engine is, which a browser draws without falling behind.
const (
	wsPingEvery    = 20 * time.Second
	wsReadTimeout  = 60 * time.Second
	wsWriteTimeout = 10 * time.Second
	wsReadLimit    = 4 << 10
	batchMax       = 256
	batchEvery     = 30 * time.Millisecond
	wsCloseGrace   = 2 * time.Second
)

// runsUpgrader upgrades GET /ws/runs/{id}. It is fasthttp/websocket's own
// upgrader, not contrib/websocket's handler around it, which took a pooled
// connection and copied every header, cookie, query parameter and local
// of the request into maps of strings for each socket: a socket per run
// (the CLI's, a script's) paid for copies its handler never reads, the
// run being looked up before the upgrade. CheckOrigin nil is fasthttp's
// same-origin rule, which every request the gate lets through passes
// already (the gate checks scheme and host, this one the host).
var runsUpgrader = fastws.FastHTTPUpgrader{ReadBufferSize: 1024, WriteBufferSize: limits.WSWriteBuffer, WriteBufferPool: &wsWriteBufs}

// wsRuns answers GET /ws/runs/{id}: 404 (plain HTTP, so the client sees a
// status) for an unknown id and 426 for a request that is not a websocket
// upgrade, and upgrades the rest to wsRun's stream of the run.
func (s *Server) wsRuns(c *fiber.Ctx) error {
	if !websocket.IsWebSocketUpgrade(c) {
		return errorf(fiber.StatusUpgradeRequired, "open it with new WebSocket(...)", "/ws/runs/{id} is a websocket")
	}
	if s.closing.Load() {
		return errorf(fiber.StatusServiceUnavailable, "the server is shutting down", "not accepting connections")
	}
	id := c.Params("id")
	s.mu.Lock()
	r := s.live[id]
	s.mu.Unlock()
	if r == nil {
		var err error
		if r, err = s.replayOf(c.UserContext(), id); err != nil {
			return err
		}
	}
	if err := runsUpgrader.Upgrade(c.Context(), func(conn *fastws.Conn) { s.wsRun(conn, r) }); err != nil {
		return fiber.ErrUpgradeRequired // as contrib/websocket answered a failed handshake
	}
	return nil
}

// wsRun streams a run's log to one client. The connection's own goroutine
// (fasthttp starts one per upgraded connection) reads what the client
// sends (pongs, stop, the close); the stream is written from a worker
// (workers.go), whose stack has grown already, as a session's streams are:
// a second goroutine made per socket for the reader grew its stack anew
// each time. When the stream ends, a read deadline already past ends the
// read: Close does nothing on a hijacked connection (fasthttp closes it
// once the handler returns), so a client that neither answered the close
// nor hung up held the socket and both goroutines until the read deadline,
// a minute after its done. The handler returns once both are done, since
// fasthttp closes the connection and the upgrader reuses its write buffer
// then.
func (s *Server) wsRun(c *fastws.Conn, r *run) {
	if !s.conns.join() {
		return // shutting down
	}
	defer s.conns.leave()
	gone := make(chan struct{}) // closed when the read ends: the client went
	streamed := make(chan struct{})
	var read readCutoff // the stream ends the read when it is over
	sub := r.subscribe()
	s.workers.do(func() {
		defer close(streamed)
		defer read.cut(c)
		defer s.recoverWS(r.id)
		s.wsStream(c, r, sub, gone)
	})
	func() {
		defer s.recoverWS(r.id)
		s.wsRead(c, r, gone, &read)
	}()
	<-streamed
}

// recoverWS logs a panic of a /ws/runs goroutine with its stack (the
// server keeps serving; the client's socket is closed).
func (s *Server) recoverWS(id string) {
	if p := recover(); p != nil {
		s.logf("panic in /ws/runs/%s: %v\n%s", id, p, debug.Stack())
	}
}

// wsStream sends r's log to sub's socket to its end, then closes the
// socket as the end calls for.
func (s *Server) wsStream(c *fastws.Conn, r *run, sub *subscriber, gone chan struct{}) {
	ping := time.NewTicker(wsPingEvery)
	defer ping.Stop()
	// One frame buffer for the connection, from the pool the session
	// streams share (wssession.go): a frame of several messages was
	// joined into a new slice and copied into another.
	fp := getFrameBuf()
	defer putFrameBuf(fp)
	send := func(msgs [][]byte, _ bool) error {
		var err error
		*fp, err = writeFrame(c, (*fp)[:0], msgs)
		return err
	}
	pinger := func() error {
		return c.WriteControl(websocket.PingMessage, nil, time.Now().Add(wsWriteTimeout))
	}
	switch s.streamRun(r, sub, send, ping.C, pinger, gone) {
	case streamEnded:
		s.wsClose(c, websocket.CloseNormalClosure, "done", gone)
	case streamShutdown:
		s.wsClose(c, websocket.CloseGoingAway, "server shutting down", gone)
	}
}

// How streamRun ended.
const (
	streamEnded    = iota // the log was sent to its end (done)
	streamGone            // the client went, or a write failed
	streamShutdown        // the server is shutting down; what the log had was sent
)

// streamRun sends r's log, from its start, to sub (r.subscribe's, which
// it unsubscribes) through send: whatever
// accumulated as one call, at most batchMax messages, end true for the
// batch that ends the log (its done). tick and onTick
// (nil for none) keep the connection alive; gone closes when the client
// went. The end of the log pins the run (this client was shown its share
// link) and ends its stay in the live map.
func (s *Server) streamRun(r *run, sub *subscriber, send func(msgs [][]byte, end bool) error, tick <-chan time.Time, onTick func() error, gone <-chan struct{}) int {
	defer r.unsubscribe(sub)
	pace := time.NewTimer(0)
	defer pace.Stop()
	cursor := 0
	for {
		paced := false // the frames since the last wait carried an event
		select {
		case <-sub.wake:
		case <-tick:
			if err := onTick(); err != nil {
				return streamGone
			}
			continue
		case <-gone:
			return streamGone
		case <-s.quit:
			return s.drain(r, cursor, send)
		}
		for {
			msgs, end := r.read(cursor, batchMax)
			if len(msgs) > 0 {
				if err := send(msgs, end); err != nil {
					return streamGone
				}
				cursor += len(msgs)
				paced = paced || hasEvent(msgs)
			}
			if end {
				r.mu.Lock()
				shared := r.shared && !r.pinned
				r.mu.Unlock()
				if shared {
					s.pin(r.id) // this client was shown the link
				}
				s.unlinger(r)
				return streamEnded
			}
			if len(msgs) < batchMax {
				break
			}
		}
		// Let events accumulate into the next batch, unless the run has
		// ended: then its last messages go out at once. A frame without
		// events (status, queue places) waits only until the run leaves
		// the queue: places go out at most every batchEvery, and the
		// run's first event as soon as it is made, not a batch later.
		var started <-chan struct{}
		if !paced {
			started = r.started
		}
		pace.Reset(batchEvery)
		select {
		case <-pace.C:
		case <-started:
		case <-r.done:
		case <-gone:
			return streamGone
		case <-s.quit:
			return s.drain(r, cursor, send)
		}
	}
}

// drain is the shutdown path: Shutdown has cancelled the runs and waited
// for them, so the log ends with done (status cancelled, or the run's own
// status when it had finished); the client gets everything it has not
// seen yet.
func (s *Server) drain(r *run, cursor int, send func(msgs [][]byte, end bool) error) int {
	for {
		msgs, end := r.read(cursor, batchMax)
		if len(msgs) == 0 {
			break
		}
		if err := send(msgs, end); err != nil {
			return streamGone
		}
		cursor += len(msgs)
		if end {
			break
		}
	}
	return streamShutdown
}

// wsRead reads what the client sends until the connection ends or the
// stream has ended: pongs extend the read deadline, {"type":"stop"}
// cancels the run.
func (s *Server) wsRead(c *fastws.Conn, r *run, gone chan struct{}, read *readCutoff) {
	defer close(gone)
	c.SetReadLimit(wsReadLimit)
	extend := func() error { return read.extend(c) }
	if extend() != nil {
		return
	}
	c.SetPongHandler(func(string) error { return extend() })
	for {
		_, b, err := c.ReadMessage()
		if err != nil || extend() != nil {
			return
		}
		var m struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(b, &m) == nil && m.Type == "stop" && !r.replay {
			r.cancel()
		}
	}
}

var errStreamEnded = errors.New("the stream has ended")

// readCutoff is a socket's read deadline, moved on by each pong and
// message until cut ends the read with a deadline already past (Close
// does nothing on a hijacked connection: fasthttp closes it once the
// handler returns). After the cut no extend moves the deadline again.
type readCutoff struct{ done atomic.Bool }

// extend moves c's read deadline wsReadTimeout on, unless the read was
// cut: then errStreamEnded.
func (rc *readCutoff) extend(c *fastws.Conn) error {
	if rc.done.Load() {
		return errStreamEnded // the deadline cut set stays
	}
	err := c.SetReadDeadline(time.Now().Add(wsReadTimeout))
	if rc.done.Load() {
		// Cut between the two loads, and its deadline may have come
		// before this one: put it back.
		_ = c.SetReadDeadline(time.Now())
		return errStreamEnded
	}
	return err
}

// cut ends the read on c now.
func (rc *readCutoff) cut(c *fastws.Conn) {
	rc.done.Store(true)
	_ = c.SetReadDeadline(time.Now())
}

// hasEvent reports whether msgs hold an event message.
func hasEvent(msgs [][]byte) bool {
	for _, m := range msgs {
		if bytes.HasPrefix(m, []byte(eventHead)) {
			return true
		}
	}
	return false
}

// writeFrame sends one message as itself, several as a JSON array built
// in buf, which it returns (grown) for the next frame.
func writeFrame(c *fastws.Conn, buf []byte, msgs [][]byte) ([]byte, error) {
	b := msgs[0]
	if len(msgs) > 1 {
		buf = joinFrame(buf, arrayOpen, msgs, "]")
		b = buf
	}
	if err := c.SetWriteDeadline(time.Now().Add(wsWriteTimeout)); err != nil {
		return buf, err
	}
	return buf, c.WriteMessage(websocket.TextMessage, b)
}

// wsClose sends a close frame and waits a little for the client's.
func (s *Server) wsClose(c *fastws.Conn, code int, text string, gone chan struct{}) {
	_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(wsWriteTimeout))
	t := time.NewTimer(wsCloseGrace)
	defer t.Stop()
	select {
	case <-gone:
	case <-t.C:
	}
}
