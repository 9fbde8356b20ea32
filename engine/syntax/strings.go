package syntax

import (
	"strings"
	"unicode/utf8"
)

// isStringPrefix reports whether name may prefix a string literal: r, u, b,
// f, br, rb, fr, rf in any case.
func isStringPrefix(name string) bool {
	switch strings.ToLower(name) {
	case "r", "u", "b", "f", "br", "rb", "fr", "rf":
		return true
	}
	return false
}

// scanString scans a string literal whose quote is at s.off (after prefix).
// It first finds the closing quote, treating a backslash as escaping the next
// character even in raw strings (as Python does), then decodes the contents:
// escapes into a value, or for an f-string into literal and expression parts.
func (s *scanner) scanString(start Pos, prefix string) token {
	p := strings.ToLower(prefix)
	raw, isBytes, isF := strings.Contains(p, "r"), strings.Contains(p, "b"), strings.Contains(p, "f")
	q := s.src[s.off]
	triple := s.off+2 < s.limit && s.src[s.off+1] == q && s.src[s.off+2] == q
	n := 1
	if triple {
		n = 3
	}
	s.off += n
	content := s.cursor
	contentEnd := -1
	for contentEnd < 0 {
		if s.off >= s.limit {
			s.unterminated(start, content, triple, q)
			return s.eofToken()
		}
		switch c := s.src[s.off]; c {
		case '\\':
			s.off++
			if s.off < s.limit && s.src[s.off] == '\r' && s.off+1 < s.limit && s.src[s.off+1] == '\n' {
				s.off++
			}
			if s.off < s.limit {
				if s.src[s.off] == '\n' {
					s.newline()
				} else {
					s.off++
				}
			}
		case '\n':
			if !triple {
				s.unterminated(start, content, triple, q)
				return s.eofToken()
			}
			s.newline()
		case q:
			if !triple {
				contentEnd = s.off
				s.off++
			} else if s.off+2 < s.limit && s.src[s.off+1] == q && s.src[s.off+2] == q {
				contentEnd = s.off
				s.off += 3
			} else {
				s.off++
			}
		default:
			s.off++
		}
	}
	t := token{kind: tString, start: start, end: s.pos(), text: s.text[start.Offset:s.off], str: &strTok{bytes: isBytes}}
	if isF {
		t.kind = tFString
		if isBytes {
			s.errorf(start, posAfter(start, len(prefix)), errStringLit, "a string cannot be both bytes and an f-string (prefix %q)", prefix)
			return s.eofToken()
		}
		t.str.parts = s.fstringParts(content, contentEnd, raw)
	} else {
		t.str.value = s.decode(content, contentEnd, raw, isBytes)
	}
	return t
}

// unterminated reports a string literal that reached the end of its line (or
// of the input, for triple quotes) without its closing quote.
func (s *scanner) unterminated(start Pos, content cursor, triple bool, q byte) {
	if triple {
		s.errorf(start, content.pos(), errUnterminated,
			"unterminated triple-quoted string: no closing %s before the end of the file", strings.Repeat(string(q), 3))
		return
	}
	s.errorf(start, s.pos(), errUnterminated, "unterminated string: the line ends before the closing %c", q)
}

// decode returns the value of the string contents src[c.off:end].
func (s *scanner) decode(c cursor, end int, raw, isBytes bool) string {
	body := s.src[c.off:end]
	if !isBytes && (raw || !containsByte(body, '\\')) && !containsByte(body, '\r') {
		return s.text[c.off:end] // the common case: nothing to decode
	}
	b := make([]byte, 0, len(body))
	for c.off < end {
		ch := s.src[c.off]
		switch {
		case ch == '\\' && !raw:
			b = s.escape(&c, end, b, isBytes)
			if s.failed {
				return ""
			}
		case ch == '\n':
			b = append(b, '\n')
			c.newline()
		case ch == '\r' && c.off+1 < end && s.src[c.off+1] == '\n':
			c.off++ // CRLF reads as LF, as in Python
		case isBytes && ch >= utf8.RuneSelf:
			p := c.pos()
			s.errorf(p, posAfter(p, 1), errStringLit, "a bytes literal can only hold ASCII characters; write other bytes as \\xhh escapes")
			return ""
		default:
			b = append(b, ch)
			c.off++
		}
	}
	return string(b)
}

func containsByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

// simpleEscapes maps the one-letter escapes to their bytes.
var simpleEscapes = [128]byte{
	'\\': '\\', '\'': '\'', '"': '"',
	'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v',
}

