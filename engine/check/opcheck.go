package check

import (
	"fmt"
	"strings"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/meta"
)

// This file holds the per-operation rules of the pl operations and the
// point-to-point pld operations (pld-spec §3, §4.3, §4.5, §4.6) that go
// beyond the parameter kinds of the table.

// checkRegion reports a region of tensor param tensorName, at the offsets
// of list param offName with the given extents, that provably lies outside
// the tensor.
func (a *opCall) checkRegion(tensorName, offName string, extents ir.Shape, verb string) {
	shape, _, ok := ir.ShapeOf(a.typeOf(tensorName))
	offs := a.lists[offName]
	if !ok || len(offs) != len(shape) || len(extents) != len(shape) {
		return
	}
	outside := false
	parts := make([]string, len(shape))
	for i := range shape {
		o := offs[i]
		lo, hi := "?", "?"
		if o.known {
			lo = fmt.Sprint(o.kv)
			if extents[i].IsStatic() {
				hi = fmt.Sprint(o.kv + extents[i].N)
			}
			if o.kv < 0 {
				outside = true
			}
			if extents[i].IsStatic() && shape[i].IsStatic() && o.kv+extents[i].N > shape[i].N {
				outside = true
			}
		}
		parts[i] = lo + ":" + hi
	}
	if outside {
		a.errorf(offName, ErrBounds, "",
			"%s %s region [%s] of %s %s, which is outside it", a.path, verb, strings.Join(parts, ", "), tensorName, shape)
	}
}

// tileAlign warns when a tile's contiguous extent is not a multiple of 32
// bytes (pld-spec §2.6, ruling 18: a warning on the emulator). A tile whose
// last dimension is 1 is column-major, so its column is what counts.
func (a *opCall) tileAlign(shape ir.Shape, dt ir.DType) {
	if len(shape) == 0 || !shape.IsStatic() {
		return
	}
	n := len(shape)
	ext, what := shape[n-1].N, "rows"
	if n >= 2 && ext == 1 {
		ext, what = shape[n-2].N, "columns"
	}
	if bytes := ext * int64(dt.Bytes()); bytes%32 != 0 {
		a.fc.errorf(a.e.Pos, WarnTileAlign, "",
			"tile %s %s has %d-byte %s; hardware tiles need a multiple of 32 bytes", shape, dt, bytes, what)
	}
}

func loadResult(a *opCall) ir.Type {
	_, d, _ := ir.ShapeOf(a.typeOf("tensor"))
	t := &ir.Tile{Shape: a.shapeOf("shapes"), DType: d, Mem: memSpace(a.staticArg("target_memory"))}
	// A valid_shape narrower than the tile is part of its type (PyPTO's
	// TileView); one equal to the tile's shape is no view at all.
	if a.given("valid_shape") {
		if v := a.readExtent("shapes", "valid_shape"); !v.Equal(t.Shape) {
			t.Valid = v
		}
	}
	return t
}

// memSpace is the member name of a pl.MemorySpace (pl.Mem) value, "" for
// the default Vec or no value.
func memSpace(v meta.Value) string {
	name := ""
	switch v := v.(type) {
	case meta.Enum:
		name = v.Member
	case *meta.Builtin:
		name = v.Path[strings.LastIndexByte(v.Path, '.')+1:]
	}
	if name == "Vec" {
		return ""
	}
	return name
}

func checkLoad(a *opCall) {
	if clamp, ok := a.staticArg("clamp").(meta.Bool); !ok || !clamp.V {
		// A valid_shape bounds the read: the tile may overhang the source
		// (the last chunk of a length that is no multiple of the tile, an
		// [8, 1] tile padding a [1, 1] tensor to 32 bytes) and PyPTO pads
		// the rest, so the region checked is the valid one.
		a.checkRegion("tensor", "offsets", a.readExtent("shapes", "valid_shape"), "reads")
		a.checkReadBound("tensor", "offsets", a.readExtent("shapes", "valid_shape"),
			"load no more than the source can hold, or pass clamp=True to read only what it has (PyPTO pads the rest)")
	}
	checkValidShape(a, "valid_shape")
	_, d, _ := ir.ShapeOf(a.typeOf("tensor"))
	a.tileAlign(a.shapeOf("shapes"), d)
}

// readExtent is the extent an access really touches: the valid_shape
// where one is given (an extent known only at run time stays unknown),
// else the tile's shape.
func (a *opCall) readExtent(shape, valid string) ir.Shape {
	ext := a.shapeOf(shape)
	vl, ok := a.lists[valid]
	if !ok || !a.given(valid) || len(vl) != len(ext) {
		return ext
	}
	out := make(ir.Shape, len(ext))
	for i, el := range vl {
		if el.known {
			out[i] = ir.Dim{N: el.kv}
		} else {
			out[i] = ir.Dim{Sym: "?"}
		}
	}
	return out
}

