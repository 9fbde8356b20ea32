// Package meta evaluates a PyPTO program's module at compile time, the way
// Python would when the file is imported, and hands the checker the DSL
// functions it found together with the scopes their free names resolve in.
//
// A PyPTO program is an ordinary Python module. Most of it is glue that
// PyPTO itself never parses: imports, integer constants, rank-count
// factories such as build_ring_allreduce(nr) whose bodies compute closure
// constants (chunk = SIZE // nr, total_rounds = 2 * (nr - 1)), guards that
// raise ValueError, and a main() harness behind `if __name__ == "__main__"`.
// The DSL bodies (functions decorated with @pl.jit*, or @pl.function
// methods of a @pl.program class) are never run: they are kept as *DSLFunc
// values whose Env is the scope their def ran in, so the checker can fold
// `nr`, `chunk` or `SIZE` to the same numbers Python would.
//
// The evaluator is a tree walker over engine/syntax's AST (stmt.go,
// assign.go, expr.go, call.go), with one unexported machine per entry point
// (Load, Eval, Call, EvalExpr). It implements the Python subset real
// programs use: ints (int64, floor // and %), floats, strings and their
// common methods, f-strings and format specs, tuples, lists, dicts, sets,
// comprehensions, lambdas and closures, *args/**kwargs, if/for/while,
// try/except, raise and assert, and the usual builtins (builtins.go,
// methods.go, format.go). Operators live in ops.go and are exported
// (Binary, Unary, Compare, Truth, Repr) so constant folding elsewhere agrees
// with the evaluator bit for bit.
//
// Library modules are symbolic (library.go). Every import succeeds and binds
// a *Builtin named by its canonical dotted path: pypto.language is "pl" and
// pypto.language.distributed is "pld" whatever the alias. Attribute access
// extends the path, known leaves become typed values (pl.FP32 is a DType,
// pld.NotifyOp.Set an Enum), subscripts build *Generic annotations, and
// calls into unknown libraries (torch.randn, argparse.ArgumentParser) give
// *Opaque values. DSL ops (pl.load, pld.system.notify, ...) called outside a
// DSL body are an error: they only exist on the device.
//
// Errors are diagnostics with codes E0301..E0322 (errors.go): a Python
// exception raised by the program quotes its evaluated message and points at
// the raise; the evaluator's own TypeError, ZeroDivisionError and friends
// point at the offending expression. Every Load, Eval, Call and EvalExpr of
// a module charges one account, Options.Meter (engine/limits): a step
// budget shared by module code, the factories called to find entries and
// the annotations the checker evaluates, in which a value of n bytes made
// by an operator, a literal, a slice or a builtin costs n/4096 steps more;
// a memory budget for the bytes those values take (E0320); and the work's
// deadline and cancellation, polled every 1024 steps (E0321, E0322). With a
// call depth limit, `while True: pass` at module level is a clear error,
// never a hang.
package meta
