package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gofiber/contrib/websocket"
	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine/limits"
)

// A session is one websocket a page keeps open for all its runs
// (GET /ws/session, API.md): a run is a message on it, not a POST and a
// socket of its own, which were a quarter of the server's CPU per run.
// The client sends
//
//	{"type":"run","tag":T,"request":{...}}   the body POST /api/runs takes
//	{"type":"stop","id":ID}                  cancel run ID
//
// and the server answers a run with
//
//	{"type":"started","tag":T,"id":ID,"cached":B,"settings":{...}}   POST /api/runs's answer
//	{"type":"refused","tag":T,"status":N,"error":"...","hint":"...","retry_after":S}
//
// then streams it: {"type":"messages","id":ID,"messages":[...]}, the
// messages /ws/runs/{id} sends, in order, the last of them done. Runs
// stream side by side; each frame names its run. The session stays open
// after a run's done; it closes when the client closes it or the server
// shuts down (going away, after every run's done).

// sessionIn is a message from the client.
type sessionIn struct {
	Type    string          `json:"type"`
	Tag     json.RawMessage `json:"tag"`
	ID      string          `json:"id"`
	Request json.RawMessage `json:"request"`
}

// sessionRunMsg is a sessionIn with its request decoded in the same pass: a
// run message is mostly the program's text, and decoding it as a
// json.RawMessage and then again as a runRequest scanned that text four
// times (json validates every input before it decodes it), a tenth of the
// server's CPU per session run. decodeSession falls back to the two
// passes whenever they could answer differently.
type sessionRunMsg struct {
	Type    string          `json:"type"`
	Tag     json.RawMessage `json:"tag"`
	ID      string          `json:"id"`
	Request *runRequest     `json:"request"`
}

// decodeSession decodes a client message; req is its decoded run request
// when one pass could decode it, else nil (start decodes m.Request itself
// and answers its errors). ok false: not a JSON message (ignored). t
// holds the program texts known (nil: none).
func decodeSession(b []byte, t *codeTexts) (m sessionIn, req *runRequest, ok bool) {
	if m, req, ok := decodeSessionCode(b, t); ok {
		return m, req, true
	}
	// One pass is exact unless "request" occurs twice (a repeated key:
	// into a pointer json merges the two objects, into a RawMessage it
	// keeps the last), or the request fails to decode (its error is
	// start's to word).
	if quotedCount(b, "request") == 1 {
		var f sessionRunMsg
		if json.Unmarshal(b, &f) == nil && f.Request != nil {
			return sessionIn{Type: f.Type, Tag: f.Tag, ID: f.ID}, f.Request, true
		}
	}
	if json.Unmarshal(b, &m) != nil {
		return m, nil, false
	}
	return m, nil, true
}

// decodeSessionCode is decodeSession's pass without the program's text
// (cutCode): the rest json decodes, and the placeholder must come back as
// the request's code. The keys are counted in the rest: the text cut out
// was the code's string value (the placeholder says so), which holds no
// key. ok false: not that shape; decodeSession then decodes it all with
// json.
func decodeSessionCode(b []byte, t *codeTexts) (m sessionIn, req *runRequest, ok bool) {
	code, known, raw, rest, ok := cutCode(b, t)
	if !ok || quotedCount(rest, "request") != 1 {
		return m, nil, false
	}
	var f sessionRunMsg
	if json.Unmarshal(rest, &f) != nil || f.Request == nil || f.Request.Code != codePlaceholder {
		return m, nil, false
	}
	f.Request.Code, f.Request.text = code, t.keep(known, raw, code)
	return sessionIn{Type: f.Type, Tag: f.Tag, ID: f.ID}, f.Request, true
}

// decodeRunRequest is POST /api/runs's decoding of its body, the program's
// text left out of json's hands as in a session (cutCode, t the texts
// known); a body not of that shape is decoded whole by decodeJSON, which
// words its errors.
func decodeRunRequest(body []byte, req *runRequest, t *codeTexts) error {
	if code, known, raw, rest, ok := cutCode(body, t); ok {
		var r runRequest
		if json.Unmarshal(rest, &r) == nil && r.Code == codePlaceholder {
			r.Code, r.text = code, t.keep(known, raw, code)
			*req = r
			return nil
		}
	}
	return decodeJSON(body, req)
}

