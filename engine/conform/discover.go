package conform

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/syntax"
)

// The suite's cases are derived from an upstream file statically, from its
// syntax alone: nothing of the test module runs. A file holds programs —
// module-level @pl.program classes, module-level functions that build one
// (a factory such as _build_ring_allreduce(n_ranks)), and @pl.jit.host
// functions — and tests: functions named test_*, at module level or in a
// class, each with its pytest.mark.parametrize lists. A test makes one
// case per combination of its parameters and per program its body names;
// the rank count is the slice of device_ids it hands to DistributedConfig
// (device_ids[:n_ranks]), found in the test or in the module-level helper
// it calls. An example file has no tests: each host function is a case at
// the file's N_RANKS.

// conformProgram is one DSL program of an upstream file.
type conformProgram struct {
	Name    string          // what the table calls it: class, factory or host function
	Factory *syntax.FuncDef // set for a function that builds a @pl.program class
	Hosts   []string        // host orchestrators: methods of the class, or Name itself
	Class   bool            // Name is a module-level @pl.program class
	// Chips are the chip orchestrations of a class with no HOST level (an
	// L2-only program): each an entry of its own, run on one chip.
	Chips []string
}

// conformCaseSpec is one case to run: a program's host at a rank count.
type conformCaseSpec struct {
	Program *conformProgram
	Test    string // "Class.test_x[n_ranks=2]" or "main" for an example
	Params  map[string]string
	Entry   string // the entry expression, evaluated in the module's scope
	Ranks   int
	Note    string // how the rank count was found when it was not the test's own
	// Unresolved names a value of the case the test computes at run time
	// (a local bound to a call), which a static reading cannot know.
	Unresolved string
	// ArgShapes are the shapes of the tensors the test hands the compiled
	// program, by position (nil where it cannot be read): see argShapes.
	ArgShapes [][]int
}

// discoverCases reads the programs and tests of one parsed upstream file.
func discoverCases(file *syntax.File) ([]*conformProgram, []conformCaseSpec) {
	d := &discoverer{src: file.Src, consts: map[string]string{}, funcs: map[string]*syntax.FuncDef{}}
	var progs []*conformProgram
	type testDef struct {
		label string
		def   *syntax.FuncDef
	}
	methodsOf := map[string]map[string]*syntax.FuncDef{}
	var tests []testDef
	for _, s := range file.Body {
		switch s := s.(type) {
		case *syntax.AssignStmt:
			if len(s.Targets) == 1 && s.Value != nil {
				if id, ok := s.Targets[0].(*syntax.Ident); ok {
					switch s.Value.(type) {
					case *syntax.NumberLit, *syntax.StringLit:
						d.consts[id.Name] = d.text(s.Value)
					}
				}
			}
		case *syntax.ClassDef:
			if hasDecorator(d.src, s.Decorators, "pl.program") {
				progs = append(progs, newClassProgram(d.src, s.Name, s, nil))
				continue
			}
			methods := map[string]*syntax.FuncDef{}
			methodsOf[s.Name] = methods
			for _, m := range s.Body {
				fn, ok := m.(*syntax.FuncDef)
				if !ok {
					continue
				}
				methods[fn.Name] = fn
				if strings.HasPrefix(fn.Name, "test") {
					tests = append(tests, testDef{s.Name + "." + fn.Name, fn})
				}
			}
		case *syntax.FuncDef:
			d.funcs[s.Name] = s
			switch {
			case hasDecorator(d.src, s.Decorators, "pl.jit.host"):
				progs = append(progs, &conformProgram{Name: s.Name, Hosts: []string{s.Name}})
			case strings.HasPrefix(s.Name, "test"):
				tests = append(tests, testDef{s.Name, s})
			default:
				if cls := nestedProgram(d.src, s.Body); cls != nil {
					progs = append(progs, newClassProgram(d.src, s.Name, cls, s))
				}
			}
		}
	}
	var cases []conformCaseSpec
	for _, t := range tests {
		def := t.def
		if cls, _, ok := strings.Cut(t.label, "."); ok && strings.Contains(t.label, ".") {
			def = &syntax.FuncDef{Name: t.def.Name, Decorators: t.def.Decorators, Body: d.withHelpers(t.def, methodsOf[cls])}
		}
		for _, params := range d.parametrize(t.def) {
			for _, p := range progs {
				cases = append(cases, d.testCases(t.label, def, params, p)...)
			}
		}
	}
	if len(tests) == 0 {
		// An example: every host function at the file's rank count.
		ranks, note := []int{2}, "no N_RANKS: run at 2 ranks"
		if n, ok := d.intValue("N_RANKS", nil); ok {
			ranks, note = []int{n}, ""
		} else if d.mentions("pl.dynamic") {
			ranks, note = []int{2, 4}, "the rank count is dynamic: run at 2 and 4"
		}
		for _, p := range progs {
			for _, h := range p.Hosts {
				for _, r := range ranks {
					cases = append(cases, conformCaseSpec{Program: p, Test: "main", Entry: h, Ranks: r, Note: note})
				}
			}
		}
	}
	return progs, cases
}

