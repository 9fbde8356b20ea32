#include "textflag.h"

// find8's constants, broadcast to its lanes from memory.
DATA c8ff<>+0(SB)/8, $0xff
GLOBL c8ff<>(SB), RODATA|NOPTR, $8
DATA c8fastlo<>+0(SB)/8, $108
GLOBL c8fastlo<>(SB), RODATA|NOPTR, $8
DATA c8fastn<>+0(SB)/8, $42
GLOBL c8fastn<>(SB), RODATA|NOPTR, $8
DATA c8intbq<>+0(SB)/8, $150
GLOBL c8intbq<>(SB), RODATA|NOPTR, $8
DATA c823<>+0(SB)/8, $23
GLOBL c823<>(SB), RODATA|NOPTR, $8
DATA c8frac<>+0(SB)/8, $0x7fffff
GLOBL c8frac<>(SB), RODATA|NOPTR, $8
DATA c8hidden<>+0(SB)/8, $0x800000
GLOBL c8hidden<>(SB), RODATA|NOPTR, $8
DATA c8lo32<>+0(SB)/8, $0xffffffff
GLOBL c8lo32<>(SB), RODATA|NOPTR, $8
DATA c8tie<>+0(SB)/8, $0x100000001
GLOBL c8tie<>(SB), RODATA|NOPTR, $8
DATA c8div10<>+0(SB)/8, $0xcccccccd
GLOBL c8div10<>(SB), RODATA|NOPTR, $8
DATA c810<>+0(SB)/8, $10
GLOBL c810<>(SB), RODATA|NOPTR, $8
DATA c8sign<>+0(SB)/8, $0x80000000
GLOBL c8sign<>(SB), RODATA|NOPTR, $8
DATA c8kbyte<>+0(SB)/8, $0xff00000000
GLOBL c8kbyte<>(SB), RODATA|NOPTR, $8
DATA c8onebq<>+0(SB)/8, $127
GLOBL c8onebq<>(SB), RODATA|NOPTR, $8
DATA c824<>+0(SB)/8, $24
GLOBL c824<>(SB), RODATA|NOPTR, $8
DATA c8bigbq<>+0(SB)/8, $151
GLOBL c8bigbq<>(SB), RODATA|NOPTR, $8
DATA c82<>+0(SB)/8, $2
GLOBL c82<>(SB), RODATA|NOPTR, $8
DATA c8intflag<>+0(SB)/8, $0x40000000
GLOBL c8intflag<>(SB), RODATA|NOPTR, $8
DATA c8top<>+0(SB)/8, $0x0100000000000000
GLOBL c8top<>(SB), RODATA|NOPTR, $8

// func fast32(dst *byte, src *float32, n int, tab *[256]exp32Entry, comma, avx int) (nw, nr int)
//
// AppendFloat32s' fast path for a run of elements (append32_amd64.go):
// find32's steps and put32's, in two loops over a batch of up to 16
// elements as in the Go code, so that the independent elements' chains
// of multiplies overlap: the first finds each element's digits d and
// exponent k into recs, the second writes them. The comma flag lives in
// its argument slot. With avx set (AVX-512 F, DQ, CD and BW), the
// second loop's arithmetic is done for eight elements at a time in
// vector lanes (put8), leaving it the stores.
TEXT ·fast32(SB), NOSPLIT, $520-64
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), AX
	LEAQ (SI)(AX*4), AX
	MOVQ AX, end-8(SP)      // the end of src
	CMPQ avx+40(FP), $0
	JEQ  batch
	// put8's constants, Z13 to Z31
	MOVQ $64, AX
	VPBROADCASTQ AX, Z13
	VPXORQ Z14, Z14, Z14
	MOVQ $2, AX
	VPBROADCASTQ AX, Z15
	MOVQ $0x3fffffff, AX
	VPBROADCASTQ AX, Z16
	MOVQ $10000000, AX
	VPBROADCASTQ AX, Z17
	MOVQ $100000000, AX
	VPBROADCASTQ AX, Z18
	MOVQ $7, AX
	VPBROADCASTQ AX, Z19
	MOVQ $3518437209, AX
	VPBROADCASTQ AX, Z20
	MOVQ $10000, AX
	VPBROADCASTQ AX, Z21
	MOVL $10486, AX
	VPBROADCASTD AX, Z22
	MOVL $100, AX
	VPBROADCASTD AX, Z24
	MOVL $103, AX
	VPBROADCASTW AX, Z25
	MOVL $10, AX
	VPBROADCASTW AX, Z27
	MOVQ $0x3030303030303030, AX
	VPBROADCASTQ AX, Z28
	MOVQ $0x3030303030302e30, AX
	VPBROADCASTQ AX, Z29
	MOVQ $1, AX
	VPBROADCASTQ AX, Z30
	MOVQ $0x31, AX
	VPBROADCASTQ AX, Z31

