package meta

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// This file holds the container machinery: dict and set lookups, iteration,
// indexing and slicing with Python's rules.

// dictIndex returns the position of key k in d, or -1. Lookups are linear:
// compile-time dicts hold a handful of entries, and the evaluator charges
// large ones against the step budget (see machine.chargeLen).
func dictIndex(d *Dict, k Value) int {
	for i, key := range d.Keys {
		if equal(key, k) {
			return i
		}
	}
	return -1
}

// dictSet binds d[k] = v, keeping the first insertion position of k.
func dictSet(d *Dict, k, v Value) *Error {
	if _, err := hashKey(k); err != nil {
		return err
	}
	if i := dictIndex(d, k); i >= 0 {
		d.Values[i] = v
		return nil
	}
	if len(d.Keys) >= maxSeqLen {
		return sizeErr("dict")
	}
	d.Keys = append(d.Keys, k)
	d.Values = append(d.Values, v)
	return nil
}

// dictGet returns d[k] or a KeyError.
func dictGet(d *Dict, k Value) (Value, *Error) {
	if _, err := hashKey(k); err != nil {
		return nil, err
	}
	if i := dictIndex(d, k); i >= 0 {
		return d.Values[i], nil
	}
	return nil, keyErr(d, k)
}

func keyErr(d *Dict, k Value) *Error {
	keys := make([]string, 0, len(d.Keys))
	for i, key := range d.Keys {
		if i == 8 {
			keys = append(keys, "...")
			break
		}
		keys = append(keys, Repr(key))
	}
	e := newErr("KeyError", "key %s not found in the dict", Repr(k))
	if len(keys) > 0 {
		e.Hint = "the dict's keys are " + strings.Join(keys, ", ") + "; use .get(key, default) for an optional key"
	}
	return e
}

// dictDelete removes d[k].
func dictDelete(d *Dict, k Value) *Error {
	i := dictIndex(d, k)
	if i < 0 {
		return keyErr(d, k)
	}
	d.Keys = append(d.Keys[:i:i], d.Keys[i+1:]...)
	d.Values = append(d.Values[:i:i], d.Values[i+1:]...)
	return nil
}

func setIndex(s *Set, v Value) int {
	for i, e := range s.Elts {
		if equal(e, v) {
			return i
		}
	}
	return -1
}

func setAdd(s *Set, v Value) *Error {
	if _, err := hashKey(v); err != nil {
		return err
	}
	if setIndex(s, v) < 0 {
		if len(s.Elts) >= maxSeqLen {
			return sizeErr("set")
		}
		s.Elts = append(s.Elts, v)
	}
	return nil
}

// iterate returns a function yielding v's elements one by one, or a
// TypeError when v is not iterable. A list is read live, as Python does, so
// appending to it inside the loop extends the loop.
func iterate(v Value) (func() (Value, bool), *Error) {
	idx := 0
	switch v := v.(type) {
	case *List:
		return func() (Value, bool) {
			if idx >= len(v.Elts) {
				return nil, false
			}
			idx++
			return v.Elts[idx-1], true
		}, nil
	case Tuple:
		return sliceIter(v.Elts), nil
	case *Set:
		return sliceIter(append([]Value(nil), v.Elts...)), nil
	case *Dict:
		return sliceIter(append([]Value(nil), v.Keys...)), nil
	case Str:
		s := v.V
		return func() (Value, bool) {
			if idx >= len(s) {
				return nil, false
			}
			r, n := utf8.DecodeRuneInString(s[idx:])
			idx += n
			return Str{string(r)}, true
		}, nil
	case Range:
		n, i := v.Len(), int64(0)
		return func() (Value, bool) {
			if i >= n {
				return nil, false
			}
			i++
			return Int{v.At(i - 1)}, true
		}, nil
	}
	return nil, typeErr("'%s' object is not iterable", v.TypeName())
}

func sliceIter(elts []Value) func() (Value, bool) {
	i := 0
	return func() (Value, bool) {
		if i >= len(elts) {
			return nil, false
		}
		i++
		return elts[i-1], true
	}
}

