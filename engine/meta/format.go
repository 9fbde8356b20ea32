package meta

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"pldworkbench/engine/ir"
)

// This file renders values as text the way Python does: float repr, the
// format-spec mini-language behind f"{x:>8.3f}" and str.format, and the
// printf-style str % args.

// formatFloatRepr is repr(float): the shortest text that reads back as f,
// in fixed notation for exponents -4..15 and scientific outside.
func formatFloatRepr(f float64) string {
	if s := ir.NonFiniteText(f); s != "" {
		return s
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// fmtSpec is a parsed format spec:
// [[fill]align][sign][z][#][0][width][grouping][.precision][type].
type fmtSpec struct {
	fill     rune
	align    byte // '<', '>', '=', '^' or 0
	sign     byte // '+', '-', ' ' or 0
	alt      bool
	width    int
	grouping byte // ',', '_' or 0
	prec     int  // -1 when absent
	typ      byte // 0 when absent
}

func isAlign(r rune) bool { return r == '<' || r == '>' || r == '=' || r == '^' }

func parseSpec(spec string) (fmtSpec, *Error) {
	sp := fmtSpec{fill: ' ', prec: -1}
	rs := []rune(spec)
	i := 0
	if len(rs) >= 2 && isAlign(rs[1]) {
		sp.fill, sp.align, i = rs[0], byte(rs[1]), 2
	} else if len(rs) >= 1 && isAlign(rs[0]) {
		sp.align, i = byte(rs[0]), 1
	}
	if i < len(rs) && (rs[i] == '+' || rs[i] == '-' || rs[i] == ' ') {
		sp.sign = byte(rs[i])
		i++
	}
	if i < len(rs) && rs[i] == 'z' {
		i++
	}
	if i < len(rs) && rs[i] == '#' {
		sp.alt = true
		i++
	}
	if i < len(rs) && rs[i] == '0' {
		if sp.align == 0 {
			sp.fill, sp.align = '0', '='
		}
		i++
	}
	digits := func() (int, bool) {
		start := i
		for i < len(rs) && rs[i] >= '0' && rs[i] <= '9' {
			i++
		}
		if i == start {
			return 0, false
		}
		n, err := strconv.Atoi(string(rs[start:i]))
		return n, err == nil && n <= 1<<16
	}
	if n, ok := digits(); ok {
		sp.width = n
	}
	if i < len(rs) && (rs[i] == ',' || rs[i] == '_') {
		sp.grouping = byte(rs[i])
		i++
	}
	if i < len(rs) && rs[i] == '.' {
		i++
		n, ok := digits()
		if !ok {
			return sp, newErr("ValueError", "format specifier %q is missing its precision after '.'", spec)
		}
		sp.prec = n
	}
	if i < len(rs) {
		if i+1 != len(rs) || rs[i] >= utf8.RuneSelf || !strings.ContainsRune("bcdeEfFgGnosxX%", rs[i]) {
			return sp, newErr("ValueError", "invalid format specifier %q", spec).
				withHint("a spec reads [[fill]align][sign][#][0][width][,][.precision][type], e.g. '>8', '.3f', ',d'")
		}
		sp.typ = byte(rs[i])
	}
	return sp, nil
}

// formatValue is format(v, spec).
func formatValue(v Value, spec string) (string, *Error) {
	if spec == "" {
		return v.String(), nil
	}
	sp, err := parseSpec(spec)
	if err != nil {
		return "", err
	}
	switch v := v.(type) {
	case Str:
		return formatStr(v.V, sp)
	case Int, Bool:
		i, _, _, _ := number(v)
		return formatInt(i, sp)
	case Float:
		return formatFloat(v.V, sp)
	}
	if sp.typ == 0 && sp.sign == 0 && sp.prec < 0 && sp.grouping == 0 && sp.align != '=' {
		return formatStr(v.String(), sp)
	}
	return "", typeErr("unsupported format string %q for a value of type '%s'", spec, v.TypeName())
}

func formatStr(s string, sp fmtSpec) (string, *Error) {
	if sp.typ != 0 && sp.typ != 's' {
		return "", newErr("ValueError", "unknown format code '%c' for a value of type 'str'", sp.typ)
	}
	if sp.sign != 0 {
		return "", newErr("ValueError", "sign not allowed in a string format specifier")
	}
	if sp.align == '=' {
		return "", newErr("ValueError", "'=' alignment not allowed in a string format specifier")
	}
	if sp.prec >= 0 && utf8.RuneCountInString(s) > sp.prec {
		s = string([]rune(s)[:sp.prec])
	}
	return pad("", s, sp, '<'), nil
}

func formatInt(i int64, sp fmtSpec) (string, *Error) {
	switch sp.typ {
	case 'e', 'E', 'f', 'F', 'g', 'G', '%':
		return formatFloat(float64(i), sp)
	case 's':
		return "", newErr("ValueError", "unknown format code 's' for a value of type 'int'")
	}
	if sp.prec >= 0 {
		return "", newErr("ValueError", "precision not allowed in an integer format specifier")
	}
	if sp.typ == 'c' {
		return pad("", string(rune(i)), sp, '>'), nil
	}
	neg := i < 0
	u := uint64(i)
	if neg {
		u = -u
	}
	base, prefix, groupEvery := 10, "", 3
	switch sp.typ {
	case 'b':
		base, prefix, groupEvery = 2, "0b", 4
	case 'o':
		base, prefix, groupEvery = 8, "0o", 4
	case 'x', 'X':
		base, prefix, groupEvery = 16, "0x", 4
	}
	digits := strconv.FormatUint(u, base)
	if sp.typ == 'X' {
		digits = strings.ToUpper(digits)
		prefix = "0X"
	}
	if !sp.alt {
		prefix = ""
	}
	if sp.grouping != 0 {
		digits = group(digits, groupEvery, sp.grouping)
	}
	return pad(signText(neg, sp.sign)+prefix, digits, sp, '>'), nil
}

func formatFloat(f float64, sp fmtSpec) (string, *Error) {
	if sp.typ == 'c' || sp.typ == 'b' || sp.typ == 'o' || sp.typ == 'x' || sp.typ == 'X' || sp.typ == 'd' || sp.typ == 's' {
		return "", newErr("ValueError", "unknown format code '%c' for a value of type 'float'", sp.typ)
	}
	neg := math.Signbit(f) && !math.IsNaN(f)
	a := math.Abs(f)
	prec := sp.prec
	var body string
	switch {
	case math.IsInf(a, 0):
		body = "inf"
	case math.IsNaN(a):
		body = "nan"
	}
	if body == "" {
		switch sp.typ {
		case 'f', 'F':
			if prec < 0 {
				prec = 6
			}
			body = strconv.FormatFloat(a, 'f', prec, 64)
		case 'e', 'E':
			if prec < 0 {
				prec = 6
			}
			body = strconv.FormatFloat(a, 'e', prec, 64)
		case 'g', 'G', 'n':
			if prec < 0 {
				prec = 6
			}
			if prec == 0 {
				prec = 1
			}
			body = strconv.FormatFloat(a, 'g', prec, 64)
		case '%':
			if prec < 0 {
				prec = 6
			}
			body = strconv.FormatFloat(a*100, 'f', prec, 64) + "%"
		default:
			if prec < 0 {
				body = formatFloatRepr(a)
			} else {
				if prec == 0 {
					prec = 1
				}
				body = strconv.FormatFloat(a, 'g', prec, 64)
				if !strings.ContainsAny(body, ".e") {
					body += ".0"
				}
			}
		}
		if sp.alt && !strings.ContainsAny(body, ".") {
			if e := strings.IndexByte(body, 'e'); e >= 0 {
				body = body[:e] + "." + body[e:]
			} else if !strings.HasSuffix(body, "%") {
				body += "."
			}
		}
		if sp.grouping != 0 {
			end := strings.IndexAny(body, ".e%")
			if end < 0 {
				end = len(body)
			}
			body = group(body[:end], 3, sp.grouping) + body[end:]
		}
	}
	if sp.typ == 'E' || sp.typ == 'F' || sp.typ == 'G' {
		body = strings.ToUpper(body)
	}
	return pad(signText(neg, sp.sign), body, sp, '>'), nil
}

func signText(neg bool, sign byte) string {
	switch {
	case neg:
		return "-"
	case sign == '+':
		return "+"
	case sign == ' ':
		return " "
	}
	return ""
}

// group inserts sep every n digits from the right.
func group(digits string, n int, sep byte) string {
	if len(digits) <= n {
		return digits
	}
	var b strings.Builder
	first := len(digits) % n
	if first > 0 {
		b.WriteString(digits[:first])
	}
	for i := first; i < len(digits); i += n {
		if b.Len() > 0 {
			b.WriteByte(sep)
		}
		b.WriteString(digits[i : i+n])
	}
	return b.String()
}

// pad lays out prefix+body in sp.width characters with sp's fill and
// alignment; '=' puts the fill between the sign/prefix and the digits.
func pad(prefix, body string, sp fmtSpec, defAlign byte) string {
	n := utf8.RuneCountInString(prefix) + utf8.RuneCountInString(body)
	if n >= sp.width {
		return prefix + body
	}
	fill := strings.Repeat(string(sp.fill), sp.width-n)
	align := sp.align
	if align == 0 {
		align = defAlign
	}
	switch align {
	case '<':
		return prefix + body + fill
	case '=':
		return prefix + fill + body
	case '^':
		left := (sp.width - n) / 2
		fr := []rune(fill)
		return string(fr[:left]) + prefix + body + string(fr[left:])
	}
	return fill + prefix + body
}

// percentFormat is format % args (printf-style formatting).
func percentFormat(format string, args Value) (string, *Error) {
	var list []Value
	mapping, _ := args.(*Dict)
	if t, ok := args.(Tuple); ok {
		list = t.Elts
	} else {
		list = []Value{args}
	}
	next := 0
	take := func() (Value, *Error) {
		if next >= len(list) {
			return nil, typeErr("not enough arguments for format string %s", quoteStr(format))
		}
		next++
		return list[next-1], nil
	}
	var b strings.Builder
	usedMapping := false
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(format) {
			return "", newErr("ValueError", "incomplete format: %s ends with '%%'", quoteStr(format))
		}
		var arg Value
		if format[i] == '(' {
			end := strings.IndexByte(format[i:], ')')
			if end < 0 || mapping == nil {
				return "", typeErr("format %s needs a dict argument for %%(name)", quoteStr(format))
			}
			v, err := dictGet(mapping, Str{format[i+1 : i+end]})
			if err != nil {
				return "", err
			}
			arg, usedMapping, i = v, true, i+end+1
		}
		sp := fmtSpec{fill: ' ', prec: -1, align: '>'}
		for ; i < len(format) && strings.IndexByte("-+ #0", format[i]) >= 0; i++ {
			switch format[i] {
			case '-':
				sp.align = '<'
			case '+', ' ':
				if sp.sign != '+' {
					sp.sign = format[i]
				}
			case '#':
				sp.alt = true
			case '0':
				if sp.align != '<' {
					sp.fill, sp.align = '0', '='
				}
			}
		}
		if sp.align == '<' {
			sp.fill = ' '
		}
		num := func() (int, *Error) {
			if i < len(format) && format[i] == '*' {
				i++
				v, err := take()
				if err != nil {
					return 0, err
				}
				n, ok := asIndex(v)
				if !ok {
					return 0, typeErr("* wants an int, got '%s'", v.TypeName())
				}
				if n > 1<<16 || n < -(1<<16) {
					return 0, newErr("ValueError", "width %d in format %s is too large", n, quoteStr(format))
				}
				return int(n), nil
			}
			start := i
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				i++
			}
			n, err := strconv.Atoi(format[start:i])
			if err != nil && i > start || n > 1<<16 {
				return 0, newErr("ValueError", "width or precision %s in format %s is too large", format[start:i], quoteStr(format))
			}
			return n, nil
		}
		w, err := num()
		if err != nil {
			return "", err
		}
		sp.width = w
		if i < len(format) && format[i] == '.' {
			i++
			if sp.prec, err = num(); err != nil {
				return "", err
			}
		}
		for i < len(format) && strings.IndexByte("hlL", format[i]) >= 0 {
			i++
		}
		if i >= len(format) {
			return "", newErr("ValueError", "incomplete format: %s", quoteStr(format))
		}
		conv := format[i]
		if conv == '%' {
			b.WriteByte('%')
			continue
		}
		if arg == nil {
			if arg, err = take(); err != nil {
				return "", err
			}
		}
		out, err := percentOne(conv, arg, sp)
		if err != nil {
			return "", err
		}
		b.WriteString(out)
	}
	if next < len(list) && !(usedMapping || (mapping != nil && next == 0)) {
		return "", typeErr("not all arguments converted during string formatting")
	}
	return b.String(), nil
}