batch:
	// First loop: SI to R12 (at most 16 elements), the records from
	// recs-144(SP) at R14: d | sign<<31 in the low word, k in byte 4.
	MOVQ end-8(SP), R12
	LEAQ 64(SI), AX
	CMPQ AX, R12
	CMOVQCS AX, R12
	MOVQ tab+24(FP), R13
	LEAQ recs-520(SP), R14

find:
	CMPQ avx+40(FP), $0
	JEQ  find1
	LEAQ 32(SI), AX
	CMPQ AX, R12
	JHI  find1

	// find8: the next eight elements in lanes, when all take the fast
	// path; find1's steps, the same values, with the product's 128
	// bits from 32-bit multiplies (c has 24 bits).
	VPMOVZXDQ (SI), Z0                  // u
	VPSRLQ $23, Z0, Z1
	VPANDQ.BCST c8ff<>(SB), Z1, Z1      // bq
	VPSUBQ.BCST c8fastlo<>(SB), Z1, Z2
	VPCMPUQ.BCST $1, c8fastn<>(SB), Z2, K1 // fastBqMin <= bq < intBq
	VPBROADCASTQ c8intbq<>(SB), Z3
	VPSUBQ Z1, Z3, Z3
	VPMINSQ.BCST c823<>(SB), Z3, Z3     // frac
	VPSLLVQ Z3, Z30, Z3
	VPSUBQ Z30, Z3, Z3                  // e.mask
	VPTESTMQ Z3, Z0, K1, K2             // a fraction: K2
	KXORW K6, K6, K6
	KXORW K7, K7, K7
	KMOVW K2, AX
	CMPL AX, $0xff
	JEQ  frac8
	// An integer below 2^24 (or zero), written as its own digits: K6;
	// one from 2^24 to 2^26 but a power of two, written as the integer
	// d the fraction's steps find (k is 0): K7.
	VPSUBQ.BCST c8onebq<>(SB), Z1, Z4
	VPCMPUQ.BCST $1, c824<>(SB), Z4, K3 // 127 <= bq <= intBq
	VPTESTNMQ Z3, Z0, K3, K6
	VPTESTNMQ Z0, Z0, K3
	KORW K3, K6, K6
	VPSUBQ.BCST c8bigbq<>(SB), Z1, Z4
	VPCMPUQ.BCST $1, c82<>(SB), Z4, K3  // bq is 151 or 152
	VPTESTMQ.BCST c8frac<>(SB), Z0, K3, K7
	KORW K2, K6, K3
	KORW K3, K7, K3
	KMOVW K3, AX
	CMPL AX, $0xff
	JNE  find1
	KMOVW K6, AX
	CMPL AX, $0xff
	JNE  frac8
	// All eight are integers below 2^24 (an index fill): no product.
	VPXORQ Z7, Z7, Z7
	JMP  ints8

