package check

import (
	"fmt"
	"strings"
)

// OpSignature is one operation of the table as a learner reads it: the
// reference card of the lessons is generated from these, so it cannot
// drift from what the checker accepts.
type OpSignature struct {
	Name    string   // canonical spelling, "pld.tensor.put"
	Aliases []string // other spellings
	Params  []ParamSignature
	Levels  string // "InCore-only", "allowed only in host or InCore code"
	Returns string // "nothing", "its output_tensor argument, updated", "a value"
}

// ParamSignature is one parameter: name, what it accepts, and how it is
// passed.
type ParamSignature struct {
	Name     string
	Accepts  string // "a tile", "a list of integer offsets", "pld.AtomicType.None_ or Add"
	Keyword  bool   // keyword-only
	Required bool
	Default  string // the IR default of an omitted attribute, "" when none
}

// kindWords says what each argument kind accepts.
var kindWords = map[argKind]string{
	kTensor: "a tensor (pl.Tensor or a window's pld.DistributedTensor)", kDist: "a window (pld.DistributedTensor)",
	kTile: "a tile", kTensorOrTile: "a tensor or a tile", kCastInput: "a scalar or a tile",
	kElemwise: "a tile, a scalar or a number", kIntScalar: "an integer scalar", kNumScalar: "a number or a scalar",
	kIndexList: "a list of integer offsets", kShapeList: "a list of compile-time extents",
	kSizeOrShape: "a byte count or a shape list", kPtr: "a window buffer", kCommCtx: "a comm context",
	kPyInt: "a compile-time int", kPyBool: "a compile-time bool", kStr: "a compile-time string",
	kDType: "a dtype (pl.FP32, pl.INT32, ...)", kStrOrInt: "a compile-time string or int",
	kAnyStatic: "a compile-time value", kArray: "an array (pl.array.create)",
	kArrayValue: "a scalar of the array's dtype",
}

// Signatures lists every operation of the table, in table order.
func Signatures() []OpSignature {
	out := make([]OpSignature, 0, len(opTable))
	for _, s := range opTable {
		info := s.kind.Info()
		sig := OpSignature{Name: info.Name, Aliases: append([]string(nil), info.Aliases...), Levels: levelWords(info.Levels)}
		switch {
		case s.resultOf != "":
			sig.Returns = fmt.Sprintf("its `%s` argument, updated", s.resultOf)
		case s.result == nil:
			sig.Returns = "nothing"
		default:
			sig.Returns = "a value"
		}
		for _, p := range s.params {
			if p.kind == kForbidden {
				continue
			}
			ps := ParamSignature{Name: p.name, Accepts: kindWords[p.kind], Keyword: p.kwOnly, Required: p.required}
			if p.kind == kEnum {
				ns := enumNamespace[p.enum] + "." + p.enum + "."
				ps.Accepts = ns + strings.Join(enumMembers[p.enum], " or ")
			}
			if p.def != nil {
				ps.Default = fmt.Sprint(p.def)
			}
			sig.Params = append(sig.Params, ps)
		}
		out = append(out, sig)
	}
	return out
}