type discoverer struct {
	src    []byte
	consts map[string]string // module-level NAME = literal
	funcs  map[string]*syntax.FuncDef
}

func (d *discoverer) text(e syntax.Node) string {
	sp := e.Span()
	if sp.Start.Offset < 0 || sp.End.Offset > len(d.src) || sp.Start.Offset > sp.End.Offset {
		return ""
	}
	return string(d.src[sp.Start.Offset:sp.End.Offset])
}

func (d *discoverer) mentions(s string) bool { return strings.Contains(string(d.src), s) }

// subst is e's source text with every name in vals replaced by its value.
func (d *discoverer) subst(e syntax.Expr, vals map[string]string) string {
	base := e.Span().Start.Offset
	txt := d.text(e)
	type rep struct {
		at, end int
		with    string
	}
	var reps []rep
	syntax.Walk(e, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok {
			if v, ok := vals[id.Name]; ok {
				reps = append(reps, rep{id.Pos.Start.Offset - base, id.Pos.End.Offset - base, "(" + v + ")"})
			}
		}
		return true
	})
	sort.Slice(reps, func(i, j int) bool { return reps[i].at > reps[j].at })
	for _, r := range reps {
		if r.at >= 0 && r.end <= len(txt) && r.at <= r.end {
			txt = txt[:r.at] + r.with + txt[r.end:]
		}
	}
	return txt
}

// intValue evaluates a small integer expression: literals, module
// constants, the names in vals, + - * // and parentheses.
func (d *discoverer) intValue(expr string, vals map[string]string) (int, bool) {
	x, diags := syntax.ParseExpr("<rank count>", expr)
	if diags.HasErrors() || x == nil {
		return 0, false
	}
	return d.evalInt(x, vals, 0)
}

func (d *discoverer) evalInt(x syntax.Expr, vals map[string]string, depth int) (int, bool) {
	if depth > 8 {
		return 0, false
	}
	switch x := x.(type) {
	case *syntax.NumberLit:
		return int(x.Int), x.Kind == syntax.IntNumber
	case *syntax.ParenExpr:
		return d.evalInt(x.X, vals, depth+1)
	case *syntax.Ident:
		v, ok := vals[x.Name]
		if !ok {
			v, ok = d.consts[x.Name]
		}
		if !ok {
			return 0, false
		}
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return n, true
		}
		y, diags := syntax.ParseExpr("<rank count>", v)
		if diags.HasErrors() || y == nil {
			return 0, false
		}
		return d.evalInt(y, vals, depth+1)
	case *syntax.BinaryExpr:
		a, ok1 := d.evalInt(x.X, vals, depth+1)
		b, ok2 := d.evalInt(x.Y, vals, depth+1)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch x.Op {
		case "+", "-", "*", "//":
			// Python's integer arithmetic, floor division included, as the
			// engine folds dimensions.
			v, ok := ir.DimArith(x.Op, int64(a), int64(b))
			return int(v), ok
		}
	}
	return 0, false
}

// paramSet is one combination of a test's parameters, in source order.
type paramSet struct {
	names, vals []string
}

func (p paramSet) label() string {
	var parts []string
	for i := range p.names {
		parts = append(parts, p.names[i]+"="+p.vals[i])
	}
	return strings.Join(parts, ",")
}

func (p paramSet) m() map[string]string {
	m := map[string]string{}
	for i := range p.names {
		m[p.names[i]] = p.vals[i]
	}
	return m
}

