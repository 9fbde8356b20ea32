package ir

import (
	"reflect"
	"strconv"
	"strings"
)

// DType is a PyPTO element type (pl.FP32, pl.INT32, pl.INDEX, ...).
type DType uint8

// The data types of pypto.pypto_core.DataType that a program can name.
const (
	InvalidDType DType = iota
	BOOL
	INT4
	INT8
	INT16
	INT32
	INT64
	UINT4
	UINT8
	UINT16
	UINT32
	UINT64
	INDEX
	FP4
	FP8E4M3FN
	FP8E5M2
	FP8E8M0
	HF4
	HF8
	FP16
	BF16
	FP32
	numDTypes
)

type dtypeKind uint8

const (
	kindInvalid dtypeKind = iota
	kindBool
	kindInt
	kindFloat
)

// dtypeTable is the one table of element types: name, width in bits and
// category. get_byte() is ceil(bits/8), so BOOL (1 bit) takes one byte.
var dtypeTable = [numDTypes]struct {
	name string
	bits int
	kind dtypeKind
}{
	InvalidDType: {"invalid", 0, kindInvalid},
	BOOL:         {"BOOL", 1, kindBool},
	INT4:         {"INT4", 4, kindInt},
	INT8:         {"INT8", 8, kindInt},
	INT16:        {"INT16", 16, kindInt},
	INT32:        {"INT32", 32, kindInt},
	INT64:        {"INT64", 64, kindInt},
	UINT4:        {"UINT4", 4, kindInt},
	UINT8:        {"UINT8", 8, kindInt},
	UINT16:       {"UINT16", 16, kindInt},
	UINT32:       {"UINT32", 32, kindInt},
	UINT64:       {"UINT64", 64, kindInt},
	INDEX:        {"INDEX", 64, kindInt},
	FP4:          {"FP4", 4, kindFloat},
	FP8E4M3FN:    {"FP8E4M3FN", 8, kindFloat},
	FP8E5M2:      {"FP8E5M2", 8, kindFloat},
	FP8E8M0:      {"FP8E8M0", 8, kindFloat},
	HF4:          {"HF4", 4, kindFloat},
	HF8:          {"HF8", 8, kindFloat},
	FP16:         {"FP16", 16, kindFloat},
	BF16:         {"BF16", 16, kindFloat},
	FP32:         {"FP32", 32, kindFloat},
}

// DTypeByName returns the data type called name ("FP32", "INT32", ...).
func DTypeByName(name string) (DType, bool) {
	for d := BOOL; d < numDTypes; d++ {
		if dtypeTable[d].name == name {
			return d, true
		}
	}
	return InvalidDType, false
}

func (d DType) valid() bool { return d > InvalidDType && d < numDTypes }

// String returns the PyPTO name of d, such as "FP32".
func (d DType) String() string {
	if d >= numDTypes {
		return "invalid"
	}
	return dtypeTable[d].name
}

// Bits returns the width of d in bits.
func (d DType) Bits() int {
	if !d.valid() {
		return 0
	}
	return dtypeTable[d].bits
}

// Bytes returns get_byte(): ceil(bits/8).
func (d DType) Bytes() int { return (d.Bits() + 7) / 8 }

// IsInt reports whether d is an integer type (signed, unsigned or INDEX).
func (d DType) IsInt() bool { return d.valid() && dtypeTable[d].kind == kindInt }

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool { return d.valid() && dtypeTable[d].kind == kindFloat }

// IsBool reports whether d is BOOL.
func (d DType) IsBool() bool { return d == BOOL }

// Dim is one dimension of a shape: a constant extent, or a symbolic
// dimension bound at run time (pl.dynamic("NR")) when Sym is set.
type Dim struct {
	N   int64
	Sym string
}

// ConstDim returns the constant dimension n.
func ConstDim(n int64) Dim { return Dim{N: n} }

// SymDim returns the symbolic dimension called name.
func SymDim(name string) Dim { return Dim{Sym: name} }

// IsStatic reports whether d is a constant.
func (d Dim) IsStatic() bool { return d.Sym == "" }

func (d Dim) String() string {
	if d.Sym != "" {
		return d.Sym
	}
	return strconv.FormatInt(d.N, 10)
}

// Shape is a list of dimensions, outermost first (row-major).
type Shape []Dim

// ConstShape returns the all-constant shape dims.
func ConstShape(dims ...int64) Shape {
	s := make(Shape, len(dims))
	for i, n := range dims {
		s[i] = ConstDim(n)
	}
	return s
}

