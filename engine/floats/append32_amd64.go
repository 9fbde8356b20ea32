package floats

// fast32 writes the elements of src[:n] from the first on, while they
// take AppendFloat32s' fast path (a normal non-integer from 2^-19 to
// 2^23), at dst as AppendFloat32s writes them, each after a comma when
// comma is 1 (from the second on, always), and returns the bytes written
// and the elements taken. dst must have room for 24 bytes an element and
// 24 more: an element's stores reach 19 bytes past its start.
//
//go:noescape
func fast32(dst *byte, src *float32, n int, tab *[256]exp32Entry, comma int) (nw, nr int)

const haveFast32 = true
