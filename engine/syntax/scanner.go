package syntax

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits that keep hostile input from exhausting the stack. Python's own
// tokenizer stops at 200 nested brackets and 100 indentation levels.
const (
	maxBrackets = 200
	maxIndents  = 100
)

// cursor is a position in the source that knows its line.
type cursor struct {
	off       int // byte offset
	line      int // 1-based line of off
	lineStart int // offset of the first byte of that line
}

// pos converts the cursor to a diagnostic position.
func (c cursor) pos() Pos {
	return Pos{Offset: c.off, Line: c.line, Col: c.off - c.lineStart + 1}
}

// newline steps over the '\n' at c.off.
func (c *cursor) newline() {
	c.off++
	c.line++
	c.lineStart = c.off
}

// bracket is an open bracket waiting for its partner.
type bracket struct {
	kind tokKind
	pos  Pos
}

// indentLevel is one entry of the indentation stack. col counts tabs to the
// next multiple of 8, alt counts them as 1; a line whose two measures order
// differently against the stack mixes tabs and spaces ambiguously.
type indentLevel struct {
	col, alt int
}

// scanner turns source bytes into tokens on demand, the way Python's tokenizer
// does: it tracks brackets (inside which newlines and indentation mean
// nothing), turns the indentation of each logical line into INDENT/DEDENT
// tokens, skips blank lines and comments, and joins lines ending in '\'.
//
// A scanner may cover only part of its source (limit) and may run in expression
// mode (no NEWLINE/INDENT/DEDENT, newlines are blanks): that is how f-string
// fields and command-line expressions are scanned with their true positions.
type scanner struct {
	src   []byte
	text  string // src as a string: token texts are substrings of it, not copies
	limit int    // scanning stops here
	cursor
	exprMode bool

	brackets       []bracket
	indents        []indentLevel
	pendingDedents int
	dedentPos      Pos
	atLineStart    bool
	lineHasTokens  bool // the current logical line has produced a token
	prevEnd        Pos  // end of the last token returned

	// report receives the scanner's first error; in a parse it does not return.
	report   func(start, end Pos, k errKind, msg string)
	failed   bool
	unclosed *bracket // set when the error was a bracket left open at the end
}

// newScanner returns a scanner over src[at.off:limit]; text must equal
// string(src).
func newScanner(src []byte, text string, at cursor, limit int, exprMode bool, report func(start, end Pos, k errKind, msg string)) *scanner {
	return &scanner{
		src:         src,
		text:        text,
		limit:       limit,
		cursor:      at,
		exprMode:    exprMode,
		indents:     []indentLevel{{0, 0}},
		atLineStart: !exprMode,
		prevEnd:     at.pos(),
		report:      report,
	}
}

// errorf reports the scanner's first error; afterwards the scanner returns
// only EOF.
func (s *scanner) errorf(start, end Pos, k errKind, format string, args ...any) {
	if s.failed {
		return
	}
	s.failed = true
	s.report(start, end, k, fmt.Sprintf(format, args...))
}

// posAfter returns the position n bytes after p on the same line.
func posAfter(p Pos, n int) Pos {
	return Pos{Offset: p.Offset + n, Line: p.Line, Col: p.Col + n}
}

func (s *scanner) eofToken() token {
	p := s.pos()
	return token{kind: tEOF, start: p, end: p}
}

// next returns the next token.
func (s *scanner) next() token {
	if s.failed {
		return s.eofToken()
	}
	if s.pendingDedents > 0 {
		s.pendingDedents--
		return token{kind: tDedent, start: s.dedentPos, end: s.dedentPos}
	}
	for {
		if s.atLineStart && len(s.brackets) == 0 {
			if t, ok := s.indentation(); ok {
				return t
			}
			if s.failed {
				return s.eofToken()
			}
		}
		s.skipBlanks()
		if s.off >= s.limit {
			return s.atEnd()
		}
		switch c := s.src[s.off]; c {
		case '#':
			for s.off < s.limit && s.src[s.off] != '\n' {
				s.off++
			}
		case '\n':
			s.newline()
			if s.exprMode || len(s.brackets) > 0 {
				continue
			}
			s.atLineStart = true
			if s.lineHasTokens {
				s.lineHasTokens = false
				return token{kind: tNewline, start: s.prevEnd, end: s.prevEnd}
			}
		case '\\':
			if !s.continuation() {
				return s.eofToken()
			}
		default:
			t := s.scanToken()
			if s.failed {
				return s.eofToken()
			}
			s.lineHasTokens = true
			s.prevEnd = t.end
			return t
		}
	}
}