// elements materializes v's elements, refusing more than maxSeqLen.
func elements(v Value) ([]Value, *Error) {
	switch v := v.(type) {
	case *List:
		return v.Elts, nil
	case Tuple:
		return v.Elts, nil
	case Range:
		if v.Len() > maxSeqLen {
			return nil, sizeErr("range")
		}
	}
	next, err := iterate(v)
	if err != nil {
		return nil, err
	}
	var out []Value
	for e, ok := next(); ok; e, ok = next() {
		if len(out) >= maxSeqLen {
			return nil, sizeErr("sequence")
		}
		out = append(out, e)
	}
	return out, nil
}

// sliceVal is an evaluated lo:hi:step inside a subscript. It never escapes
// the subscript that made it.
type sliceVal struct{ lo, hi, step Value }

func (sliceVal) TypeName() string { return "slice" }
func (s sliceVal) String() string { return fmt.Sprintf("slice(%v, %v, %v)", s.lo, s.hi, s.step) }

// indices resolves the slice against a sequence of length n with Python's
// rules, returning the start, the step and how many elements it selects.
func (s sliceVal) indices(n int64) (start, step, count int64, err *Error) {
	step = 1
	if s.step != nil && s.step != Value(None) {
		st, ok := asIndex(s.step)
		if !ok {
			return 0, 0, 0, typeErr("slice indices must be integers or None, got '%s'", s.step.TypeName())
		}
		if st == 0 {
			return 0, 0, 0, newErr("ValueError", "slice step cannot be zero")
		}
		step = st
	}
	bound := func(v Value, def int64) (int64, *Error) {
		if v == nil || v == Value(None) {
			return def, nil
		}
		i, ok := asIndex(v)
		if !ok {
			return 0, typeErr("slice indices must be integers or None, got '%s'", v.TypeName())
		}
		if i < 0 {
			i += n
			if i < 0 {
				if step < 0 {
					return -1, nil
				}
				return 0, nil
			}
		}
		if i >= n {
			if step < 0 {
				return n - 1, nil
			}
			return n, nil
		}
		return i, nil
	}
	var stop int64
	if step > 0 {
		if start, err = bound(s.lo, 0); err == nil {
			stop, err = bound(s.hi, n)
		}
		if err == nil && stop > start {
			count = (stop - start + step - 1) / step
		}
	} else {
		if start, err = bound(s.lo, n-1); err == nil {
			stop, err = bound(s.hi, -1)
		}
		if err == nil && start > stop {
			count = (start - stop - step - 1) / -step
		}
	}
	return start, step, count, err
}

func pickElts(elts []Value, s sliceVal) ([]Value, *Error) {
	start, step, count, err := s.indices(int64(len(elts)))
	if err != nil {
		return nil, err
	}
	out := make([]Value, 0, count)
	for i := int64(0); i < count; i++ {
		out = append(out, elts[start+i*step])
	}
	return out, nil
}

// seqIndex resolves an index into a sequence of length n, naming the
// sequence kind in the error.
func seqIndex(kind string, key Value, n int) (int, *Error) {
	i, ok := asIndex(key)
	if !ok {
		return 0, typeErr("%s indices must be integers or slices, got '%s'", kind, key.TypeName())
	}
	j := i
	if j < 0 {
		j += int64(n)
	}
	if j < 0 || j >= int64(n) {
		if n == 0 {
			return 0, newErr("IndexError", "%s index out of range: got %d, but the %s is empty", kind, i, kind)
		}
		return 0, newErr("IndexError", "%s index out of range: got %d, want %d..%d", kind, i, -n, n-1)
	}
	return int(j), nil
}

