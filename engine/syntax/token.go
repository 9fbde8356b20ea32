package syntax

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// tokKind is the kind of a lexical token.
type tokKind uint8

// The token kinds. Kinds between opBegin and opEnd are operators and
// delimiters, those between kwBegin and kwEnd are keywords; the tokens table
// below gives each its source text and, for binary operators, its binding
// power.
const (
	tEOF tokKind = iota
	tNewline
	tIndent
	tDedent
	tName
	tInt
	tFloat
	tString  // plain or bytes string literal, escapes decoded
	tFString // f-string literal, split into parts

	opBegin
	tLParen   // ( the six brackets stay consecutive: the scanner tests tLParen <= k <= tRBrace
	tRParen   // )
	tLBrack   // [
	tRBrack   // ]
	tLBrace   // {
	tRBrace   // }
	tComma    // ,
	tColon    // :
	tSemi     // ;
	tDot      // .
	tEllipsis // ...
	tArrow    // ->
	tAt       // @
	tAssign   // =
	tWalrus   // :=

	tAdd      // +
	tSub      // -
	tMul      // *
	tDiv      // /
	tFloorDiv // //
	tMod      // %
	tPow      // **
	tBitAnd   // &
	tBitOr    // |
	tBitXor   // ^
	tInvert   // ~
	tShl      // <<
	tShr      // >>

	tLt // <
	tGt // >
	tLe // <=
	tGe // >=
	tEq // ==
	tNe // !=

	tAddAssign      // +=
	tSubAssign      // -=
	tMulAssign      // *=
	tDivAssign      // /=
	tFloorDivAssign // //=
	tModAssign      // %=
	tPowAssign      // **=
	tMatMulAssign   // @=
	tAndAssign      // &=
	tOrAssign       // |=
	tXorAssign      // ^=
	tShlAssign      // <<=
	tShrAssign      // >>=
	opEnd

	kwBegin
	kwFalse
	kwNone
	kwTrue
	kwAnd
	kwAs
	kwAssert
	kwAsync
	kwAwait
	kwBreak
	kwClass
	kwContinue
	kwDef
	kwDel
	kwElif
	kwElse
	kwExcept
	kwFinally
	kwFor
	kwFrom
	kwGlobal
	kwIf
	kwImport
	kwIn
	kwIs
	kwLambda
	kwNonlocal
	kwNot
	kwOr
	kwPass
	kwRaise
	kwReturn
	kwTry
	kwWhile
	kwWith
	kwYield
	kwEnd
)

// tokenInfo describes one token kind.
type tokenInfo struct {
	text string // source text of an operator or keyword; a name for the rest
	prec int    // binding power as a binary arithmetic/bitwise operator, 0 if none
	aug  string // for an augmented assignment, the binary operator it applies
	cmp  bool   // a comparison operator
	expr bool   // can start an expression
	un   string // as a unary operator, its UnaryExpr.Op
}

// Binding powers of the binary operators, loosest first, exactly as in
// Python: | then ^ then & then shifts then + - then * @ / // %. Unary
// operators, ** and the comparisons are handled by their own productions.
const (
	precBitOr = 1 + iota
	precBitXor
	precBitAnd
	precShift
	precSum
	precTerm
)

// tokens is the token table.
var tokens = [...]tokenInfo{
	tEOF:     {text: "end of file"},
	tNewline: {text: "newline"},
	tIndent:  {text: "indent"},
	tDedent:  {text: "dedent"},
	tName:    {text: "name", expr: true},
	tInt:     {text: "integer", expr: true},
	tFloat:   {text: "float", expr: true},
	tString:  {text: "string", expr: true},
	tFString: {text: "f-string", expr: true},

	tLParen:   {text: "(", expr: true},
	tRParen:   {text: ")"},
	tLBrack:   {text: "[", expr: true},
	tRBrack:   {text: "]"},
	tLBrace:   {text: "{", expr: true},
	tRBrace:   {text: "}"},
	tComma:    {text: ","},
	tColon:    {text: ":"},
	tSemi:     {text: ";"},
	tDot:      {text: "."},
	tEllipsis: {text: "...", expr: true},
	tArrow:    {text: "->"},
	tAt:       {text: "@", prec: precTerm},
	tAssign:   {text: "="},
	tWalrus:   {text: ":="},

	tAdd:      {text: "+", prec: precSum, expr: true, un: "+"},
	tSub:      {text: "-", prec: precSum, expr: true, un: "-"},
	tMul:      {text: "*", prec: precTerm, expr: true},
	tDiv:      {text: "/", prec: precTerm},
	tFloorDiv: {text: "//", prec: precTerm},
	tMod:      {text: "%", prec: precTerm},
	tPow:      {text: "**"},
	tBitAnd:   {text: "&", prec: precBitAnd},
	tBitOr:    {text: "|", prec: precBitOr},
	tBitXor:   {text: "^", prec: precBitXor},
	tInvert:   {text: "~", expr: true, un: "~"},
	tShl:      {text: "<<", prec: precShift},
	tShr:      {text: ">>", prec: precShift},

	tLt: {text: "<", cmp: true},
	tGt: {text: ">", cmp: true},
	tLe: {text: "<=", cmp: true},
	tGe: {text: ">=", cmp: true},
	tEq: {text: "==", cmp: true},
	tNe: {text: "!=", cmp: true},

	tAddAssign:      {text: "+=", aug: "+"},
	tSubAssign:      {text: "-=", aug: "-"},
	tMulAssign:      {text: "*=", aug: "*"},
	tDivAssign:      {text: "/=", aug: "/"},
	tFloorDivAssign: {text: "//=", aug: "//"},
	tModAssign:      {text: "%=", aug: "%"},
	tPowAssign:      {text: "**=", aug: "**"},
	tMatMulAssign:   {text: "@=", aug: "@"},
	tAndAssign:      {text: "&=", aug: "&"},
	tOrAssign:       {text: "|=", aug: "|"},
	tXorAssign:      {text: "^=", aug: "^"},
	tShlAssign:      {text: "<<=", aug: "<<"},
	tShrAssign:      {text: ">>=", aug: ">>"},

	kwFalse:    {text: "False", expr: true},
	kwNone:     {text: "None", expr: true},
	kwTrue:     {text: "True", expr: true},
	kwAnd:      {text: "and"},
	kwAs:       {text: "as"},
	kwAssert:   {text: "assert"},
	kwAsync:    {text: "async"},
	kwAwait:    {text: "await", expr: true},
	kwBreak:    {text: "break"},
	kwClass:    {text: "class"},
	kwContinue: {text: "continue"},
	kwDef:      {text: "def"},
	kwDel:      {text: "del"},
	kwElif:     {text: "elif"},
	kwElse:     {text: "else"},
	kwExcept:   {text: "except"},
	kwFinally:  {text: "finally"},
	kwFor:      {text: "for"},
	kwFrom:     {text: "from"},
	kwGlobal:   {text: "global"},
	kwIf:       {text: "if"},
	kwImport:   {text: "import"},
	kwIn:       {text: "in", cmp: true},
	kwIs:       {text: "is", cmp: true},
	kwLambda:   {text: "lambda", expr: true},
	kwNonlocal: {text: "nonlocal"},
	kwNot:      {text: "not", expr: true},
	kwOr:       {text: "or"},
	kwPass:     {text: "pass"},
	kwRaise:    {text: "raise"},
	kwReturn:   {text: "return"},
	kwTry:      {text: "try"},
	kwWhile:    {text: "while"},
	kwWith:     {text: "with"},
	kwYield:    {text: "yield", expr: true},
	kwEnd:      {},
}