func (s Shape) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.String())
	}
	b.WriteByte(']')
	return b.String()
}

// IsStatic reports whether every dimension of s is a constant.
func (s Shape) IsStatic() bool {
	for _, d := range s {
		if !d.IsStatic() {
			return false
		}
	}
	return true
}

// NumElems returns the element count of a static shape; ok is false when a
// dimension is symbolic.
func (s Shape) NumElems() (n int64, ok bool) {
	n = 1
	for _, d := range s {
		if !d.IsStatic() {
			return 0, false
		}
		n *= d.N
	}
	return n, true
}

// Equal reports whether s and t are the same shape, symbol for symbol.
func (s Shape) Equal(t Shape) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range s {
		if s[i] != t[i] {
			return false
		}
	}
	return true
}

// Matches reports whether s and t can be the same shape at run time: equal
// rank, and equal constants wherever both dimensions are constants (a
// symbolic dimension matches anything).
func (s Shape) Matches(t Shape) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range s {
		if s[i].IsStatic() && t[i].IsStatic() && s[i].N != t[i].N {
			return false
		}
	}
	return true
}

// Type is the type of an IR value.
type Type interface {
	String() string
	// Kind names the type's kind as the DSL and its messages spell it:
	// "pl.Tensor", "tile", "scalar", ...
	Kind() string
}

// Scalar is a scalar of one data type; comparisons yield Scalar{BOOL}.
type Scalar struct{ DType DType }

// Tensor is a global-memory tensor (pl.Tensor): a host tensor or a rank's
// slice of one.
type Tensor struct {
	Shape Shape
	DType DType
}

// DistributedTensor is a view of the local rank's copy of a window buffer
// (pld.DistributedTensor).
type DistributedTensor struct {
	Shape Shape
	DType DType
}

// Tile is an on-chip buffer produced by pl.load or pld.tile.remote_load.
//
// Mem and Valid are the rest of PyPTO's tile type, which two bindings of
// one name must share ("Cannot reassign 't' with a different type: was
// pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec], got pl.Tile[[16, 16], pl.FP32,
// pl.Mem.Mat]"): Mem is the memory space a pl.load or pl.move gave it
// ("" is the default, Vec; "Mat", "Left", ...), Valid the valid_shape of a
// load that reads less than the tile (nil: all of it; a dimension known
// only at run time is the symbol "?"). Elementwise results keep their
// left operand's. Only Identical looks at them: the emulator runs a tile
// of any view the same way.
type Tile struct {
	Shape Shape
	DType DType
	Mem   string
	Valid Shape
}

// View returns t with t2's memory space and valid shape.
func (t *Tile) View(t2 *Tile) *Tile {
	return &Tile{Shape: t.Shape, DType: t.DType, Mem: t2.Mem, Valid: t2.Valid}
}

// CommCtx is the communication context of a window's domain
// (pld.get_comm_ctx); only pld.rank and pld.nranks consume it.
type CommCtx struct{}

// Ptr is a window buffer allocation (pld.alloc_window_buffer), Bytes long
// per rank; only pld.window consumes it. Bytes is symbolic when the size is
// a run-time value the checker could not fold.
type Ptr struct{ Bytes Dim }

// List is the type of a list operand (offsets, shapes) of Len elements.
type List struct{ Len int }

// Invalid is the type of an expression that already has an error; a
// checked program without errors never contains it.
type Invalid struct{}

// Tuple is a function result of several values (`-> tuple[A, B]`), built
// by tuple.make and taken apart by tuple.get.
type Tuple struct{ Elems []Type }

// Bool is the type of comparison results and if conditions.
var Bool = &Scalar{DType: BOOL}

func (*Scalar) Kind() string            { return "scalar" }
func (*Tensor) Kind() string            { return "pl.Tensor" }
func (*DistributedTensor) Kind() string { return "pld.DistributedTensor" }
func (*Tile) Kind() string              { return "tile" }
func (*CommCtx) Kind() string           { return "comm context" }
func (*Ptr) Kind() string               { return "window buffer" }
func (*List) Kind() string              { return "list" }
func (*Invalid) Kind() string           { return "value" }
func (*Tuple) Kind() string             { return "value" }

