package check

import "pldworkbench/engine/diag"

// Code is a stable diagnostic code. The UI links each one to the lesson
// that explains it, so a code is never renumbered or reused: retire it and
// add a new one.
type Code string

// Codes, by family (E00xx belong to engine/syntax and E03xx to engine/meta):
// E04xx statements, names and expressions; E01xx levels,
// operation names and dispatch; E02xx signatures, types and shapes; E025x
// collectives; W03xx warnings.
const (
	// Statements, names, expressions.
	ErrUnsupportedStmt Code = "E0401"
	ErrUnsupportedExpr Code = "E0402"
	ErrUndefined       Code = "E0403"
	ErrMaybeUndefined  Code = "E0404"
	ErrCompileTime     Code = "E0405"
	ErrNotRuntime      Code = "E0406"
	ErrAssignTarget    Code = "E0407"
	ErrTypeChange      Code = "E0408"
	ErrReturnPlace     Code = "E0409"
	ErrChainedCompare  Code = "E0410"
	ErrForIter         Code = "E0411"
	ErrEntry           Code = "E0412"
	ErrCondition       Code = "E0413"
	ErrNoValue         Code = "E0414"
	ErrLoopControl     Code = "E0415"
	ErrJitWhile        Code = "E0416"
	ErrBreakOuter      Code = "E0417"
	ErrBreakCarried    Code = "E0418"

	// Levels, operation names, dispatch.
	ErrLevel         Code = "E0101"
	ErrUnknownOp     Code = "E0102"
	ErrNamespace     Code = "E0103"
	ErrDeviceKwarg   Code = "E0104"
	ErrHostCallsKern Code = "E0105"
	ErrMissingDevice Code = "E0106"
	ErrDeviceValue   Code = "E0107"
	// E0108 (a dispatch loop over fewer ranks than the program's) is
	// retired: PyPTO dispatches a device subset, whose window buffers form
	// a communication domain of those devices (domains.go).
	ErrCallLevel   Code = "E0109"
	ErrNotCallable Code = "E0110"
	ErrRecursion   Code = "E0111"
	ErrParam       Code = "E0112"
	// E0113 (a scalar parameter before a tensor) is retired: PyPTO compiles
	// that kernel and its runtime refuses the dispatch, so the emulator
	// reports it at run time (E0518).
	ErrUnsupportedOp Code = "E0114"

	// Signatures, types, shapes.
	ErrArgCount        Code = "E0201"
	ErrMissingArg      Code = "E0202"
	ErrBadKeyword      Code = "E0203"
	ErrMissingKwOnly   Code = "E0204"
	ErrArgKind         Code = "E0205"
	ErrNeedDistributed Code = "E0206"
	ErrEnum            Code = "E0207"
	ErrIndexCount      Code = "E0208"
	ErrDType           Code = "E0209"
	ErrShape           Code = "E0210"
	ErrBounds          Code = "E0211"
	ErrNeedConst       Code = "E0212"
	ErrMixedArith      Code = "E0213"
	ErrFloatInCore     Code = "E0214"
	ErrCast            Code = "E0215"
	ErrRegionArgs      Code = "E0216"
	ErrChunks          Code = "E0217"
	ErrAllocForm       Code = "E0218"
	ErrAllocPlace      Code = "E0219"
	ErrAllocName       Code = "E0220"
	ErrDeadAlloc       Code = "E0221"
	ErrWindowBuf       Code = "E0222"
	ErrWindowSize      Code = "E0223"
	ErrHostIndex       Code = "E0224"
	ErrCallArg         Code = "E0225"
	ErrReturnType      Code = "E0226"
	ErrAnnotation      Code = "E0227"
	ErrElemDType       Code = "E0228"
	ErrTrueDiv         Code = "E0229"
	ErrRange           Code = "E0230"
	ErrJitDynWindow    Code = "E0231"
	ErrJitWorldWindow  Code = "E0232"
	ErrInOutUse        Code = "E0233"
	ErrHostView        Code = "E0234"
	ErrHostDim         Code = "E0235"
	ErrHostArrayArg    Code = "E0236"
	ErrDimArith        Code = "E0240"
	ErrArrayOp         Code = "E0241"
	ErrRowReduce       Code = "E0242"
	ErrReshape         Code = "E0243"
	ErrJitDynValue     Code = "E0244"
	// Tasks and deferred completion (tasks.go).
	ErrDeferPlace Code = "E0245"
	ErrDeferCmp   Code = "E0246"
	ErrDeferAfter Code = "E0247"
	ErrDeviceStep Code = "E0248"
	ErrReassign   Code = "E0249"

	// Collectives.
	ErrNeedSignal    Code = "E0250"
	ErrSignalDType   Code = "E0251"
	ErrMode          Code = "E0252"
	ErrSignalShape   Code = "E0253"
	ErrCollDType     Code = "E0254"
	ErrReduceOp      Code = "E0255"
	ErrRoot          Code = "E0256"
	ErrPlainSource   Code = "E0257"
	ErrSameOperand   Code = "E0258"
	ErrCoreNum       Code = "E0259"
	ErrHostInLoop    Code = "E0260"
	ErrCollShape     Code = "E0261"
	ErrHostCollRanks Code = "E0262"
	ErrBarrierCover  Code = "E0263"

	// Warnings.
	WarnTileAlign    Code = "W0301"
	WarnHostSigReuse Code = "W0302"
	WarnSequential   Code = "W0303"
	WarnSubWorker    Code = "W0304"
	WarnAtPlacement  Code = "W0305"
	// W0306 (PyPTO cannot yet compile a HOST allreduce without a signal) is
	// retired: the form is an error now, E0250, as PyPTO refuses it.
	WarnHostRows     Code = "W0307"
	WarnTaskOrder    Code = "W0308"
	WarnSubWorkerRun Code = "W0309"
	WarnArrayArg     Code = "W0310"
	WarnJitWhile     Code = "W0312"
	WarnLoopElse     Code = "W0313"
)