frac8:
	VPSLLQ $2, Z1, Z2                   // bq·32 bytes, scaled by 8
	KXNORW K3, K3, K3
	VPGATHERQQ 0(R13)(Z2*8), K3, Z4     // g1
	KXNORW K3, K3, K3
	VPGATHERQQ 24(R13)(Z2*8), K3, Z7    // mask | sh<<32 | k<<40
	VPSRLQ $32, Z7, Z10
	VPANDQ.BCST c8ff<>(SB), Z10, Z10    // sh = h+2
	VPSUBQ Z10, Z13, Z11                // 64 - sh
	// (dhi, dlo) = g1·2^(h+1), as buildExp32 has them: shifts, not
	// two more gathers.
	VPADDQ Z30, Z11, Z12
	VPSRLVQ Z12, Z4, Z5                 // dhi = g1 >> (63-h)
	VPSUBQ Z30, Z10, Z12
	VPSLLVQ Z12, Z4, Z6                 // dlo = g1 << (h+1)
	VPANDQ.BCST c8frac<>(SB), Z0, Z3
	VPORQ.BCST c8hidden<>(SB), Z3, Z3   // c
	// g1·c = T·2^32 + lo32(gL·c), T = gH·c + (gL·c)>>32
	VPSRLQ $32, Z4, Z8
	VPMULUDQ Z3, Z8, Z8
	VPMULUDQ Z3, Z4, Z4
	VPSRLQ $32, Z4, Z9
	VPADDQ Z9, Z8, Z8
	VPSRLQ $32, Z8, Z9                  // high word
	VPSLLQ $32, Z8, Z8
	VPANDQ.BCST c8lo32<>(SB), Z4, Z4
	VPORQ Z4, Z8, Z8                    // low word
	// shifted by sh: phi:plo = g1·(c<<sh)
	VPSLLVQ Z10, Z9, Z9
	VPSRLVQ Z11, Z8, Z11
	VPORQ Z11, Z9, Z9                   // phi
	VPSLLVQ Z10, Z8, Z8                 // plo
	VPCMPUQ $1, Z6, Z8, K4              // plo < dlo: a borrow
	VPSUBQ Z5, Z9, Z10
	VPSUBQ Z30, Z10, K4, Z10            // lhi
	VPADDQ Z6, Z8, Z11
	VPCMPUQ $1, Z8, Z11, K5             // a carry
	VPADDQ Z5, Z9, Z12
	VPADDQ Z30, Z12, K5, Z12            // rhi
	VPANDQ Z30, Z3, Z3                  // out
	VPADDQ Z3, Z10, Z10                 // L = lhi+out
	VPSUBQ Z3, Z12, Z12                 // R = rhi-out
	VPSRLQ $33, Z9, Z4                  // s
	VPSLLQ $31, Z9, Z5
	VPSRLQ $31, Z5, Z5                  // fr
	VPANDQ Z30, Z4, Z6
	VPADDQ Z6, Z5, Z5
	VPCMPUQ.BCST $1, c8tie<>(SB), Z5, K1 // tie
	VPADDQ Z30, Z4, Z5
	VPSLLQ $33, Z5, Z5
	VPCMPUQ $1, Z5, Z12, K2             // tOut
	VPSLLQ $33, Z4, Z5
	VPCMPUQ $2, Z5, Z10, K3             // sIn
	KORW K1, K2, K1
	KANDW K1, K3, K1
	VPADDQ Z30, Z4, Z6
	VPSUBQ Z30, Z6, K1, Z6              // d = s + 1 - sIn&(tOut|tie)
	VPMULUDQ.BCST c8div10<>(SB), Z4, Z5
	VPSRLQ $35, Z5, Z5
	VPMULUDQ.BCST c810<>(SB), Z5, Z5    // sp10
	VPSLLQ $33, Z5, Z8
	VPCMPUQ $2, Z8, Z10, K1             // upin
	VPADDQ.BCST c810<>(SB), Z5, Z9
	VPSLLQ $33, Z9, Z8
	VPCMPUQ $5, Z8, Z12, K2             // wpin
	KXORW K1, K2, K2
	VMOVDQA64 Z5, K1, Z9                // short
	VMOVDQA64 Z9, K2, Z6                // d
	KORTESTW K6, K7
	JEQ  record8

