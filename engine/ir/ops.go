package ir

// OpKind identifies an operation, as starlark's Opcode does, with one
// table of what each kind is: its canonical name (the IR's Op.Name, what
// the text printer writes and trace events carry), the other spellings
// the DSL accepts for it, its category and the levels it may run at. The
// checker maps a call's spelling to a kind here and keeps only what checks
// arguments (engine/check's operation table: parameters, result types,
// rules); the lowering names the operations it emits by kind; the emulator
// dispatches on the kind; the trace events carry the category, so the
// Perfetto export and the page colour slices without classifying names.
type OpKind uint8

// The operations. OpUnknown is the zero value: a name no row spells.
const (
	OpUnknown OpKind = iota
	OpLoad
	OpStore
	OpRead
	OpWrite
	OpCast
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpMaximum
	OpMinimum
	OpMin
	OpMax
	OpWorldSize
	OpGetCommCtx
	OpRank
	OpNRanks
	OpNotify
	OpWait
	OpAllocWindowBuffer
	OpWindow
	OpRemoteLoad
	OpRemoteStore
	OpPut
	OpGet
	OpAllreduce
	OpBarrier
	OpBroadcast
	OpAllgather
	OpReduceScatter
	OpAllToAll
	OpAllToAllV
	OpView     // the IR's own primitive ViewOp
	OpBlockIdx // the IR's own primitive BlockIdxOp
	OpTupleMake
	OpTupleGet
	OpFull
	OpMove
	OpMatmul
	OpCreateTensor
	OpArrayCreate
	OpArrayGet
	OpArrayUpdate
	OpTileCreate
	OpRowSum
	OpReshape
	OpDeferWait
	OpTaskDrain // the IR's own primitive TaskDrainOp
	numOpKinds
)

// Category groups operations by what they do, for the trace's consumers:
// the Perfetto export's "cat" and the page's slice colours.
type Category string

// The categories. CatCall is not an operation's: it is the category of a
// trace event of a call of another DSL function (Op "call").
const (
	CatCompute    Category = "compute"    // scalar and tile arithmetic, casts, views
	CatMemory     Category = "memory"     // local moves between global memory and tiles
	CatRMA        Category = "rma"        // remote_load, remote_store, put, get
	CatNotify     Category = "notify"     // a signal write to a peer's cell
	CatWait       Category = "wait"       // a wait on an own signal cell
	CatSetup      Category = "setup"      // ranks, comm contexts, windows
	CatCollective Category = "collective" // a builtin collective run as one operation
	CatCall       Category = "call"       // a call of a DSL function (trace Op "call")
)

// OpInfo is one row of the operation table.
type OpInfo struct {
	Name     string   // canonical path, e.g. "pld.tile.remote_load"
	Aliases  []string // other spellings of the same operation
	Category Category
	// Levels are the levels the operation may run at; LevelHint says
	// what to do instead when it is called at another.
	Levels    []Level
	LevelHint string
}

var (
	inCore     = []Level{InCore}
	hostOnly   = []Level{Host}
	anyLevel   = []Level{Host, Orchestration, InCore}
	hostOrCore = []Level{Host, InCore}
	orchOrCore = []Level{Orchestration, InCore}
)

