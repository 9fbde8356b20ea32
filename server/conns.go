package server

import (
	"net"
	"sync"
	"sync/atomic"

	"github.com/gofiber/fiber/v2"
)

// trackListener remembers every connection it accepted until it closes,
// and whether it ever carried a request. fasthttp's shutdown waits for
// every open connection, and counts one as open from the moment it is
// accepted, before its first request: a connection a browser or an HTTP
// client opened ahead of need (Chrome's preconnects, net/http's spare
// dials) would hold Shutdown until the 30 s read timeout. Shutdown closes
// those never-used connections itself (closeUnused); the used ones are
// fasthttp's to close when idle, and websockets are closed by wsRun.
type trackListener struct {
	net.Listener
	mu        sync.Mutex
	conns     map[*trackConn]struct{}
	closeOnce sync.Once
	closeErr  error
}

func newTrackListener(ln net.Listener) *trackListener {
	return &trackListener{Listener: ln, conns: map[*trackConn]struct{}{}}
}

// Accept wraps the connection so it can be found again.
func (l *trackListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackConn{Conn: c, l: l}
	l.mu.Lock()
	l.conns[tc] = struct{}{}
	l.mu.Unlock()
	return tc, nil
}

// Close closes the listener once; later calls (fasthttp's own, during its
// shutdown) return nil rather than "use of closed network connection".
func (l *trackListener) Close() error {
	l.closeOnce.Do(func() { l.closeErr = l.Listener.Close() })
	return nil
}

// closeUnused closes the connections that never carried a request.
func (l *trackListener) closeUnused() {
	l.mu.Lock()
	var idle []*trackConn
	for c := range l.conns {
		if !c.used.Load() {
			idle = append(idle, c)
		}
	}
	l.mu.Unlock()
	for _, c := range idle {
		c.Close()
	}
}

// trackConn is one accepted connection.
type trackConn struct {
	net.Conn
	l    *trackListener
	used atomic.Bool
	once sync.Once
}

func (c *trackConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// markUsed is the first middleware: it records that the request's
// connection has carried a request.
func markUsed(c *fiber.Ctx) error {
	if tc, ok := c.Context().Conn().(*trackConn); ok {
		tc.used.Store(true)
	}
	return c.Next()
}

// connGroup counts the open websockets for Shutdown's wait. A
// sync.WaitGroup wants an Add from zero to happen before its Wait; a
// handshake that completes while Shutdown waits has no such order (the
// race detector reports it), so joining happens under a lock that
// closing takes too, and a socket that comes after the close is refused.
type connGroup struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// join counts one more socket; false when the group is closed (the server
// is shutting down: the handler returns, and fasthttp closes the socket).
func (g *connGroup) join() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Add(1)
	return true
}

// leave uncounts a socket join counted.
func (g *connGroup) leave() { g.wg.Done() }

// close refuses every later join and returns the group to wait on.
func (g *connGroup) close() *sync.WaitGroup {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	return &g.wg
}