// skipBlanks skips spaces, tabs, form feeds and carriage returns.
func (s *scanner) skipBlanks() {
	for s.off < s.limit {
		switch s.src[s.off] {
		case ' ', '\t', '\f', '\r':
			s.off++
		default:
			return
		}
	}
}

// continuation handles a '\' outside a string: it must end its line, which
// then joins the next one.
func (s *scanner) continuation() bool {
	start := s.pos()
	j := s.off + 1
	if j < s.limit && s.src[j] == '\r' {
		j++
	}
	if j < s.limit && s.src[j] == '\n' {
		s.off = j
		s.newline()
		return true
	}
	if j >= s.limit {
		s.errorf(start, posAfter(start, 1), errStrayChar, "unexpected end of file after the line continuation character '\\'")
	} else {
		s.errorf(start, posAfter(start, 1), errStrayChar, "unexpected character after the line continuation character '\\': it must be the last character on its line")
	}
	return false
}

// atEnd produces the tokens at the end of the input: an error for a bracket
// still open, then NEWLINE for an unfinished line, one DEDENT per open block,
// and EOF.
func (s *scanner) atEnd() token {
	if n := len(s.brackets); n > 0 {
		b := s.brackets[n-1]
		s.unclosed = &b
		s.errorf(b.pos, posAfter(b.pos, 1), errBracket, "'%s' was never closed", b.kind)
		return s.eofToken()
	}
	if !s.exprMode {
		if s.lineHasTokens {
			s.lineHasTokens = false
			return token{kind: tNewline, start: s.prevEnd, end: s.prevEnd}
		}
		if len(s.indents) > 1 {
			s.indents = s.indents[:len(s.indents)-1]
			p := s.pos()
			return token{kind: tDedent, start: p, end: p}
		}
	}
	return s.eofToken()
}

// indentation measures the indentation of a new logical line and returns the
// INDENT or first DEDENT it causes. Blank and comment-only lines leave
// atLineStart set so the next line is measured instead.
func (s *scanner) indentation() (token, bool) {
	lineStart := s.pos()
	col, alt := 0, 0
	i := s.off
scan:
	for ; i < s.limit; i++ {
		switch s.src[i] {
		case ' ':
			col++
			alt++
		case '\t':
			col = (col/8 + 1) * 8
			alt++
		case '\f':
			col, alt = 0, 0
		case '\r':
		default:
			break scan
		}
	}
	s.off = i
	if i >= s.limit || s.src[i] == '#' || s.src[i] == '\n' {
		return token{}, false // blank line, or the end of the input
	}
	s.atLineStart = false
	first := s.pos()
	top := s.indents[len(s.indents)-1]
	switch {
	case col == top.col:
		if alt != top.alt {
			s.tabError(lineStart, first)
		}
		return token{}, false
	case col > top.col:
		if alt <= top.alt {
			s.tabError(lineStart, first)
			return token{}, false
		}
		if len(s.indents) > maxIndents {
			s.errorf(lineStart, first, errTooDeep, "too many levels of indentation: got %d, the limit is %d", len(s.indents), maxIndents)
			return token{}, false
		}
		s.indents = append(s.indents, indentLevel{col, alt})
		return token{kind: tIndent, start: lineStart, end: first}, true
	}
	levels := s.indents // for the message: the stack before popping
	n := 0
	for len(s.indents) > 1 && col < s.indents[len(s.indents)-1].col {
		s.indents = s.indents[:len(s.indents)-1]
		n++
	}
	top = s.indents[len(s.indents)-1]
	if col != top.col {
		s.errorf(lineStart, first, errIndent,
			"unindent does not match any outer indentation level: got %d spaces, want %s",
			col, oneOf(levels))
		return token{}, false
	}
	if alt != top.alt {
		s.tabError(lineStart, first)
		return token{}, false
	}
	s.pendingDedents = n - 1
	s.dedentPos = first
	return token{kind: tDedent, start: first, end: first}, true
}

