package check

import (
	"strings"

	"pldworkbench/engine/ir"
)

// This file is the checker's operation table: for every pl/pld operation
// the workbench checks, its kind (ir.OpKind: the IR's one table of names,
// spellings, categories and levels), its parameters (positional or
// keyword-only, their kinds, which are compile-time attributes, defaults),
// its result type and the extra rules of the spec. The same table drives
// the checking and the IR emission (opcall.go); LegalAt exports the kinds'
// level column for ir.VerifyWith.

// argKind is what a parameter accepts.
type argKind int

const (
	kTensor       argKind = iota // pl.Tensor or pld.DistributedTensor (local access)
	kDist                        // pld.DistributedTensor only
	kTile                        // a tile
	kTensorOrTile                // pl.read / pl.write
	kCastInput                   // scalar or tile
	kElemwise                    // tile, scalar or number (pl.add and friends)
	kIntScalar                   // integer scalar: run-time or an int constant
	kNumScalar                   // int or float scalar
	kIndexList                   // list of integer indices (offsets)
	kShapeList                   // list of compile-time positive extents
	kSizeOrShape                 // alloc_window_buffer: a byte count or a shape list
	kPtr                         // a window buffer
	kCommCtx                     // a comm context
	kEnum                        // a member of enum
	kPyInt                       // a compile-time Python int
	kPyBool                      // a compile-time Python bool
	kStr                         // a compile-time string
	kDType                       // a pl dtype
	kStrOrInt                    // a compile-time string or int (cast mode)
	kAnyStatic                   // any compile-time value, recorded as given
	kForbidden                   // must not be passed
	kArray                       // a pl.array
	kArrayValue                  // an element for a pl.array: an integer or BOOL scalar (the dtype rule is the op's)
)

// param is one parameter of an operation.
type param struct {
	name     string
	kind     argKind
	enum     string // kEnum: the enum's type name without namespace: "NotifyOp"
	kwOnly   bool   // keyword-only (after * in the Python signature)
	required bool   // no default
	attr     bool   // a compile-time attribute: goes to ir.Op.Attrs
	// def is the default an attribute takes in the IR when it is not
	// passed; nil leaves it out.
	def ir.AttrValue
	// rankOf names the tensor parameter whose rank a list must match.
	rankOf string
	// flatOK admits a single index instead of a list (pl.read/pl.write).
	flatOK bool
	// dynOK admits pl.dynamic dimensions in a shape list (pld.window).
	dynOK bool
	// noneOK treats an explicit None as "not given".
	noneOK bool
	hint   string // overrides the code's hint for kind errors of this parameter
}

// opSpec is what the checker knows of one operation beyond its identity:
// the kind's row in the IR's operation table (ir.OpInfo) holds its
// canonical name, its other spellings, its category and its levels.
type opSpec struct {
	kind   ir.OpKind
	params []param
	// result returns the result type; nil (with resultOf empty) means the
	// operation has no value.
	result func(a *opCall) ir.Type
	// resultOf names the parameter the operation returns, rebound: pl.store
	// returns its output tensor and a collective its target, so the result
	// has that argument's type and window buffer.
	resultOf string
	// check applies the rules beyond the parameter kinds; it runs only when
	// every argument was valid.
	check func(a *opCall)
	// scalarBin, for pl.add and friends, is the scalar operator used when
	// both operands are scalars.
	scalarBin string
}

// enumMembers lists the members each enum type accepts, in value order.
var enumMembers = map[string][]string{
	"NotifyOp":   {"AtomicAdd", "Set"},
	"WaitCmp":    {"Eq", "Ge"},
	"AtomicType": {"None_", "Add"},
	"ReduceOp":   {"Sum", "Max", "Min", "Prod"},
}

// enumNamespace is where the DSL spells each enum.
var enumNamespace = map[string]string{
	"NotifyOp": "pld", "WaitCmp": "pld", "AtomicType": "pld", "ReduceOp": "pld",
}

func enumAttr(typ, member string) ir.EnumAttr {
	for i, m := range enumMembers[typ] {
		if m == member {
			return ir.EnumAttr{Type: enumNamespace[typ] + "." + typ, Member: member, V: i}
		}
	}
	return ir.EnumAttr{Type: typ, Member: member}
}

