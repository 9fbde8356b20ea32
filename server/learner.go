package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"pldworkbench/kernels"
	"pldworkbench/tutorials"
	"pldworkbench/tutorials/check"
)

// bugJSON is GET /api/kernels/{name}/bug?ranks=P: under which of
// check.Schedules a bug kernel's documented failure shows at P ranks, so a
// bug cell can run there instead of under a schedule that hides it. Kind
// is the failure's status from the `#! bug:` header (its regexp stays on
// the server: the learner reads Reason, the engine's words for the failure).
type bugJSON struct {
	Kernel     string `json:"kernel"`
	Entry      string `json:"entry"`
	Ranks      int    `json:"ranks"`
	Kind       string `json:"kind"`
	Reproduced bool   `json:"reproduced"`
	Schedule   string `json:"schedule"`
	Status     string `json:"status"`
	Reason     string `json:"reason,omitempty"`
}

// bugCache keeps the answers: the kernels are embedded, so a bug's
// schedule at P ranks never changes while the process runs, and each
// answer costs up to two emulator runs.
type bugCache struct {
	mu sync.Mutex
	m  map[string]bugJSON
}

// getKernelBug answers GET /api/kernels/{name}/bug. It runs the kernel's
// first entry as check.Run does (fair, then adversarial, the check's
// random inputs) and reports the schedule of the first failing run when
// that failure is the documented one; otherwise reproduced is false and
// schedule is "fair".
func (s *Server) getKernelBug(c *fiber.Ctx) error {
	name := c.Params("name")
	k, ok := kernels.Get(name)
	if !ok || k.Bug == "" {
		return errorf(fiber.StatusNotFound, "bug kernels are named NN_..._bug, e.g. 04_barrier_bug", "no bug kernel %q", name)
	}
	bug, err := check.ParseBug(k.Bug)
	if err != nil {
		return errorf(fiber.StatusInternalServerError, "", "%s: %v", k.File, err)
	}
	p := k.Ranks[0]
	if q := c.Query("ranks"); q != "" {
		if p, err = strconv.Atoi(q); err != nil || !k.Supports(p) {
			return errorf(fiber.StatusBadRequest, fmt.Sprintf("%s runs at %v ranks", k.Name, k.Ranks), "ranks %q not supported", q)
		}
	}
	key := fmt.Sprintf("%s@%d", k.Name, p)
	bc := s.lessons.bugs
	bc.mu.Lock()
	out, hit := bc.m[key]
	bc.mu.Unlock()
	if hit {
		return c.JSON(out)
	}
	var v check.Verdict
	var cut bool
	if err := s.withSlot("bug schedule "+k.Name, func() {
		// The deadline starts once the slot is had, as for every piece of work.
		ctx, cancel := context.WithTimeout(s.base, stepCheckTimeout)
		defer cancel()
		v = check.Run(ctx, s.budget(), k.Name, k.Entries[0], k.File, k.Source, p)
		cut = ctx.Err() != nil
	}); err != nil {
		return err
	}
	if cut {
		return errorf(fiber.StatusServiceUnavailable, "try again in a moment", "the bug's runs were cut short")
	}
	out = bugJSON{Kernel: k.Name, Entry: v.Entry, Ranks: p, Kind: bug.Status, Reproduced: bug.Matches(v),
		Schedule: "fair", Status: v.Status, Reason: v.Reason}
	if out.Reproduced {
		out.Schedule = v.Schedule
	}
	bc.mu.Lock()
	bc.m[key] = out
	bc.mu.Unlock()
	return c.JSON(out)
}

// getLessonsReadme answers GET /api/lessons/readme: {"html"}, the lessons'
// README rendered, for the page /lessons/README the lessons link to.
func (s *Server) getLessonsReadme(c *fiber.Ctx) error {
	html, err := tutorials.ReadmeHTML()
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"html": html})
}

// docPage serves the page of /lessons/NAME for the pages beside the
// lessons (tutorials.Docs: README, intro, reference, glossary); any other
// name falls through to the not-found page.
func (s *Server) docPage(c *fiber.Ctx) error {
	if _, ok := tutorials.Docs[c.Params("name")]; !ok {
		return fiber.ErrNotFound
	}
	return s.page(c)
}

// getLessonsDoc answers GET /api/lessons/doc/{name}: {"html"}, one of the
// pages beside the lessons rendered (step 0, the reference, the glossary).
func (s *Server) getLessonsDoc(c *fiber.Ctx) error {
	name := c.Params("name")
	if _, ok := tutorials.Docs[name]; !ok {
		return errorf(fiber.StatusNotFound, "the pages are README, intro, reference and glossary", "no page %q", name)
	}
	html, err := tutorials.DocHTML(name)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"html": html})
}

// notFound wraps every request: when no route took it (the router's own
// 404) and it is a GET of a page address, not under /api/ or /ws/, the
// answer is the page itself with status 404, which says in HTML that there
// is no such page, instead of the API's JSON error.
func (s *Server) notFound(c *fiber.Ctx) error {
	err := c.Next()
	var fe *fiber.Error
	if err == nil || !errors.As(err, &fe) || fe.Code != fiber.StatusNotFound || c.Method() != fiber.MethodGet {
		return err
	}
	if p := c.Path(); strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/ws/") || strings.HasPrefix(p, "/assets/") {
		return err
	}
	return s.index(c, fiber.StatusNotFound)
}