// oneOf renders the columns of indentation levels as "0", "0 or 4" or
// "0, 4 or 8".
func oneOf(levels []indentLevel) string {
	var b strings.Builder
	for i, l := range levels {
		switch {
		case i == 0:
		case i == len(levels)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(l.col))
	}
	return b.String()
}

func (s *scanner) tabError(start, end Pos) {
	s.errorf(start, end, errIndent, "inconsistent use of tabs and spaces in indentation")
}

// scanToken scans one name, keyword, number, string or operator at s.off.
func (s *scanner) scanToken() token {
	start := s.pos()
	c := s.src[s.off]
	switch {
	case c < utf8.RuneSelf && (isLetter(c) || c == '_'):
		return s.scanName(start)
	case isDigit(c) || c == '.' && s.off+1 < s.limit && isDigit(s.src[s.off+1]):
		return s.scanNumber(start)
	case c == '\'' || c == '"':
		return s.scanString(start, "")
	case c >= utf8.RuneSelf:
		r, _ := utf8.DecodeRune(s.src[s.off:s.limit])
		if r != utf8.RuneError && (unicode.IsLetter(r) || r == '_') {
			return s.scanName(start)
		}
	default:
		for _, k := range operatorsByByte[c] {
			text := tokens[k].text
			if s.off+len(text) <= s.limit && s.text[s.off:s.off+len(text)] == text {
				s.off += len(text)
				if k >= tLParen && k <= tRBrace {
					s.bracket(k, start, s.pos())
				}
				return token{kind: k, start: start, end: s.pos(), text: text}
			}
		}
	}
	r, size := utf8.DecodeRune(s.src[s.off:s.limit])
	what := fmt.Sprintf("%q", r)
	if r == utf8.RuneError && size <= 1 {
		what = fmt.Sprintf("byte 0x%02x (not valid UTF-8)", c)
	} else if r >= utf8.RuneSelf || !unicode.IsPrint(r) {
		what = fmt.Sprintf("%q (U+%04X)", r, r)
	}
	s.errorf(start, posAfter(start, size), errStrayChar, "unexpected character %s", what)
	return s.eofToken()
}

// opener maps each closing bracket to its opening one.
var opener = [...]tokKind{tRParen: tLParen, tRBrack: tLBrack, tRBrace: tLBrace}

// radixes describes the prefixed integer forms 0x, 0o and 0b, in that order.
var radixes = [...]struct {
	base int
	name string
}{{16, "hex"}, {8, "octal"}, {2, "binary"}}

// bracket keeps the bracket stack in step with a bracket token k at [start, end).
func (s *scanner) bracket(k tokKind, start, end Pos) {
	switch k {
	case tLParen, tLBrack, tLBrace:
		if len(s.brackets) >= maxBrackets {
			s.errorf(start, end, errTooDeep, "too many nested brackets: the limit is %d", maxBrackets)
			return
		}
		s.brackets = append(s.brackets, bracket{k, start})
	case tRParen, tRBrack, tRBrace:
		open := opener[k]
		n := len(s.brackets)
		if n == 0 {
			s.errorf(start, end, errBracket, "unmatched '%s': no '%s' is open", k, open)
			return
		}
		if b := s.brackets[n-1]; b.kind != open {
			s.errorf(start, end, errBracket, "closing '%s' does not match '%s' opened at line %d, column %d",
				k, b.kind, b.pos.Line, b.pos.Col)
			return
		}
		s.brackets = s.brackets[:n-1]
	}
}

// scanName scans an identifier or keyword, or a string literal whose prefix
// it turns out to be.
func (s *scanner) scanName(start Pos) token {
	for s.off < s.limit {
		c := s.src[s.off]
		if c < utf8.RuneSelf {
			if !isLetter(c) && !isDigit(c) && c != '_' {
				break
			}
			s.off++
			continue
		}
		r, size := utf8.DecodeRune(s.src[s.off:s.limit])
		if r == utf8.RuneError || !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Pc)) {
			break
		}
		s.off += size
	}
	name := s.text[start.Offset:s.off]
	if s.off < s.limit && (s.src[s.off] == '\'' || s.src[s.off] == '"') && isStringPrefix(name) {
		return s.scanString(start, name)
	}
	kind := tName
	if k, ok := keywords[name]; ok {
		kind = k
	}
	return token{kind: kind, start: start, end: s.pos(), text: name}
}

