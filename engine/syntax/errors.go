package syntax

// errKind names one class of syntax error. Each has a stable code and a hint
// in errorTable, the only place codes and hints for this package are written.
type errKind int

const (
	errUnexpected   errKind = iota // a token that does not fit the grammar here
	errMissingColon                // a block header without its ':'
	errUnterminated                // a string literal without its closing quote
	errBracket                     // unmatched, mismatched or unclosed bracket
	errIndent                      // unexpected indent, bad dedent, missing block, tabs vs spaces
	errNumber                      // malformed numeric literal
	errFString                     // malformed f-string field
	errStrayChar                   // a character that cannot start a token
	errStringLit                   // bad escape sequence or bytes literal
	errAssignTarget                // something that cannot be assigned to
	errUnsupported                 // Python syntax outside the subset the workbench reads
	errMisplaced                   // return outside a function, break outside a loop
	errParamList                   // parameter or argument list in the wrong order
	errTooDeep                     // nesting beyond the parser's limits
)

// ErrorCode documents one syntax error code.
type ErrorCode struct {
	Code  string // stable code, E00xx
	Title string // what went wrong, in a few words
	Hint  string // what to do about it
}

var errorTable = [...]ErrorCode{
	errUnexpected: {"E0001", "unexpected token",
		"look just before the marked spot for a missing comma, operator or closing bracket"},
	errMissingColon: {"E0002", "missing ':'",
		"a line that opens a block (if, elif, else, for, while, def, class, with, try, except, finally) ends with ':'"},
	errUnterminated: {"E0003", "unterminated string",
		"close the string with the quote it opened with; use triple quotes (\"\"\"...\"\"\") for text spanning lines"},
	errBracket: {"E0004", "unmatched bracket",
		"every '(', '[' and '{' needs its own ')', ']' or '}', closed in the reverse order they were opened"},
	errIndent: {"E0005", "bad indentation",
		"indent each block by the same amount (4 spaces is the convention), dedent back to exactly the column of an enclosing block, and don't mix tabs and spaces"},
	errNumber: {"E0006", "bad number",
		"write integers as 42, 0x2a, 0o52 or 0b101010 and floats as 1.5, .5 or 1e-5; '_' may only sit between digits"},
	errFString: {"E0007", "bad f-string",
		"inside an f-string write {expression}, optionally followed by !r, !s or !a and then :format; double a brace ({{ or }}) to get it literally"},
	errStrayChar: {"E0008", "stray character",
		"remove the character, or move it into a string or a comment"},
	errStringLit: {"E0009", "bad string literal",
		"check the escape sequence after the backslash; write a literal backslash as \\\\ or use a raw string r\"...\""},
	errAssignTarget: {"E0010", "cannot assign",
		"the left side of '=' must be a name, an attribute (a.b), a subscript (a[i]) or a tuple or list of those"},
	errUnsupported: {"E0011", "unsupported syntax",
		"the workbench reads the part of Python that PyPTO programs use; write this without the construct"},
	errMisplaced: {"E0012", "statement out of place",
		"'return' belongs inside a def, 'break' and 'continue' inside a for or while loop"},
	errParamList: {"E0013", "bad parameter or argument list",
		"in a def: plain parameters, then ones with defaults, then *args or a bare *, keyword-only ones, **kwargs; in a call: positional arguments before keyword arguments"},
	errTooDeep: {"E0014", "nested too deeply",
		"split the expression or the nested blocks into smaller pieces with names of their own"},
}

// ErrorCodes lists every syntax error code with its title and hint, in code
// order, for documentation and the UI's lesson links.
func ErrorCodes() []ErrorCode {
	out := make([]ErrorCode, len(errorTable))
	copy(out, errorTable[:])
	return out
}