// Shared parameter lists.
func putGetParams(dst, src argKind, withAtomic bool) []param {
	ps := []param{
		{name: "dst", kind: dst, required: true},
		{name: "peer", kind: kIntScalar, required: true},
		{name: "src", kind: src, required: true},
		{name: "dst_offsets", kind: kIndexList, rankOf: "dst", noneOK: true},
		{name: "src_offsets", kind: kIndexList, rankOf: "src", noneOK: true},
		{name: "shape", kind: kShapeList, rankOf: "dst", noneOK: true},
	}
	if withAtomic {
		ps = append(ps, param{name: "atomic", kind: kEnum, enum: "AtomicType", kwOnly: true, attr: true, def: enumAttr("AtomicType", "None_")})
	}
	return append(ps,
		param{name: "chunk_rows", kind: kPyInt, kwOnly: true, attr: true, def: ir.IntAttr(0)},
		param{name: "chunk_cols", kind: kPyInt, kwOnly: true, attr: true, def: ir.IntAttr(0)},
		param{name: "pipeline", kind: kPyBool, kwOnly: true, attr: true, def: ir.BoolAttr(false)},
	)
}

// waitParams is the signature wait and defer_wait share; only the hint
// on cmp, which has no default, differs.
func waitParams(cmpHint string) []param {
	return []param{
		{name: "signal", kind: kDist, required: true},
		{name: "offsets", kind: kIndexList, rankOf: "signal", required: true},
		{name: "expected", kind: kIntScalar, required: true},
		{name: "cmp", kind: kEnum, enum: "WaitCmp", kwOnly: true, attr: true, required: true, hint: cmpHint},
	}
}

// gatherLike is allgather(local_data, target, signal) and
// all_to_all(input, target, signal); checkGatherLike tells them apart by
// kind.
func gatherLike(kind ir.OpKind, src string) *opSpec {
	return &opSpec{kind: kind,
		params: []param{
			{name: src, kind: kTensor, required: true},
			{name: "target", kind: kDist, required: true},
			{name: "signal", kind: kDist, required: true},
		},
		resultOf: "target", check: checkGatherLike}
}

func elementwise(kind ir.OpKind, bin string) *opSpec {
	return &opSpec{kind: kind, scalarBin: bin,
		params: []param{{name: "lhs", kind: kElemwise, required: true}, {name: "rhs", kind: kElemwise, required: true}},
		result: elementwiseResult, check: checkElementwise}
}

// scalarMinMax is pl.min or pl.max: the smaller or larger of two scalars
// (upstream's tile reductions are row_min/col_min; the element-wise tile
// form is pl.minimum/pl.maximum).
func scalarMinMax(kind ir.OpKind, bin, tileForm string) *opSpec {
	return &opSpec{kind: kind, scalarBin: bin,
		params: []param{{name: "lhs", kind: kElemwise, required: true}, {name: "rhs", kind: kElemwise, required: true}},
		result: elementwiseResult,
		check: func(a *opCall) {
			a.errorf("lhs", ErrArgKind, "for tiles write "+tileForm+"(a, b), element by element",
				"%s takes two scalars, got %s", a.path, a.args["lhs"].describe())
		}}
}