ints8:
	// K6's d: c >> (intBq - bq), 0 for zero.
	VPBROADCASTQ c8intbq<>(SB), Z5
	VPSUBQ Z1, Z5, Z5
	VPANDQ.BCST c8frac<>(SB), Z0, Z3
	VPORQ.BCST c8hidden<>(SB), Z3, Z3
	VPSRLVQ Z5, Z3, K6, Z6
	KORW K6, K7, K6
	VPORQ.BCST c8intflag<>(SB), Z6, K6, Z6 // an integer's flag

record8:
	VPANDQ.BCST c8sign<>(SB), Z0, Z0
	VPORQ Z0, Z6, Z6
	VPSRLQ $8, Z7, Z7
	VPANDQ.BCST c8kbyte<>(SB), Z7, Z7
	VPORQ Z7, Z6, Z6                    // d | sign<<31 | k<<32
	VMOVDQU64 Z6, (R14)
	ADDQ $32, SI
	ADDQ $64, R14
	JMP  find

find1:
	CMPQ SI, R12
	JAE  found
	MOVL (SI), R11          // u
	MOVL R11, BX
	SHRL $23, BX
	MOVBLZX BL, BX          // bq
	CMPL BX, $150           // intBq
	JAE  found
	SHLQ $5, BX
	ADDQ R13, BX            // e = &tab[bq]
	MOVL 24(BX), AX         // e.mask: 0 below fastBqMin, and an integer has no bits under it
	TESTL AX, R11
	JEQ  found

	// c, and g1·4c·2^h with the bounds' products beside it.
	MOVL R11, R9
	ANDL $0x7fffff, R9
	ORL  $0x800000, R9      // c
	MOVBQZX 28(BX), CX      // e.sh
	MOVQ R9, R10
	SHLQ CX, R10
	MOVQ (BX), AX           // e.g1
	MULQ R10                // DX:AX = phi:plo
	MOVQ AX, R8
	SUBQ 16(BX), R8
	MOVQ DX, R10
	SBBQ 8(BX), R10         // lhi
	ADDQ 16(BX), AX
	MOVQ DX, R8
	ADCQ 8(BX), R8          // rhi
	MOVB 29(BX), BX         // e.k
	ANDL $1, R9             // out
	ADDQ R9, R10            // L = lhi+out
	SUBQ R9, R8             // R = rhi-out
	MOVQ DX, AX
	SHRQ $33, AX            // s

	// The masks (-1 or 0) of tie: fr + s&1 <= 2^32 (fr the 33 bits
	// below s), tOut: rhi < (s+1)<<33 + out, and not sIn: s<<33 < lhi+out.
	MOVQ DX, R9
	SHLQ $31, R9
	SHRQ $31, R9
	MOVL AX, CX
	ANDL $1, CX
	ADDQ CX, R9
	MOVQ $0x100000001, CX
	CMPQ R9, CX
	SBBQ R9, R9             // tie
	LEAQ 1(AX), CX
	SHLQ $33, CX
	CMPQ R8, CX
	SBBQ CX, CX             // tOut
	ORQ  CX, R9
	MOVQ AX, CX
	SHLQ $33, CX
	CMPQ CX, R10
	SBBQ CX, CX             // not sIn
	NOTQ CX
	ANDQ CX, R9
	LEAQ 1(AX), DX
	ADDQ R9, DX             // d = s + 1 - sIn&(tOut|tie)

	// shorter: sp10 = s/10*10; d = short when exactly one of upin
	// (lhi+out <= sp10<<33) and wpin (rhi >= (sp10+10)<<33 + out) holds.
	MOVL $0xCCCCCCCD, CX
	IMULQ AX, CX
	SHRQ $35, CX
	LEAQ (CX)(CX*4), CX
	ADDQ CX, CX             // sp10
	MOVQ CX, R9
	SHLQ $33, R9
	CMPQ R9, R10
	SBBQ R9, R9             // not upin
	LEAQ 10(CX), AX
	SHLQ $33, AX
	CMPQ R8, AX
	SBBQ AX, AX             // not wpin
	XORQ R9, AX
	ANDQ $10, R9
	ADDQ R9, CX             // short = sp10 + 10 - 10·upin
	TESTQ AX, AX
	CMOVQNE CX, DX          // d

	ANDL $0x80000000, R11
	ORQ  R11, DX
	MOVL DX, (R14)
	MOVB BX, 4(R14)
	ADDQ $8, R14
	ADDQ $4, SI
	JMP  find