func percentOne(conv byte, arg Value, sp fmtSpec) (string, *Error) {
	switch conv {
	case 's', 'r', 'a':
		s := arg.String()
		if conv != 's' {
			s = Repr(arg)
		}
		if sp.prec >= 0 && utf8.RuneCountInString(s) > sp.prec {
			s = string([]rune(s)[:sp.prec])
		}
		if sp.align == '=' {
			sp.align, sp.fill = '>', ' '
		}
		return pad("", s, sp, '>'), nil
	case 'd', 'i', 'u', 'x', 'X', 'o', 'c':
		i, f, isF, ok := number(arg)
		if !ok {
			return "", typeErr("%%%c format: a number is required, got '%s'", conv, arg.TypeName())
		}
		if isF {
			if conv != 'd' && conv != 'i' && conv != 'u' {
				return "", typeErr("%%%c format: an integer is required, got 'float'", conv)
			}
			i = int64(f)
		}
		if conv == 'd' || conv == 'i' || conv == 'u' {
			sp.typ = 'd'
		} else {
			sp.typ = conv
		}
		sp.prec = -1
		return formatInt(i, sp)
	case 'e', 'E', 'f', 'F', 'g', 'G':
		i, f, isF, ok := number(arg)
		if !ok {
			return "", typeErr("%%%c format: a real number is required, got '%s'", conv, arg.TypeName())
		}
		if !isF {
			f = float64(i)
		}
		sp.typ = conv
		return formatFloat(f, sp)
	}
	return "", newErr("ValueError", "unsupported format character '%c'", conv)
}

