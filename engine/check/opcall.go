package check

import (
	"fmt"
	"strings"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
	"pldworkbench/engine/syntax"
)

// opCall is one call of a table operation while it is being checked: its
// arguments bound to the spec's parameters and normalised by kind.
type opCall struct {
	fc    *funcChecker
	spec  *opSpec
	path  string // as written
	e     *syntax.CallExpr
	args  map[string]*operand
	exprs map[string]syntax.Expr
	// lists holds the elements of list parameters (offsets, shapes),
	// shapes the extents of shape parameters.
	lists  map[string][]*operand
	shapes map[string]ir.Shape
	ok     bool
	// Facts the checks establish about the result.
	resBuf   *alloc
	resKnown bool
	resKV    int64
}

// fail marks the call as having an error: it is not emitted and its result
// is invalid.
func (a *opCall) fail() { a.ok = false }

func (a *opCall) given(name string) bool { _, ok := a.args[name]; return ok }

// typeOf returns the type of a run-time argument, or nil.
func (a *opCall) typeOf(name string) ir.Type {
	if o, ok := a.args[name]; ok && o.mode == modeValue {
		return o.t
	}
	return nil
}

func (a *opCall) shapeOf(name string) ir.Shape { return a.shapes[name] }

// span returns where argument name was written, or the call.
func (a *opCall) span(name string) diag.Span {
	if e, ok := a.exprs[name]; ok {
		return e.Span()
	}
	return a.e.Pos
}

// label names a parameter of this call for messages: "pld.system.wait offsets".
func (a *opCall) label(name string) string { return a.path + " " + name }

func (a *opCall) errorf(at string, code Code, hint, format string, args ...any) {
	a.fc.errorf(a.span(at), code, hint, format, args...)
	a.fail()
}

// staticArg returns the compile-time value of argument name, or nil.
func (a *opCall) staticArg(name string) meta.Value {
	if o, ok := a.args[name]; ok && o.mode == modeStatic {
		return o.cv
	}
	return nil
}

// attrInt returns the int attribute name, given or defaulted.
func (a *opCall) attrInt(name string) int64 {
	if v, ok := a.staticArg(name).(meta.Int); ok {
		return v.V
	}
	if p := a.spec.param(name); p != nil {
		if d, ok := p.def.(ir.IntAttr); ok {
			return int64(d)
		}
	}
	return 0
}

// attrEnum returns the member name of enum attribute name, given or defaulted.
func (a *opCall) attrEnum(name string) string {
	if v, ok := a.staticArg(name).(meta.Enum); ok {
		return v.Member
	}
	if p := a.spec.param(name); p != nil {
		if d, ok := p.def.(ir.EnumAttr); ok {
			return d.Member
		}
	}
	return ""
}

// attrStr returns the string attribute name, given or defaulted.
func (a *opCall) attrStr(name string) string {
	if v, ok := a.staticArg(name).(meta.Str); ok {
		return v.V
	}
	if p := a.spec.param(name); p != nil {
		if d, ok := p.def.(ir.StrAttr); ok {
			return string(d)
		}
	}
	return ""
}

