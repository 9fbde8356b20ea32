package check

import (
	"strings"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
)

// PyPTO's parser maps a Python name to one IR variable, so an assignment
// that gives a bound name a value of another type ("Cannot reassign 'x'
// with a different type") is refused wherever it stands: at the top of a
// @pl.program method as much as in a loop. A @pl.jit function is
// rewritten before it is parsed: its specializer renames a rebinding that
// stands at the scope depth of the name's first assignment (x becomes x_v1),
// so there a new type is a new variable, as in Python. It renames nothing
// else: not a rebinding in an if or loop of a name bound outside it (E0408
// here), nor of a name first bound inside an if or loop that has ended, nor
// of a pl.range loop variable, which it never counts as assigned. Measured
// with PyPTO at MirrorCommit on tiles of another shape or dtype, a tensor
// parameter rebound to a tile or a scalar, INT32 and INDEX scalars, a
// pl.Out tensor rebound to a window, and host views rebound to a
// dispatch's result.

// reassigned reports E0249 when assigning a value of type t to name is a
// rebinding PyPTO refuses, and says whether it did.
func (fc *funcChecker) reassigned(name string, t ir.Type, sp diag.Span) bool {
	old, ok := fc.scope.vars[name]
	if !ok || old.v == nil || ir.Identical(old.v.Type, t) {
		return false
	}
	if _, inv := old.v.Type.(*ir.Invalid); inv {
		return false
	}
	if _, inv := t.(*ir.Invalid); inv {
		return false
	}
	if old.depth < fc.depth && !old.maybe {
		return false // bindName's E0408: the type changes inside this branch or loop
	}
	jit := fc.jitForm()
	if jit && !old.loopVar && old.suite == fc.suiteID {
		return false // the specializer renames it: a new variable
	}
	var where string
	switch {
	case old.loopVar:
		where = "it is a pl.range loop variable, " + describeType(old.v.Type)
	case jit:
		where = "it was bound inside an if or loop above, to " + describeType(old.v.Type) +
			", and @pl.jit gives a name a new variable only where it was first assigned"
	default:
		where = "it is " + describeType(old.v.Type) + ", and a @pl.program method keeps one variable, of one type, per name"
	}
	fc.errorf(sp, ErrReassign, "", "cannot rebind %s to %s: %s", name, describeType(t), where)
	return true
}

// jitForm says the function is a @pl.jit form, whose body PyPTO's jit
// specializer rewrites before parsing; a @pl.program method (or a plain
// @pl.function) is parsed as written.
func (fc *funcChecker) jitForm() bool {
	if fc.dsl == nil || fc.dsl.Program != nil || fc.dsl.Decorator == nil {
		return false
	}
	return strings.Contains(fc.c.text(fc.dsl.Decorator.X), "jit")
}