func (t *Scalar) String() string { return t.DType.String() }
func (t *Tensor) String() string { return "Tensor[" + t.Shape.String() + ", " + t.DType.String() + "]" }
func (t *DistributedTensor) String() string {
	return "DistributedTensor[" + t.Shape.String() + ", " + t.DType.String() + "]"
}
func (t *Tile) String() string {
	s := "Tile[" + t.Shape.String() + ", " + t.DType.String()
	if t.Mem != "" {
		s += ", " + t.Mem
	}
	if t.Valid != nil {
		s += ", valid=" + t.Valid.String()
	}
	return s + "]"
}
func (t *CommCtx) String() string { return "CommCtx" }
func (t *Ptr) String() string     { return "Ptr[" + t.Bytes.String() + " B]" }
func (t *List) String() string    { return "List[" + strconv.Itoa(t.Len) + "]" }
func (t *Invalid) String() string { return "invalid" }
func (t *Tuple) String() string {
	parts := make([]string, len(t.Elems))
	for i, e := range t.Elems {
		parts[i] = e.String()
	}
	return "tuple[" + strings.Join(parts, ", ") + "]"
}

// ShapeOf returns the shape and element type of a tensor, distributed
// tensor or tile type; ok is false for every other type.
func ShapeOf(t Type) (s Shape, d DType, ok bool) {
	switch t := t.(type) {
	case *Tensor:
		return t.Shape, t.DType, true
	case *DistributedTensor:
		return t.Shape, t.DType, true
	case *Tile:
		return t.Shape, t.DType, true
	}
	return nil, InvalidDType, false
}

// Identical reports whether a and b are the same type exactly (symbolic
// dimensions compare by name).
func Identical(a, b Type) bool {
	if same, shaped := sameShaped(a, b, Shape.Equal); shaped {
		if at, ok := a.(*Tile); ok && same {
			bt := b.(*Tile)
			return at.Mem == bt.Mem && (at.Valid == nil) == (bt.Valid == nil) && at.Valid.Equal(bt.Valid)
		}
		return same
	}
	switch a := a.(type) {
	case *Tuple:
		return elemsAll(a, b, Identical)
	case *Scalar, *CommCtx, *TaskID, *Ptr, *List, *Invalid, *Array:
		// Their fields say all there is to the type: the same kind with
		// equal fields is the same type.
		return reflect.DeepEqual(a, b)
	}
	return false
}

// sameShaped reports, for a want that is a tensor, a window or a tile,
// whether got is of the same kind and dtype with a shape in rel (Equal,
// Matches) to want's; shaped is false for a want of any other kind.
func sameShaped(want, got Type, rel func(want, got Shape) bool) (same, shaped bool) {
	ws, wd, ok := ShapeOf(want)
	if !ok {
		return false, false
	}
	if reflect.TypeOf(got) != reflect.TypeOf(want) {
		return false, true
	}
	gs, gd, _ := ShapeOf(got)
	return gd == wd && rel(ws, gs), true
}

// elemsAll reports whether got is a tuple as long as w whose elements each
// stand in rel (Identical, Compatible, Returnable) to w's.
func elemsAll(w *Tuple, got Type, rel func(want, got Type) bool) bool {
	g, ok := got.(*Tuple)
	if !ok || len(g.Elems) != len(w.Elems) {
		return false
	}
	for i := range w.Elems {
		if !rel(w.Elems[i], g.Elems[i]) {
			return false
		}
	}
	return true
}

// Compatible reports whether a value of type arg can be passed where want
// is declared: same kind and data type, shapes that Match (a symbolic
// dimension on either side matches any extent), and for scalars the same
// category (an INDEX loop variable may feed an INT32 parameter).
func Compatible(want, arg Type) bool {
	if same, shaped := sameShaped(want, arg, Shape.Matches); shaped {
		return same
	}
	switch w := want.(type) {
	case *Scalar:
		a, ok := arg.(*Scalar)
		if !ok {
			return false
		}
		return a.DType == w.DType || (a.DType.IsInt() && w.DType.IsInt()) || (a.DType.IsFloat() && w.DType.IsFloat())
	case *Tuple:
		return elemsAll(w, arg, Compatible)
	}
	return Identical(want, arg)
}

// Returnable reports whether a function declared to return want may return
// a value of type got: a Compatible one, or a window where a tensor is
// declared (PyPTO's DistributedTensorType is a TensorType; upstream's gemm
// kernel returns the window it stored into as a pl.Tensor). The tuple's
// elements follow the same rule.
func Returnable(want, got Type) bool {
	if Compatible(want, got) {
		return true
	}
	switch w := want.(type) {
	case *Tensor:
		g, ok := got.(*DistributedTensor)
		return ok && g.DType == w.DType && w.Shape.Matches(g.Shape)
	case *Tuple:
		return elemsAll(w, got, Returnable)
	}
	return false
}
