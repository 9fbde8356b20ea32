#include "textflag.h"

// func maxIntoVec(dst, a, b *uint32, n int)
// 32 entries a pass, then 8, then one at a time; BX is the byte offset.
// Every pass loads its a and b entries before it stores into dst, so dst
// may be a or b.
TEXT ·maxIntoVec(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	SHLQ $2, CX
	XORQ BX, BX
	MOVQ CX, R9
	ANDQ $-128, R9
	JZ   eight

block:
	VMOVDQU (SI)(BX*1), Y0
	VMOVDQU 32(SI)(BX*1), Y1
	VMOVDQU 64(SI)(BX*1), Y2
	VMOVDQU 96(SI)(BX*1), Y3
	VPMAXUD (DX)(BX*1), Y0, Y0
	VPMAXUD 32(DX)(BX*1), Y1, Y1
	VPMAXUD 64(DX)(BX*1), Y2, Y2
	VPMAXUD 96(DX)(BX*1), Y3, Y3
	VMOVDQU Y0, (DI)(BX*1)
	VMOVDQU Y1, 32(DI)(BX*1)
	VMOVDQU Y2, 64(DI)(BX*1)
	VMOVDQU Y3, 96(DI)(BX*1)
	ADDQ $128, BX
	CMPQ BX, R9
	JB   block

eight:
	MOVQ CX, R9
	ANDQ $-32, R9

eightLoop:
	CMPQ BX, R9
	JAE  one
	VMOVDQU (SI)(BX*1), Y0
	VPMAXUD (DX)(BX*1), Y0, Y0
	VMOVDQU Y0, (DI)(BX*1)
	ADDQ $32, BX
	JMP  eightLoop

one:
	VZEROUPPER

oneLoop:
	CMPQ BX, CX
	JAE  done
	MOVL (SI)(BX*1), AX
	MOVL (DX)(BX*1), R8
	CMPL AX, R8
	CMOVLCS R8, AX
	MOVL AX, (DI)(BX*1)
	ADDQ $4, BX
	JMP  oneLoop

done:
	RET

// func cpuAVX2() bool
TEXT ·cpuAVX2(SB), NOSPLIT, $0-1
	MOVB $0, ret+0(FP)
	XORL AX, AX
	XORL CX, CX
	CPUID
	CMPL AX, $7
	JB   no
	MOVL $1, AX
	XORL CX, CX
	CPUID
	ANDL $0x18000000, CX
	CMPL CX, $0x18000000
	JNE  no
	XORL CX, CX
	XGETBV
	ANDL $6, AX
	CMPL AX, $6
	JNE  no
	MOVL $7, AX
	XORL CX, CX
	CPUID
	SHRL $5, BX
	ANDL $1, BX
	MOVB BX, ret+0(FP)

no:
	RET
