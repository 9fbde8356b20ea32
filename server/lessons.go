package server

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"pldworkbench/kernels"
	"pldworkbench/tutorials"
	"pldworkbench/tutorials/check"
)

// stepDetail is GET /api/steps/{n}.
type stepDetail struct {
	check.Summary
	Prev        int               `json:"prev,omitempty"`
	Next        int               `json:"next,omitempty"`
	HTML        string            `json:"html"`
	Kernels     map[string]string `json:"kernels"`
	KernelNames map[string]string `json:"kernel_names"`
	Hints       []string          `json:"hints"`
}

// lessons is everything the lesson routes serve, built once by New: the
// lessons are embedded, so nothing changes while the process runs.
type lessons struct {
	list   []check.Summary // GET /api/steps
	detail map[int]*stepDetail
	css    []byte // chroma.css
	bugs   *bugCache
}

func loadLessons() (*lessons, error) {
	ls, err := tutorials.Lessons()
	if err != nil {
		return nil, err
	}
	byNumber := map[int]tutorials.Lesson{}
	for _, l := range ls {
		byNumber[l.Number] = l
	}
	out := &lessons{list: check.Summaries(), detail: map[int]*stepDetail{}, bugs: &bugCache{m: map[string]bugJSON{}}}
	var css bytes.Buffer
	if err := tutorials.ChromaCSS(&css); err != nil {
		return nil, err
	}
	out.css = css.Bytes()
	for i, sum := range out.list {
		c, _ := check.StepOf(sum.Number)
		d := &stepDetail{Summary: sum, Kernels: map[string]string{}, KernelNames: map[string]string{}, Hints: []string{}}
		if i > 0 {
			d.Prev = out.list[i-1].Number
		}
		if i+1 < len(out.list) {
			d.Next = out.list[i+1].Number
		}
		if l, ok := byNumber[sum.Number]; ok {
			if d.HTML, err = l.HTML(); err != nil {
				return nil, err
			}
			hints, err := l.Hints()
			if err != nil {
				return nil, err
			}
			if hints != nil {
				d.Hints = hints
			}
		}
		for _, v := range c.Variants() {
			name := c.Kernels(v)[0]
			k, ok := kernels.Get(name)
			if !ok {
				return nil, fmt.Errorf("step %d: kernel %s is not embedded", sum.Number, name)
			}
			d.Kernels[string(v)] = string(k.Source)
			d.KernelNames[string(v)] = name
		}
		out.detail[sum.Number] = d
	}
	return out, nil
}

func (s *Server) getSteps(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"steps": s.lessons.list})
}

func (s *Server) getStep(c *fiber.Ctx) error {
	n, err := strconv.Atoi(c.Params("n"))
	d, ok := s.lessons.detail[n]
	if err != nil || !ok {
		return errorf(fiber.StatusNotFound, "steps are 1 to 20", "no step %q", c.Params("n"))
	}
	return c.JSON(d)
}

// kernelJSON is GET /api/kernels/{name}.
type kernelJSON struct {
	Name    string   `json:"name"`
	File    string   `json:"file"`
	Step    int      `json:"step"`
	Source  string   `json:"source"`
	Entries []string `json:"entries"`
	Ranks   []int    `json:"ranks"`
	Goldens []string `json:"goldens"`
	Bug     string   `json:"bug,omitempty"`
	Starter string   `json:"starter,omitempty"`
	Variant string   `json:"variant"`
}

// getKernel answers GET /api/kernels/{name}: the file and its header.
func (s *Server) getKernel(c *fiber.Ctx) error {
	name := c.Params("name")
	k, ok := kernels.Get(name)
	if !ok {
		return errorf(fiber.StatusNotFound, "kernel names are file names without .py, e.g. 08_allreduce_mesh", "no kernel %q", name)
	}
	kj := kernelJSON{Name: k.Name, File: k.File, Step: k.Step(), Source: string(k.Source), Entries: k.Entries,
		Ranks: k.Ranks, Goldens: k.Goldens, Bug: k.Bug, Starter: k.Starter, Variant: variantOf(k)}
	if kj.Goldens == nil {
		kj.Goldens = []string{}
	}
	return c.JSON(kj)
}

// variantOf says which variant of its step a kernel is, "" when the step's
// table does not list it.
func variantOf(k kernels.Kernel) string {
	st, ok := check.StepOf(k.Step())
	if !ok {
		return ""
	}
	for _, v := range check.AllVariants {
		for _, name := range st.Kernels(v) {
			if name == k.Name {
				return string(v)
			}
		}
	}
	return ""
}
