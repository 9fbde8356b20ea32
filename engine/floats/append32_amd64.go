package floats

// fast32 writes the elements of src[:n] from the first on, while they
// take AppendFloat32s' fast path (a normal non-integer from 2^-19 to
// 2^23), at dst as AppendFloat32s writes them, each after a comma when
// comma is 1 (from the second on, always), and returns the bytes written
// and the elements taken. dst must have room for 24 bytes an element and
// 24 more: an element's stores reach 19 bytes past its start. avx, when
// 1, has it lay the digits out in AVX-512 lanes (the CPU must have
// them: avx512).
//
//go:noescape
func fast32(dst *byte, src *float32, n int, tab *[256]exp32Entry, comma, avx int) (nw, nr int)

const haveFast32 = true

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

func xgetbv0() (eax, edx uint32)

// avx512 is 1 when the CPU and the OS have the AVX-512 foundation, DQ,
// CD and BW instructions and registers fast32's lanes use, else 0.
// Tests set it to 0 to check the other path.
var avx512 = func() int {
	if max, _, _, _ := cpuid(0, 0); max < 7 {
		return 0
	}
	if _, _, c, _ := cpuid(1, 0); c&(1<<27) == 0 { // OSXSAVE
		return 0
	}
	if x, _ := xgetbv0(); x&0xe6 != 0xe6 { // SSE, AVX, opmask and ZMM state enabled
		return 0
	}
	_, b, _, _ := cpuid(7, 0)
	const f, dq, cd, bw = 1 << 16, 1 << 17, 1 << 28, 1 << 30
	if b&(f|dq|cd|bw) != f|dq|cd|bw {
		return 0
	}
	return 1
}()