// String returns the token's source text (operators, keywords) or the name of
// its class (name, integer, newline, ...).
func (k tokKind) String() string {
	if int(k) < len(tokens) && tokens[k].text != "" {
		return tokens[k].text
	}
	return "token(" + strconv.Itoa(int(k)) + ")"
}

func (k tokKind) isOperator() bool { return opBegin < k && k < opEnd }
func (k tokKind) isKeyword() bool  { return kwBegin < k && k < kwEnd }

// keywords maps each keyword's text to its kind.
var keywords = func() map[string]tokKind {
	m := make(map[string]tokKind, kwEnd-kwBegin)
	for k := kwBegin + 1; k < kwEnd; k++ {
		m[tokens[k].text] = k
	}
	return m
}()

// operatorsByByte lists, for each first byte, the operators starting with it,
// longest first, so the scanner takes the longest match ("**=" before "**"
// before "*").
var operatorsByByte = func() [128][]tokKind {
	var t [128][]tokKind
	for k := opBegin + 1; k < opEnd; k++ {
		c := tokens[k].text[0]
		t[c] = append(t[c], k)
	}
	for c := range t {
		ops := t[c]
		// insertion sort by descending length; the lists hold at most 5 entries
		for i := 1; i < len(ops); i++ {
			for j := i; j > 0 && len(tokens[ops[j]].text) > len(tokens[ops[j-1]].text); j-- {
				ops[j], ops[j-1] = ops[j-1], ops[j]
			}
		}
	}
	return t
}()

// token is one lexical token. start and end delimit its text; a NEWLINE sits
// right after the last token of its line (zero width) so that "expected ':'"
// points at the end of the header, and INDENT/DEDENT sit at the first token
// of the line that caused them.
type token struct {
	kind       tokKind
	start, end Pos
	text       string  // source text (names, numbers, operators, whole string literals)
	str        *strTok // details of tString and tFString
}

// strTok holds what the scanner learned about a string literal.
type strTok struct {
	value string  // decoded value of a tString
	bytes bool    // b"..." prefix
	parts []fpart // pieces of a tFString
}

// fpart is one piece of an f-string as the scanner found it: literal text
// (escapes and doubled braces decoded) or the source range of an expression,
// which the parser parses in place so its positions are the file's.
type fpart struct {
	text    string
	isExpr  bool
	start   Pos // first byte of the expression text
	end     int // offset just past the expression text
	conv    string
	format  string
	openPos Pos // the '{' that opened the field
}

// describe renders the token for "found X" in a message.
func (t token) describe() string {
	switch t.kind {
	case tEOF, tNewline:
		return tokens[t.kind].text
	case tIndent:
		return "an indented line"
	case tDedent:
		return "the end of the indented block"
	case tName:
		return "name '" + t.text + "'"
	case tInt, tFloat:
		return "number " + clip(t.text)
	case tString, tFString:
		return "string " + clip(t.text)
	}
	if t.kind.isKeyword() {
		return "keyword '" + t.text + "'"
	}
	return "'" + t.kind.String() + "'"
}

// clip shortens token text for messages: its first line, at most 24 bytes,
// cut at a character boundary.
func clip(s string) string {
	const max = 24
	cut := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, cut = s[:i], true
	}
	if len(s) > max {
		n := max - 3
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s, cut = s[:n], true
	}
	if cut {
		s += "..."
	}
	return s
}
