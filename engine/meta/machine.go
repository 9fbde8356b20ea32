package meta

import (
	"sort"
	"strings"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/syntax"
)

// machine is the state of one evaluation (one Load, Eval, Call or
// EvalExpr): the step budget and the call depth. Values it makes outlive it.
type machine struct {
	mod   *Module
	depth int
}

func (m *Module) newMachine() *machine { return &machine{mod: m} }

// frame is one scope being executed: module code, a function call, a class
// body or a comprehension.
type frame struct {
	env *Env // where names are bound
	// closure is the scope a def or lambda made here captures. It is env,
	// except in a class body: methods see the scope the class statement ran
	// in, never the class body itself.
	closure *Env
	decl    *scopeDecl // global/nonlocal declarations of the running function
	module  bool       // module scope: DSL functions made here are listed
	inFunc  bool       // return is allowed
	// handling holds the exceptions whose except blocks are running, for a
	// bare `raise`.
	handling []*Exception
}

// scopeDecl is a function's `global` and `nonlocal` declarations.
type scopeDecl struct {
	global, nonlocal map[string]bool
}

// step charges one unit of the budget for evaluating the node at span.
func (m *machine) step(span diag.Span) *Error { return m.charge(1, span) }

// charge charges n steps, and every stopPoll steps of the work (big copies
// count by their size, so a slow step brings the next look nearer) looks
// at the deadline: a context's Err takes a lock, about 20 ns, so polling
// it at every step would double the cost of a cheap one.
func (m *machine) charge(n int64, span diag.Span) *Error {
	meter := m.mod.meter
	if !meter.Step(n) {
		return m.budgetErr(span)
	}
	if spent := meter.Spent(); spent >= m.mod.nextPoll {
		m.mod.nextPoll = spent + stopPoll
		return m.stopped(span)
	}
	return nil
}

// stopPoll is how many steps run between looks at the deadline: a step is
// 100–300 ns, so the work stops within a millisecond of it.
const stopPoll = 1024

func (m *machine) budgetErr(span diag.Span) *Error {
	return fatalErr(CodeBudget,
		"module code and factories run once at compile time and must finish quickly; look for a loop that never ends (while True without a break, a counter that never reaches its bound)",
		"compile-time evaluation did not finish within %d steps", m.mod.meter.Budget.Steps).at(span)
}

// stopped returns the error that ends the evaluation when the work's
// deadline passed or its caller gave up, else nil.
func (m *machine) stopped(span diag.Span) *Error {
	err := m.mod.meter.Stopped()
	if err == nil {
		return nil
	}
	if limits.IsTimeout(err) {
		return fatalErr(CodeTimeout,
			"module code and factories run once at compile time and must finish quickly; look for a loop that never ends or a bound far larger than meant",
			"compile-time evaluation did not finish within the wall-clock limit of %v", m.mod.meter.Budget.Timeout).at(span)
	}
	return fatalErr(CodeCanceled, "", "compile-time evaluation canceled: the caller gave up").at(span)
}

// chargeLen charges the budget for work proportional to n elements (a
// linear dict lookup, a sort, materializing a range).
func (m *machine) chargeLen(n int, span diag.Span) *Error {
	return m.charge(1+int64(n/16), span)
}

// chargeValue charges a value the evaluator just made: its bytes against
// the memory budget, and its copy against the step budget, one step per
// limits.CopyStepBytes. Scalars and shared values cost nothing here.
func (m *machine) chargeValue(v Value, span diag.Span) *Error {
	n := valueBytes(v)
	if n == 0 {
		return nil
	}
	if !m.mod.meter.Compile(n) {
		return fatalErr(CodeMemory, "compile-time values are kept small; build large data at run time, or keep fewer copies",
			"compile-time values want %s (this %s: %s); the limit is %s",
			limits.Bytes(m.mod.meter.CompileBytes()), v.TypeName(), limits.Bytes(n), limits.Bytes(m.mod.meter.Budget.Memory)).at(span)
	}
	return m.charge(n/limits.CopyStepBytes, span)
}