found:
	// Second loop: the records from R13 to R12, written at DI.
	LEAQ recs-520(SP), R13
	MOVQ R14, R12
	CMPQ R13, R12
	JEQ  done               // an element off the fast path, or the end
	CMPQ avx+40(FP), $0
	JNE  put8

put:
	MOVL (R13), DX
	MOVBQSX 4(R13), BX      // k
	MOVL DX, R11
	SHRL $31, R11           // sign
	ANDL $0x7fffffff, DX    // d

	// The comma and the sign; w = comma + sign is where the digits go.
	MOVQ comma+32(FP), R14
	MOVB $0x2c, (DI)
	MOVB $0x2d, (DI)(R14*1)
	ADDQ R14, R11           // w

	// nd0 = 7 + (d >= 1e7) + (d >= 1e8); v = d mod 1e8 (d < 2·10^8)
	MOVL $7, R9
	CMPQ DX, $10000000
	SBBQ $-1, R9
	CMPQ DX, $100000000
	SBBQ $-1, R9            // nd0
	MOVQ DX, AX
	SUBQ $100000000, AX
	CMOVQCS DX, AX          // v

	// eight(v): v's eight digits as ASCII, the first in the low byte
	// (two 4-digit lanes, then 2-digit ones, then digits).
	MOVL $3518437209, CX
	IMULQ AX, CX
	SHRQ $45, CX            // v / 10^4
	IMUL3Q $10000, CX, R8
	SUBQ R8, AX
	SHLQ $32, AX
	ORQ  CX, AX
	IMUL3Q $10486, AX, CX
	SHRQ $20, CX
	MOVQ $0x0000007f0000007f, R8
	ANDQ R8, CX
	IMUL3Q $100, CX, R8
	SUBQ R8, AX
	SHLQ $16, AX
	ORQ  CX, AX
	IMUL3Q $103, AX, CX
	SHRQ $10, CX
	MOVQ $0x000f000f000f000f, R8
	ANDQ R8, CX
	LEAQ (CX)(CX*4), R8
	ADDQ R8, R8
	SUBQ R8, AX
	SHLQ $8, AX
	ORQ  CX, AX
	MOVQ $0x3030303030303030, R10
	ADDQ R10, AX            // dg

	// nd = nd0 less dg's trailing zeros (its leading zero bytes past ascii0)
	XORQ AX, R10
	MOVQ $-1, CX
	BSRQ R10, R10
	CMOVQEQ CX, R10
	NEGQ R10
	ADDQ $63, R10
	SHRQ $3, R10
	MOVQ R9, R8
	SUBQ R10, R8            // nd

	// l0: nine digits '1' and dg, eight dg, seven dg less its leading zero
	MOVQ AX, R10
	MOVQ AX, CX
	SHRQ $8, CX
	CMPQ DX, $10000000
	CMOVQCS CX, R10
	MOVQ AX, CX
	SHLQ $8, CX
	ORQ  $0x31, CX
	CMPQ DX, $100000000
	CMOVQCC CX, R10         // l0
	SHRQ $56, AX            // l1

	// dp = nd0 + k; from dp = 1 on w0 = l0, fp = dp+1, a = dp; else
	// w0 = "0.000000", fp = 2-dp, a = 0.
	ADDQ BX, R9             // dp
	MOVQ $0x3030303030302e30, DX
	MOVQ $2, BX
	SUBQ R9, BX
	XORL CX, CX
	LEAQ 1(R9), R14
	TESTQ R9, R9
	CMOVQGT R10, DX
	CMOVQGT R9, CX
	CMOVQGT R14, BX
	LEAQ (DI)(R11*1), R14   // o
	MOVQ DX, (R14)
	MOVL $1, DX
	CMPQ R9, DX
	CMOVQLT DX, R9
	MOVB $0x2e, (R14)(R9*1) // the point, at max(dp, 1)
	SHLQ $3, CX             // 8a
	SHRQ CX, AX, R10        // l0>>8a | l1<<(64-8a), l0 when a = 0
	MOVQ R10, (R14)(BX*1)
	MOVB AX, 8(R14)(BX*1)
	SHRQ $3, CX
	ADDQ BX, R8
	SUBQ CX, R8
	ADDQ R11, R8            // w + fp + nd - a
	ADDQ R8, DI
	MOVQ $1, comma+32(FP)
	ADDQ $8, R13
	CMPQ R13, R12
	JCS  put
	JMP  batch

