package server

import (
	"context"
	"database/sql"
	"time"
)

// replayLog is a stored run's message log, read the way a live run's is
// (by cursor) but produced as it is read: the head (status, diagnostics),
// then the events page by page from the store, then the tail (outputs,
// races, deadlock, done). A viewer holds one decoded page (limits.EventPage
// events) at a time, so a replay costs memory in proportion to what it is
// sending, not to the run's whole log. One viewer reads one replayLog, in
// order.
type replayLog struct {
	db         *sql.DB
	sr         *storedRun
	head, tail [][]byte
	pos        int      // messages handed out so far
	phase      int      // 0 head, 1 events, 2 tail
	page       int      // next page to load
	lines      [][]byte // the current page, from off on
	off        int
	ti         int // next tail message
	err        error
	logf       func(string, ...any)
}

// replayTimeout bounds one page read.
const replayTimeout = 30 * time.Second

// read returns up to max messages from cursor on (cursor is what this
// log handed out so far) and whether it reached the end. A store error
// ends the log early; the server logs it.
func (l *replayLog) read(cursor, max int) ([][]byte, bool) {
	var out [][]byte
	for len(out) < max {
		switch l.phase {
		case 0:
			if l.pos < len(l.head) {
				out = append(out, l.head[l.pos])
				l.pos++
				continue
			}
			l.phase = 1
		case 1:
			if l.off < len(l.lines) {
				out = append(out, eventMessage(l.lines[l.off]))
				l.lines[l.off] = nil
				l.off++
				l.pos++
				continue
			}
			if l.err != nil || (l.sr.Pages == 0 && l.page > 0) || (l.sr.Pages > 0 && l.page >= l.sr.Pages) {
				l.phase, l.lines = 2, nil
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), replayTimeout)
			l.lines, l.err = getPage(ctx, l.db, l.sr, l.page)
			cancel()
			l.off = 0
			l.page++
			if l.err != nil {
				l.logf("replay %s: %v", l.sr.ID, l.err)
				l.phase, l.lines = 2, nil
				l.tail = nil
				return out, true
			}
		case 2:
			if l.ti >= len(l.tail) {
				return out, true
			}
			out = append(out, l.tail[l.ti])
			l.ti++
			l.pos++
		}
	}
	return out, l.phase == 2 && l.ti >= len(l.tail)
}