// opCall checks and emits one call of a table operation.
func (fc *funcChecker) opCall(spec *opSpec, path string, e *syntax.CallExpr) *operand {
	a := &opCall{fc: fc, spec: spec, path: path, e: e, ok: true,
		args: map[string]*operand{}, exprs: map[string]syntax.Expr{},
		lists: map[string][]*operand{}, shapes: map[string]ir.Shape{}}
	levelOK := spec.kind.LegalAt(fc.level)
	fc.waiterOp(spec.kind, e.Pos, path)
	if !levelOK {
		fc.errorf(e.Fn.Span(), ErrLevel, spec.kind.Info().LevelHint, "%s() is %s, got it in %s",
			path, levelWords(spec.kind.Info().Levels), describeFunc(fc.dsl))
	}
	arityOK := fc.bindArgs(a)
	for i := range spec.params {
		p := &spec.params[i]
		if o, ok := a.args[p.name]; ok && arityOK {
			fc.checkKind(a, p, o)
		}
	}
	if a.ok {
		for i := range spec.params {
			fc.checkListRank(a, &spec.params[i])
		}
	}
	if a.ok && spec.scalarBin != "" {
		if o, done := fc.scalarElementwise(a); done {
			return o
		}
	}
	if a.ok && levelOK && spec.check != nil {
		spec.check(a)
	}
	if !a.ok || !levelOK {
		if spec.result == nil && spec.resultOf == "" {
			return &operand{mode: modeNoValue, expr: e, sp: e.Pos}
		}
		return invalidOp(e)
	}
	op := &ir.Op{Name: spec.name(), Site: irSite(e.Pos)}
	for i := range spec.params {
		p := &spec.params[i]
		o, given := a.args[p.name]
		if p.attr {
			switch {
			case given:
				op.Attrs = append(op.Attrs, ir.Attr{Key: p.name, Value: attrValue(o.cv)})
			case p.def != nil:
				op.Attrs = append(op.Attrs, ir.Attr{Key: p.name, Value: p.def})
			}
			continue
		}
		if p.kind == kForbidden {
			continue
		}
		if !given {
			op.Args = append(op.Args, nil)
			continue
		}
		op.Args = append(op.Args, a.irArg(p, o))
	}
	for len(op.Args) > 0 && op.Args[len(op.Args)-1] == nil {
		op.Args = op.Args[:len(op.Args)-1]
	}
	var rt ir.Type
	switch {
	case spec.resultOf != "":
		rt = a.typeOf(spec.resultOf)
		a.resBuf = a.args[spec.resultOf].buf
	case spec.result != nil:
		rt = spec.result(a)
	default:
		fc.emit(op)
		return &operand{mode: modeNoValue, expr: e, sp: e.Pos}
	}
	res := fc.temp(rt)
	op.Result = res
	fc.emit(op)
	if _, isTile := rt.(*ir.Tile); isTile && (a.given("valid_shape") || fc.anyPartial(op.Args)) {
		fc.partial = append(fc.partial, op)
	}
	return &operand{mode: modeValue, t: res.Type, x: res, slot: &op.Result, expr: e, sp: e.Pos,
		buf: a.resBuf, known: a.resKnown, kv: a.resKV}
}

// bindArgs binds the call's arguments to the spec's parameters, Python
// style: positional ones in order to the parameters that are not
// keyword-only, keyword ones by name. Every argument is checked (so its
// own errors are reported) even when binding fails. It reports false after
// an arity error (too many or missing positional arguments), when the kinds
// of the bound arguments are not worth checking: they are likely shifted.
func (fc *funcChecker) bindArgs(a *opCall) bool {
	arityOK := true
	var positional []*param
	for i := range a.spec.params {
		if !a.spec.params[i].kwOnly {
			positional = append(positional, &a.spec.params[i])
		}
	}
	npos := 0
	for _, arg := range a.e.Args {
		if arg.Star || arg.DoubleStar {
			fc.errorf(arg.Value.Span(), ErrArgCount, "pass each argument by itself", "%s in a call of %s", argLabel(arg), a.path)
			a.fail()
			continue
		}
		o := fc.expr(arg.Value)
		if o.invalid() {
			a.fail()
		}
		var p *param
		if arg.Name == "" {
			if npos < len(positional) {
				p = positional[npos]
			} else {
				fc.errorf(arg.Value.Span(), ErrArgCount, a.signatureHint(),
					"%s takes %s, got %d", a.path, plural(len(positional), "positional argument", "positional arguments"), npos+1)
				a.fail()
				arityOK = false
			}
			npos++
		} else {
			p = a.spec.param(arg.Name)
			switch {
			case p == nil:
				hint := a.signatureHint()
				if near := closest(arg.Name, a.paramNames()); near != "" {
					hint = fmt.Sprintf("did you mean %s=?", near)
				}
				fc.errorf(arg.NamePos, ErrBadKeyword, hint, "%s has no parameter %s", a.path, arg.Name)
				a.fail()
			case a.given(p.name):
				fc.errorf(arg.NamePos, ErrBadKeyword, "", "%s gets %s twice", a.path, p.name)
				a.fail()
				p = nil
			}
		}
		if p == nil {
			continue
		}
		if p.noneOK && o.mode == modeStatic && o.cv == meta.Value(meta.None) {
			continue
		}
		a.args[p.name] = o
		a.exprs[p.name] = arg.Value
	}
	for i := range a.spec.params {
		p := &a.spec.params[i]
		if !p.required || a.given(p.name) {
			continue
		}
		if p.kwOnly {
			fc.errorf(a.e.Rparen, ErrMissingKwOnly, p.hint, "%s needs %s=%s", a.path, p.name, choices(p))
		} else {
			fc.errorf(a.e.Rparen, ErrMissingArg, a.signatureHint(), "%s is missing argument %s", a.path, p.name)
			arityOK = false
		}
		a.fail()
	}
	return arityOK
}