// CodeInfo describes one code: its title (what the lesson index shows) and
// the hint a diagnostic carries when the site that reports it has nothing
// more specific to say.
type CodeInfo struct {
	Code     Code
	Severity diag.Severity
	Title    string
	Hint     string
}

// Codes lists every code the checker reports, in code order.
var Codes = []CodeInfo{
	{ErrUnsupportedStmt, diag.Error, "statement not allowed in a DSL function",
		"DSL bodies use assignments, calls, if, for over pl.range, while, break, continue and return; move other Python to the module or a factory"},
	{ErrUnsupportedExpr, diag.Error, "expression not allowed in a DSL function",
		"compute it at module level or in the factory, then use the name in the DSL body"},
	{ErrUndefined, diag.Error, "undefined name",
		"define it before use: a parameter, an earlier assignment, or a module/closure constant"},
	{ErrMaybeUndefined, diag.Error, "name may be undefined here",
		"assign it before the if or loop, so it has a value on every path"},
	{ErrCompileTime, diag.Error, "compile-time evaluation failed",
		"this expression only uses module or closure constants, so Python evaluates it while compiling"},
	{ErrNotRuntime, diag.Error, "compile-time object used as a run-time value",
		"only numbers, tensors, tiles and scalars exist on the device"},
	{ErrAssignTarget, diag.Error, "assignment target must be a plain name",
		"write one name on the left: x = ..."},
	{ErrTypeChange, diag.Error, "name changes type inside a branch or loop",
		"use a new name for the value of the other type"},
	{ErrReturnPlace, diag.Error, "return must be the last statement of the function",
		"compute the result into a name and return it once, at the end"},
	{ErrChainedCompare, diag.Error, "chained comparison",
		"split it: a < b and b < c"},
	{ErrForIter, diag.Error, "for loops iterate over pl.range",
		"write for i in pl.range(n): (or pl.range(start, stop[, step]))"},
	{ErrEntry, diag.Error, "bad entry point",
		"give the host orchestrator (a @pl.jit.host function or a method declared with level=pl.Level.HOST), or the chip orchestration of a program with no HOST level"},
	{ErrCondition, diag.Error, "if condition is not a comparison",
		"compare explicitly: if x != 0:"},
	{ErrNoValue, diag.Error, "operation returns no value",
		"call it as a statement on its own line"},
	{ErrLoopControl, diag.Error, "break or continue with no loop to leave",
		"break and continue leave a pl.range or while loop; a pl.unroll or pl.parallel loop runs every iteration, so guard the rest of its body with an if"},

	{ErrLevel, diag.Error, "operation not allowed at this level",
		"host: windows and dispatch; orchestration: forward to the kernel; InCore: compute, signals and RMA"},
	{ErrUnknownOp, diag.Error, "unknown operation",
		"check the spelling against the pl and pld operations the workbench supports"},
	{ErrNamespace, diag.Error, "operation in the wrong namespace",
		"notify, wait, put, get and the collectives need their three-segment path: pld.system.*, pld.tensor.*, pld.tile.*"},
	{ErrDeviceKwarg, diag.Error, "device= on a call that is not a host dispatch",
		"only the host orchestrator passes device=, and only when it calls an orchestration function"},
	{ErrHostCallsKern, diag.Error, "host dispatches a kernel directly",
		"dispatch the orchestration wrapper (@pl.jit / FunctionType.Orchestration), which calls the kernel"},
	{ErrMissingDevice, diag.Error, "host dispatch without device=",
		"pass the rank the call runs on: wrapper(..., device=r)"},
	{ErrDeviceValue, diag.Error, "bad device=",
		"use the loop variable of for r in pl.range(pld.world_size()):, or a constant rank"},
	{ErrCallLevel, diag.Error, "call between these levels is not allowed",
		"host calls orchestration (with device=), orchestration calls InCore kernels, kernels call nothing"},
	{ErrNotCallable, diag.Error, "not callable on the device",
		"a DSL body may call pl/pld operations and other DSL functions; Python helpers only on compile-time values"},
	{ErrRecursion, diag.Error, "recursive DSL call",
		"DSL functions cannot call themselves"},
	{ErrParam, diag.Error, "bad parameter",
		"annotate every parameter with its type: pl.Tensor[[...], dtype], pld.DistributedTensor[[...], dtype] or pl.Scalar[dtype]"},
	{ErrUnsupportedOp, diag.Error, "operation not supported by the workbench",
		"the workbench runs the pl/pld subset the distributed tutorials use"},

	{ErrArgCount, diag.Error, "too many arguments", "compare the call with the operation's signature"},
	{ErrMissingArg, diag.Error, "missing argument", "compare the call with the operation's signature"},
	{ErrBadKeyword, diag.Error, "unknown or repeated keyword argument", "compare the call with the operation's signature"},
	{ErrMissingKwOnly, diag.Error, "missing required keyword argument",
		"this keyword has no default: say which one you mean"},
	{ErrArgKind, diag.Error, "argument of the wrong kind",
		"tensors live in global memory, tiles on chip (pl.load makes one), scalars are single numbers"},
	{ErrNeedDistributed, diag.Error, "window view required",
		"peers can only reach window memory: annotate the parameter as pld.DistributedTensor[[...], dtype] and pass a pld.window view"},
	{ErrEnum, diag.Error, "wrong enum value", "use a member of the enum the parameter names"},
	{ErrIndexCount, diag.Error, "wrong number of indices",
		"give one index per dimension of the tensor"},
	{ErrDType, diag.Error, "data type mismatch", "make both sides the same dtype"},
	{ErrShape, diag.Error, "shape mismatch", "make the shapes agree"},
	{ErrBounds, diag.Error, "region out of bounds", "keep offset + extent within every dimension"},
	{ErrNeedConst, diag.Error, "compile-time constant required",
		"use a literal or a module/closure constant here, not a run-time value"},
	{ErrMixedArith, diag.Error, "int and float mixed in scalar arithmetic",
		"convert one side with pl.cast(x, target_type=...) first"},
	{ErrFloatInCore, diag.Error, "float scalar arithmetic in an InCore kernel",
		"AI cores reject scalar float math (arith.addf is illegal there): fold the constant into a vector op such as pl.add(tile, s)"},
	{ErrCast, diag.Error, "unsupported cast",
		"cast between float and INDEX is not supported: cast the INT32 value (e.g. the parameter) instead of an INDEX expression"},
	{ErrRegionArgs, diag.Error, "region arguments must be given together",
		"give dst_offsets, src_offsets and shape all three, or none for a whole-tensor copy"},
	{ErrChunks, diag.Error, "bad chunking arguments",
		"chunk_rows and chunk_cols are non-negative ints; pipeline=True needs both > 0"},
	{ErrAllocForm, diag.Error, "bad alloc_window_buffer arguments",
		"pld.alloc_window_buffer(nbytes) or pld.alloc_window_buffer([d0, d1, ...], dtype=pl.FP32)"},
	{ErrAllocPlace, diag.Error, "alloc_window_buffer must be assigned to a name",
		"write buf = pld.alloc_window_buffer(...) on its own line; the name names the buffer"},
	{ErrAllocName, diag.Error, "window buffer name used twice",
		"give every pld.alloc_window_buffer its own variable name"},
	{ErrDeadAlloc, diag.Error, "dead alloc",
		"view the buffer with pld.window inside the dispatch loop and pass the view to the device= call"},
	{ErrWindowBuf, diag.Error, "pld.window needs a window buffer",
		"pass the name bound by pld.alloc_window_buffer"},
	{ErrWindowSize, diag.Error, "view larger than its buffer",
		"allocate enough bytes: prod(shape) * dtype.get_byte(), or use the [shape], dtype= form"},
	{ErrHostIndex, diag.Error, "bad tensor indexing",
		"at the host, x[r] picks rank r's slice of a host tensor; elsewhere use pl.load or pl.read"},
	{ErrCallArg, diag.Error, "argument does not match the parameter",
		"pass a value of the declared kind, dtype and shape"},
	{ErrReturnType, diag.Error, "return value does not match the declared result",
		"return a value of the annotated type, or fix the annotation"},
	{ErrAnnotation, diag.Error, "bad type annotation",
		"pl.Tensor[[d0, d1], pl.FP32], pld.DistributedTensor[[...], dtype], pl.Scalar[pl.INT32], wrapped in pl.Out[...] or pl.InOut[...] for outputs"},
	{ErrElemDType, diag.Error, "element type a distributed program cannot hold",
		"hold the values as FP16, BF16 or FP32, or keep their raw bytes in INT8/UINT8 elements"},
	{ErrTrueDiv, diag.Error, "/ on integer scalars",
		"use // for integer division"},
	{ErrRange, diag.Error, "bad pl.range arguments",
		"pl.range(stop), pl.range(start, stop) or pl.range(start, stop, step) with integer bounds and a non-zero step"},
	{ErrJitDynWindow, diag.Error, "pl.dynamic dimension in a @pl.jit window shape or buffer size",
		"PyPTO's distributed codegen cannot size a window or a buffer from a dynamic dimension: give it a constant shape (a module constant such as MAX_RANKS), or build the program with @pl.program for a given rank count"},
	{ErrJitWorldWindow, diag.Error, "run-time value in a @pl.jit window shape",
		"@pl.jit infers every window's metadata before the world size is known: give the view a constant shape, or build the program with @pl.program, where [pld.world_size(), 1] is allowed"},
	{ErrInOutUse, diag.Error, "variable read after it was passed as InOut/Out",
		"the call writes the tensor and returns it: assign the result (y = self.kernel(x, y)) and read that name, not the one from before the call"},
	{ErrHostView, diag.Error, "HOST collective operand is not a window view",
		"view the buffer again right before the call (sig = pld.window(sig_buf, ...)); PyPTO finds a collective's window and devices through the view"},
	{ErrHostDim, diag.Error, "pl.dynamic dimension the host cannot recover",
		"give one host tensor parameter the dimension as M, M + c, M - c, M * c or M // c: PyPTO's host code reads M back from that tensor's shape"},
	{ErrDimArith, diag.Error, "float in pl.dynamic dimension arithmetic",
		"a dimension is an integer: write M * 2, M // 2 or M + N, with int constants"},
	{ErrHostArrayArg, diag.Error, "pl.Array passed by a host dispatch",
		"the host may build a pl.array and read its elements, but a dispatch carries tensors and scalars only: pass the element you need (a[r]) as a pl.Scalar parameter, or create the array in the orchestration function"},
	{ErrArrayOp, diag.Error, "pl.array rule",
		"an array holds a compile-time number of integer (or BOOL) elements: pl.array.create(16, pl.INT32); write it with values of its dtype"},
	{ErrRowReduce, diag.Error, "row reduction operands do not fit",
		"pass the tile and a scratch tile of its dtype and shape: pl.tile.row_sum(t, pl.tile.create(shape, dtype=...))"},
	{ErrReshape, diag.Error, "reshape changes the element count",
		"the new shape must hold as many elements as the tile: [R, 1] can become [1, R]"},
	{ErrJitDynValue, diag.Error, "pl.dynamic dimension used as a value in a @pl.jit body",
		"use the @pl.program form, where pl.range(M) is allowed, or pass the count as a pl.Scalar parameter"},

	{ErrNeedSignal, diag.Error, "collective needs an explicit signal",
		"allocate an INT32 signal window and pass its view: pld.tensor.allreduce(data, signal, ...)"},
	{ErrSignalDType, diag.Error, "signal must be INT32",
		"allocate the signal window with dtype=pl.INT32"},
	{ErrMode, diag.Error, "unknown collective mode", `mode is "mesh" or "ring"`},
	{ErrSignalShape, diag.Error, "signal shape does not fit the collective",
		"mesh collectives and barriers take [nr, 1]; a ring allreduce takes [2*(nr-1), nr]; give each its own window"},
	{ErrCollDType, diag.Error, "collective data type not supported", "use FP32 (or FP16 where allowed)"},
	{ErrReduceOp, diag.Error, "reduce op not supported here", "use pld.ReduceOp.Sum"},
	{ErrRoot, diag.Error, "bad broadcast root",
		"root= is a compile-time Python int naming a rank: a literal or a module/closure constant"},
	{ErrPlainSource, diag.Error, "wrong kind of source tensor",
		"InCore allgather/all_to_all read their source from a plain pl.Tensor parameter, not a tile or a window"},
	{ErrSameOperand, diag.Error, "source and target must be different",
		"give the result its own window: pushes would overwrite chunks not yet sent"},
	{ErrCoreNum, diag.Error, "bad core_num",
		"core_num is a positive int; InCore calls use 1; the host form allows up to the platform's AIV cores"},
	{ErrHostInLoop, diag.Error, "host allreduce without a signal inside a loop",
		"pass an explicit signal window, allocated before the loop: it is reusable, as every HOST builtin clears its signal before it returns; or call the allreduce outside the loop"},
	{ErrCollShape, diag.Error, "collective operand shapes do not fit",
		"targets hold one row per rank: [nr, SIZE]; sources hold one rank's row(s)"},
	{ErrHostCollRanks, diag.Error, "too many ranks for a host collective",
		"the prebuilt HOST kernels handle at most 16 ranks; use the InCore form"},

	{ErrBarrierCover, diag.Error, "HOST barrier signal reaches no dispatch",
		"PyPTO places a HOST barrier on the chips its signal window is dispatched to: pass a pld.window view of the signal's buffer (a fresh view, not the barrier's result) to the device= dispatches of the ranks that meet at the barrier (a barrier on a window no kernel touches orders nothing)"},
	{ErrDeferPlace, diag.Error, "pld.system.defer_wait outside a waiter task",
		"put the deferred wait in a dedicated task of the chip orchestration, `with pl.at(level=pl.Level.CORE_GROUP) as wait_tid:`, and give the work that needs the signal its own task with deps=[wait_tid]"},
	{ErrDeferCmp, diag.Error, "pld.system.defer_wait compares with Ge only",
		"a deferred completion condition is a counter reaching a value: write cmp=pld.WaitCmp.Ge"},
	{ErrDeferAfter, diag.Error, "payload operation in a deferred waiter",
		"the waiter's kernel is never resumed when the condition holds: move the loads, stores and signals that need it into a task with deps=[wait_tid]"},
	{ErrDeviceStep, diag.Error, "device= of a loop with a step",
		"dispatch from a loop with step 1, pl.range(start, stop): its devices are the range (a subset of the ranks forms its own communication domain)"},
	{ErrReassign, diag.Error, "name rebound to a value of another type",
		"give the value of the other type its own name: PyPTO keeps one variable per name (a @pl.jit function renames a rebinding only where the name was first assigned)"},
	{WarnTaskOrder, diag.Warning, "tasks run one at a time here",
		"PyPTO's runtime runs a scope's independent tasks at once on free cores; the emulator runs them in an order their deps= allow (a deferred waiter and its dependents last), so it shows no overlap, counts no cores and reports no race between tasks that no deps= orders: order dependent tasks with deps="},
	{WarnHostSigReuse, diag.Warning, "HOST collective signal shared with a kernel",
		"a HOST builtin takes back only the credits its own barriers added; a kernel writing the same cells (a hand-rolled barrier's counters stay set) makes the builtin's waits pass early: give the kernel its own signal window"},
	{WarnSubWorker, diag.Warning, "a SubWorker callback is not run here",
		"a pl.Role.SubWorker function is plain Python (torch, asserts) the host runs between dispatches; the emulator runs the DSL functions only, so the callback's checks do not happen in a run: check the outputs instead"},
	{WarnSubWorkerRun, diag.Warning, "a SubWorker callback runs as DSL here",
		"the callback is whole-tensor arithmetic, which the emulator runs translated to pl.add/sub/mul and pl.assemble as a chip task on device 0; PyPTO runs the Python on the host, so the trace shows a device task where the real run has host work"},
	{WarnAtPlacement, diag.Warning, "pl.at(CHIP) scopes run on device 0 here",
		"PyPTO outlines each pl.at(level=pl.Level.CHIP) scope into a chip task its runtime places on any chip; the emulator runs them all on device 0, which gives the same outputs when the scopes touch host tensors only, but shows no placement: dispatch with device= where the chip matters"},
	{WarnSequential, diag.Warning, "pl.parallel runs its iterations one after another here",
		"PyPTO may run a pl.parallel loop's iterations at once; the emulator runs them in order, so it neither times them as concurrent nor reports a race between two iterations: keep iterations independent"},
	{WarnHostRows, diag.Warning, "host index past the tensor's rows",
		"PyPTO compiles this, and the run reads or writes past the tensor; size the leading dimension to the rank count (or use pl.dynamic)"},
	{WarnArrayArg, diag.Warning, "a pl.Array passed to a kernel",
		"PyPTO compiles the call, but its orchestration code hands the task the array's C-stack address as a scalar (add_scalar(rows)) and the kernel's PTO declares the parameter a pointer of the tensors' dtype: the generated code does not carry the values to the core; the emulator passes them. To take the program to PyPTO, create and fill the array in the kernel itself, or pass its elements as pl.Scalar parameters"},
	{ErrJitWhile, diag.Error, "name read after a @pl.jit while loop that rebinds it",
		"carry the value with pl.while_(init_values=...) and pl.yield_, or write the function as a @pl.program method"},
	{ErrBreakOuter, diag.Error, "PyPTO cannot yet compile a break out of a kernel's outermost loop",
		"PyPTO's parser accepts the break, but at this commit its InCore passes stop on the flag it adds for it; a break from a nested loop compiles. Guard the rest of the loop's body with an if instead of breaking, or move the loop inside another"},
	{ErrBreakCarried, diag.Error, "PyPTO cannot yet compile a break in a kernel loop that carries values",
		"PyPTO's parser accepts the break, but at this commit ConvertToSSA gives the if around it one yielded value where the loop carries more, and SSA verification stops the build; a break in a plain loop (one without init_values) nested in the carried one compiles. Guard the rest of the body with an if instead of breaking"},
	{WarnJitWhile, diag.Warning, "a @pl.jit while loop's rebinding is renamed by PyPTO",
		"PyPTO's @pl.jit renamer walks a while body as straight-line code, so the loop never sees its own updates there (a counter the condition reads never changes, and the loop does not end); the emulator runs it as Python would. Carry the value with pl.while_(init_values=...), or write the function as a @pl.program method"},
	{WarnLoopElse, diag.Warning, "a loop's else suite is dropped",
		"PyPTO's parser reads a loop's body and ignores its else suite, so its statements never run; put them after the loop (guarded by a flag the loop sets, if they must run only when the loop was not broken)"},
	{WarnTileAlign, diag.Warning, "tile row not 32-byte aligned",
		"make the tile's contiguous extent a multiple of 32 bytes (e.g. 8 FP32 values); the emulator runs it, hardware rejects it"},
}

// codeIndex maps a code to its row of Codes.
func codeInfo(c Code) CodeInfo {
	for _, ci := range Codes {
		if ci.Code == c {
			return ci
		}
	}
	return CodeInfo{Code: c, Severity: diag.Error}
}
