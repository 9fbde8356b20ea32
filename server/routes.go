package server

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/gofiber/contrib/websocket"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"

	"pldworkbench/engine/limits"
	"pldworkbench/web"
)

// routes registers every route of the workbench (API.md has the contract).
func (s *Server) routes() {
	app := s.app
	app.Use(markUsed) // see trackListener: Shutdown closes connections that never carried a request
	// A panicking handler answers 500 JSON through errorHandler, its stack
	// in the log (the user work itself runs under guard, which does the
	// same closer to the cause).
	app.Use(recover.New(recover.Config{EnableStackTrace: true, StackTraceHandler: func(c *fiber.Ctx, e any) {
		s.logf("panic in %s %s: %v\n%s", c.Method(), c.Path(), e, debug.Stack())
	}}))
	app.Use(s.gate)     // only the learner's own pages: token or loopback Host, Origin, JSON POSTs, CSP
	app.Use(s.notFound) // a page address no route takes gets the HTML page, 404

	// The page: one index.html for every client-side route.
	app.Get("/", s.page)
	app.Get("/step/:n", s.stepPage)
	app.Get("/r/:id", s.sharePage)
	app.Get("/lessons/:name", s.docPage)
	app.Get("/assets/chroma.css", s.chromaCSS)
	app.Get("/assets/*", s.asset)

	// Lessons and kernels.
	app.Get("/api/steps", s.getSteps)
	app.Get("/api/lessons/readme", s.getLessonsReadme)
	app.Get("/api/lessons/doc/:name", s.getLessonsDoc)
	app.Get("/api/steps/:n", s.getStep)
	app.Post("/api/steps/:n/check", s.postStepCheck)
	app.Get("/api/kernels/:name", s.getKernel)
	app.Get("/api/kernels/:name/bug", s.getKernelBug)

	// Checking, lowering, comparing.
	app.Post("/api/check", s.postCheck)
	app.Post("/api/ir", s.postIR)
	app.Post("/api/ir/lines", s.postIRLines)
	app.Get("/api/passes", s.getPasses)
	app.Get("/api/platforms", s.getPlatforms) // engine/platform's table, for the page's platform menu
	app.Post("/api/schedules", s.postSchedules)
	app.Post("/api/sweep", s.postSweep)
	app.Post("/api/compare", s.postCompare)
	app.Post("/api/export", s.postExport) // a runnable PyPTO script (workbench export)
	app.Get("/api/pypto", s.getPyPTO)     // is PyPTO here, and which cards
	app.Post("/api/pypto/check", s.postPyPTOCheck)
	app.Post("/api/pypto/run", s.postPyPTORun) // run through PyPTO, stored as a run

	// Runs.
	app.Post("/api/runs", s.postRun)
	app.Get("/api/runs/:id", s.getRunJSON)
	app.Get("/api/runs/:id/trace.json", s.getTrace)
	app.Get("/api/runs/:id/events", s.getEvents)
	app.Get("/ws/runs/:id", s.wsRuns)                                                      // a run's stream, on a socket of its own (ws.go)
	app.Get("/ws/session", s.wsSessionLookup, websocket.New(s.wsSession, wsSessionConfig)) // a page's runs, on its one socket (wssession.go)
}

// page serves index.html with status 200.
func (s *Server) page(c *fiber.Ctx) error { return s.index(c, fiber.StatusOK) }

// index serves the page with a status: 404 for a step or share that does
// not exist, so a crawler or a script sees it, while a browser still gets
// the page, which says what is missing.
func (s *Server) index(c *fiber.Ctx, status int) error {
	b, err := fs.ReadFile(web.Assets(), "index.html")
	if err != nil {
		return err
	}
	// Each page gets a fresh nonce: its CSP admits the <style> elements
	// that carry it (CodeMirror's generated theme) and no others.
	nonce := newNonce()
	c.Set("Content-Security-Policy", pagePolicy(nonce))
	b = bytes.Replace(b, []byte(`<meta charset="utf-8">`),
		[]byte(`<meta charset="utf-8">`+"\n"+`<meta name="csp-nonce" content="`+nonce+`">`), 1)
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Type("html", "utf-8")
	return c.Status(status).Send(b)
}

func (s *Server) stepPage(c *fiber.Ctx) error {
	n, err := strconv.Atoi(c.Params("n"))
	if _, ok := s.lessons.detail[n]; err != nil || !ok {
		return s.index(c, fiber.StatusNotFound)
	}
	return s.index(c, fiber.StatusOK)
}

func (s *Server) sharePage(c *fiber.Ctx) error {
	id := c.Params("id")
	s.mu.Lock()
	_, live := s.live[id]
	s.mu.Unlock()
	if live {
		return s.index(c, fiber.StatusOK)
	}
	stored, err := s.writer.stored(c.UserContext(), id) // held until its commit, as good as stored
	if err != nil {
		return err
	}
	if !stored {
		return s.index(c, fiber.StatusNotFound)
	}
	return s.index(c, fiber.StatusOK)
}

func (s *Server) chromaCSS(c *fiber.Ctx) error {
	c.Type("css", "utf-8")
	return c.Send(s.lessons.css)
}

// asset serves web.Assets()/assets/*.
func (s *Server) asset(c *fiber.Ctx) error {
	name := "assets/" + c.Params("*")
	if !fs.ValidPath(name) || strings.Contains(name, "\\") {
		return errorf(fiber.StatusNotFound, "", "no asset %s", c.Params("*"))
	}
	b, err := fs.ReadFile(web.Assets(), name)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
		return errorf(fiber.StatusNotFound, "", "no asset %s", c.Params("*"))
	}
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Type(strings.TrimPrefix(path.Ext(name), "."))
	return c.Send(b)
}

// wsConfig is the sockets' configuration (the session's; runsUpgrader in
// ws.go takes the same write buffers): a frame is written from a buffer
// of limits.WSWriteBuffer, taken from wsWriteBufs for the write and given
// back after it, so that a frame of a run's events goes out in one
// write, not two.
var wsConfig = websocket.Config{WriteBufferSize: limits.WSWriteBuffer, WriteBufferPool: &wsWriteBufs}

var wsWriteBufs sync.Pool

// wsSessionConfig is wsConfig with a read buffer a run message fits in
// (limits.WSSessionRead), so it is read in one go.
var wsSessionConfig = func() websocket.Config {
	c := wsConfig
	c.ReadBufferSize = limits.WSSessionRead
	return c
}()