// checkValidShape rejects a negative static valid-shape extent.
func checkValidShape(a *opCall, name string) {
	for i, el := range a.lists[name] {
		if el.known && el.kv < 0 {
			a.errorf(name, ErrShape, "", "%s dimension %d is %d, want >= 0", a.label(name), i, el.kv)
			return
		}
	}
}

// atomicAddDTypes are the tile dtypes pl.store can accumulate atomically.
var atomicAddDTypes = map[ir.DType]bool{ir.FP32: true, ir.BF16: true, ir.FP16: true, ir.INT32: true, ir.INT16: true, ir.INT8: true}

func checkStore(a *opCall) {
	tile := a.typeOf("tile").(*ir.Tile)
	out, od, _ := ir.ShapeOf(a.typeOf("output_tensor"))
	if tile.DType != od {
		a.errorf("tile", ErrDType, "load, compute and store in the output's dtype, or pl.cast the tile first",
			"pl.store writes a %s tile into output_tensor of %s", tile.DType, od)
		return
	}
	ext := tile.Shape
	if a.given("shapes") {
		ext = a.shapeOf("shapes")
	} else if len(tile.Shape) < len(out) {
		// A lower-rank tile fills the trailing dimensions, one element
		// deep in each leading one (upstream stores a [1, N] row at
		// [0, r, 0] of a [1, P, N] tensor).
		pad := make(ir.Shape, len(out)-len(tile.Shape))
		for i := range pad {
			pad[i] = ir.ConstDim(1)
		}
		ext = append(pad, tile.Shape...)
	} else if len(tile.Shape) != len(out) {
		a.errorf("tile", ErrShape, "", "pl.store writes a tile %s into output_tensor %s of another rank", tile.Shape, out)
		return
	}
	if a.attrEnum("atomic") == "Add" && !atomicAddDTypes[tile.DType] {
		a.errorf("atomic", ErrDType, "atomic add works on FP32, BF16, FP16, INT32, INT16 and INT8 tiles",
			"pl.store atomic=Add on a %s tile", tile.DType)
		return
	}
	if a.fc.isPartial(a.args["tile"].x) && !a.given("shapes") {
		// Only the tile's valid region is written, and its extent is a
		// run-time value: the emulator checks the write's bounds.
		return
	}
	a.checkRegion("output_tensor", "offsets", ext, "writes")
}

// isPartial reports whether x is a tile with a valid_shape.
func (fc *funcChecker) isPartial(x ir.Operand) bool {
	v, ok := x.(*ir.Var)
	if !ok || v == nil {
		return false
	}
	for _, op := range fc.partial {
		if op.Result == v {
			return true
		}
	}
	return false
}

func (fc *funcChecker) anyPartial(args []ir.Operand) bool {
	for _, x := range args {
		if fc.isPartial(x) {
			return true
		}
	}
	return false
}

func checkWrite(a *opCall) {
	_, dd, _ := ir.ShapeOf(a.typeOf("dst"))
	o := a.args["value"]
	_, vd, _ := o.scalar()
	if o.mode == modeStatic {
		if vd.IsInt() && dd.IsInt() || vd.IsFloat() && dd.IsFloat() {
			return
		}
	} else if vd == dd {
		return
	}
	a.errorf("value", ErrDType, "pl.cast the value to the tensor's dtype first",
		"pl.write value is %s, want %s (the dtype of dst)", o.describe(), dd)
}

// castSource returns the dtype a pl.cast converts from.
func castSource(a *opCall) (ir.DType, *ir.Tile) {
	o := a.args["input"]
	if o.mode == modeValue {
		if t, ok := o.t.(*ir.Tile); ok {
			return t.DType, t
		}
	}
	_, d, _ := o.scalar()
	return d, nil
}

func castResult(a *opCall) ir.Type {
	to, _ := dtypeFromValue(a.staticArg("target_type"))
	if _, tile := castSource(a); tile != nil {
		return &ir.Tile{Shape: tile.Shape, DType: to}
	}
	return &ir.Scalar{DType: to}
}