// choices renders the values a keyword-only parameter takes: ": pld.NotifyOp.AtomicAdd or pld.NotifyOp.Set".
func choices(p *param) string {
	if p.kind != kEnum {
		return ""
	}
	ms := enumMembers[p.enum]
	full := make([]string, len(ms))
	for i, m := range ms {
		full[i] = enumNamespace[p.enum] + "." + p.enum + "." + m
	}
	return ": " + orList(full)
}

func orList(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

func (a *opCall) paramNames() []string {
	var out []string
	for _, p := range a.spec.params {
		out = append(out, p.name)
	}
	return out
}

// signatureHint renders the operation's signature.
func (a *opCall) signatureHint() string {
	var parts []string
	star := false
	for _, p := range a.spec.params {
		if p.kind == kForbidden {
			continue
		}
		if p.kwOnly && !star {
			parts = append(parts, "*")
			star = true
		}
		s := p.name
		if !p.required {
			s += "=..."
		}
		parts = append(parts, s)
	}
	return "the signature is " + a.spec.name() + "(" + strings.Join(parts, ", ") + ")"
}

// want describes what a kind accepts.
func (p *param) want() string {
	switch p.kind {
	case kTensor:
		return "a pl.Tensor or pld.DistributedTensor"
	case kDist:
		return "a pld.DistributedTensor"
	case kTile:
		return "a tile"
	case kTensorOrTile:
		return "a tensor or a tile"
	case kCastInput:
		return "a scalar or a tile"
	case kElemwise:
		return "a tile or a scalar"
	case kIntScalar:
		return "an integer scalar"
	case kNumScalar:
		return "a scalar"
	case kIndexList:
		return "a list of indices"
	case kShapeList:
		return "a list of extents"
	case kSizeOrShape:
		return "a byte count or a [shape] list"
	case kPtr:
		return "a window buffer from pld.alloc_window_buffer"
	case kCommCtx:
		return "a comm context from pld.get_comm_ctx"
	case kEnum:
		return "a " + enumNamespace[p.enum] + "." + p.enum + " member"
	case kPyInt:
		return "a compile-time Python int"
	case kPyBool:
		return "True or False"
	case kStr:
		return "a string"
	case kDType:
		return "a pl dtype such as pl.FP32"
	case kStrOrInt:
		return "a string"
	case kArray:
		return "an array from pl.array.create"
	case kArrayValue:
		return "a scalar"
	}
	return "a compile-time value"
}

// checkKind checks one argument against its parameter's kind and records
// normalised lists and shapes.
func (fc *funcChecker) checkKind(a *opCall, p *param, o *operand) {
	if o.invalid() {
		return
	}
	bad := func(code Code, format string, args ...any) {
		a.errorf(p.name, code, p.hint, format, args...)
	}
	wrong := func() { bad(ErrArgKind, "%s is %s, want %s", a.label(p.name), o.describe(), p.want()) }
	if p.name == "signal" && o.mode == modeStatic && o.cv == meta.Value(meta.None) {
		bad(ErrNeedSignal, "%s signal is None; pass the view of an INT32 signal window", a.path)
		return
	}
	switch p.kind {
	case kTensor, kDist, kTile, kTensorOrTile, kCastInput, kElemwise:
		if o.mode == modeStatic && (p.kind == kCastInput || p.kind == kElemwise) {
			if _, _, ok := o.scalar(); ok {
				return
			}
		}
		if o.mode != modeValue {
			wrong()
			return
		}
		switch o.t.(type) {
		case *ir.Tensor:
			switch p.kind {
			case kTensor, kTensorOrTile:
				return
			case kDist:
				bad(ErrNeedDistributed, "%s is %s, want a pld.DistributedTensor", a.label(p.name), describeType(o.t))
				return
			case kCastInput, kElemwise:
				fc.errorf(a.span(p.name), ErrUnsupportedOp, "load a tile with pl.load, compute on it, store it back with pl.store",
					"%s on a whole tensor is not supported by the workbench", a.path)
				a.fail()
				return
			}
		case *ir.DistributedTensor:
			switch p.kind {
			case kTensor, kDist, kTensorOrTile:
				return
			case kCastInput, kElemwise:
				fc.errorf(a.span(p.name), ErrUnsupportedOp, "load a tile with pl.load, compute on it, store it back with pl.store",
					"%s on a whole tensor is not supported by the workbench", a.path)
				a.fail()
				return
			}
		case *ir.Tile:
			if p.kind != kTensor && p.kind != kDist {
				return
			}
		case *ir.Scalar:
			if p.kind == kCastInput || p.kind == kElemwise {
				return
			}
		}
		wrong()
	case kIntScalar, kNumScalar:
		_, dt, ok := o.scalar()
		if !ok || dt == ir.BOOL || (p.kind == kIntScalar && !dt.IsInt()) {
			wrong()
		}
	case kIndexList:
		elems, ok := listElems(o)
		if !ok {
			if _, dt, isScalar := o.scalar(); isScalar && p.flatOK && dt.IsInt() {
				a.lists[p.name] = []*operand{o}
				return
			}
			wrong()
			return
		}
		for i, el := range elems {
			if _, dt, ok := el.scalar(); !ok || !dt.IsInt() {
				bad(ErrArgKind, "%s index %d is %s, want an integer", a.label(p.name), i, el.describe())
				return
			}
		}
		a.lists[p.name] = elems
	case kShapeList, kSizeOrShape:
		elems, ok := listElems(o)
		if !ok {
			if p.kind == kSizeOrShape {
				if _, dt, isScalar := o.scalar(); isScalar && dt.IsInt() {
					return
				}
			}
			wrong()
			return
		}
		shape := make(ir.Shape, len(elems))
		for i, el := range elems {
			switch {
			case el.mode == modeStatic && isDynVar(el.cv) && (p.dynOK || p.kind == kSizeOrShape):
				shape[i] = ir.SymDim(el.cv.(*meta.DynVar).Name)
			case el.dim != nil && (p.dynOK || p.kind == kSizeOrShape):
				// NR % 4: PyPTO keeps the extent as the expression.
				shape[i] = ir.SymDim(meta.Repr(el.dim))
			case el.known:
				if el.kv <= 0 {
					code := ErrShape
					if p.kind == kSizeOrShape {
						code = ErrAllocForm
					}
					bad(code, "%s dimension %d is %d, want > 0", a.label(p.name), i, el.kv)
					return
				}
				shape[i] = ir.ConstDim(el.kv)
			default:
				if _, dt, ok := el.scalar(); ok && dt.IsInt() {
					bad(ErrNeedConst, "%s dimension %d is %s; extents must be compile-time ints", a.label(p.name), i, el.describe())
				} else {
					bad(ErrArgKind, "%s dimension %d is %s, want an int", a.label(p.name), i, el.describe())
				}
				return
			}
		}
		a.lists[p.name] = elems
		a.shapes[p.name] = shape
	case kArray:
		if !arrayArg(o) {
			wrong()
		}
	case kArrayValue:
		if _, _, ok := o.scalar(); !ok {
			wrong()
		}
	case kPtr:
		if o.mode == modeValue {
			if _, ok := o.t.(*ir.Ptr); ok {
				return
			}
		}
		bad(ErrWindowBuf, "%s is %s, want the buffer returned by pld.alloc_window_buffer", a.label(p.name), o.describe())
	case kCommCtx:
		if o.mode == modeValue {
			if _, ok := o.t.(*ir.CommCtx); ok {
				return
			}
		}
		hint := "get the context from a window view: ctx = pld.get_comm_ctx(view)"
		a.errorf(p.name, ErrArgKind, hint, "%s is %s, want a comm context", a.label(p.name), o.describe())
	case kEnum:
		if b, isB := o.cv.(*meta.Builtin); isB && o.mode == modeStatic {
			// pl.AtomicType.Add: the enum is also exported from pl, which
			// the compile-time library does not model as an enum.
			if typ, member, found := cutLast(b.Path); found && strings.HasSuffix(typ, "."+p.enum) {
				o.cv = meta.Enum{Type: typ, Member: member}
			}
		}
		ev, ok := o.cv.(meta.Enum)
		if o.mode != modeStatic || !ok || !strings.HasSuffix(ev.Type, "."+p.enum) && ev.Type != p.enum {
			bad(ErrEnum, "%s=%s is not a %s.%s: want %s", p.name, fc.c.text(o.expr), enumNamespace[p.enum], p.enum, orList(enumMembers[p.enum]))
			return
		}
		for _, m := range enumMembers[p.enum] {
			if m == ev.Member {
				return
			}
		}
		bad(ErrEnum, "%s=%s is not a member the workbench knows: want %s", p.name, fc.c.text(o.expr), orList(enumMembers[p.enum]))
	case kPyInt:
		if _, ok := o.staticInt(); ok {
			return
		}
		if o.mode == modeValue {
			bad(ErrNeedConst, "%s=%s is a run-time %s; it must be a compile-time Python int", p.name, fc.c.text(o.expr), describeType(o.t))
			return
		}
		wrong()
	case kPyBool:
		if _, ok := o.cv.(meta.Bool); o.mode == modeStatic && ok {
			return
		}
		wrong()
	case kStr:
		if _, ok := o.cv.(meta.Str); o.mode == modeStatic && ok {
			return
		}
		if o.mode == modeValue {
			bad(ErrNeedConst, "%s= must be a compile-time string, got %s", p.name, o.describe())
			return
		}
		wrong()
	case kStrOrInt:
		switch o.cv.(type) {
		case meta.Str, meta.Int:
			if o.mode == modeStatic {
				return
			}
		}
		wrong()
	case kDType:
		if dt, ok := dtypeFromValue(o.cv); o.mode == modeStatic && ok {
			if a.fc.c.refuseDType(a.span(p.name), dt, a.spec.kind == ir.OpWindow || a.spec.kind == ir.OpAllocWindowBuffer, p.name+"=") {
				a.fail()
			}
			return
		}
		wrong()
	case kAnyStatic:
		if o.mode != modeStatic {
			bad(ErrNeedConst, "%s= must be a compile-time value, got %s", p.name, o.describe())
		}
	case kForbidden:
		a.errorf(p.name, ErrAllocForm, p.hint, "%s= is not allowed in %s", p.name, a.path)
	}
}

// cutLast splits a dotted path at its last dot.
func cutLast(path string) (string, string, bool) {
	i := strings.LastIndex(path, ".")
	if i < 0 {
		return "", "", false
	}
	return path[:i], path[i+1:], true
}

func isDynVar(v meta.Value) bool { _, ok := v.(*meta.DynVar); return ok }

// listElems returns the elements of a list display or a compile-time list
// or tuple.
func listElems(o *operand) ([]*operand, bool) {
	switch o.mode {
	case modeList:
		return o.elems, true
	case modeStatic:
		var vs []meta.Value
		switch v := o.cv.(type) {
		case *meta.List:
			vs = v.Elts
		case meta.Tuple:
			vs = v.Elts
		default:
			return nil, false
		}
		out := make([]*operand, len(vs))
		for i, v := range vs {
			out[i] = staticOp(v, o.expr)
		}
		return out, true
	}
	return nil, false
}

// checkListRank checks that a list parameter has one entry per dimension of
// the tensor it indexes.
func (fc *funcChecker) checkListRank(a *opCall, p *param) {
	if p.rankOf == "" || !a.given(p.name) {
		return
	}
	elems, ok := a.lists[p.name]
	if !ok {
		return
	}
	t := a.typeOf(p.rankOf)
	shape, _, ok := ir.ShapeOf(t)
	if !ok {
		return
	}
	if p.flatOK && len(elems) == 1 && a.args[p.name].mode != modeList {
		return // a single flat index
	}
	if len(elems) != len(shape) {
		a.errorf(p.name, ErrIndexCount, "",
			"%s has %s, want %d (one per dimension of %s %s)", a.label(p.name),
			plural(len(elems), "index", "indices"), len(shape), p.rankOf, shape)
	}
}

// irArg converts a checked argument to its IR operand.
func (a *opCall) irArg(p *param, o *operand) ir.Operand {
	if elems, ok := a.lists[p.name]; ok && (o.mode == modeList || o.mode == modeStatic) {
		l := &ir.ListOp{}
		shape := a.shapes[p.name]
		for i, el := range elems {
			if shape != nil && !shape[i].IsStatic() {
				l.Elems = append(l.Elems, &ir.SymRef{Name: shape[i].Sym})
				continue
			}
			x, _, _ := el.scalar()
			l.Elems = append(l.Elems, x)
		}
		return l
	}
	x, _, ok := o.scalar()
	if o.mode == modeValue {
		return o.x
	}
	if ok {
		return x
	}
	return nil
}

// attrValue converts a compile-time argument to an IR attribute.
func attrValue(v meta.Value) ir.AttrValue {
	switch v := v.(type) {
	case meta.Int:
		return ir.IntAttr(v.V)
	case meta.Bool:
		return ir.BoolAttr(v.V)
	case meta.Str:
		return ir.StrAttr(v.V)
	case meta.Enum:
		name := v.Type
		if i := strings.LastIndex(name, "."); i >= 0 {
			name = name[i+1:]
		}
		return enumAttr(name, v.Member)
	case meta.DType:
		d, _ := ir.DTypeByName(v.Name)
		return ir.DTypeAttr(d)
	case meta.NoneType:
		return ir.NoneAttr{}
	}
	return ir.StrAttr(meta.Repr(v))
}
