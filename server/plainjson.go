package server

import (
	"bytes"
	"strconv"
)

// A run message, once cutCode has taken the program's text out, is a
// hundred bytes of plain JSON the page (JSON.stringify) and the clients
// write the same way: no white space, each key once in its own spelling,
// strings of printable ASCII, integers. json.Unmarshal of those bytes
// still cost 3 µs (2% of the serve child's samples per run: reflection,
// a scanner pass to validate, then the decoding). The decoders here read
// only that plain form, and say no to anything else (white space, an
// escape, a key not the field's own or repeated, a float, null, an
// object where none is expected, args), which the caller then gives to
// json: what they accept, json decodes to the same value (the session
// and POST fuzzers hold them to it).

// plainRunMessage decodes b, a session message of the plain form, as
// json.Unmarshal decodes it into a sessionRunMsg; ok false: not that
// form.
func plainRunMessage(b []byte) (f sessionRunMsg, ok bool) {
	seen := 0
	ok = plainObject(b, func(key, v []byte) bool {
		switch string(key) {
		case "type":
			return once(&seen, 1) && plainString(v, &f.Type)
		case "id":
			return once(&seen, 2) && plainString(v, &f.ID)
		case "tag":
			var s string
			var n int
			if !once(&seen, 4) || !plainString(v, &s) && !plainInt(v, &n) {
				return false
			}
			f.Tag = bytes.Clone(v)
			return true
		case "request":
			if !once(&seen, 8) {
				return false
			}
			f.Request = new(runRequest)
			return plainRequest(v, f.Request)
		}
		return false
	})
	return f, ok
}

// plainRequest decodes b, a run request of the plain form, into r (a
// zero runRequest) as json.Unmarshal does; false: not that form.
func plainRequest(b []byte, r *runRequest) bool {
	seen := 0
	return plainObject(b, func(key, v []byte) bool {
		switch string(key) {
		case "code":
			return once(&seen, 1) && plainString(v, &r.Code)
		case "step":
			return once(&seen, 2) && plainInt(v, &r.Step)
		case "variant":
			return once(&seen, 4) && plainString(v, &r.Variant)
		case "kernel":
			return once(&seen, 8) && plainString(v, &r.Kernel)
		case "ranks":
			return once(&seen, 16) && plainInt(v, &r.Ranks)
		case "entry":
			return once(&seen, 32) && plainString(v, &r.Entry)
		case "fill":
			return once(&seen, 64) && plainString(v, &r.Fill)
		case "seed":
			var n int
			if !once(&seen, 128) || len(v) == 0 || v[0] == '-' || !plainInt(v, &n) {
				return false // json reads no minus into a uint64, not even -0
			}
			u := uint64(n)
			r.Seed = &u
			return true
		case "schedule":
			return once(&seen, 256) && plainString(v, &r.Schedule)
		case "platform":
			return once(&seen, 512) && plainString(v, &r.Platform)
		}
		return false // args, and any key not a field's own
	})
}

// once reports whether bit is not set in *seen yet, and sets it.
func once(seen *int, bit int) bool {
	first := *seen&bit == 0
	*seen |= bit
	return first
}

// plainObject calls field for each key of the plain JSON object b, in
// order, with the bytes of its value (a string, an integer or a plain
// object); false when b is not such an object or field says no.
func plainObject(b []byte, field func(key, v []byte) bool) bool {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return false
	}
	i := 1
	if b[i] == '}' {
		return i == len(b)-1
	}
	for {
		k, n := plainStringAt(b, i)
		if n < 0 || n >= len(b) || b[n] != ':' {
			return false
		}
		i = n + 1
		end := plainValueEnd(b, i)
		if end < 0 || !field(k, b[i:end]) {
			return false
		}
		switch {
		case end == len(b)-1:
			return true // the closing brace
		case end < len(b)-1 && b[end] == ',':
			i = end + 1
		default:
			return false
		}
	}
}

// plainStringAt reads the plain string at b[i] (printable ASCII, no
// escape): its text and the index after its closing quote, or -1.
func plainStringAt(b []byte, i int) ([]byte, int) {
	if i >= len(b) || b[i] != '"' {
		return nil, -1
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[i+1 : j], j + 1
		case c < 0x20 || c > 0x7e || c == '\\':
			return nil, -1
		}
	}
	return nil, -1
}

// plainValueEnd is the index after the plain value at b[i] (a string, an
// integer or a plain object, which must hold only such values), or -1.
func plainValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		_, n := plainStringAt(b, i)
		return n
	case c == '-' || c >= '0' && c <= '9':
		j := i
		for j < len(b) && (b[j] == '-' || b[j] >= '0' && b[j] <= '9') {
			j++
		}
		return j // plainInt checks the digits
	case c == '{':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				_, n := plainStringAt(b, j)
				if n < 0 {
					return -1
				}
				j = n - 1
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
	}
	return -1
}

// plainString stores the plain string v in *s.
func plainString(v []byte, s *string) bool {
	t, n := plainStringAt(v, 0)
	if n != len(v) {
		return false
	}
	*s = string(t)
	return true
}

// plainInt stores the integer v in *n: an optional minus, then 0 or a
// digit other than 0 and up to 17 more (so it fits any int json would
// decode it into).
func plainInt(v []byte, n *int) bool {
	d := v
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 || d[0] == '0' && len(d) > 1 {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	x, err := strconv.Atoi(string(v))
	if err != nil {
		return false
	}
	*n = x
	return true
}