func checkCast(a *opCall) {
	to, _ := dtypeFromValue(a.staticArg("target_type"))
	from, tile := castSource(a)
	if tile != nil {
		if a.fc.level != ir.InCore {
			a.errorf("input", ErrLevel, "", "pl.cast of a tile is InCore-only, got it in %s", describeFunc(a.fc.dsl))
		}
		return
	}
	if m, ok := a.staticArg("mode").(meta.Str); a.given("mode") && (!ok || m.V != "round") {
		a.errorf("mode", ErrCast, "leave mode out for scalars", "pl.cast of a scalar takes only the default mode, got mode=%s", meta.Repr(a.staticArg("mode")))
		return
	}
	if from == ir.INDEX && to.IsFloat() || from.IsFloat() && to == ir.INDEX {
		a.errorf("input", ErrCast, "",
			"pl.cast from %s to %s: casts between float and INDEX are not supported", from, to)
	}
}

// scalarElementwise handles pl.add and friends on two scalars: scalar
// arithmetic, emitted as a Bin like the operator would be.
func (fc *funcChecker) scalarElementwise(a *opCall) (*operand, bool) {
	l, r := a.args["lhs"], a.args["rhs"]
	_, _, lok := l.scalar()
	_, _, rok := r.scalar()
	if !lok || !rok {
		return nil, false
	}
	if a.spec.scalarBin == "" {
		fc.errorf(a.e.Pos, ErrUnsupportedOp, "compare the scalars and branch on the result",
			"%s of two scalars is not supported by the workbench", a.path)
		return invalidOp(a.e), true
	}
	return fc.arith(a.spec.scalarBin, l, r, a.e, a.e.Fn.Span()), true
}

// broadcastShape returns the shape of an element-wise result of x and y.
func broadcastShape(x, y ir.Shape) (ir.Shape, bool) {
	if len(x) != len(y) {
		return nil, false
	}
	out := make(ir.Shape, len(x))
	for i := range x {
		switch {
		case x[i] == y[i]:
			out[i] = x[i]
		case x[i].IsStatic() && x[i].N == 1:
			out[i] = y[i]
		case y[i].IsStatic() && y[i].N == 1:
			out[i] = x[i]
		default:
			return nil, false
		}
	}
	return out, true
}

func elementwiseResult(a *opCall) ir.Type {
	lt, _ := a.typeOf("lhs").(*ir.Tile)
	if rt, ok := a.typeOf("rhs").(*ir.Tile); ok && lt != nil {
		shape, _ := broadcastShape(lt.Shape, rt.Shape)
		d := lt.DType
		if rt.DType != d {
			d = promoteTileDType(lt.DType, rt.DType)
		}
		return (&ir.Tile{Shape: shape, DType: d}).View(lt)
	}
	if lt != nil {
		return lt
	}
	return &ir.Invalid{}
}

func promoteTileDType(a, b ir.DType) ir.DType {
	switch {
	case a.Bits() > b.Bits():
		return a
	case b.Bits() > a.Bits():
		return b
	case a.IsFloat():
		return ir.FP32
	}
	return a
}

func checkElementwise(a *opCall) {
	lt, lok := a.typeOf("lhs").(*ir.Tile)
	if !lok {
		a.errorf("lhs", ErrArgKind, "put the tile first: "+a.spec.name()+"(tile, s)",
			"%s lhs is %s, want a tile", a.path, a.args["lhs"].describe())
		return
	}
	if a.fc.level != ir.InCore {
		a.errorf("lhs", ErrLevel, "", "%s on tiles is InCore-only, got it in %s", a.path, describeFunc(a.fc.dsl))
		return
	}
	rt, rok := a.typeOf("rhs").(*ir.Tile)
	if !rok {
		return // tile with a scalar: the scalar is narrowed to the tile's dtype
	}
	if lt.DType.IsFloat() != rt.DType.IsFloat() {
		a.errorf("rhs", ErrDType, "", "%s mixes a %s tile with a %s tile", a.path, lt.DType, rt.DType)
		return
	}
	if _, ok := broadcastShape(lt.Shape, rt.Shape); !ok {
		a.errorf("rhs", ErrShape, "element-wise operands need equal extents, or 1 where one is broadcast",
			"%s tiles %s and %s do not broadcast", a.path, lt.Shape, rt.Shape)
	}
}

// checkSignalOffsets rejects notify/wait offsets provably outside the
// signal window.
func checkSignalOffsets(tensor string) func(*opCall) {
	return func(a *opCall) {
		shape, _, _ := ir.ShapeOf(a.typeOf(tensor))
		ones := make(ir.Shape, len(shape))
		for i := range ones {
			ones[i] = ir.ConstDim(1)
		}
		a.checkRegion(tensor, "offsets", ones, "touches")
	}
}