// strFormat is format.format(*args, **kwargs). attr resolves .name
// accessors in field names.
func strFormat(format string, args []Value, kwargs map[string]Value, attr func(Value, string) (Value, *Error)) (string, *Error) {
	var b strings.Builder
	auto := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '}' {
			if i+1 < len(format) && format[i+1] == '}' {
				i++
			}
			b.WriteByte('}')
			continue
		}
		if c != '{' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(format) && format[i+1] == '{' {
			b.WriteByte('{')
			i++
			continue
		}
		// Find the matching close brace, allowing one level of nesting in
		// the spec ("{:{width}}").
		depth, j := 1, i+1
		for ; j < len(format) && depth > 0; j++ {
			switch format[j] {
			case '{':
				depth++
			case '}':
				depth--
			}
		}
		if depth != 0 {
			return "", newErr("ValueError", "single '{' encountered in format string")
		}
		field := format[i+1 : j-1]
		i = j - 1
		name, conv, spec := splitField(field)
		v, err := resolveField(name, &auto, args, kwargs, attr)
		if err != nil {
			return "", err
		}
		if strings.Contains(spec, "{") {
			if spec, err = strFormat(spec, args, kwargs, attr); err != nil {
				return "", err
			}
		}
		out, err := convertAndFormat(v, conv, spec)
		if err != nil {
			return "", err
		}
		b.WriteString(out)
	}
	return b.String(), nil
}