// parametrize expands a test's pytest.mark.parametrize decorators into
// their cartesian product (one empty set for an unparametrised test).
func (d *discoverer) parametrize(fn *syntax.FuncDef) []paramSet {
	sets := []paramSet{{}}
	for i := len(fn.Decorators) - 1; i >= 0; i-- {
		call, ok := fn.Decorators[i].X.(*syntax.CallExpr)
		if !ok || !strings.HasSuffix(d.text(call.Fn), "mark.parametrize") || len(call.Args) < 2 {
			continue
		}
		var names []string
		switch n := call.Args[0].Value.(type) {
		case *syntax.StringLit:
			for _, part := range strings.Split(n.Value, ",") {
				names = append(names, strings.TrimSpace(part))
			}
		case *syntax.TupleLit, *syntax.ListLit:
			var elts []syntax.Expr
			if t, ok := n.(*syntax.TupleLit); ok {
				elts = t.Elts
			} else {
				elts = n.(*syntax.ListLit).Elts
			}
			for _, e := range elts {
				if sl, ok := e.(*syntax.StringLit); ok {
					names = append(names, sl.Value)
				}
			}
		}
		if len(names) == 0 {
			continue
		}
		var rows [][]string
		var elts []syntax.Expr
		switch l := call.Args[1].Value.(type) {
		case *syntax.ListLit:
			elts = l.Elts
		case *syntax.TupleLit:
			elts = l.Elts
		}
		for _, e := range elts {
			if c, ok := e.(*syntax.CallExpr); ok && strings.HasSuffix(d.text(c.Fn), "param") {
				var vals []string
				for _, a := range c.Args {
					if a.Name == "" {
						vals = append(vals, d.text(a.Value))
					}
				}
				rows = append(rows, vals)
				continue
			}
			if len(names) > 1 {
				if t, ok := unparen(e).(*syntax.TupleLit); ok {
					var vals []string
					for _, x := range t.Elts {
						vals = append(vals, d.text(x))
					}
					rows = append(rows, vals)
					continue
				}
			}
			rows = append(rows, []string{d.text(e)})
		}
		var next []paramSet
		for _, s := range sets {
			for _, r := range rows {
				if len(r) != len(names) {
					continue
				}
				next = append(next, paramSet{append(append([]string{}, s.names...), names...), append(append([]string{}, s.vals...), r...)})
			}
		}
		sets = next
	}
	return sets
}

// testCases makes the cases one test with one parameter set gives one
// program: none when the test does not name the program.
func (d *discoverer) testCases(label string, fn *syntax.FuncDef, params paramSet, p *conformProgram) []conformCaseSpec {
	vals := params.m()
	// Simple local assignments before use (nr = n_ranks) join the values.
	locals := map[string]syntax.Expr{}
	syntax.Walk(&syntax.FuncDef{Body: fn.Body}, func(n syntax.Node) bool {
		if a, ok := n.(*syntax.AssignStmt); ok && len(a.Targets) == 1 && a.Value != nil {
			if id, ok := a.Targets[0].(*syntax.Ident); ok {
				if _, isParam := vals[id.Name]; !isParam {
					locals[id.Name] = a.Value
				}
			}
		}
		return true
	})
	env := map[string]string{}
	for k, v := range vals {
		env[k] = v
	}
	resolved := map[string]string{} // call locals computed from the platform profile
	for k, e := range locals {
		call, isCall := e.(*syntax.CallExpr)
		if !isCall {
			env[k] = d.subst(e, vals)
			continue
		}
		if id, ok := call.Fn.(*syntax.Ident); ok {
			if v, note, ok := resolvePlatformArg(id.Name, k); ok {
				env[k], resolved[k] = fmt.Sprint(v), note
			}
		}
	}
	caseLabel := label
	if len(params.names) > 0 {
		caseLabel += "[" + params.label() + "]"
	}
	var entries []string
	named := false
	syntax.Walk(&syntax.FuncDef{Body: fn.Body}, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if id, ok := n.Fn.(*syntax.Ident); ok && p.Factory != nil && id.Name == p.Factory.Name {
				named = true
				for _, h := range p.entryMethods() {
					entries = append(entries, d.subst(n, env)+"."+h)
				}
				return false
			}
		case *syntax.Ident:
			if n.Name == p.Name {
				named = true
			}
		}
		return true
	})
	if !named {
		// The test may reach the factory through a local bound to its call.
		for _, e := range locals {
			if c, ok := e.(*syntax.CallExpr); ok {
				if id, ok := c.Fn.(*syntax.Ident); ok && p.Factory != nil && id.Name == p.Factory.Name {
					named = true
					for _, h := range p.entryMethods() {
						entries = append(entries, d.subst(c, env)+"."+h)
					}
				}
			}
		}
	}
	if !named {
		return nil
	}
	if len(entries) == 0 {
		for _, h := range p.Hosts {
			if p.Class {
				entries = append(entries, p.Name+"."+h)
			} else {
				entries = append(entries, h)
			}
		}
	}
	ranks, note := d.testRanks(fn, env)
	if len(p.Hosts) == 0 && len(p.Chips) > 0 {
		// No HOST level: one chip, at the orchestration the test selects.
		if note == "" && ranks != 1 {
			note = fmt.Sprintf("the program has no HOST level: run on one chip, not on the %d devices the test slices", ranks)
		} else {
			note = ""
		}
		ranks = 1
		chip := d.chipEntry(fn, p)
		switch {
		case chip == "":
			entries = []string{""}
		case len(entries) > 0: // a factory's call, one entry per chip
			entries = []string{entries[slices.Index(p.Chips, chip)]}
		default:
			entries = []string{p.Name + "." + chip}
		}
	}
	shapes := d.argShapes(fn, locals, env)
	var out []conformCaseSpec
	for _, e := range entries {
		c := conformCaseSpec{Program: p, Test: caseLabel, Params: vals, Entry: e, Ranks: ranks, Note: note, ArgShapes: shapes}
		for name, x := range locals {
			if _, isCall := x.(*syntax.CallExpr); isCall && mentionsName(e, name) {
				c.Unresolved = name + " = " + d.text(x)
			}
		}
		for _, name := range sortedKeys(resolved) {
			c.Note = strings.TrimPrefix(c.Note+"; "+resolved[name], "; ")
		}
		out = append(out, c)
	}
	return out
}