// opTable is every operation, indexed by kind (pld-spec §3, §4).
var opTable = [numOpKinds]OpInfo{
	// pl: local data movement and compute (pld-spec §3).
	OpLoad:  {Name: "pl.load", Category: CatMemory, Levels: inCore},
	OpStore: {Name: "pl.store", Category: CatMemory, Levels: inCore},
	OpRead:  {Name: "pl.read", Category: CatMemory, Levels: orchOrCore},
	OpWrite: {Name: "pl.write", Category: CatMemory, Levels: orchOrCore},
	// pl.const(value, dtype) is a constant of an explicit dtype: the cast
	// of a number.
	OpCast:    {Name: "pl.cast", Aliases: []string{"pl.const"}, Category: CatCompute, Levels: anyLevel},
	OpAdd:     {Name: "pl.add", Category: CatCompute, Levels: anyLevel},
	OpSub:     {Name: "pl.sub", Category: CatCompute, Levels: anyLevel},
	OpMul:     {Name: "pl.mul", Category: CatCompute, Levels: anyLevel},
	OpDiv:     {Name: "pl.div", Category: CatCompute, Levels: anyLevel}, // the emulator can run it; the checker refuses it (check.unsupportedOps)
	OpMaximum: {Name: "pl.maximum", Category: CatCompute, Levels: anyLevel},
	OpMinimum: {Name: "pl.minimum", Category: CatCompute, Levels: anyLevel},
	OpMin:     {Name: "pl.min", Category: CatCompute, Levels: anyLevel},
	OpMax:     {Name: "pl.max", Category: CatCompute, Levels: anyLevel},
	// The tile ops upstream's gemm program uses: a constant tile, a move
	// between on-chip memories (the emulator holds every tile alike, so it
	// is a copy) and the matrix product.
	OpFull:   {Name: "pl.tile.full", Aliases: []string{"pl.full"}, Category: CatCompute, Levels: inCore},
	OpMove:   {Name: "pl.move", Aliases: []string{"pl.tile.move"}, Category: CatMemory, Levels: inCore},
	OpMatmul: {Name: "pl.matmul", Aliases: []string{"pl.tile.matmul"}, Category: CatCompute, Levels: inCore},
	// A fresh tensor for intermediates (upstream's parallel_reduce makes
	// two at the host for its chip tasks; PyPTO accepts one at any level).
	OpCreateTensor: {Name: "pl.create_tensor", Aliases: []string{"pl.tensor.create"}, Category: CatSetup, Levels: anyLevel},
	// pl.array's on-core scalar arrays and the tile ops of upstream's
	// ep_dispatch_combine: a fresh tile, a row sum and a reshape.
	OpArrayCreate: {Name: "pl.array.create", Category: CatCompute, Levels: anyLevel},
	OpArrayGet:    {Name: "pl.array.get_element", Category: CatCompute, Levels: anyLevel},
	OpArrayUpdate: {Name: "pl.array.update_element", Category: CatCompute, Levels: anyLevel},
	OpTileCreate:  {Name: "pl.tile.create", Aliases: []string{"pl.create_tile", "pl.tile.create_tile"}, Category: CatCompute, Levels: inCore},
	OpRowSum:      {Name: "pl.tile.row_sum", Category: CatCompute, Levels: inCore},
	OpReshape:     {Name: "pl.tile.reshape", Category: CatCompute, Levels: inCore},

	// pld system ops (pld-spec §4.3).
	OpWorldSize: {Name: "pld.world_size", Aliases: []string{"pld.system.world_size"}, Category: CatSetup, Levels: hostOnly,
		LevelHint: "pass the rank count in from the host, or use pld.nranks(ctx)"},
	OpGetCommCtx: {Name: "pld.get_comm_ctx", Aliases: []string{"pld.system.get_comm_ctx"}, Category: CatSetup, Levels: hostOrCore},
	OpRank: {Name: "pld.rank", Aliases: []string{"pld.system.rank"}, Category: CatSetup, Levels: inCore,
		LevelHint: "the host dispatches rank r with device=r; pass r down if the wrapper needs it"},
	OpNRanks: {Name: "pld.nranks", Aliases: []string{"pld.system.nranks"}, Category: CatSetup, Levels: inCore,
		LevelHint: "use pld.world_size() at the host"},
	OpNotify: {Name: "pld.system.notify", Category: CatNotify, Levels: inCore},
	OpWait:   {Name: "pld.system.wait", Category: CatWait, Levels: inCore},
	// A deferred completion condition (task.go): the waiter task ends, its
	// task id completes when the cell reaches expected.
	OpDeferWait: {Name: "pld.system.defer_wait", Category: CatWait, Levels: inCore},

	// Windows (pld-spec §4.4).
	OpAllocWindowBuffer: {Name: "pld.alloc_window_buffer", Aliases: []string{"pld.tensor.alloc_window_buffer"}, Category: CatSetup, Levels: hostOnly,
		LevelHint: "allocate windows in the host orchestrator and pass views down"},
	OpWindow: {Name: "pld.window", Aliases: []string{"pld.tensor.window"}, Category: CatSetup, Levels: hostOnly,
		LevelHint: "make views in the host's dispatch loop and pass them as pld.DistributedTensor parameters"},

	// Remote access (pld-spec §4.5, §4.6).
	OpRemoteLoad:  {Name: "pld.tile.remote_load", Aliases: []string{"pld.remote_load"}, Category: CatRMA, Levels: inCore},
	OpRemoteStore: {Name: "pld.tile.remote_store", Aliases: []string{"pld.remote_store"}, Category: CatRMA, Levels: inCore},
	OpPut:         {Name: "pld.tensor.put", Category: CatRMA, Levels: inCore},
	OpGet:         {Name: "pld.tensor.get", Category: CatRMA, Levels: inCore},

	// Collectives (pld-spec §4.7), InCore composite or HOST builtin.
	OpAllreduce:     {Name: "pld.tensor.allreduce", Category: CatCollective, Levels: hostOrCore},
	OpBarrier:       {Name: "pld.tensor.barrier", Category: CatCollective, Levels: hostOrCore},
	OpBroadcast:     {Name: "pld.tensor.broadcast", Category: CatCollective, Levels: hostOrCore},
	OpAllgather:     {Name: "pld.tensor.allgather", Category: CatCollective, Levels: hostOrCore},
	OpReduceScatter: {Name: "pld.tensor.reduce_scatter", Category: CatCollective, Levels: hostOrCore},
	OpAllToAll:      {Name: "pld.tensor.all_to_all", Category: CatCollective, Levels: hostOrCore},
	OpAllToAllV:     {Name: "pld.tensor.all_to_all_v", Category: CatCollective, Levels: hostOrCore},

	// The IR's own primitives, which only lowering passes emit
	// (lowered.go verifies them).
	OpView:      {Name: ViewOp, Category: CatCompute, Levels: inCore},
	OpBlockIdx:  {Name: BlockIdxOp, Category: CatCompute, Levels: inCore},
	OpTaskDrain: {Name: TaskDrainOp, Category: CatSetup, Levels: []Level{Orchestration}},

	// Tuples (PyPTO's MakeTuple and TupleGetItem): the checker emits
	// tuple.make for `return a, b` and one tuple.get (attribute index)
	// per name of `a, b = self.k(...)`.
	OpTupleMake: {Name: TupleMakeOp, Category: CatCompute, Levels: anyLevel},
	OpTupleGet:  {Name: TupleGetOp, Category: CatCompute, Levels: anyLevel},
}

