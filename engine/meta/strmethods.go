package meta

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"pldworkbench/engine/diag"
)

// strMethods are the str methods compile-time code uses. Indices are in
// characters, as Python counts them.
var strMethods = map[string]methodFn{
	"upper":        strMap("upper", strings.ToUpper),
	"lower":        strMap("lower", strings.ToLower),
	"title":        strMap("title", pyTitle),
	"capitalize":   strMap("capitalize", pyCapitalize),
	"swapcase":     strMap("swapcase", swapCase),
	"strip":        strTrim("strip", strings.Trim, strings.TrimSpace),
	"lstrip":       strTrim("lstrip", strings.TrimLeft, func(s string) string { return strings.TrimLeftFunc(s, unicode.IsSpace) }),
	"rstrip":       strTrim("rstrip", strings.TrimRight, func(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }),
	"isdigit":      strTest("isdigit", unicode.IsDigit),
	"isnumeric":    strTest("isnumeric", unicode.IsNumber),
	"isdecimal":    strTest("isdecimal", unicode.IsDigit),
	"isalpha":      strTest("isalpha", unicode.IsLetter),
	"isalnum":      strTest("isalnum", func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }),
	"isspace":      strTest("isspace", unicode.IsSpace),
	"isupper":      strCase("isupper", unicode.IsUpper, unicode.IsLower),
	"islower":      strCase("islower", unicode.IsLower, unicode.IsUpper),
	"isidentifier": strIsIdentifier,
	"startswith":   strAffix("startswith", strings.HasPrefix),
	"endswith":     strAffix("endswith", strings.HasSuffix),
	"split":        strSplit("split"),
	"rsplit":       strSplit("rsplit"),
	"splitlines":   strSplitlines,
	"join":         strJoin,
	"replace":      strReplace,
	"find":         strFind("find", false, false),
	"rfind":        strFind("rfind", true, false),
	"index":        strFind("index", false, true),
	"rindex":       strFind("rindex", true, true),
	"count":        strCount,
	"center":       strPad("center", '^'),
	"ljust":        strPad("ljust", '<'),
	"rjust":        strPad("rjust", '>'),
	"zfill":        strZfill,
	"partition":    strPartition("partition", false),
	"rpartition":   strPartition("rpartition", true),
	"removeprefix": strRemove("removeprefix", strings.TrimPrefix),
	"removesuffix": strRemove("removesuffix", strings.TrimSuffix),
	"format":       strFormatMethod,
}

func recvStr(v Value) string { return v.(Str).V }

// strArg reads argument i as a str.
func strArg(name string, args []Value, i int) (string, *Error) {
	s, ok := args[i].(Str)
	if !ok {
		return "", typeErr("%s() argument %d must be a str, got '%s'", name, i+1, args[i].TypeName())
	}
	return s.V, nil
}

func strMap(name string, f func(string) string) methodFn {
	return func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs(name, args, kw, 0, 0); err != nil {
			return nil, err
		}
		return Str{f(recvStr(recv))}, nil
	}
}

func pyTitle(s string) string {
	var b strings.Builder
	prevLetter := false
	for _, r := range s {
		if prevLetter {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(unicode.ToUpper(r))
		}
		prevLetter = unicode.IsLetter(r)
	}
	return b.String()
}

func pyCapitalize(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + strings.ToLower(s[n:])
}

func swapCase(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, s)
}

func strTrim(name string, withChars func(string, string) string, space func(string) string) methodFn {
	return func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs(name, args, kw, 0, 1); err != nil {
			return nil, err
		}
		if len(args) == 0 || args[0] == Value(None) {
			return Str{space(recvStr(recv))}, nil
		}
		chars, err := strArg(name, args, 0)
		if err != nil {
			return nil, err
		}
		return Str{withChars(recvStr(recv), chars)}, nil
	}
}

func strTest(name string, pred func(rune) bool) methodFn {
	return func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs(name, args, kw, 0, 0); err != nil {
			return nil, err
		}
		s := recvStr(recv)
		if s == "" {
			return Bool{false}, nil
		}
		for _, r := range s {
			if !pred(r) {
				return Bool{false}, nil
			}
		}
		return Bool{true}, nil
	}
}

// strCase is isupper/islower: at least one cased character, none of the
// opposite case.
func strCase(name string, want, opposite func(rune) bool) methodFn {
	return func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs(name, args, kw, 0, 0); err != nil {
			return nil, err
		}
		found := false
		for _, r := range recvStr(recv) {
			if opposite(r) {
				return Bool{false}, nil
			}
			found = found || want(r)
		}
		return Bool{found}, nil
	}
}

func strIsIdentifier(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("isidentifier", args, kw, 0, 0); err != nil {
		return nil, err
	}
	return Bool{isIdentifier(recvStr(recv))}, nil
}