// escape decodes the escape sequence whose backslash is at c.off, appending
// its value to b. Unknown escapes keep the backslash and leave the next
// character to be read normally, as Python does.
func (s *scanner) escape(c *cursor, end int, b []byte, isBytes bool) []byte {
	start := c.pos()
	c.off++
	if c.off >= end {
		return append(b, '\\')
	}
	ch := s.src[c.off]
	switch {
	case ch == '\n':
		c.newline() // backslash-newline continues the string on the next line
		return b
	case ch == '\r' && c.off+1 < end && s.src[c.off+1] == '\n':
		c.off++
		c.newline()
		return b
	case ch < utf8.RuneSelf && simpleEscapes[ch] != 0:
		c.off++
		return append(b, simpleEscapes[ch])
	case '0' <= ch && ch <= '7':
		v := 0
		for i := 0; i < 3 && c.off < end && '0' <= s.src[c.off] && s.src[c.off] <= '7'; i++ {
			v = v*8 + int(s.src[c.off]-'0')
			c.off++
		}
		if isBytes {
			if v > 0xff {
				s.errorf(start, c.pos(), errStringLit, "octal escape %s is out of range for a bytes literal: the limit is \\377", s.src[start.Offset:c.off])
				return b
			}
			return append(b, byte(v))
		}
		return utf8.AppendRune(b, rune(v))
	case ch == 'x' || (ch == 'u' || ch == 'U') && !isBytes:
		n := 2
		if ch == 'u' {
			n = 4
		} else if ch == 'U' {
			n = 8
		}
		c.off++
		v := 0
		for i := 0; i < n; i++ {
			if c.off >= end || !isDigitIn(s.src[c.off], 16) {
				s.errorf(start, c.pos(), errStringLit, "bad escape \\%c: want %d hex digits after it", ch, n)
				return b
			}
			d := s.src[c.off]
			if isDigit(d) {
				v = v*16 + int(d-'0')
			} else {
				v = v*16 + int(d|0x20-'a') + 10
			}
			c.off++
		}
		if isBytes {
			return append(b, byte(v))
		}
		if v > utf8.MaxRune {
			s.errorf(start, c.pos(), errStringLit, "escape %s is beyond the last Unicode character U+10FFFF", s.src[start.Offset:c.off])
			return b
		}
		return utf8.AppendRune(b, rune(v))
	case ch == 'N' && !isBytes:
		s.errorf(start, posAfter(start, 2), errUnsupported, "\\N{...} escapes are not supported: write the character itself or use \\u")
		return b
	}
	return append(b, '\\')
}

// fstringParts splits the contents of an f-string, src[c.off:end], into
// literal text and {expression!conv:format} fields. Each field's expression is
// only located here; the parser parses it in place.
func (s *scanner) fstringParts(c cursor, end int, raw bool) []fpart {
	var parts []fpart
	var text []byte
	flush := func() {
		if len(text) > 0 {
			parts = append(parts, fpart{text: string(text)})
			text = nil
		}
	}
	for c.off < end {
		ch := s.src[c.off]
		switch {
		case ch == '{' && c.off+1 < end && s.src[c.off+1] == '{':
			text = append(text, '{')
			c.off += 2
		case ch == '{':
			flush()
			field, ok := s.fstringField(&c, end)
			if !ok {
				return nil
			}
			if field.text != "" { // {x=} shows the expression text first
				parts = append(parts, fpart{text: field.text})
				field.text = ""
			}
			parts = append(parts, field)
		case ch == '}' && c.off+1 < end && s.src[c.off+1] == '}':
			text = append(text, '}')
			c.off += 2
		case ch == '}':
			p := c.pos()
			s.errorf(p, posAfter(p, 1), errFString, "single '}' is not allowed in an f-string: write '}}' for a literal brace")
			return nil
		case ch == '\\' && !raw:
			text = s.escape(&c, end, text, false)
			if s.failed {
				return nil
			}
		case ch == '\n':
			text = append(text, '\n')
			c.newline()
		case ch == '\r' && c.off+1 < end && s.src[c.off+1] == '\n':
			c.off++
		default:
			text = append(text, ch)
			c.off++
		}
	}
	flush()
	return parts
}

