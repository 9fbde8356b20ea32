package ir

import (
	"strconv"
	"strings"
)

// Communication domains of window buffers dispatched to some ranks only
// (engine/check/domains.go).

// DomainAttr is the attribute of a pld.alloc_window_buffer whose views are
// dispatched to some ranks only: the ranks of its communication domain, in
// order (an IntsAttr). A peer of such a window is an index into the list.
const DomainAttr = "domain"

// IntsAttr is a list of integers: a domain's ranks.
type IntsAttr []int64

func (IntsAttr) isAttr() {}

func (a IntsAttr) String() string {
	parts := make([]string, len(a))
	for i, v := range a {
		parts[i] = strconv.FormatInt(v, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// WindowReshapes reports whether a window of type got may be passed to a
// host dispatch's parameter of type want in another shape: both static
// pld.DistributedTensors of one dtype. PyPTO passes the window's buffer,
// which the kernel reads in its own shape; the checker holds the rule that
// the parameter fits in the buffer (it knows the buffer's size).
func WindowReshapes(want, got Type) bool {
	w, ok1 := want.(*DistributedTensor)
	g, ok2 := got.(*DistributedTensor)
	if !ok1 || !ok2 || !g.Shape.IsStatic() {
		return false
	}
	shape := make([]int, len(g.Shape))
	for i, d := range g.Shape {
		shape[i] = int(d.N)
	}
	return w.ReshapesFrom(g.DType, shape)
}

// ReshapesFrom is WindowReshapes(w, got) for a window got of dtype dt and
// the static extents shape, without making got's type: the emulator asks
// it of each window argument at every kernel call.
func (w *DistributedTensor) ReshapesFrom(dt DType, shape []int) bool {
	if w.DType != dt || !w.Shape.IsStatic() {
		return false
	}
	if len(w.Shape) != len(shape) {
		return true
	}
	for i, d := range w.Shape {
		if d.N != int64(shape[i]) {
			return true
		}
	}
	return false
}
