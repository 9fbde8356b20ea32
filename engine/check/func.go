package check

import (
	"fmt"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// funcChecker checks one DSL function body and emits its IR.
type funcChecker struct {
	c     *checker
	info  *funcInfo
	dsl   *meta.DSLFunc
	level ir.Level

	scope  *scope
	block  *ir.Block
	depth  int         // nesting depth of if/for suites
	suites []string    // "branch" or "loop" for each enclosing suite
	loops  []*loopInfo // enclosing run-time loops, innermost last
	// suiteID numbers the suite being checked (0: the function's body) and
	// nSuites counts those entered: a @pl.jit rebinding is renamed only in
	// the suite of the name's first binding (reassign.go).
	suiteID, nSuites int

	// allocTarget is set while the right-hand side of `name = call(...)` is
	// checked: pld.alloc_window_buffer is legal only there.
	allocTarget *allocTarget

	varNames map[string]int       // DSL names given to ir.Vars, for suffixes
	byName   map[string][]*ir.Var // the Vars made for each DSL name
	// partial lists the ops whose tile result has a valid_shape (a load
	// that may overhang its source) or is computed from one; op.Result
	// is read when asked, after assignment has named it.
	partial []*ir.Op
	// synth maps the calls the checker wrote itself (a tensor operand's
	// whole-tensor pl.load) to the operation they are.
	synth map[*syntax.CallExpr]string

	// Tasks (tasks.go): manual is set inside a pl.manual_scope, task in
	// the checker of an outlined task kernel, drainAtReturn once a
	// deferred waiter was submitted outside a manual scope.
	manual        bool
	task          *taskKernel
	drainAtReturn bool

	// looseDevices are the host's dispatches whose device= is neither a
	// constant nor a pl.range variable with known bounds, firstAlloc its
	// first pld.alloc_window_buffer: PyPTO refuses the two together
	// (checkLooseDevices, domains.go).
	looseDevices []looseDevice
	// carryNext tells forStmt that the loop it checks is the plain form of
	// a carried loop (carriedLoop).
	carryNext  bool
	firstAlloc *alloc

	returned bool // a top-level return has been checked
	retSeen  bool // some return statement produced fn.Result (for inference)
}

// scope maps each DSL name to its current binding. Branches and loop bodies
// work on a copy that is joined back afterwards.
type scope struct {
	vars map[string]binding
}

// binding is what a DSL name holds at a program point.
type binding struct {
	v     *ir.Var
	maybe bool // unbound on some path to here (set only inside an if or loop)
	depth int  // nesting depth where v was bound to the name
	suite int  // the suite where v was bound to the name (funcChecker.suiteID)
	// loopVar marks a pl.range loop variable, which PyPTO's jit renamer
	// never counts as an assignment.
	loopVar bool
	// changed marks a binding whose type change inside a branch or loop was
	// already reported, so the join stays silent.
	changed bool
	// known is the value the checker can prove the name holds here (a
	// constant assignment, pld.world_size() = P, arithmetic on those).
	known    bool
	kv       int64
	loop     *loopInfo // set when the name is a pl.range loop variable
	buf      *alloc    // window buffer behind a Ptr or a view (host)
	reported bool      // an ErrMaybeUndefined was already reported
	// rebound is set on an invalid binding whose cause has not been
	// reported yet: a loop rebound the name to a value of another type. The
	// error belongs at the first later use (where PyPTO reports it), and
	// until then nothing has been said, so the use must not stay silent.
	rebound *rebinding
}

// rebinding says how a loop changed what a name holds.
type rebinding struct {
	was, now ir.Type
	loopVar  bool // the name is the loop's own variable
	// jitWhile marks a name a @pl.jit while loop rebound, which PyPTO's
	// renamer turned into a name defined only inside the loop (loops.go);
	// was and now are not set.
	jitWhile bool
	at       diag.Span // the loop variable, or the loop's for
}

func (s *scope) clone() *scope {
	n := &scope{vars: make(map[string]binding, len(s.vars))}
	for k, v := range s.vars {
		n.vars[k] = v
	}
	return n
}

// loopInfo describes an enclosing pl.range loop.
type loopInfo struct {
	// kind is the loop's form: "range", "unroll", "parallel" (the pl.*
	// iterator's name) or "while"; break and continue depend on it.
	kind              string
	carried           bool // a pl.range(..., init_values=...) loop (carried.go)
	v                 *ir.Var
	known             bool // start, stop, step are known
	broken            bool // the pl.range call had an error
	start, stop, step int64
	span              diag.Span
	countChecked      bool // the device range of its dispatches considered (call.go)
}

// trip returns the loop's iteration count when known.
func (l *loopInfo) trip() int64 {
	if !l.known {
		return -1
	}
	switch {
	case l.step > 0 && l.start < l.stop:
		return (l.stop - l.start + l.step - 1) / l.step
	case l.step < 0 && l.start > l.stop:
		return (l.start - l.stop - l.step - 1) / -l.step
	}
	return 0
}

// last returns the last value the loop variable takes (trip() > 0).
func (l *loopInfo) last() int64 { return l.start + (l.trip()-1)*l.step }

func newFuncChecker(c *checker, fi *funcInfo) *funcChecker {
	fc := &funcChecker{
		c:        c,
		info:     fi,
		dsl:      fi.dsl,
		level:    fi.level,
		scope:    &scope{vars: map[string]binding{}},
		block:    fi.fn.Body,
		varNames: map[string]int{},
		byName:   map[string][]*ir.Var{},
	}
	for _, p := range fi.fn.Params {
		fc.varNames[p.Var.Name]++
		fc.byName[p.Var.Name] = append(fc.byName[p.Var.Name], p.Var)
		fc.scope.vars[p.Var.Name] = binding{v: p.Var}
	}
	return fc
}

func (fc *funcChecker) errorf(sp diag.Span, code Code, hint, format string, args ...any) {
	fc.c.errorf(sp, code, hint, format, args...)
}

func (fc *funcChecker) emit(s ir.Stmt) { fc.block.Add(s) }

// temp returns a new compiler temporary of type t; it is named %N when the
// function is finished, so temps renamed into DSL names leave no gaps.
func (fc *funcChecker) temp(t ir.Type) *ir.Var {
	return &ir.Var{Type: t, Temp: true}
}

// newVar returns the ir.Var for the DSL name at type t: the one already
// made for that name and type (a Python name is one variable, whichever
// branch or loop assigns it), or a fresh one, suffixed if the name already
// names a Var of another type.
func (fc *funcChecker) newVar(name string, t ir.Type) *ir.Var {
	for _, v := range fc.byName[name] {
		if ir.Identical(v.Type, t) {
			return v
		}
	}
	n := fc.varNames[name]
	fc.varNames[name]++
	full := name
	if n > 0 {
		full = fmt.Sprintf("%s.%d", name, n)
	}
	v := &ir.Var{Name: full, Type: t}
	fc.byName[name] = append(fc.byName[name], v)
	return v
}

// finish names temporaries in order of definition and infers the result
// type of an unannotated function that never returned a value.
func (fc *funcChecker) finish() {
	n := 0
	var walk func(b *ir.Block)
	name := func(v *ir.Var) {
		if v != nil && v.Temp && v.Name == "" {
			v.Name = fmt.Sprintf("%%%d", n)
			n++
		}
	}
	walk = func(b *ir.Block) {
		for _, s := range b.Stmts {
			switch s := s.(type) {
			case *ir.Op:
				name(s.Result)
			case *ir.Bin:
				name(s.Result)
			case *ir.Unary:
				name(s.Result)
			case *ir.Index:
				name(s.Result)
			case *ir.Call:
				name(s.Result)
				name(s.Task)
			case *ir.Assign:
				name(s.Dst)
			case *ir.For:
				walk(s.Body)
			case *ir.While:
				walk(s.Body)
			case *ir.If:
				walk(s.Then)
				if s.Else != nil {
					walk(s.Else)
				}
			}
		}
	}
	walk(fc.info.fn.Body)
}

// lookupLocal returns the binding of a DSL local, reporting a name that may
// be unbound on some path.
func (fc *funcChecker) lookupLocal(name string, sp diag.Span) (binding, bool) {
	b, ok := fc.scope.vars[name]
	if !ok {
		return b, false
	}
	if b.rebound != nil {
		fc.reportRebound(name, sp, b.rebound)
		b.rebound = nil // reported once; later uses stay quiet
		fc.scope.vars[name] = b
		return b, true
	}
	if b.maybe && !b.reported {
		fc.errorf(sp, ErrMaybeUndefined, "",
			"%s may be undefined here: it is assigned only inside an if or a loop", name)
		b.reported = true
		b.maybe = false
		fc.scope.vars[name] = b
	}
	return b, true
}

// reportRebound reports the use of a name a loop rebound to another type.
func (fc *funcChecker) reportRebound(name string, sp diag.Span, r *rebinding) {
	line := r.at.Start.Line
	if r.jitWhile {
		fc.errorf(sp, ErrJitWhile,
			"carry the value with for (i, x) in pl.while_(init_values=(...)) and pl.yield_, or write the function as a @pl.program method, whose parser carries a while loop's names",
			"%s is read after the while loop of line %d that rebinds it: PyPTO's @pl.jit renamer made that rebinding a new name defined only inside the loop", name, line)
		return
	}
	if r.loopVar {
		fc.errorf(sp, ErrTypeChange,
			fmt.Sprintf("a for loop rebinds its variable, as in Python: rename the loop variable of line %d (for i in pl.range(...))", line),
			"%s is the %s loop variable of line %d here, no longer the %s it was before that loop",
			name, describeType(r.now), line, describeType(r.was))
		return
	}
	fc.errorf(sp, ErrTypeChange, "give the value of the other type its own name",
		"%s was %s before the loop of line %d and %s inside it: after the loop its type is unknown",
		name, describeType(r.was), line, describeType(r.now))
}

// bindName makes name refer to a variable of type t and returns it: the
// current Var when its type is identical (the DSL rebinds names in place),
// otherwise a new one. A type change of a name bound outside the current
// branch or loop is an error.
func (fc *funcChecker) bindName(name string, t ir.Type, sp diag.Span) (*ir.Var, binding) {
	old, ok := fc.scope.vars[name]
	if ok && old.v != nil && ir.Identical(old.v.Type, t) {
		nb := old
		nb.maybe, nb.known, nb.loop, nb.buf = false, false, nil, nil
		return old.v, nb
	}
	nb := binding{depth: fc.depth, suite: fc.suiteID}
	if _, invalid := t.(*ir.Invalid); invalid {
		nb.v = &ir.Var{Name: name, Type: t}
		nb.changed = true
		return nb.v, nb
	}
	if ok && old.v != nil && old.depth < fc.depth && !old.maybe {
		if _, wasInvalid := old.v.Type.(*ir.Invalid); !wasInvalid {
			fc.errorf(sp, ErrTypeChange, "",
				"%s was %s before this %s, now %s", name, describeType(old.v.Type), fc.suiteKind(), describeType(t))
			nb.changed = true
		}
	}
	nb.v = fc.newVar(name, t)
	return nb.v, nb
}

// suiteKind names the innermost suite for messages.
func (fc *funcChecker) suiteKind() string {
	if len(fc.suites) == 0 {
		return "branch"
	}
	return fc.suites[len(fc.suites)-1]
}

// join merges the scopes at the end of an if: a name bound on one side only
// may be unbound after it; a name bound to different variables (its type
// changed) is invalid after it.
func (fc *funcChecker) join(a, b *scope, sp diag.Span) *scope {
	out := &scope{vars: map[string]binding{}}
	for name, x := range a.vars {
		y, ok := b.vars[name]
		if !ok {
			x.maybe = true
			x.known = false
			out.vars[name] = x
			continue
		}
		out.vars[name] = fc.merge(name, x, y, sp)
	}
	for name, y := range b.vars {
		if _, ok := a.vars[name]; !ok {
			y.maybe = true
			y.known = false
			out.vars[name] = y
		}
	}
	return out
}

func (fc *funcChecker) merge(name string, x, y binding, sp diag.Span) binding {
	if x.v == y.v {
		m := x
		if x.rebound == nil || y.rebound == nil {
			m.rebound = nil // reported on one path already
		}
		m.maybe = x.maybe || y.maybe
		m.reported = x.reported && y.reported
		m.known = x.known && y.known && x.kv == y.kv
		if x.loop != y.loop {
			m.loop = nil
		}
		if x.buf != y.buf {
			m.buf = nil
		}
		if y.depth < m.depth {
			m.depth = y.depth
		}
		return m
	}
	inv := binding{v: &ir.Var{Name: name, Type: &ir.Invalid{}}, depth: fc.depth, changed: true}
	if x.rebound != nil {
		inv.rebound = x.rebound
	} else if y.rebound != nil {
		inv.rebound = y.rebound
	}
	_, xi := x.v.Type.(*ir.Invalid)
	_, yi := y.v.Type.(*ir.Invalid)
	if !x.changed && !y.changed && !xi && !yi {
		fc.errorf(sp, ErrTypeChange, "",
			"%s is %s on one path and %s on the other", name, describeType(x.v.Type), describeType(y.v.Type))
	}
	return inv
}

// loopScope is the scope a loop's body starts from: the current one with
// what was known about each name the body assigns (and the loop's own
// names, also) forgotten, as a later iteration sees it reassigned.
func (fc *funcChecker) loopScope(body []syntax.Stmt, also ...string) *scope {
	assigned := map[string]bool{}
	for _, n := range also {
		assigned[n] = true
	}
	assignedNames(body, assigned)
	pre := fc.scope.clone()
	for n := range assigned {
		if b, ok := pre.vars[n]; ok {
			b.known = false
			pre.vars[n] = b
		}
	}
	return pre
}

// assignedNames lists the names a suite assigns (targets of assignments and
// for loops, at any depth), to forget what was known about them before a
// loop that may reassign them.
func assignedNames(body []syntax.Stmt, out map[string]bool) {
	for _, s := range body {
		switch s := s.(type) {
		case *syntax.AssignStmt:
			for _, t := range s.Targets {
				if id, ok := t.(*syntax.Ident); ok {
					out[id.Name] = true
				}
			}
		case *syntax.AugAssignStmt:
			if id, ok := s.Target.(*syntax.Ident); ok {
				out[id.Name] = true
			}
		case *syntax.ForStmt:
			if id, ok := s.Target.(*syntax.Ident); ok {
				out[id.Name] = true
			}
			assignedNames(s.Body, out)
		case *syntax.WhileStmt:
			assignedNames(s.Body, out)
		case *syntax.IfStmt:
			assignedNames(s.Body, out)
			assignedNames(s.Else, out)
		}
	}
}

// inLoop reports whether the current statement is inside a run-time loop.
func (fc *funcChecker) inLoop() bool { return len(fc.loops) > 0 }