// getItem is container[key] for the value kinds that support it.
func getItem(container, key Value) (Value, *Error) {
	s, isSlice := key.(sliceVal)
	switch c := container.(type) {
	case *List:
		if isSlice {
			elts, err := pickElts(c.Elts, s)
			return &List{Elts: elts}, err
		}
		i, err := seqIndex("list", key, len(c.Elts))
		if err != nil {
			return nil, err
		}
		return c.Elts[i], nil
	case Tuple:
		if isSlice {
			elts, err := pickElts(c.Elts, s)
			return Tuple{Elts: elts}, err
		}
		i, err := seqIndex("tuple", key, len(c.Elts))
		if err != nil {
			return nil, err
		}
		return c.Elts[i], nil
	case Str:
		runes := strElts(c.V)
		if isSlice {
			elts, err := pickElts(runes, s)
			if err != nil {
				return nil, err
			}
			var b strings.Builder
			for _, e := range elts {
				b.WriteString(e.(Str).V)
			}
			return Str{b.String()}, nil
		}
		i, err := seqIndex("string", key, len(runes))
		if err != nil {
			return nil, err
		}
		return runes[i], nil
	case Range:
		n := c.Len()
		if isSlice {
			start, step, count, err := s.indices(n)
			if err != nil {
				return nil, err
			}
			first := c.At(start)
			return Range{Start: first, Stop: first + count*c.Step*step, Step: c.Step * step}, nil
		}
		if n > maxSeqLen*1024 {
			n = maxSeqLen * 1024
		}
		i, err := seqIndex("range", key, int(n))
		if err != nil {
			return nil, err
		}
		return Int{c.At(int64(i))}, nil
	case *Dict:
		if isSlice {
			return nil, typeErr("a dict cannot be sliced")
		}
		return dictGet(c, key)
	}
	return nil, typeErr("'%s' object is not subscriptable", container.TypeName())
}

// strElts splits s into one-character strings (characters, not bytes, as
// Python counts them).
func strElts(s string) []Value {
	out := make([]Value, 0, len(s))
	for _, r := range s {
		out = append(out, Str{string(r)})
	}
	return out
}

// setItem is container[key] = v.
func setItem(container, key, v Value) *Error {
	switch c := container.(type) {
	case *List:
		if s, ok := key.(sliceVal); ok {
			return setListSlice(c, s, v)
		}
		i, err := seqIndex("list", key, len(c.Elts))
		if err != nil {
			return err
		}
		c.Elts[i] = v
		return nil
	case *Dict:
		return dictSet(c, key, v)
	}
	return typeErr("'%s' object does not support item assignment", container.TypeName())
}

func setListSlice(l *List, s sliceVal, v Value) *Error {
	repl, err := elements(v)
	if err != nil {
		return err
	}
	repl = append([]Value(nil), repl...)
	start, step, count, err := s.indices(int64(len(l.Elts)))
	if err != nil {
		return err
	}
	if step == 1 {
		if count == 0 && start > int64(len(l.Elts)) {
			start = int64(len(l.Elts))
		}
		tail := append([]Value(nil), l.Elts[start+count:]...)
		l.Elts = append(append(l.Elts[:start], repl...), tail...)
		return nil
	}
	if int64(len(repl)) != count {
		return newErr("ValueError", "attempt to assign a sequence of size %d to an extended slice of size %d", len(repl), count)
	}
	for i := int64(0); i < count; i++ {
		l.Elts[start+i*step] = repl[i]
	}
	return nil
}

// delItem is del container[key].
func delItem(container, key Value) *Error {
	switch c := container.(type) {
	case *List:
		if s, ok := key.(sliceVal); ok {
			start, step, count, err := s.indices(int64(len(c.Elts)))
			if err != nil {
				return err
			}
			drop := map[int64]bool{}
			for i := int64(0); i < count; i++ {
				drop[start+i*step] = true
			}
			kept := c.Elts[:0:0]
			for i, e := range c.Elts {
				if !drop[int64(i)] {
					kept = append(kept, e)
				}
			}
			c.Elts = kept
			return nil
		}
		i, err := seqIndex("list", key, len(c.Elts))
		if err != nil {
			return err
		}
		c.Elts = append(c.Elts[:i:i], c.Elts[i+1:]...)
		return nil
	case *Dict:
		return dictDelete(c, key)
	}
	return typeErr("'%s' object does not support item deletion", container.TypeName())
}

func pointerKey(v Value) string { return fmt.Sprintf("%T%p", v, v) }
