package check

// Mirror says which check of PyPTO's own compiler (or runtime) one of our
// codes mirrors: the workbench refuses a program where PyPTO does, at the
// same stage, with a clearer message. Where is a path in the upstream
// repository (hw-native-sys/pypto at Commit; runtime/ is its simpler
// submodule), Check the function or rule there, Says the message PyPTO
// gives, so a learner who meets it on a real toolchain can map it back.
type Mirror struct {
	Code  Code
	Where string
	Check string
	Says  string
}

// MirrorCommit is the upstream commit the Mirrors table was read from.
const MirrorCommit = "e2d0f78ae"

// Mirrors is the table of our codes and the upstream checks they mirror,
// in code order. docs/pypto-checks.md is rendered from it (go test
// ./engine/check -run TestMirrorsDoc -update).
var Mirrors = []Mirror{
	{ErrHostCallsKern, "python/pypto/language/parser/ast_parser.py", "_validate_kernel_call_kwargs",
		"Function 'scale_kernel' does not accept keyword argument 'device'"},
	{ErrDeviceValue, "src/ir/transforms/materialize_comm_domain_scopes_pass.cpp; src/codegen/distributed/distributed_codegen.cpp",
		"ResolveDeviceDescriptor (a host with window buffers); DistributedCodegen::ResolveRankExpr",
		"MaterializeCommDomainScopes: device= expression must be ConstInt or the induction var of pl.range; ... device= attr must be ConstInt or Var (N3 parser invariant), got Sub"},
	{ErrBounds, "src/ir/op/type_inference.cpp (from tile.load in src/ir/op/tile_ops/memory.cpp and pld.tile.remote_load in src/ir/op/distributed/remote_load.cpp)", "CheckWindowReadDimBounds, InferWindowReadValidShape (offset + extent <= source, refused where its analyzer disproves it; an offset known only at run time is bounded then)",
		"tile.load reads past the end of dimension 0: offset 0 + extent 4 exceeds the source extent M % 4"},
	{ErrAllocName, "python/pypto/language/parser/ast_parser.py", "_parse_alloc_window_buffer_assignment",
		"pld.tensor.alloc_window_buffer name 'data_buf' is already declared in this program"},
	{ErrElemDType, "python/pypto/ir/compiled_program.py; src/codegen/pto/pto_codegen.cpp",
		"_DATATYPE_TO_TORCH (no runtime mapping for FP8/FP4); PTOCodegen::EmitCommRemoteOffsetInline",
		"Distributed remote ops only support byte-sized element types"},
	{ErrJitDynWindow, "src/codegen/distributed/distributed_codegen.cpp", "DistributedCodegen::VisitExpr_ (unhandled tensor op)",
		"DistributedCodegen does not support op 'tensor.dim' in function '...'"},
	{ErrJitWorldWindow, "python/pypto/jit/specializer.py", "_build_params",
		"@pl.jit: missing inferred tensor metadata for parameter 'signal'"},
	{ErrInOutUse, "src/ir/transforms/utils/stmt_dependency_analysis.cpp; src/ir/verifier/verify_inout_use.cpp",
		"InOutUseDisciplineChecker (property InOutUseValid)",
		"variable 'data' was passed as InOut/Out at ...; read the post-call return value instead of the pre-call variable"},
	{ErrHostView, "src/ir/transforms/materialize_comm_domain_scopes_pass.cpp", "ResolveWindowAlloc",
		"MaterializeCommDomainScopes: pld.tensor.barrier signal must be produced by pld.tensor.window"},
	{ErrHostDim, "src/codegen/distributed/distributed_codegen.cpp", "EmitHostOrchDynamicDimBindings, InvertShapeDimForVar",
		"Cannot recover dynamic dimension 'M' for host-orchestration codegen: it only appears inside non-invertible tensor-shape expressions"},
	{ErrHostArrayArg, "src/codegen/distributed/distributed_codegen.cpp", "EmitCallToWorker (an argument of ArrayType)",
		"EmitCallToWorker: unsupported call arg type at index 2: ArrayType"},
	{ErrDimArith, "include/pypto/ir/scalar_expr.h", "the binary scalar operators' dtype-category check (a composite shape dimension is a scalar expression)",
		"Operator 'mul' requires same numeric dtype category, got index and fp32"},
	{ErrArrayOp, "src/ir/op/array_ops/memory.cpp", "DeduceArrayCreateType, DeduceArrayUpdateElementType",
		"array.create dtype must be integer, BOOL, or TASK_ID, got FP32"},
	{ErrRowReduce, "src/ir/op/tile_ops/reduction.cpp", "DeduceTileRowReductionType",
		"The operator tile.row_sum requires tmp_tile dtype to match input dtype, ..."},
	{ErrReshape, "src/ir/op/tile_ops/transform.cpp", "DeduceTileReshapeType",
		"tile.reshape: cannot reshape tile of size 1536 into shape with size 192"},
	{ErrJitDynValue, "python/pypto/language/parser/ast_parser.py; python/pypto/jit/specializer.py", "parse_name (the jit specializer keeps pl.dynamic names in annotations only)",
		"Undefined variable 'M'"},
	{ErrDeferPlace, "src/ir/transforms/utils/scope_outline_utils.cpp; src/ir/transforms/expand_mixed_kernel_pass.cpp",
		"outlining a pl.at scope with a deferred wait; ExpandMixedKernel's waiter audit",
		"pl.at(...) containing pld.system.defer_wait cannot use allow_early_resolve=True; ... pld.system.defer_wait in function '...' bypasses the deferred-waiter task contract"},
	{ErrDeferCmp, "src/ir/op/distributed/system.cpp", "DeduceDeferWaitType",
		"pld.system.defer_wait only supports WaitCmp.Ge (got int 0)"},
	{ErrDeferAfter, "include/pypto/ir/transforms/utils/deferred_wait_contract.h", "DeferredWaitContractValidator",
		"deferred waiter scalar bookkeeping supports only a pre-registration tensor.read call; unexpected operation 'tile.load'"},
	{ErrDeviceStep, "src/ir/transforms/materialize_comm_domain_scopes_pass.cpp", "ResolveDeviceDescriptor",
		"MaterializeCommDomainScopes: device=r over a non-unit-step loop is not supported (step=2)"},
	{ErrReassign, "python/pypto/language/parser/ast_parser.py; python/pypto/jit/specializer.py",
		"_assign_or_let (one Var per name, #642); the jit specializer's _visit_simple_assign renames a rebinding only at the depth of the name's first assignment",
		"Cannot reassign 't' with a different type: was pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec], got pl.Tile[[2, 8], pl.FP32, pl.Mem.Vec]"},
	// Not a rule upstream: PyPTO documents the signal-less HOST allreduce,
	// and only its full compile fails, with an internal error.
	{ErrNeedSignal, "src/codegen/distributed/distributed_codegen.cpp", "DistributedCodegen::ScopeForWindowBuffer (an INTERNAL_CHECK, not a rule)",
		"WindowBuffer '__allreduce_signal_buf_0' is not a slot of any open CommDomainScopeStmt"},
	{ErrSignalDType, "src/ir/op/distributed/collective.cpp", "DeduceBuiltinTensorAllReduceType and the other Deduce*Type",
		"signal dtype must be INT32"},
	{ErrSignalShape, "src/ir/op/distributed/collective.cpp", "DeduceBuiltinTensorAllReduceRingType, DeduceTensorAllGatherType, ...",
		"pld.tensor.allreduce mode=ring signal shape[0] (...) must equal 2*(NR-1)"},
	{ErrReduceOp, "src/ir/op/distributed/collective.cpp", "CheckSupportedAllReduceBuiltinVariant",
		"... op must be ReduceOp.Sum, Max, Min, or Prod"},
	{ErrCoreNum, "src/ir/transforms/lower_host_tensor_collectives_pass.cpp", "CheckAllReduceCoreCapacity",
		"pld.tensor.allreduce core_num (64) exceeds the backend AIV core count (48)"},
	{ErrHostCollRanks, "src/ir/transforms/lower_host_tensor_collectives_pass.cpp", "CheckAllReduceSignalCapacity (kMaxSupportedRanks = 16)",
		"LowerHostTensorCollectives: ring allreduce requires 16 or fewer participating devices"},
	{ErrBarrierCover, "src/ir/transforms/materialize_comm_domain_scopes_pass.cpp", "ProcessHostOrch (barrier-only collective consumer)",
		"MaterializeCommDomainScopes: pld.tensor.barrier signal buffer has no inferred comm-domain coverage"},
	{ErrUnsupportedStmt, "python/pypto/language/parser/ast_parser.py", "parse_statement (it has no case for an augmented assignment, x += y)",
		"Unsupported statement type: AugAssign"},
	// An assignment in an if or loop that changes a name's type from
	// outside it: neither form renames it (E0249 has the rest of the rule).
	{ErrTypeChange, "python/pypto/language/parser/ast_parser.py", "_assign_or_let (one Var per name, #642)",
		"Cannot reassign 'x' with a different type: was pl.Tensor[[1, 8], pl.FP32], got pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec]"},
	{ErrCondition, "python/pypto/language/parser/ast_parser.py", "parse_while_loop: _check_condition_is_bool",
		"while condition must be a Bool-typed scalar expression, got pl.Scalar[pl.INDEX]"},
	{ErrLoopControl, "python/pypto/language/parser/ast_parser.py", "_validate_loop_control (the innermost loop's kind)",
		"'break' not supported in unrolled loops; 'continue' not supported in parallel loops"},
	{ErrJitWhile, "python/pypto/jit/specializer.py; the SSA verifier after ConvertToSSA",
		"the renamer has no visit_While, so _visit_simple_assign renames a rebinding in a while body at the loop's own depth",
		"Variable 'k' used outside its defining scope"},
	// Not a rule upstream: PyPTO accepts the break and then fails on it.
	{ErrBreakOuter, "src/ir/transforms/ctrl_flow_transform_pass.cpp and the InCore passes after it", "the break flag CtrlFlowTransform adds to a kernel's outermost loop (a defect, not a rule)",
		"TypeError: Operator 'eq' does not accept bool dtype"},
	{ErrBreakCarried, "src/ir/transforms/convert_to_ssa_pass.cpp; src/ir/verifier/verify_ssa_pass.cpp", "SSAVerify after ConvertToSSA, on the if a break in a carried loop leaves (a defect, not a rule)",
		"Verification failed after 'ConvertToSSA' for properties {SSAForm}: IfStmt then-branch YieldStmt value count (1) != return_vars count (2)"},
	// A warning: PyPTO compiles the loop, but not as written.
	{WarnJitWhile, "python/pypto/jit/specializer.py", "the renamer walks a while body as straight-line code (no visit_While)",
		"(nothing: the condition reads k from before the loop, k_v1 = k + 1 inside it)"},
	{WarnLoopElse, "python/pypto/language/parser/ast_parser.py", "parse_for_loop, parse_while_loop (neither reads stmt.orelse)",
		"(nothing: the else suite is not parsed)"},
}

// RuntimeMirrors are the run-time refusals (emulator codes, E05xx) that
// mirror PyPTO's runtime rather than its compiler.
var RuntimeMirrors = []struct{ Code, Where, Check, Says string }{
	{"E0518", "runtime/src/common/task_interface/task_args.h", "TaskArgs::add_tensor",
		"TaskArgs: cannot add tensor after scalar"},
}