// opTable is every operation the workbench checks, runs and lowers.
var opTable = []*opSpec{
	// pl: local data movement and compute (pld-spec §3).
	{kind: ir.OpLoad,
		params: []param{
			{name: "tensor", kind: kTensor, required: true},
			{name: "offsets", kind: kIndexList, rankOf: "tensor", required: true},
			{name: "shapes", kind: kShapeList, rankOf: "tensor", required: true},
			{name: "valid_shape", kind: kIndexList, rankOf: "tensor", noneOK: true},
			{name: "target_memory", kind: kAnyStatic, attr: true},
			{name: "clamp", kind: kPyBool, attr: true},
		},
		result: loadResult, check: checkLoad},
	{kind: ir.OpStore,
		params: []param{
			{name: "tile", kind: kTile, required: true, hint: "pl.store writes a tile; make one with pl.load(x, offsets, shape)"},
			{name: "offsets", kind: kIndexList, rankOf: "output_tensor", required: true},
			{name: "output_tensor", kind: kTensor, required: true},
			{name: "shapes", kind: kShapeList, rankOf: "output_tensor", noneOK: true},
			{name: "atomic", kind: kEnum, enum: "AtomicType", kwOnly: true, attr: true, def: enumAttr("AtomicType", "None_")},
		},
		resultOf: "output_tensor", check: checkStore},
	{kind: ir.OpRead,
		params: []param{
			{name: "src", kind: kTensorOrTile, required: true},
			{name: "offset", kind: kIndexList, rankOf: "src", flatOK: true, required: true},
		},
		result: func(a *opCall) ir.Type { _, d, _ := ir.ShapeOf(a.typeOf("src")); return &ir.Scalar{DType: d} }},
	{kind: ir.OpWrite,
		params: []param{
			{name: "dst", kind: kTensorOrTile, required: true},
			{name: "offset", kind: kIndexList, rankOf: "dst", flatOK: true, required: true},
			{name: "value", kind: kNumScalar, required: true},
		},
		check: checkWrite},
	// pl.const(value, dtype) is a constant of an explicit dtype: the
	// cast of a number, so one rule covers both.
	{kind: ir.OpCast,
		params: []param{
			{name: "input", kind: kCastInput, required: true},
			{name: "target_type", kind: kDType, attr: true, required: true},
			{name: "mode", kind: kStrOrInt, attr: true},
		},
		result: castResult, check: checkCast},
	elementwise(ir.OpAdd, "+"),
	elementwise(ir.OpSub, "-"),
	elementwise(ir.OpMul, "*"),
	elementwise(ir.OpMaximum, ""),
	elementwise(ir.OpMinimum, ""),
	scalarMinMax(ir.OpMin, "min", "pl.minimum"),
	scalarMinMax(ir.OpMax, "max", "pl.maximum"),
	{kind: ir.OpFull,
		params: []param{
			{name: "shape", kind: kShapeList, required: true},
			{name: "dtype", kind: kDType, attr: true, required: true},
			{name: "value", kind: kNumScalar, required: true},
		},
		result: fullResult, check: checkFull},
	{kind: ir.OpMove,
		params: []param{
			{name: "tile", kind: kTile, required: true},
			{name: "target_memory", kind: kAnyStatic, attr: true, required: true},
			{name: "blayout", kind: kAnyStatic, attr: true, noneOK: true},
			{name: "slayout", kind: kAnyStatic, attr: true, noneOK: true},
		},
		result: moveResult},
	{kind: ir.OpCreateTensor,
		params: []param{
			{name: "shape", kind: kShapeList, required: true},
			{name: "dtype", kind: kDType, attr: true, required: true},
			{name: "layout", kind: kAnyStatic, attr: true, noneOK: true},
			{name: "manual_dep", kind: kPyBool, attr: true},
			{name: "init_value", kind: kAnyStatic, attr: true, noneOK: true},
		},
		result: createTensorResult, check: checkCreateTensor},
	{kind: ir.OpMatmul,
		params: []param{{name: "lhs", kind: kTile, required: true}, {name: "rhs", kind: kTile, required: true}},
		result: matmulResult, check: checkMatmul},
	arrayCreateSpec, arrayGetSpec, arrayUpdateSpec, tileCreateSpec, rowSumSpec, reshapeSpec, // arrayops.go

	// pld system ops (pld-spec §4.3).
	{kind: ir.OpWorldSize,
		result: func(*opCall) ir.Type { return &ir.Scalar{DType: ir.INT64} },
		// The program is instantiated at P ranks, so the world size is known.
		check: func(a *opCall) { a.resKnown, a.resKV = true, int64(a.fc.c.opts.Ranks) }},
	{kind: ir.OpGetCommCtx,
		params: []param{{name: "dist_tensor", kind: kDist, required: true}},
		result: func(*opCall) ir.Type { return &ir.CommCtx{} }},
	{kind: ir.OpRank,
		params: []param{{name: "ctx", kind: kCommCtx, required: true}},
		result: func(*opCall) ir.Type { return &ir.Scalar{DType: ir.INT32} }},
	{kind: ir.OpNRanks,
		params: []param{{name: "ctx", kind: kCommCtx, required: true}},
		result: func(*opCall) ir.Type { return &ir.Scalar{DType: ir.INT32} }},
	{kind: ir.OpNotify,
		params: []param{
			{name: "target", kind: kDist, required: true},
			{name: "peer", kind: kIntScalar, required: true},
			{name: "offsets", kind: kIndexList, rankOf: "target", required: true},
			{name: "value", kind: kIntScalar, required: true},
			{name: "op", kind: kEnum, enum: "NotifyOp", kwOnly: true, attr: true, required: true,
				hint: "op has no default: AtomicAdd adds value to the peer's cell (cells several ranks bump), Set overwrites it"},
		},
		check: checkSignalOffsets("target")},
	{kind: ir.OpWait,
		params: waitParams("cmp has no default: Ge waits until the cell reaches expected (counters), Eq until it equals it"),
		check:  checkSignalOffsets("signal")},
	{kind: ir.OpDeferWait,
		params: waitParams("cmp has no default: a deferred wait completes when the cell reaches expected, cmp=pld.WaitCmp.Ge"),
		check:  checkDeferWait},

	// Windows (pld-spec §4.4).
	{kind: ir.OpAllocWindowBuffer,
		params: []param{
			{name: "size", kind: kSizeOrShape, required: true},
			{name: "dtype", kind: kDType, kwOnly: true, attr: true},
			{name: "name", kind: kForbidden, kwOnly: true,
				hint: "the buffer takes the name of the variable it is assigned to"},
		},
		result: func(a *opCall) ir.Type { return a.allocType() }, check: checkAlloc},
	{kind: ir.OpWindow,
		params: []param{
			{name: "buf", kind: kPtr, required: true},
			{name: "shape", kind: kShapeList, dynOK: true, required: true},
			{name: "dtype", kind: kDType, kwOnly: true, attr: true, required: true},
		},
		result: windowResult, check: checkWindow},

	// Remote access (pld-spec §4.5, §4.6).
	{kind: ir.OpRemoteLoad,
		params: []param{
			{name: "target", kind: kDist, required: true},
			{name: "peer", kind: kIntScalar, required: true},
			{name: "offsets", kind: kIndexList, rankOf: "target", required: true},
			{name: "shape", kind: kShapeList, rankOf: "target", required: true},
			{name: "valid_shape", kind: kIndexList, rankOf: "target", noneOK: true},
		},
		result: func(a *opCall) ir.Type {
			_, d, _ := ir.ShapeOf(a.typeOf("target"))
			return &ir.Tile{Shape: a.shapeOf("shape"), DType: d}
		},
		check: checkRemoteLoad},
	{kind: ir.OpRemoteStore,
		params: []param{
			{name: "src_tile", kind: kTile, required: true, hint: "remote_store sends a tile; make one with pl.load"},
			{name: "target", kind: kDist, required: true},
			{name: "peer", kind: kIntScalar, required: true},
			{name: "offsets", kind: kIndexList, rankOf: "target", required: true},
		},
		check: checkRemoteStore},
	{kind: ir.OpPut, params: putGetParams(kDist, kTensor, true), check: checkPutGet},
	{kind: ir.OpGet, params: putGetParams(kTensor, kDist, false), check: checkPutGet},

	// Collectives (pld-spec §4.7), InCore composite or HOST builtin.
	{kind: ir.OpAllreduce,
		params: []param{
			{name: "target", kind: kDist, required: true},
			{name: "signal", kind: kDist},
			{name: "op", kind: kEnum, enum: "ReduceOp", kwOnly: true, attr: true, def: enumAttr("ReduceOp", "Sum")},
			{name: "mode", kind: kStr, kwOnly: true, attr: true, def: ir.StrAttr("mesh")},
			{name: "core_num", kind: kPyInt, kwOnly: true, attr: true, def: ir.IntAttr(1)},
		},
		resultOf: "target", check: checkAllreduce},
	{kind: ir.OpBarrier,
		params:   []param{{name: "signal", kind: kDist, required: true}},
		resultOf: "signal", check: checkBarrier},
	{kind: ir.OpBroadcast,
		params: []param{
			{name: "target", kind: kDist, required: true},
			{name: "signal", kind: kDist, required: true},
			{name: "root", kind: kPyInt, kwOnly: true, attr: true, required: true,
				hint: "root names the rank whose data every rank receives: a literal or a module/closure constant"},
		},
		resultOf: "target", check: checkBroadcast},
	gatherLike(ir.OpAllgather, "local_data"),
	{kind: ir.OpReduceScatter,
		params: []param{
			{name: "target", kind: kDist, required: true},
			{name: "signal", kind: kDist, required: true},
			{name: "op", kind: kEnum, enum: "ReduceOp", kwOnly: true, attr: true, def: enumAttr("ReduceOp", "Sum")},
		},
		resultOf: "target", check: checkReduceScatter},
	gatherLike(ir.OpAllToAll, "input"),
	{kind: ir.OpAllToAllV,
		params: []param{
			{name: "input", kind: kTensor, required: true},
			{name: "target", kind: kDist, required: true},
			{name: "signal", kind: kDist, required: true},
			{name: "send_counts", kind: kTensor, required: true},
			{name: "recv_counts", kind: kDist, required: true},
		},
		resultOf: "target", check: checkAllToAllV},
}

