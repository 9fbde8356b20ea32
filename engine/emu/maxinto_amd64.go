package emu

// haveMaxVec says maxIntoVec may run: the processor and the system have
// AVX2, whose VPMAXUD takes the maximum of eight uint32 pairs at once
// (Go's baseline, GOAMD64=v1, does not assume it).
var haveMaxVec = cpuAVX2()

// maxIntoVec sets dst[i] = max(a[i], b[i]) for i < n (n >= 1); dst may
// be a or b, or overlap neither.
//
//go:noescape
func maxIntoVec(dst, a, b *uint32, n int)

// cpuAVX2 reports whether the processor has AVX2 (CPUID leaf 7, EBX bit
// 5) and the system saves the vector registers it uses (OSXSAVE, and
// XCR0's SSE and AVX state bits).
func cpuAVX2() bool