// scanNumber scans an integer or float literal (Python's rules: 0x/0o/0b
// prefixes, '_' between digits, no leading zeros in decimal integers,
// fractions and exponents). Imaginary literals are rejected.
func (s *scanner) scanNumber(start Pos) token {
	src := s.src
	isFloat := false
	base := 10
	bad := ""
	if src[s.off] == '0' && s.off+1 < s.limit && strings.IndexByte("xXoObB", src[s.off+1]) >= 0 {
		r := radixes[strings.IndexByte("xob", src[s.off+1]|0x20)]
		base = r.base
		s.off += 2
		if s.off < s.limit && src[s.off] == '_' {
			s.off++
		}
		if !s.digits(base) {
			bad = fmt.Sprintf("want %s digits after %s", r.name, src[start.Offset:start.Offset+2])
		}
	} else {
		intOK := src[s.off] == '.' || s.digits(10)
		if !intOK {
			bad = "'_' must sit between two digits"
		}
		if bad == "" && s.off < s.limit && src[s.off] == '.' {
			isFloat = true
			s.off++
			if s.off < s.limit && isDigit(src[s.off]) && !s.digits(10) {
				bad = "'_' must sit between two digits"
			}
		}
		if bad == "" && s.off < s.limit && (src[s.off] == 'e' || src[s.off] == 'E') {
			isFloat = true
			s.off++
			if s.off < s.limit && (src[s.off] == '+' || src[s.off] == '-') {
				s.off++
			}
			if s.off >= s.limit || !isDigit(src[s.off]) || !s.digits(10) {
				bad = "want digits in the exponent"
			}
		}
	}
	// The literal must not run straight into a name or another digit.
	tail := s.off
	for tail < s.limit && (isLetter(src[tail]) || isDigit(src[tail]) || src[tail] == '_' || src[tail] >= utf8.RuneSelf) {
		tail++
	}
	if bad == "" && tail > s.off {
		if (src[s.off] == 'j' || src[s.off] == 'J') && tail == s.off+1 {
			bad = "imaginary numbers are not supported"
		} else {
			bad = "a number cannot run straight into letters or '_'"
		}
	}
	text := s.text[start.Offset:s.off]
	if bad != "" {
		s.off = tail
		s.errorf(start, s.pos(), errNumber, "bad number '%s': %s", clip(string(src[start.Offset:tail])), bad)
		return s.eofToken()
	}
	t := token{kind: tInt, start: start, end: s.pos(), text: text}
	clean := strings.ReplaceAll(text, "_", "")
	if isFloat {
		t.kind = tFloat
		return t
	}
	if base != 10 {
		clean = clean[2:]
	} else if len(clean) > 1 && clean[0] == '0' && strings.Trim(clean, "0") != "" {
		s.errorf(start, t.end, errNumber, "bad number '%s': leading zeros are not allowed in a decimal integer (write 0o%s for octal)", clip(text), strings.TrimLeft(clean, "0"))
		return s.eofToken()
	}
	if _, err := strconv.ParseUint(clean, base, 63); err != nil {
		s.errorf(start, t.end, errNumber, "integer %s is too large: the limit is 2**63-1 (9223372036854775807)", clip(text))
		return s.eofToken()
	}
	return t
}

// digits scans digit ('_'? digit)* in the given base and reports whether the
// run was well formed (at least one digit, every '_' between two digits).
func (s *scanner) digits(base int) bool {
	n := 0
	for s.off < s.limit {
		c := s.src[s.off]
		if c == '_' {
			if n == 0 || s.off+1 >= s.limit || !isDigitIn(s.src[s.off+1], base) {
				s.off++
				return false
			}
			s.off++
			continue
		}
		if !isDigitIn(c, base) {
			break
		}
		n++
		s.off++
	}
	return n > 0
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

func isDigitIn(c byte, base int) bool {
	switch base {
	case 2:
		return c == '0' || c == '1'
	case 8:
		return '0' <= c && c <= '7'
	case 16:
		return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f'
	}
	return isDigit(c)
}