// splitField splits "name!conv:spec".
func splitField(field string) (name, conv, spec string) {
	name = field
	if k := strings.IndexByte(name, ':'); k >= 0 {
		name, spec = name[:k], name[k+1:]
	}
	if k := strings.IndexByte(name, '!'); k >= 0 {
		name, conv = name[:k], name[k+1:]
	}
	return name, conv, spec
}

func resolveField(name string, auto *int, args []Value, kwargs map[string]Value, attr func(Value, string) (Value, *Error)) (Value, *Error) {
	head := name
	rest := ""
	if k := strings.IndexAny(name, ".["); k >= 0 {
		head, rest = name[:k], name[k:]
	}
	var v Value
	switch {
	case head == "":
		if *auto >= len(args) {
			return nil, newErr("IndexError", "format string wants positional argument %d, but only %d were given", *auto, len(args))
		}
		v = args[*auto]
		*auto++
	case head[0] >= '0' && head[0] <= '9':
		n, err := strconv.Atoi(head)
		if err != nil || n >= len(args) {
			return nil, newErr("IndexError", "format string wants positional argument %s, but only %d were given", head, len(args))
		}
		v = args[n]
	default:
		kv, ok := kwargs[head]
		if !ok {
			return nil, newErr("KeyError", "format string wants keyword argument %s, which was not given", quoteStr(head))
		}
		v = kv
	}
	for rest != "" {
		var err *Error
		if rest[0] == '.' {
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				end = len(rest) - 1
			}
			v, err = attr(v, rest[1:1+end])
			rest = rest[1+end:]
		} else {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, newErr("ValueError", "missing ']' in format string field %q", name)
			}
			key := rest[1:end]
			var k Value = Str{key}
			if n, convErr := strconv.Atoi(key); convErr == nil {
				k = Int{int64(n)}
			}
			v, err = getItem(v, k)
			rest = rest[end+1:]
		}
		if err != nil {
			return nil, err
		}
	}
	return v, nil
}

// convertAndFormat applies an f-string/str.format conversion (!r, !s, !a)
// and then the format spec.
func convertAndFormat(v Value, conv, spec string) (string, *Error) {
	switch conv {
	case "":
	case "s":
		v = Str{v.String()}
	case "r", "a":
		v = Str{Repr(v)}
	default:
		return "", newErr("ValueError", "unknown conversion specifier !%s, want !r, !s or !a", conv)
	}
	return formatValue(v, spec)
}
