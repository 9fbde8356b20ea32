package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// Writer streams events as JSON lines: one object per line, fields in the
// order of Event's declaration. It buffers; call Flush when done.
type Writer struct {
	w   *bufio.Writer
	err error
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriter(w)} }

// Write writes one event. After the first error every call returns it.
func (w *Writer) Write(e Event) error {
	if w.err != nil {
		return w.err
	}
	b, err := json.Marshal(e)
	if err != nil {
		w.err = err
		return err
	}
	b = append(b, '\n')
	_, w.err = w.w.Write(b)
	return w.err
}

// Sink returns a Sink that writes to w; errors are kept for Flush.
func (w *Writer) Sink() Sink { return func(e Event) { w.Write(e) } }

// Flush writes out buffered events and returns the first error seen.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	w.err = w.w.Flush()
	return w.err
}

// Read reads JSON-lines events until EOF. Blank lines are skipped; a line
// that is not an event is an error naming its line number.
func Read(r io.Reader) ([]Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var out []Event
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(trimSpace(b)) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(b, &e); err != nil {
			return out, fmt.Errorf("trace line %d: %v", line, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
