package meta

import (
	"strings"

	"pldworkbench/engine/diag"
	"pldworkbench/engine/syntax"
)

// kwarg is one keyword argument, kept in call order for messages and for
// **kwargs dicts.
type kwarg struct {
	name string
	v    Value
}

// evalCall evaluates fn(args...).
func (m *machine) evalCall(fr *frame, e *syntax.CallExpr) (Value, *Error) {
	fn, err := m.eval(fr, e.Fn)
	if err != nil {
		return nil, err
	}
	var args []Value
	var kw []kwarg
	for _, a := range e.Args {
		v, err := m.eval(fr, a.Value)
		if err != nil {
			return nil, err
		}
		switch {
		case a.Star:
			elts, err := elements(v)
			if err != nil {
				return nil, typeErr("argument after * must be iterable, got '%s'", v.TypeName()).at(a.Value.Span())
			}
			args = append(args, elts...)
		case a.DoubleStar:
			d, ok := v.(*Dict)
			if !ok {
				return nil, typeErr("argument after ** must be a dict, got '%s'", v.TypeName()).at(a.Value.Span())
			}
			for i, k := range d.Keys {
				s, ok := k.(Str)
				if !ok {
					return nil, typeErr("keywords must be strings, got '%s'", k.TypeName()).at(a.Value.Span())
				}
				kw = append(kw, kwarg{s.V, d.Values[i]})
			}
		case a.Name != "":
			kw = append(kw, kwarg{a.Name, v})
		default:
			args = append(args, v)
		}
	}
	return m.callValue(fn, args, kw, e.Pos, "")
}