// fstringField scans one {expression[=][!conv][:format]} field whose '{' is at
// c.off. It skips over nested brackets and quoted strings to find where the
// expression ends.
func (s *scanner) fstringField(c *cursor, end int) (fpart, bool) {
	open := c.pos()
	c.off++
	f := fpart{openPos: open, isExpr: true, start: c.pos()}
	exprStart := c.off
	depth := 0
	fail := func(format string, args ...any) (fpart, bool) {
		s.errorf(open, posAfter(open, 1), errFString, format, args...)
		return fpart{}, false
	}
	exprEnd, debug := -1, false
	for exprEnd < 0 {
		if c.off >= end {
			return fail("f-string field '{' is never closed: want '}'")
		}
		ch := s.src[c.off]
		switch ch {
		case '\'', '"':
			if !s.skipQuoted(c, end) {
				return fail("unterminated string inside an f-string field")
			}
			continue
		case '(', '[', '{':
			depth++
		case ')', ']':
			if depth > 0 {
				depth--
			}
		case '}':
			if depth == 0 {
				exprEnd = c.off
				continue
			}
			depth--
		case '!':
			if depth == 0 && !(c.off+1 < end && s.src[c.off+1] == '=') {
				exprEnd = c.off
				continue
			}
			if depth == 0 {
				c.off++ // skip the '=' of '!=' so it is not taken for {x=}
			}
		case ':':
			if depth == 0 {
				exprEnd = c.off
				continue
			}
		case '=':
			next := byte(0)
			if c.off+1 < end {
				next = s.src[c.off+1]
			}
			prev := s.src[c.off-1]
			if depth == 0 && next != '=' && strings.IndexByte("=!<>", prev) < 0 {
				exprEnd, debug = c.off, true
				continue
			}
			if depth == 0 && next == '=' {
				c.off++ // '==' as a whole
			}
		case '#':
			return fail("an f-string field cannot contain '#'")
		case '\\':
			return fail("an f-string field cannot contain a backslash: compute the value before the f-string")
		case '\n':
			c.newline()
			continue
		}
		c.off++
	}
	f.end = exprEnd
	if strings.TrimSpace(s.text[exprStart:exprEnd]) == "" {
		return fail("empty expression in an f-string field: write {name}, or {{ for a literal brace")
	}
	if debug {
		c.off++ // '='
		for c.off < end && (s.src[c.off] == ' ' || s.src[c.off] == '\t') {
			c.off++
		}
		f.text = s.text[exprStart:c.off]
		if c.off >= end {
			return fail("f-string field '{' is never closed: want '}'")
		}
	}
	if s.src[c.off] == '!' {
		c.off++
		if c.off >= end || strings.IndexByte("rsa", s.src[c.off]) < 0 {
			got := "nothing"
			if c.off < end {
				got = "'" + string(s.src[c.off]) + "'"
			}
			return fail("bad f-string conversion: got %s after '!', want r, s or a", got)
		}
		f.conv = string(s.src[c.off])
		c.off++
		if c.off >= end || s.src[c.off] != ':' && s.src[c.off] != '}' {
			return fail("f-string conversion !%s must be followed by ':' or '}'", f.conv)
		}
	}
	if s.src[c.off] == ':' {
		c.off++
		specStart := c.off
		nest := 0
		for {
			if c.off >= end {
				return fail("f-string field '{' is never closed: want '}'")
			}
			ch := s.src[c.off]
			if ch == '}' && nest == 0 {
				break
			}
			switch ch {
			case '{':
				nest++
			case '}':
				nest--
			case '\n':
				c.newline()
				continue
			}
			c.off++
		}
		f.format = s.text[specStart:c.off]
	}
	if c.off >= end {
		return fail("f-string field '{' is never closed: want '}'")
	}
	if s.src[c.off] != '}' {
		return fail("bad f-string field: got %q after the expression, want '!', ':' or '}'", s.src[c.off])
	}
	if debug && f.conv == "" && f.format == "" {
		f.conv = "r" // {x=} shows repr(x) unless told otherwise
	}
	c.off++ // '}'
	return f, true
}

// skipQuoted moves c past the quoted string starting at c.off (within an
// f-string field) and reports whether it was closed before end.
func (s *scanner) skipQuoted(c *cursor, end int) bool {
	q := s.src[c.off]
	triple := c.off+2 < end && s.src[c.off+1] == q && s.src[c.off+2] == q
	if triple {
		c.off += 3
	} else {
		c.off++
	}
	for c.off < end {
		switch ch := s.src[c.off]; {
		case ch == '\\':
			c.off++
			if c.off < end && s.src[c.off] == '\n' {
				c.newline()
			} else if c.off < end {
				c.off++
			}
		case ch == '\n':
			if !triple {
				return false
			}
			c.newline()
		case ch == q && !triple:
			c.off++
			return true
		case ch == q && c.off+2 < end && s.src[c.off+1] == q && s.src[c.off+2] == q:
			c.off += 3
			return true
		default:
			c.off++
		}
	}
	return false
}