// The tuple operations' names.
const (
	TupleMakeOp = "tuple.make"
	TupleGetOp  = "tuple.get"
)

// opKinds maps every spelling to its kind.
var opKinds = func() map[string]OpKind {
	m := map[string]OpKind{}
	for k := OpKind(1); k < numOpKinds; k++ {
		m[opTable[k].Name] = k
		for _, a := range opTable[k].Aliases {
			m[a] = k
		}
	}
	return m
}()

// KindOf returns the kind spelled name (canonical or alias), OpUnknown for
// a name no row spells.
func KindOf(name string) OpKind { return opKinds[name] }

// Kind returns the operation's kind.
func (o *Op) Kind() OpKind { return KindOf(o.Name) }

// Info returns the kind's row; OpUnknown's is empty.
func (k OpKind) Info() OpInfo {
	if k >= numOpKinds {
		return OpInfo{}
	}
	return opTable[k]
}

// String returns the canonical name, "" for OpUnknown.
func (k OpKind) String() string { return k.Info().Name }

// Category returns the kind's category.
func (k OpKind) Category() Category { return k.Info().Category }

// LegalAt reports whether the operation may run at level l; OpUnknown is
// legal nowhere.
func (k OpKind) LegalAt(l Level) bool {
	for _, x := range k.Info().Levels {
		if x == l {
			return true
		}
	}
	return false
}

// OpKinds returns every kind but OpUnknown, in table order.
func OpKinds() []OpKind {
	out := make([]OpKind, 0, numOpKinds-1)
	for k := OpKind(1); k < numOpKinds; k++ {
		out = append(out, k)
	}
	return out
}

// CategoryOf returns the category of a trace event's Op: a spelling of an
// operation, "call" for a call, CatCompute for anything else (the NPU
// backend's tasks).
func CategoryOf(op string) Category {
	if op == "call" {
		return CatCall
	}
	if k := KindOf(op); k != OpUnknown {
		return k.Category()
	}
	return CatCompute
}