put8:
	// The records' text in lanes, eight at a time (both halves of
	// recs, whatever is in the unused lanes): w0 at recs+128, the
	// second word at recs+256, and packed at recs+384 the point's
	// place, fp, the length from the digits' start (fp + nd - a) and
	// l1, a byte each. put's steps, the same values.
	MOVQ R13, R8
	CALL put8x8<>(SB)
	ADDQ $64, R8
	CALL put8x8<>(SB)
	MOVQ comma+32(FP), R14

puts:
	MOVL (R13), DX
	SHRL $31, DX            // sign
	MOVB $0x2c, (DI)
	MOVB $0x2d, (DI)(R14*1)
	ADDQ R14, DX            // w
	LEAQ (DI)(DX*1), R8     // o
	MOVQ 128(R13), AX
	MOVQ AX, (R8)           // w0
	MOVBQZX 384(R13), CX
	MOVB $0x2e, (R8)(CX*1)  // the point
	MOVBQZX 385(R13), CX    // fp
	MOVQ 256(R13), AX
	MOVQ AX, (R8)(CX*1)
	MOVBQZX 387(R13), AX
	MOVB AX, 8(R8)(CX*1)    // l1
	MOVBQZX 386(R13), CX
	LEAQ (R8)(CX*1), DI
	MOVL $1, R14
	ADDQ $8, R13
	CMPQ R13, R12
	JCS  puts
	MOVQ $1, comma+32(FP)
	JMP  batch

done:
	MOVQ DI, AX
	SUBQ dst+0(FP), AX
	MOVQ AX, nw+48(FP)
	MOVQ SI, AX
	SUBQ src+8(FP), AX
	SHRQ $2, AX
	MOVQ AX, nr+56(FP)
	CMPQ avx+40(FP), $0
	JEQ  ret
	VZEROUPPER
ret:
	RET