// codePlaceholder is the value cutCode puts in the code's place.
const codePlaceholder = "x"

// cutCode finds the "code" key of JSON message b, unquotes its string
// value, and returns it with b, the value replaced by the JSON string
// codePlaceholder. json scanned a program's text (most of a run message)
// twice, once to validate the message and once to decode it, and
// unquoted it a byte at a time: 40 µs a step-8 run, a twentieth of the
// server's CPU per run; here it is one pass, copying the runs between
// escapes, and none for a spelling t knows (codeTexts), which is found
// by its closing quote. The caller decodes the rest with json and takes
// code only when its own field comes back holding the placeholder (so
// the key was where it reads the code). known is the text's entry when t
// knows its spelling, else nil and raw is the spelling, for keep once the
// request has decoded. ok false: not that shape (the key absent,
// repeated in the rest, differently cased or escaped, or its value one
// json might read otherwise: not a string, a control character, an
// unknown escape, a surrogate, bytes not UTF-8).
func cutCode(b []byte, t *codeTexts) (code string, known *codeText, raw, rest []byte, ok bool) {
	const key = `"code"`
	at := bytes.Index(b, []byte(key))
	if at < 0 {
		return "", nil, nil, nil, false
	}
	i := skipSpace(b, at+len(key))
	if i >= len(b) || b[i] != ':' {
		return "", nil, nil, nil, false
	}
	start := skipSpace(b, i+1)
	if start >= len(b) || b[start] != '"' {
		return "", nil, nil, nil, false
	}
	end := -1 // b[end] is the closing quote
	if n, found := closingQuote(b[start+1:]); found {
		if known = t.spelled(b[start+1 : start+1+n]); known != nil {
			code = known.code
		}
		end = start + 1 + n
	}
	if known == nil {
		var n int
		if code, n, ok = unquoteCode(b[start+1:]); !ok {
			return "", nil, nil, nil, false
		}
		end = start + 1 + n
	}
	rest = make([]byte, 0, start+len(codePlaceholder)+2+len(b)-end-1)
	rest = append(rest, b[:start]...)
	rest = append(rest, '"')
	rest = append(rest, codePlaceholder...)
	rest = append(rest, '"')
	rest = append(rest, b[end+1:]...)
	if quotedCount(rest, "code") != 1 {
		return "", nil, nil, nil, false
	}
	if known == nil {
		raw = b[start+1 : end]
	}
	return code, known, raw, rest, true
}

// keep returns the entry of a decoded request's text: known when cutCode
// found it, else the one t keeps for raw (nil: not kept).
func (t *codeTexts) keep(known *codeText, raw []byte, code string) *codeText {
	if known != nil {
		return known
	}
	return t.add(raw, code)
}

// closingQuote is the index of the quote that ends the JSON string whose
// text (after its opening quote) begins b: the first one not escaped by
// an odd run of backslashes before it.
func closingQuote(b []byte) (int, bool) {
	for i := 0; i < len(b); i++ {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, false
		}
		i += j
		n := 0
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i, true
		}
	}
	return 0, false
}

// skipSpace returns the index of the first byte of b from i on that is
// not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// unquoteCode decodes the JSON string whose text (after its opening
// quote) begins b, and returns its value and the index of its closing
// quote; ok false where json's reading could differ or fail (see
// decodeSessionCode).
func unquoteCode(b []byte) (s string, end int, ok bool) {
	var out strings.Builder // its String is the bytes written: no copy
	out.Grow(len(b))
	from := 0 // the start of the run of plain bytes not yet copied
	for i := 0; i < len(b); {
		// Eight plain bytes at a time: a byte at a time, the scan was
		// most of the decoding of a run message (2 ns a byte, 10 µs for
		// step 8's program).
		for i+8 <= len(b) && !special8(binary.LittleEndian.Uint64(b[i:])) {
			i += 8
		}
		if i == len(b) {
			break
		}
		c := b[i]
		switch {
		case c >= 0x20 && c != '"' && c != '\\':
			i++
			continue
		case c < 0x20:
			return "", 0, false
		}
		out.Write(b[from:i])
		if c == '"' {
			if !utf8.ValidString(out.String()) {
				return "", 0, false
			}
			return out.String(), i, true
		}
		if i+1 >= len(b) {
			return "", 0, false
		}
		switch e := b[i+1]; e {
		case '"', '\\', '/':
			out.WriteByte(e)
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			if i+6 > len(b) {
				return "", 0, false
			}
			r, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
			if err != nil || utf16.IsSurrogate(rune(r)) {
				return "", 0, false
			}
			out.WriteRune(rune(r))
			i += 4
		default:
			return "", 0, false
		}
		i += 2
		from = i
	}
	return "", 0, false // no closing quote
}

// special8 reports whether any of the eight bytes in w is one
// unquoteCode stops at: a quote, a backslash or a control character
// (below 0x20). Each test is the exact "has a zero byte" and "has a byte
// less than n" word trick.
func special8(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := w^(ones*'"'), w^(ones*'\\')
	return ((w-ones*0x20)&^w|(q-ones)&^q|(bs-ones)&^bs)&highs != 0
}

type sessionStarted struct {
	Type string          `json:"type"`
	Tag  json.RawMessage `json:"tag,omitempty"`
	postResponse
}

type sessionRefused struct {
	Type       string          `json:"type"`
	Tag        json.RawMessage `json:"tag,omitempty"`
	Status     int             `json:"status"`
	RetryAfter int             `json:"retry_after,omitempty"`
	*apiError
}

// wsSessionLookup runs before the upgrade: 426 for a request that is not
// a websocket upgrade, 503 while shutting down. The gate has checked the
// Host and the Origin.
func (s *Server) wsSessionLookup(c *fiber.Ctx) error {
	if !websocket.IsWebSocketUpgrade(c) {
		return errorf(fiber.StatusUpgradeRequired, "open it with new WebSocket(...)", "/ws/session is a websocket")
	}
	if s.closing.Load() {
		return errorf(fiber.StatusServiceUnavailable, "the server is shutting down", "not accepting connections")
	}
	return c.Next()
}

// session is one open /ws/session.
type session struct {
	s    *Server
	c    *websocket.Conn
	wmu  sync.Mutex // one writer at a time on c
	gone chan struct{}
	wg   sync.WaitGroup // the runs being streamed

	mu   sync.Mutex
	runs map[string]*run // streaming now, by id

	read readCutoff // cut when the close grace at shutdown runs out
}

// wsSession reads the client's messages on this goroutine; each run it
// starts streams on a goroutine of its own, all writing through ss.send.
func (s *Server) wsSession(c *websocket.Conn) {
	if !s.conns.join() {
		return // shutting down
	}
	defer s.conns.leave()
	ss := &session{s: s, c: c, gone: make(chan struct{}), runs: map[string]*run{}}
	ping := time.NewTicker(wsPingEvery)
	defer ping.Stop()
	quit := make(chan struct{})   // the reader ended
	pinged := make(chan struct{}) // the pinger ended: c is this handler's again
	go func() {
		defer close(pinged)
		for {
			select {
			case <-ping.C:
				ss.wmu.Lock()
				_ = c.WriteControl(websocket.PingMessage, nil, time.Now().Add(wsWriteTimeout))
				ss.wmu.Unlock()
			case <-s.quit:
				// Shutdown: the runs end with done; once they are sent,
				// the session closes going away.
				ss.wg.Wait()
				ss.wmu.Lock()
				_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "server shutting down"), time.Now().Add(wsWriteTimeout))
				ss.wmu.Unlock()
				// The client answers the close and the reader ends; one
				// that does not is cut off after the grace (readCutoff).
				t := time.NewTimer(wsCloseGrace)
				defer t.Stop()
				select {
				case <-quit:
				case <-t.C:
					ss.read.cut(c.Conn)
				}
				return
			case <-quit:
				return
			}
		}
	}()
	defer func() {
		close(ss.gone)
		ss.wg.Wait()
		close(quit)
		<-pinged
	}()
	c.SetReadLimit(int64(bodyLimit) + 4<<10)
	_ = c.SetReadDeadline(time.Now().Add(wsReadTimeout))
	c.SetPongHandler(func(string) error { return ss.read.extend(c.Conn) })
	// One read buffer for the session's messages (ReadMessage grew a new
	// one to each program's size); what is decoded from it is copied, so
	// it is reused, and dropped after a message past readKeep.
	var in bytes.Buffer
	const readKeep = 64 << 10
	for {
		_, rd, err := c.NextReader()
		if err != nil {
			return
		}
		if in.Cap() > readKeep {
			in = bytes.Buffer{}
		}
		in.Reset()
		if _, err := in.ReadFrom(rd); err != nil {
			return
		}
		b := in.Bytes()
		if ss.read.extend(c.Conn) != nil {
			return
		}
		m, req, ok := decodeSession(b, ss.s.texts)
		if !ok {
			continue
		}
		switch m.Type {
		case "run":
			ss.start(m, req)
		case "stop":
			ss.mu.Lock()
			r := ss.runs[m.ID]
			ss.mu.Unlock()
			if r != nil && !r.replay {
				r.cancel()
			}
		}
	}
}

// start is a run request: started and the stream, or refused; req is
// m.Request decoded already, or nil.
func (ss *session) start(m sessionIn, req *runRequest) {
	s := ss.s
	refuse := func(err error) {
		var ae *apiError
		if !errors.As(err, &ae) {
			s.logf("session run: %v", err)
			ae = internalAPIError(err)
		}
		ss.send(mustJSON(sessionRefused{Type: "refused", Tag: m.Tag, Status: ae.Status, RetryAfter: ae.RetryAfter, apiError: ae}))
	}
	// Checked before the run starts (only this reader adds runs, so the
	// count can only have fallen by the time it is added).
	ss.mu.Lock()
	full := len(ss.runs) >= limits.SessionRuns
	ss.mu.Unlock()
	if full {
		refuse(errorf(fiber.StatusTooManyRequests, "wait for a run on this page to finish, or stop one",
			"this page streams %d runs already, the most one session may", limits.SessionRuns))
		return
	}
	if req == nil {
		if len(m.Request) == 0 || string(m.Request) == "null" {
			refuse(errorf(fiber.StatusBadRequest, `send {"type":"run","request":{"code":"..."}}`, "a run message without its request"))
			return
		}
		req = new(runRequest)
		if err := decodeJSON(m.Request, req); err != nil {
			refuse(err)
			return
		}
	}
	ctx, cancel := context.WithTimeout(s.base, 10*time.Second)
	defer cancel()
	pr, err := s.startRun(ctx, req)
	if err != nil {
		refuse(err)
		return
	}
	s.mu.Lock()
	r := s.live[pr.ID]
	s.mu.Unlock()
	if r == nil {
		if r, err = s.replayOf(ctx, pr.ID); err != nil {
			refuse(err)
			return
		}
	}
	started := mustJSON(sessionStarted{Type: "started", Tag: m.Tag, postResponse: pr})
	ss.mu.Lock()
	if _, twice := ss.runs[pr.ID]; twice {
		// The second request of a run this session streams has it coming
		// on the first's stream. Its started goes out under the lock, so
		// before that stream's done (stream takes the run out of the map,
		// under the lock, before it sends its done): a client drops a run
		// at its done, and one told "started" after it waited for ever.
		ss.send(started)
		ss.mu.Unlock()
		return
	}
	ss.runs[pr.ID] = r
	ss.wg.Add(1)
	ss.mu.Unlock()
	if !ss.send(started) {
		ss.mu.Lock()
		delete(ss.runs, pr.ID)
		ss.mu.Unlock()
		ss.wg.Done()
		return
	}
	// Watched from here, not from when the stream's goroutine gets to
	// run: a run that finished first was stored unpinned and pinned in
	// a transaction of its own when its done went out.
	sub := r.subscribe()
	s.workers.do(func() { ss.stream(r, sub) })
}

// stream sends run r's log to sub as messages frames until its done.
func (ss *session) stream(r *run, sub *subscriber) {
	defer ss.wg.Done()
	left := false // r is out of ss.runs: a later request may have put its own stream of it in, which the deferred delete must leave
	leave := func() {
		ss.mu.Lock()
		delete(ss.runs, r.id)
		ss.mu.Unlock()
		left = true
	}
	defer func() {
		if !left {
			leave()
		}
	}()
	head := append(appendJSONString([]byte(`{"type":"messages","id":`), r.id), `,"messages":[`...)
	// One frame buffer for the whole stream, from a pool the streams
	// share (it grew to a run's largest frame, a tenth of what a run
	// allocated): WriteMessage has copied a frame out by the time send
	// returns.
	fp := getFrameBuf()
	defer putFrameBuf(fp)
	ss.s.streamRun(r, sub, func(msgs [][]byte, end bool) error {
		// The run leaves the session's map before its done goes out: a
		// request of the same run from then on is streamed anew (start),
		// not told it has this stream coming after the client saw it end.
		if end {
			leave()
		}
		*fp = joinFrame(*fp, head, msgs, "]}")
		if !ss.send(*fp) {
			return errSessionGone
		}
		return nil
	}, nil, nil, ss.gone)
}

// frameBufs holds the streams' frame buffers (a /ws/runs socket's and a
// session stream's); one grown past frameKeep (a run's frames are at most
// batchMax messages) is left to the collector.
var frameBufs = sync.Pool{New: func() any { return new([]byte) }}

const frameKeep = 256 << 10

// getFrameBuf takes a frame buffer from the pool; putFrameBuf gives it
// back, unless it grew past frameKeep.
func getFrameBuf() *[]byte { return frameBufs.Get().(*[]byte) }

func putFrameBuf(fp *[]byte) {
	if cap(*fp) <= frameKeep {
		*fp = (*fp)[:0]
		frameBufs.Put(fp)
	}
}

// arrayOpen opens a frame of several messages on a /ws/runs socket.
var arrayOpen = []byte("[")

// joinFrame lays out open, msgs separated by commas, and close in buf
// (from its start, grown once to fit) and returns it.
func joinFrame(buf, open []byte, msgs [][]byte, close string) []byte {
	n := len(open) + len(close) + len(msgs)
	for _, m := range msgs {
		n += len(m)
	}
	buf = slices.Grow(buf[:0], n)
	buf = append(buf, open...)
	for i, m := range msgs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, m...)
	}
	return append(buf, close...)
}

// quotedCount counts the quoted strings in b that may be word as a key:
// equal under Unicode case folding (json matches a key to a field so), or
// holding a \u escape, which could spell it (counted without decoding:
// more is only the slower path). Every quote is tried as an opening one,
// so no key is missed.
func quotedCount(b []byte, word string) int {
	n := 0
	for {
		i := bytes.IndexByte(b, '"')
		if i < 0 {
			return n
		}
		b = b[i+1:]
		// A folded spelling is at most 3 bytes a letter, an escaped one 6.
		j := bytes.IndexByte(b[:min(len(b), 6*len(word)+1)], '"')
		if j >= 0 && (bytes.EqualFold(b[:j], []byte(word)) || bytes.Contains(b[:j], []byte(`\u`))) {
			n++
		}
	}
}

var errSessionGone = errors.New("the session closed")

// send writes one text frame; false when the connection failed.
func (ss *session) send(b []byte) bool {
	ss.wmu.Lock()
	defer ss.wmu.Unlock()
	if ss.c.SetWriteDeadline(time.Now().Add(wsWriteTimeout)) != nil {
		return false
	}
	return ss.c.WriteMessage(websocket.TextMessage, b) == nil
}