// valueBytes is what a freshly made value occupies: a string's bytes, 16
// per element of a sequence (an interface header; the elements were charged
// when they were made), 32 per dict entry.
func valueBytes(v Value) int64 {
	switch v := v.(type) {
	case Str:
		return int64(len(v.V))
	case *List:
		return 16 * int64(len(v.Elts))
	case Tuple:
		return 16 * int64(len(v.Elts))
	case *Dict:
		return 32 * int64(len(v.Keys))
	case *Set:
		return 16 * int64(len(v.Elts))
	}
	return 0
}

// text returns the source text of span, whitespace-collapsed to one line,
// for quoting a call in a message.
func (m *machine) text(span diag.Span) string {
	src := m.mod.srcs[span.File]
	if src == nil || span.Start.Offset < 0 || span.End.Offset > len(src) || span.End.Offset <= span.Start.Offset {
		return ""
	}
	s := strings.Join(strings.Fields(string(src[span.Start.Offset:span.End.Offset])), " ")
	s = strings.NewReplacer("( ", "(", " )", ")", "[ ", "[", " ]", "]", ", )", ")").Replace(s)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// declsOf returns def's global/nonlocal declarations, scanning its body once
// (nested defs and classes have their own).
func (m *machine) declsOf(def *syntax.FuncDef) *scopeDecl {
	if d, ok := m.mod.scopes[def]; ok {
		return d
	}
	d := &scopeDecl{global: map[string]bool{}, nonlocal: map[string]bool{}}
	var scan func([]syntax.Stmt)
	scan = func(body []syntax.Stmt) {
		for _, s := range body {
			switch s := s.(type) {
			case *syntax.GlobalStmt:
				for _, n := range s.Names {
					if s.Tok == "nonlocal" {
						d.nonlocal[n] = true
					} else {
						d.global[n] = true
					}
				}
			case *syntax.FuncDef, *syntax.ClassDef:
			default:
				for _, blk := range childBlocks(s) {
					scan(blk)
				}
			}
		}
	}
	scan(def.Body)
	m.mod.scopes[def] = d
	return d
}

// bind assigns name in the frame's scope, honouring global and nonlocal.
func (m *machine) bind(fr *frame, name string, v Value, span diag.Span) *Error {
	if fr.decl != nil {
		if fr.decl.global[name] {
			m.mod.globals.Set(name, v)
			return nil
		}
		if fr.decl.nonlocal[name] {
			for s := fr.env.Parent; s != nil && s != m.mod.globals; s = s.Parent {
				if _, ok := s.Vars[name]; ok {
					s.Set(name, v)
					return nil
				}
			}
			return newErr("NameError", "no binding for nonlocal '%s' found", name).at(span)
		}
	}
	fr.env.Set(name, v)
	if fr.module {
		switch v.(type) {
		case *DSLFunc, *Program:
			m.mod.defined = append(m.mod.defined, v)
		}
	}
	return nil
}

// unbind deletes name (del x).
func (m *machine) unbind(fr *frame, name string, span diag.Span) *Error {
	env := fr.env
	if fr.decl != nil && fr.decl.global[name] {
		env = m.mod.globals
	}
	if _, ok := env.Vars[name]; !ok {
		return newErr("NameError", "name '%s' is not defined", name).at(span)
	}
	delete(env.Vars, name)
	for i, n := range env.Order {
		if n == name {
			env.Order = append(env.Order[:i:i], env.Order[i+1:]...)
			break
		}
	}
	return nil
}

// lookup resolves a name, with a "did you mean" hint when it is unknown.
func (m *machine) lookup(fr *frame, name string, span diag.Span) (Value, *Error) {
	if fr.decl != nil && fr.decl.global[name] {
		if v, ok := m.mod.globals.Lookup(name); ok {
			return v, nil
		}
	} else if v, ok := fr.env.Lookup(name); ok {
		return v, nil
	}
	e := newErr("NameError", "name '%s' is not defined", name).at(span)
	if best := closestName(name, fr.env); best != "" {
		e.Hint = "did you mean '" + best + "'?"
	}
	return nil, e
}

// closestName finds a visible name within edit distance 2 of name.
func closestName(name string, env *Env) string {
	best, bestD := "", 3
	for s := env; s != nil; s = s.Parent {
		for _, n := range s.Order {
			if d := editDistance(strings.ToLower(name), strings.ToLower(n)); d < bestD && n != name {
				best, bestD = n, d
			}
		}
	}
	if bestD > len(name)/2 {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 40 || len(b) > 40 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func sortedKeys(m map[string]Value) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