// opIndex maps every kind with a row here to its spec.
var opIndex = func() map[ir.OpKind]*opSpec {
	m := map[ir.OpKind]*opSpec{}
	for _, s := range opTable {
		m[s.kind] = s
	}
	return m
}()

// lookupOp returns the operation spelled path (any of its kind's
// spellings), or nil.
func lookupOp(path string) *opSpec { return opIndex[ir.KindOf(path)] }

// name is the operation's canonical path, the IR's Op.Name.
func (s *opSpec) name() string { return s.kind.String() }

func (s *opSpec) param(name string) *param {
	for i := range s.params {
		if s.params[i].name == name {
			return &s.params[i]
		}
	}
	return nil
}

// LegalAt reports whether the operation named op (canonical or alias) may
// run at level l; unknown operations are not legal anywhere. It is the
// level column of the operation table, for ir.VerifyWith.
func LegalAt(op string, l ir.Level) bool {
	s := lookupOp(op)
	return s != nil && s.kind.LegalAt(l)
}

// OpArgs returns the names of the operand parameters of the operation
// named op (canonical or alias), in the order they appear in ir.Op.Args;
// nil for an unknown operation. Compile-time attributes are in Op.Attrs.
func OpArgs(op string) []string {
	s := lookupOp(op)
	if s == nil {
		return nil
	}
	var out []string
	for _, p := range s.params {
		if !p.attr && p.kind != kForbidden {
			out = append(out, p.name)
		}
	}
	return out
}

// OpArg returns the operand passed as parameter name of op, or nil when it
// was omitted (or op has no such parameter). Lowering passes read operands
// by name through it rather than by position.
func OpArg(op *ir.Op, name string) ir.Operand {
	for i, n := range OpArgs(op.Name) {
		if n == name {
			if i < len(op.Args) {
				return op.Args[i]
			}
			return nil
		}
	}
	return nil
}

// OpNames lists the canonical names of every operation in the table.
func OpNames() []string {
	out := make([]string, len(opTable))
	for i, s := range opTable {
		out[i] = s.name()
	}
	return out
}

// levelWords renders an operation's levels for a message: "host-only",
// "InCore-only", "host or InCore".
func levelWords(ls []ir.Level) string {
	names := make([]string, len(ls))
	for i, l := range ls {
		names[i] = levelTitle(l)
	}
	if len(ls) == 1 {
		return names[0] + "-only"
	}
	return "allowed only in " + strings.Join(names, " or ") + " code"
}

func levelTitle(l ir.Level) string {
	switch l {
	case ir.Host:
		return "host"
	case ir.Orchestration:
		return "orchestration"
	}
	return "InCore"
}