// isIdentifier reports whether s is a Python identifier.
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r)) {
			continue
		}
		return false
	}
	return true
}

func strAffix(name string, test func(string, string) bool) methodFn {
	return func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs(name, args, kw, 1, 1); err != nil {
			return nil, err
		}
		s := recvStr(recv)
		cands := []Value{args[0]}
		if t, ok := args[0].(Tuple); ok {
			cands = t.Elts
		}
		for _, c := range cands {
			a, ok := c.(Str)
			if !ok {
				return nil, typeErr("%s() wants a str or a tuple of str, got '%s'", name, c.TypeName())
			}
			if test(s, a.V) {
				return Bool{true}, nil
			}
		}
		return Bool{false}, nil
	}
}

func strSplit(name string) methodFn {
	return func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		opts, err := nativeArgs(name, args, kw, 0, 2, "sep", "maxsplit")
		if err != nil {
			return nil, err
		}
		var sepV Value = None
		maxsplit := int64(-1)
		if len(args) > 0 {
			sepV = args[0]
		}
		if v, ok := opts["sep"]; ok {
			sepV = v
		}
		if len(args) > 1 {
			opts["maxsplit"] = args[1]
		}
		if v, ok := opts["maxsplit"]; ok {
			if maxsplit, ok = asIndex(v); !ok {
				return nil, typeErr("%s() maxsplit must be an integer, got '%s'", name, v.TypeName())
			}
		}
		s := recvStr(recv)
		var parts []string
		if sepV == Value(None) {
			parts = splitFields(s, maxsplit, name == "rsplit")
		} else {
			sep, ok := sepV.(Str)
			if !ok {
				return nil, typeErr("%s() separator must be a str or None, got '%s'", name, sepV.TypeName())
			}
			if sep.V == "" {
				return nil, newErr("ValueError", "empty separator")
			}
			switch {
			case maxsplit < 0:
				parts = strings.Split(s, sep.V)
			case name == "split":
				parts = strings.SplitN(s, sep.V, int(maxsplit)+1)
			default:
				parts = rsplitN(s, sep.V, int(maxsplit))
			}
		}
		out := make([]Value, len(parts))
		for i, p := range parts {
			out[i] = Str{p}
		}
		return &List{Elts: out}, m.chargeLen(len(out), span)
	}
}

// splitFields splits on runs of whitespace, dropping empty fields, with at
// most maxsplit splits (from the right for rsplit).
func splitFields(s string, maxsplit int64, fromRight bool) []string {
	fields := strings.Fields(s)
	if maxsplit < 0 || int64(len(fields)) <= maxsplit+1 {
		return fields
	}
	if !fromRight {
		rest := s
		var out []string
		for i := int64(0); i < maxsplit; i++ {
			rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
			end := strings.IndexFunc(rest, unicode.IsSpace)
			out = append(out, rest[:end])
			rest = rest[end:]
		}
		return append(out, strings.TrimLeftFunc(rest, unicode.IsSpace))
	}
	rest := s
	var out []string
	for i := int64(0); i < maxsplit; i++ {
		rest = strings.TrimRightFunc(rest, unicode.IsSpace)
		start := strings.LastIndexFunc(rest, unicode.IsSpace) + 1
		out = append([]string{rest[start:]}, out...)
		rest = rest[:start]
	}
	return append([]string{strings.TrimRightFunc(rest, unicode.IsSpace)}, out...)
}

func rsplitN(s, sep string, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		k := strings.LastIndex(s, sep)
		if k < 0 {
			break
		}
		out = append([]string{s[k+len(sep):]}, out...)
		s = s[:k]
	}
	return append([]string{s}, out...)
}

