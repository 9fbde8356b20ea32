package emu

// Run-time error codes, E05xx (E00xx are the parser's, E01xx–E04xx the
// checker's and meta's). The UI links each to the lesson that explains it,
// so a code is never renumbered or reused.
const (
	codePeer        = "E0501" // a peer outside [0, P)
	codeBounds      = "E0502" // a region or index outside its tensor, tile or window
	codeShape       = "E0503" // a dtype or shape that does not match at run time
	codeBudget      = "E0504" // the step budget is exhausted
	codeTimeout     = "E0505" // the wall-clock limit passed
	codeCanceled    = "E0506" // the caller canceled the run
	codeDivZero     = "E0507" // integer division or modulo by zero
	codeCollective  = "E0508" // a builtin collective that is not lowered yet
	codeUnsupported = "E0509" // an operation or dtype the emulator does not run
	codeInput       = "E0510" // a missing or malformed input
	codeWindowSize  = "E0511" // a window view larger than its buffer, a bad allocation size
	codeDevice      = "E0512" // device= outside [0, P)
	codeDeadlock    = "E0513" // every unfinished rank is blocked in a wait
	codeRange       = "E0514" // a loop step of 0
	codeSignal      = "E0515" // a signal cell that is not an integer window element
	codeMemory      = "E0516" // the run would pass its memory budget
	codeRanks       = "E0517" // the run's rank count passes the rank cap
	codeTaskArgs    = "E0518" // a kernel dispatched with a tensor after a scalar
	codeChipRanks   = "E0519" // a program with no host level asked to run at more than one rank
	codeInternal    = "E0599" // a bug in the emulator
)

// The codes the engine reports for the run's budget outside a run: the
// rank count's memory before checking, a front-end panic; and the rank
// count a program with no host level cannot run at.
const (
	CodeMemory    = codeMemory
	CodeRanks     = codeRanks
	CodeChipRanks = codeChipRanks
	CodeTimeout   = codeTimeout
	CodeInternal  = codeInternal
)
