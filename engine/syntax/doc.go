// Package syntax reads Python source into the syntax tree of ast.go: the
// first stage of the engine, used for the PyPTO DSL bodies and for the
// ordinary Python around them (factories, the argparse/torch harness).
//
// The design follows go/scanner + go/parser and go.starlark.net/syntax:
//
//   - token.go holds the token kinds as one table: source text, binary
//     binding power, unary and augmented-assignment operators, whether it
//     is a comparison and whether it can start an expression.
//   - scanner.go and strings.go turn bytes into tokens on demand with
//     Python's lexical rules: NEWLINE/INDENT/DEDENT from indentation (a tab
//     advances to the next multiple of 8, and a line must be unambiguous when
//     tabs count as 1 too), no newlines inside brackets, '\' joins lines,
//     comments and blank lines vanish. String literals are decoded (prefixes
//     r, b, u, f in any case and order Python allows); an f-string is split
//     into literal text and fields whose expression text the parser then
//     parses in place, so positions inside f-strings are the file's own.
//   - parser.go, stmt.go, expr.go and literal.go (numbers, joined strings,
//     f-string fields, assignment targets) are a recursive-descent parser, one
//     function per production with the production in a comment above it;
//     grammar.txt collects the productions and is kept in step with them.
//     Binary operators are parsed by precedence climbing over the token
//     table, so Python's precedence lives in one place.
//   - errors.go is the one table of syntax error codes (E0001-E0014) and
//     their hints.
//   - walk.go and dump.go traverse and print trees for other packages and
//     golden tests.
//
// Positions are diag.Pos: 0-based byte offsets, 1-based lines and 1-based
// byte columns. Every node's span runs from the start of its first token to
// the end of its last; a NEWLINE token sits right after the last token of
// its line, so "expected ':'" points just past the header it belongs to.
//
// Only the first syntax error is reported, as Python does: the parser stops
// there (by panicking with a private sentinel that ParseFile recovers) and
// returns what it had built. One refinement is borrowed from CPython: when a
// generic error comes after a line that left a bracket open to the end of the
// file, "'(' was never closed" at that bracket is reported instead, because
// the error is usually a consequence of it.
//
// Scanning is linear and the parser needs one token of lookahead, so a
// 250-line program takes well under a millisecond. Nesting is capped (200
// brackets, 100 indentation levels, 1000 recursive productions) so no input
// can exhaust the stack.
package syntax