func strSplitlines(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("splitlines", args, kw, 0, 0); err != nil {
		return nil, err
	}
	s := strings.ReplaceAll(recvStr(recv), "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	parts := strings.Split(s, "\n")
	if len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	out := make([]Value, len(parts))
	for i, p := range parts {
		out[i] = Str{p}
	}
	return &List{Elts: out}, nil
}

func strJoin(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("join", args, kw, 1, 1); err != nil {
		return nil, err
	}
	elts, err := elements(args[0])
	if err != nil {
		return nil, err
	}
	parts := make([]string, len(elts))
	total := 0
	for i, e := range elts {
		s, ok := e.(Str)
		if !ok {
			return nil, typeErr("sequence item %d: expected str instance, got '%s'", i, e.TypeName()).
				withHint("convert the items first: sep.join(str(x) for x in xs)")
		}
		parts[i] = s.V
		total += len(s.V)
	}
	if total+len(parts)*len(recvStr(recv)) > maxStrLen {
		return nil, sizeErr("string")
	}
	return Str{strings.Join(parts, recvStr(recv))}, m.chargeLen(len(elts), span)
}

func strReplace(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("replace", args, kw, 2, 3); err != nil {
		return nil, err
	}
	old, err := strArg("replace", args, 0)
	if err != nil {
		return nil, err
	}
	repl, err := strArg("replace", args, 1)
	if err != nil {
		return nil, err
	}
	n := int64(-1)
	if len(args) == 3 {
		var ok bool
		if n, ok = asIndex(args[2]); !ok {
			return nil, typeErr("replace() count must be an integer, got '%s'", args[2].TypeName())
		}
	}
	s := recvStr(recv)
	if strings.Count(s, old)*len(repl)+len(s) > maxStrLen {
		return nil, sizeErr("string")
	}
	return Str{strings.Replace(s, old, repl, int(n))}, nil
}

func strFind(name string, last, mustFind bool) methodFn {
	return func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs(name, args, kw, 1, 1); err != nil {
			return nil, err
		}
		sub, err := strArg(name, args, 0)
		if err != nil {
			return nil, err
		}
		s := recvStr(recv)
		k := strings.Index(s, sub)
		if last {
			k = strings.LastIndex(s, sub)
		}
		if k < 0 {
			if mustFind {
				return nil, newErr("ValueError", "substring %s not found", quoteStr(sub))
			}
			return Int{-1}, nil
		}
		return Int{int64(utf8.RuneCountInString(s[:k]))}, nil
	}
}

func strCount(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("count", args, kw, 1, 1); err != nil {
		return nil, err
	}
	sub, err := strArg("count", args, 0)
	if err != nil {
		return nil, err
	}
	return Int{int64(strings.Count(recvStr(recv), sub))}, nil
}

func strPad(name string, align byte) methodFn {
	return func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs(name, args, kw, 1, 2); err != nil {
			return nil, err
		}
		w, ok := asIndex(args[0])
		if !ok {
			return nil, typeErr("%s() width must be an integer, got '%s'", name, args[0].TypeName())
		}
		if w > maxStrLen {
			return nil, sizeErr("string")
		}
		fill := ' '
		if len(args) == 2 {
			f, err := strArg(name, args, 1)
			if err != nil {
				return nil, err
			}
			if utf8.RuneCountInString(f) != 1 {
				return nil, typeErr("%s() fill character must be exactly one character long", name)
			}
			fill, _ = utf8.DecodeRuneInString(f)
		}
		return Str{pad("", recvStr(recv), fmtSpec{fill: fill, align: align, width: int(w)}, align)}, nil
	}
}

func strZfill(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	if _, err := nativeArgs("zfill", args, kw, 1, 1); err != nil {
		return nil, err
	}
	w, ok := asIndex(args[0])
	if !ok || w > maxStrLen {
		return nil, typeErr("zfill() width must be a small integer, got %s", Repr(args[0]))
	}
	s := recvStr(recv)
	sign := ""
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		sign, s = s[:1], s[1:]
	}
	return Str{pad(sign, s, fmtSpec{fill: '0', align: '=', width: int(w)}, '=')}, nil
}

func strPartition(name string, last bool) methodFn {
	return func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs(name, args, kw, 1, 1); err != nil {
			return nil, err
		}
		sep, err := strArg(name, args, 0)
		if err != nil {
			return nil, err
		}
		if sep == "" {
			return nil, newErr("ValueError", "empty separator")
		}
		s := recvStr(recv)
		k := strings.Index(s, sep)
		if last {
			k = strings.LastIndex(s, sep)
		}
		if k < 0 {
			if last {
				return Tuple{Elts: []Value{Str{}, Str{}, Str{s}}}, nil
			}
			return Tuple{Elts: []Value{Str{s}, Str{}, Str{}}}, nil
		}
		return Tuple{Elts: []Value{Str{s[:k]}, Str{sep}, Str{s[k+len(sep):]}}}, nil
	}
}

func strRemove(name string, f func(string, string) string) methodFn {
	return func(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
		if _, err := nativeArgs(name, args, kw, 1, 1); err != nil {
			return nil, err
		}
		a, err := strArg(name, args, 0)
		if err != nil {
			return nil, err
		}
		return Str{f(recvStr(recv), a)}, nil
	}
}

func strFormatMethod(m *machine, recv Value, args []Value, kw []kwarg, span diag.Span) (Value, *Error) {
	kwargs := map[string]Value{}
	for _, k := range kw {
		kwargs[k.name] = k.v
	}
	s, err := strFormat(recvStr(recv), args, kwargs, m.getAttr)
	if err != nil {
		return nil, err
	}
	return Str{s}, nil
}
