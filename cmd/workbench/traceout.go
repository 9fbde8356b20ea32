package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"

	"pldworkbench/engine/trace"
)

// openTrace opens the --trace FILE of a run: a Chrome trace for Perfetto
// when the name ends in .json (the events are kept and written when the
// run ends), JSON lines of the native events otherwise (streamed as they
// happen). done writes out what is left, with title naming the run's
// process track, and closes the file.
func openTrace(path string) (sink trace.Sink, done func(title string) error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	w := bufio.NewWriter(f)
	finish := func(werr error) error {
		if err := w.Flush(); werr == nil {
			werr = err
		}
		if err := f.Close(); werr == nil {
			werr = err
		}
		return werr
	}
	if strings.HasSuffix(path, ".json") {
		var col trace.Collector
		return col.Sink(), func(title string) error {
			return finish(trace.WritePerfetto(w, col.Events, trace.PerfettoOptions{Title: title}))
		}, nil
	}
	enc := json.NewEncoder(w) // streamed: see traceStreams
	return func(e trace.Event) { _ = enc.Encode(e) }, func(string) error { return finish(nil) }, nil
}

// traceStreams reports whether openTrace writes each event out as it comes
// (JSON lines) rather than keeping them: a streamed trace costs the memory
// budget nothing per event.
func traceStreams(path string) bool { return !strings.HasSuffix(path, ".json") }