// testRanks finds the device_ids slice a test compiles with, in its body or
// in the module-level helper it calls with the slice's bound.
func (d *discoverer) testRanks(fn *syntax.FuncDef, env map[string]string) (int, string) {
	if n, ok := d.sliceBound(fn.Body, env); ok {
		return n, ""
	}
	var found int
	ok := false
	syntax.Walk(&syntax.FuncDef{Body: fn.Body}, func(n syntax.Node) bool {
		c, isCall := n.(*syntax.CallExpr)
		if !isCall || ok {
			return !ok
		}
		id, isIdent := c.Fn.(*syntax.Ident)
		if !isIdent {
			return true
		}
		helper := d.funcs[id.Name]
		if helper == nil {
			return true
		}
		henv := map[string]string{}
		for i, a := range c.Args {
			name := a.Name
			if name == "" && i < len(helper.Params) {
				name = helper.Params[i].Name
			}
			if name != "" {
				henv[name] = d.subst(a.Value, env)
			}
		}
		found, ok = d.sliceBound(helper.Body, henv)
		return !ok
	})
	if ok {
		return found, ""
	}
	return 2, "no device_ids slice found: run at 2 ranks"
}

func (d *discoverer) sliceBound(body []syntax.Stmt, env map[string]string) (int, bool) {
	var n int
	ok := false
	syntax.Walk(&syntax.FuncDef{Body: body}, func(node syntax.Node) bool {
		ix, isIndex := node.(*syntax.IndexExpr)
		if ok || !isIndex {
			return !ok
		}
		if id, isIdent := ix.X.(*syntax.Ident); !isIdent || id.Name != "device_ids" {
			return true
		}
		sl, isSlice := ix.Index.(*syntax.SliceExpr)
		if !isSlice || sl.Hi == nil || sl.Lo != nil {
			return true
		}
		n, ok = d.intValue(d.subst(sl.Hi, env), nil)
		return !ok
	})
	return n, ok
}

// mentionsName reports whether expression text names name.
func mentionsName(expr, name string) bool {
	x, diags := syntax.ParseExpr(diag.EntryFile, expr)
	if diags.HasErrors() || x == nil {
		return false
	}
	hit := false
	syntax.Walk(x, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok && id.Name == name {
			hit = true
		}
		return !hit
	})
	return hit
}

func hasDecorator(src []byte, decs []*syntax.Decorator, name string) bool {
	for _, dec := range decs {
		x := dec.X
		if c, ok := x.(*syntax.CallExpr); ok {
			x = c.Fn
		}
		sp := x.Span()
		if string(src[sp.Start.Offset:sp.End.Offset]) == name {
			return true
		}
	}
	return false
}

