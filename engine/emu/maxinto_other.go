//go:build !amd64

package emu

// haveMaxVec is false off amd64: maxInto keeps to its Go loop. (A
// variable, as on amd64, for the test that runs both.)
var haveMaxVec = false

func maxIntoVec(dst, a, b *uint32, n int) { panic("maxIntoVec off amd64") }