func checkRemoteLoad(a *opCall) {
	// As pl.load's: the valid_shape, where given, is what is read, and a
	// window dimension of pl.dynamic symbols is bounded where PyPTO's
	// analyzer bounds it (NR % 4 is at most 3); an offset known only at
	// run time is checked there, by the emulator, as PyPTO's runtime does.
	ext := a.readExtent("shape", "valid_shape")
	a.checkRegion("target", "offsets", ext, "reads")
	a.checkReadBound("target", "offsets", ext, "read no more rows than the window can hold, or pass a smaller valid_shape to describe a ragged remote-load tail")
	checkValidShape(a, "valid_shape")
	_, d, _ := ir.ShapeOf(a.typeOf("target"))
	a.tileAlign(a.shapeOf("shape"), d)
}

func checkRemoteStore(a *opCall) {
	tile := a.typeOf("src_tile").(*ir.Tile)
	shape, d, _ := ir.ShapeOf(a.typeOf("target"))
	if tile.DType != d {
		a.errorf("src_tile", ErrDType, "", "pld.tile.remote_store tile dtype is %s, but target holds %s", tile.DType, d)
		return
	}
	if len(tile.Shape) != len(shape) {
		a.errorf("src_tile", ErrShape, "", "pld.tile.remote_store sends a tile %s into target %s of another rank", tile.Shape, shape)
		return
	}
	a.checkRegion("target", "offsets", tile.Shape, "writes")
}

func checkPutGet(a *opCall) {
	ds, dd, _ := ir.ShapeOf(a.typeOf("dst"))
	ss, sd, _ := ir.ShapeOf(a.typeOf("src"))
	if dd != sd {
		a.errorf("src", ErrDType, "", "%s copies %s src into %s dst", a.path, sd, dd)
		return
	}
	if len(ds) != len(ss) {
		a.errorf("src", ErrShape, "", "%s copies between dst %s and src %s of different ranks", a.path, ds, ss)
		return
	}
	region := []string{"dst_offsets", "src_offsets", "shape"}
	var have, missing []string
	for _, r := range region {
		if a.given(r) {
			have = append(have, r)
		} else {
			missing = append(missing, r)
		}
	}
	transfer := ds
	switch len(have) {
	case 0:
		if !ds.Matches(ss) {
			a.errorf("src", ErrShape, "give dst_offsets, src_offsets and shape to copy a region",
				"%s without a region copies the whole tensor, but dst %s and src %s differ", a.path, ds, ss)
			return
		}
	case 3:
		transfer = a.shapeOf("shape")
		a.checkRegion("dst", "dst_offsets", transfer, "writes")
		a.checkRegion("src", "src_offsets", transfer, "reads")
		if !a.ok {
			return
		}
	default:
		a.errorf(have[0], ErrRegionArgs, "", "%s got %s but not %s", a.path, strings.Join(have, " and "), strings.Join(missing, " or "))
		return
	}
	rows, cols := a.attrInt("chunk_rows"), a.attrInt("chunk_cols")
	for _, c := range []struct {
		name string
		v    int64
	}{{"chunk_rows", rows}, {"chunk_cols", cols}} {
		if c.v < 0 {
			a.errorf(c.name, ErrChunks, "", "%s %s is %d, want >= 0", a.path, c.name, c.v)
			return
		}
	}
	if p, ok := a.staticArg("pipeline").(meta.Bool); ok && p.V && (rows <= 0 || cols <= 0) {
		a.errorf("pipeline", ErrChunks, "", "%s pipeline=True requires both chunk_rows > 0 and chunk_cols > 0, got %d and %d", a.path, rows, cols)
		return
	}
	if n := len(transfer); n > 0 {
		if !transfer[n-1].IsStatic() && cols <= 0 {
			a.errorf("src", ErrChunks, "", "%s transfers a dynamic innermost dimension %s; it needs chunk_cols > 0", a.path, transfer[n-1])
			return
		}
		for _, d := range transfer[:n-1] {
			if !d.IsStatic() && rows <= 0 {
				a.errorf("src", ErrChunks, "", "%s transfers a dynamic leading dimension %s; it needs chunk_rows > 0", a.path, d)
				return
			}
		}
	}
}

// moveResult is pl.move's tile in its target memory space, its valid
// shape kept.
func moveResult(a *opCall) ir.Type {
	t, ok := a.typeOf("tile").(*ir.Tile)
	if !ok {
		return a.typeOf("tile")
	}
	return &ir.Tile{Shape: t.Shape, DType: t.DType, Mem: memSpace(a.staticArg("target_memory")), Valid: t.Valid}
}