// hostMethods lists a @pl.program class's host orchestrators.
func hostMethods(src []byte, cls *syntax.ClassDef) []string {
	var hosts []string
	for _, s := range cls.Body {
		fn, ok := s.(*syntax.FuncDef)
		if !ok {
			continue
		}
		for _, dec := range fn.Decorators {
			sp := dec.X.Span()
			t := string(src[sp.Start.Offset:sp.End.Offset])
			if strings.Contains(t, "Level.HOST") && strings.Contains(t, "Role.Orchestrator") || strings.HasPrefix(t, "pl.jit.host") {
				hosts = append(hosts, fn.Name)
			}
		}
	}
	return hosts
}

// entryMethods are the methods a program runs from: its host
// orchestrators, else its chip orchestrations.
func (p *conformProgram) entryMethods() []string {
	if len(p.Hosts) > 0 {
		return p.Hosts
	}
	return p.Chips
}

// newClassProgram is the program of a @pl.program class, named name (the
// class, or the factory that builds it).
func newClassProgram(src []byte, name string, cls *syntax.ClassDef, factory *syntax.FuncDef) *conformProgram {
	p := &conformProgram{Name: name, Factory: factory, Hosts: hostMethods(src, cls), Class: factory == nil}
	if len(p.Hosts) == 0 {
		p.Chips = chipMethods(src, cls)
	}
	return p
}

// chipMethods lists a @pl.program class's chip orchestrations.
func chipMethods(src []byte, cls *syntax.ClassDef) []string {
	var chips []string
	for _, s := range cls.Body {
		if fn, ok := s.(*syntax.FuncDef); ok {
			for _, dec := range fn.Decorators {
				sp := dec.X.Span()
				if strings.Contains(string(src[sp.Start.Offset:sp.End.Offset]), "FunctionType.Orchestration") {
					chips = append(chips, fn.Name)
				}
			}
		}
	}
	return chips
}

// chipEntry is the chip orchestration a test of a program with no HOST
// level runs: the program's only one, or the one the test selects by name
// (compiled["name"] or compiled.name, as PyPTO's CompiledProgram of several
// L2 orchestrations is called); "" when it selects none or several of
// several: the whole program, which has no default entry.
func (d *discoverer) chipEntry(fn *syntax.FuncDef, p *conformProgram) string {
	if len(p.Chips) == 1 {
		return p.Chips[0]
	}
	picked := map[string]bool{}
	syntax.Walk(&syntax.FuncDef{Body: fn.Body}, func(n syntax.Node) bool {
		name := ""
		switch n := n.(type) {
		case *syntax.IndexExpr:
			if sl, ok := n.Index.(*syntax.StringLit); ok {
				name = sl.Value
			}
		case *syntax.AttrExpr:
			if id, ok := n.X.(*syntax.Ident); !ok || id.Name != "self" {
				name = n.Name
			}
		}
		if slices.Contains(p.Chips, name) {
			picked[name] = true
		}
		return true
	})
	if len(picked) == 1 {
		for chip := range picked {
			return chip
		}
	}
	return ""
}

// nestedProgram finds a @pl.program class a factory's body defines.
func nestedProgram(src []byte, body []syntax.Stmt) *syntax.ClassDef {
	var found *syntax.ClassDef
	syntax.Walk(&syntax.FuncDef{Body: body}, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.ClassDef); ok && found == nil && hasDecorator(src, c.Decorators, "pl.program") {
			found = c
		}
		return found == nil
	})
	return found
}

func (c conformCaseSpec) String() string {
	return fmt.Sprintf("%s %s P=%d", c.Test, c.Entry, c.Ranks)
}

func unparen(e syntax.Expr) syntax.Expr {
	for {
		p, ok := e.(*syntax.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// withHelpers is a test's body followed by the bodies of the methods of
// its class it calls as self.name(...), so a test that compiles through
// a helper (self._compile(test_config, device_ids)) names its program and
// its rank count there.
func (d *discoverer) withHelpers(fn *syntax.FuncDef, methods map[string]*syntax.FuncDef) []syntax.Stmt {
	body := append([]syntax.Stmt{}, fn.Body...)
	seen := map[string]bool{}
	syntax.Walk(&syntax.FuncDef{Body: fn.Body}, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		a, ok := c.Fn.(*syntax.AttrExpr)
		if !ok {
			return true
		}
		if id, ok := a.X.(*syntax.Ident); ok && id.Name == "self" && methods[a.Name] != nil && !seen[a.Name] {
			seen[a.Name] = true
			body = append(body, methods[a.Name].Body...)
		}
		return true
	})
	return body
}
