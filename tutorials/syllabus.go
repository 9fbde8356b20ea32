// Package tutorials holds the workbench's lesson ladder.
//
// The syllabus below lists the twenty steps, what each teaches, and the
// builtin it reveals. The lessons themselves are Markdown files with front
// matter, NN-slug.md, embedded and parsed by Lessons (lesson.go; the
// format, including the cell syntax, is in README.md). Only step 01 is
// written so far. Each step's check (kernels, goldens, rank counts) lives
// in the subpackage check, which may import the engine; this package
// imports nothing of the project.
package tutorials

// Step is one rung of the ladder.
type Step struct {
	Number  int
	Slug    string
	Title   string
	Teaches string
	Reveals string // the builtin collective the step reveals, if any
}

// Syllabus is the ladder, in order.
var Syllabus = []Step{
	{1, "hello-rank", "Hello, rank", "rank identity, pld.world_size(), one dispatch per rank with device=r", ""},
	{2, "three-levels", "Three levels", "host orchestrator, per-device orchestration, InCore kernel: what runs where", ""},
	{3, "window-buffers", "Window buffers", "alloc_window_buffer and window, symmetric memory, your own slice only", ""},
	{4, "barrier", "Barrier by hand", "notify(AtomicAdd) and wait(Ge), the arrival tally", "pld.tensor.barrier"},
	{5, "remote-load-store", "Remote load and store", "tile RMA, pull vs push, a one-step ring shift, where the barrier sits", ""},
	{6, "put-get", "Put and get", "tensor-level point-to-point and the notify/wait handshake that pairs with a move", ""},
	{7, "any-rank-count", "Any number of ranks", "pl.dynamic(\"NR\"), rank-agnostic index math, truncating % and the negative-neighbour bug", ""},
	{8, "allreduce-mesh", "Allreduce: mesh", "stage-in, barrier, accumulate, stage-out; the race a missing barrier causes", ""},
	{9, "allreduce-two-phase", "Allreduce: two-phase", "reduce-scatter then all-gather, chunk ownership, one signal row per barrier", ""},
	{10, "allreduce-ring", "Allreduce: ring", "2(P-1) rounds of N/P, neighbour handshakes, rotating chunk indices", ""},
	{11, "allreduce-reveal", "The reveal", "pld.tensor.allreduce in mesh and ring mode; the lowered IR beside your three", "pld.tensor.allreduce"},
	{12, "broadcast", "Broadcast", "root staging, no leaks from non-roots", "pld.tensor.broadcast"},
	{13, "allgather", "AllGather", "rank-ordered concatenation", "pld.tensor.allgather"},
	{14, "reduce-scatter", "ReduceScatter", "stage all chunks, keep one reduced", "pld.tensor.reduce_scatter"},
	{15, "all-to-all", "AllToAll", "personalised exchange, separate source and target", "pld.tensor.all_to_all"},
	{16, "putting-it-together", "Putting it together", "broadcast, allreduce and allgather in one kernel, a signal per collective", ""},
	{17, "many-cores", "Many cores", "the HOST allreduce with core_num: 256-element tiles split block-cyclically across AIV cores", "pld.tensor.allreduce (HOST)"},
	{18, "three-ways", "Three ways to call a collective", "hand-rolled vs InCore composite vs HOST builtin; synthesized signals", ""},
	{19, "mesh-or-ring", "Mesh or ring?", "sweep payload sizes and rank counts, find the crossover, read busbw", ""},
	{20, "debugging-lab", "Debugging lab", "a hang, a race and a silent corruption, diagnosed; reusing signals safely", ""},
}