// callValue calls fn. span is the call's position; via is the call's text
// for messages ("" to quote it from the source at span).
func (m *machine) callValue(fn Value, args []Value, kw []kwarg, span diag.Span, via string) (Value, *Error) {
	var v Value
	var err *Error
	switch f := fn.(type) {
	case *Func:
		v, err = m.callFunc(f, args, kw, span, via)
	case *Builtin:
		v, err = m.callBuiltin(f, args, kw, span)
	case *Method:
		v, err = m.callMethod(f, args, kw, span)
	case *Opaque:
		v = &Opaque{Desc: "result of calling " + f.Desc}
	case *DSLFunc:
		err = fatalErr(CodeDSLOnly,
			"DSL functions run on the device; module code and factories only define them (the host orchestrator is what the workbench runs)",
			"%s %s cannot be called at compile time", f.Kind, f.Def.Name)
	case *Program:
		err = fatalErr(CodeInstantiate, "a @pl.program class is compiled, not instantiated; name one of its methods as the entry",
			"program %s cannot be called at compile time", f.Name)
	case *Class:
		if _, ok := m.mod.userExc[f.Name]; ok {
			return newException(f.Name, args), nil
		}
		err = fatalErr(CodeInstantiate, "compile-time code can use a class's attributes (Cls.X) but not create instances",
			"cannot create an instance of class %s at compile time", f.Name)
	default:
		err = typeErr("'%s' object is not callable", fn.TypeName())
	}
	if err != nil {
		return nil, err.at(span)
	}
	if fresh(fn) {
		if err := m.chargeValue(v, span); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// handOut lists the builtins and methods that return a value they were
// given or hold (min, d.get, l.pop) rather than one they make: charging
// those again would count one string many times.
var handOut = map[string]bool{
	"min": true, "max": true, "getattr": true, "next": true, "iter": true, "id": true,
	"get": true, "pop": true, "popitem": true, "setdefault": true,
}

// fresh reports whether calling fn makes the value it returns.
func fresh(fn Value) bool {
	switch f := fn.(type) {
	case *Builtin:
		return !handOut[f.Path]
	case *Method:
		return !handOut[f.Name]
	}
	return false
}

// callFunc runs a plain function or lambda with Python's argument binding.
func (m *machine) callFunc(f *Func, args []Value, kw []kwarg, span diag.Span, via string) (Value, *Error) {
	params := f.params()
	m.depth++
	defer func() { m.depth-- }()
	if m.depth > m.mod.opts.MaxDepth {
		return nil, fatalErr(CodeDepth, "a function calls itself without reaching its base case",
			"maximum call depth %d exceeded in %s()", m.mod.opts.MaxDepth, f.Name()).at(span)
	}
	env := NewEnv(f.Env)
	if err := bindArgs(f.Name(), params, f.Defaults, args, kw, env); err != nil {
		return nil, err.at(span)
	}
	fr := &frame{env: env, closure: env, inFunc: true}
	var v Value = None
	var err *Error
	if f.Lambda != nil {
		v, err = m.eval(fr, f.Lambda.Body)
	} else {
		fr.decl = m.declsOf(f.Def)
		var c ctl
		var rv Value
		c, rv, err = m.execBlock(fr, f.Def.Body)
		if c == ctlReturn {
			v = rv
		}
	}
	if err != nil {
		// The outermost call wins: it is the one the learner wrote.
		if via == "" {
			via = m.text(span)
		}
		if via != "" {
			err.Via = via
		}
		return nil, err
	}
	return v, nil
}

func (f *Func) params() []*syntax.Param {
	if f.Lambda != nil {
		return f.Lambda.Params
	}
	return f.Def.Params
}

// bindArgs binds positional and keyword arguments to params in env, with
// defaults, *args and **kwargs, reporting mistakes as Python does.
func bindArgs(name string, params []*syntax.Param, defaults []Value, args []Value, kw []kwarg, env *Env) *Error {
	argErr := func(format string, a ...any) *Error {
		e := typeErr(format, a...)
		e.Code = CodeArgs
		e.Hint = "compare the call with the def of " + name + "()"
		return e
	}
	var star, dstar *syntax.Param
	var positional []*syntax.Param
	for _, p := range params {
		switch {
		case p.Star:
			star = p
		case p.DoubleStar:
			dstar = p
		case !p.KwOnly && star == nil:
			positional = append(positional, p)
		}
	}
	bound := map[string]bool{}
	for i, a := range args {
		if i < len(positional) {
			env.Set(positional[i].Name, a)
			bound[positional[i].Name] = true
		}
	}
	if len(args) > len(positional) {
		if star == nil {
			return argErr("%s() takes %d positional arguments, got %d", name, len(positional), len(args))
		}
		env.Set(star.Name, Tuple{Elts: append([]Value(nil), args[len(positional):]...)})
	} else if star != nil {
		env.Set(star.Name, Tuple{})
	}
	var extra *Dict
	if dstar != nil {
		extra = &Dict{}
	}
	for _, k := range kw {
		var target *syntax.Param
		for _, p := range params {
			if p.Name == k.name && !p.Star && !p.DoubleStar {
				target = p
				break
			}
		}
		switch {
		case target == nil && extra != nil:
			extra.Keys = append(extra.Keys, Str{k.name})
			extra.Values = append(extra.Values, k.v)
		case target == nil:
			return argErr("%s() got an unexpected keyword argument '%s'", name, k.name)
		case bound[target.Name]:
			return argErr("%s() got multiple values for argument '%s'", name, k.name)
		default:
			env.Set(target.Name, k.v)
			bound[target.Name] = true
		}
	}
	if dstar != nil {
		env.Set(dstar.Name, extra)
	}
	var missing []string
	for i, p := range params {
		if p.Star || p.DoubleStar || bound[p.Name] {
			continue
		}
		if i < len(defaults) && defaults[i] != nil {
			env.Set(p.Name, defaults[i])
			continue
		}
		missing = append(missing, "'"+p.Name+"'")
	}
	if len(missing) > 0 {
		word := "argument"
		if len(missing) > 1 {
			word = "arguments"
		}
		return argErr("%s() missing %d required %s: %s", name, len(missing), word, strings.Join(missing, ", "))
	}
	return nil
}

// nativeArgs checks the arguments of a builtin or method implemented in Go:
// between min and max positional arguments (max < 0: any) and only the
// keywords listed. It returns the keywords by name.
func nativeArgs(name string, args []Value, kw []kwarg, min, max int, keywords ...string) (map[string]Value, *Error) {
	argErr := func(format string, a ...any) *Error {
		e := typeErr(format, a...)
		e.Code = CodeArgs
		e.Hint = "check the arguments passed to " + name + "()"
		return e
	}
	if len(args) < min {
		if min == max {
			return nil, argErr("%s() takes %d arguments, got %d", name, min, len(args))
		}
		return nil, argErr("%s() takes at least %d arguments, got %d", name, min, len(args))
	}
	if max >= 0 && len(args) > max {
		if min == max {
			return nil, argErr("%s() takes %d arguments, got %d", name, max, len(args))
		}
		return nil, argErr("%s() takes at most %d arguments, got %d", name, max, len(args))
	}
	out := map[string]Value{}
	for _, k := range kw {
		ok := false
		for _, allowed := range keywords {
			ok = ok || allowed == k.name
		}
		if !ok {
			e := argErr("%s() got an unexpected keyword argument '%s'", name, k.name)
			if len(keywords) > 0 {
				e.Hint = "it accepts " + strings.Join(keywords, ", ")
			}
			return nil, e
		}
		out[k.name] = k.v
	}
	return out, nil
}
