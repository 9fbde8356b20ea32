//go:build !amd64

package floats

// fast32 takes no element here: AppendFloat32s' Go loops write them all.
func fast32(dst *byte, src *float32, n int, tab *[256]exp32Entry, comma, avx int) (nw, nr int) {
	return 0, 0
}

const haveFast32 = false

var avx512 = 0