// put8x8 is put8's arithmetic for the eight records at R8, with the
// constants fast32 set in Z13 to Z31; it uses Z0 to Z12, K1 to K3.
TEXT put8x8<>(SB), NOSPLIT|NOFRAME, $0-0
	VMOVDQU64 (R8), Z0
	VPANDQ Z16, Z0, Z1          // d
	VPTESTMQ.BCST c8intflag<>(SB), Z0, K4 // an integer, its own d's digits
	VPSLLQ $24, Z0, Z2
	VPSRAQ $56, Z2, Z2          // k
	VPCMPUQ $5, Z17, Z1, K1     // d >= 1e7
	VPCMPUQ $5, Z18, Z1, K2     // d >= 1e8
	VMOVDQA64 Z19, Z3
	VPADDQ Z30, Z3, K1, Z3
	VPADDQ Z30, Z3, K2, Z3      // nd0
	VMOVDQA64 Z1, Z4
	VPSUBQ Z18, Z1, K2, Z4      // v = d mod 1e8

	// eight(v): 4-digit halves in dwords, 2-digit ones in words, digits
	VPMULUDQ Z20, Z4, Z5
	VPSRLQ $45, Z5, Z5          // v / 10^4
	VPMULUDQ Z21, Z5, Z6
	VPSUBQ Z6, Z4, Z4
	VPSLLQ $32, Z4, Z4
	VPORQ Z5, Z4, Z4
	VPMULLD Z22, Z4, Z5
	VPSRLD $20, Z5, Z5          // /100
	VPMULLD Z24, Z5, Z6
	VPSUBD Z6, Z4, Z4
	VPSLLD $16, Z4, Z4
	VPORD Z5, Z4, Z4
	VPMULLW Z25, Z4, Z5
	VPSRLW $10, Z5, Z5          // /10
	VPMULLW Z27, Z5, Z6
	VPSUBW Z6, Z4, Z4
	VPSLLW $8, Z4, Z4
	VPORQ Z5, Z4, Z4
	VPADDQ Z28, Z4, Z4          // dg

	VPXORQ Z28, Z4, Z5
	VPLZCNTQ Z5, Z5
	VPSRLQ $3, Z5, Z5
	VPSUBQ Z5, Z3, Z6           // nd

	VPSRLQ $8, Z4, Z7
	VMOVDQA64 Z4, K1, Z7
	VPSLLQ $8, Z4, Z8
	VPORQ Z31, Z8, Z8
	VMOVDQA64 Z8, K2, Z7        // l0
	VPSRLQ $56, Z4, Z8          // l1

	VPADDQ Z2, Z3, Z9           // dp
	VPCMPQ $6, Z14, Z9, K3      // dp > 0
	VMOVDQA64 Z29, Z10
	VMOVDQA64 Z7, K3, Z10       // w0
	VPSUBQ Z9, Z15, Z11
	VPADDQ Z30, Z9, K3, Z11     // fp
	VPMAXSQ Z14, Z9, Z12        // a
	VPMAXSQ Z30, Z9, Z2         // the point's place
	VPSLLQ $3, Z12, Z5
	VPSRLVQ Z5, Z7, Z0
	VPSUBQ Z5, Z13, Z5
	VPSLLVQ Z5, Z8, Z5
	VPORQ Z5, Z0, Z0            // l0>>8a | l1<<(64-8a)
	VPADDQ Z11, Z6, Z6
	VPSUBQ Z12, Z6, Z6          // fp + nd - a
	VPSLLQ $8, Z11, Z11
	VPORQ Z11, Z2, Z2
	VPSLLQ $16, Z6, Z6
	VPORQ Z6, Z2, Z2
	VPSLLQ $24, Z8, Z8
	VPORQ Z8, Z2, Z2
	KORTESTW K4, K4
	JEQ  store8
	// An integer's text: dg less its leading zeros (the lowest
	// nonzero byte of dg^ascii0, with byte 7 set for d = 0), nd = 8 -
	// those; the point and the second word go past it, overwritten.
	VPXORQ Z28, Z4, Z5
	VPORQ.BCST c8top<>(SB), Z5, Z5
	VPSUBQ Z5, Z14, Z6
	VPANDQ Z6, Z5, Z5
	VPLZCNTQ Z5, Z5
	VPSUBQ Z5, Z13, Z5
	VPSUBQ Z30, Z5, Z5          // 63 - lz: the lowest set bit
	VPSRLQ $3, Z5, Z5
	VPSLLQ $3, Z5, Z6
	VPSRLVQ Z6, Z4, K4, Z10     // w0
	VPSUBQ Z5, Z19, Z5
	VPADDQ Z30, Z5, Z5          // nd = 8 - the leading zeros
	VPSLLQ $8, Z5, Z6
	VPORQ Z6, Z5, Z6
	VPSLLQ $8, Z6, Z6
	VPORQ Z5, Z6, K4, Z2        // nd, nd, nd, 0

store8:
	VMOVDQU64 Z10, 128(R8)
	VMOVDQU64 Z0, 256(R8)
	VMOVDQU64 Z2, 384(R8)
	RET

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func xgetbv0() (eax, edx uint32)
TEXT ·xgetbv0(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET
