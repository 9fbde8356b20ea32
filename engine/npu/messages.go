package npu

import (
	"regexp"
	"strconv"
	"strings"
)

// What PyPTO writes to stderr when it compiles an exported script, and how
// it is made readable beside the workbench's verdict. PyPTO (e2d0f78ae)
// writes three kinds of text:
//
//   - its log, one line each, "2026-12-01 14:08:31.721 D | ..." (levels D,
//     I, W, E; python/pypto's logging setup): hundreds of debug and info
//     lines a compile, none of them a verdict, so only W and E lines stay;
//   - a parser error, rendered by its excepthook
//     (language/parser/diagnostics/renderer.py): "Error: MSG", then
//     "  --> FILE:LINE:COL", a code excerpt and "   = help: ..." lines;
//   - any other exception as Python prints it: a traceback, the
//     "Type: message" line, and for a failed C++ check "Check failed: ...
//     at FILE:LINE" and a "C++ Traceback" of the interpreter's own frames.
//
// Every place they name in the exported script is a line of a temporary
// file that is gone by the time anyone reads it; it is named instead as a
// line of the learner's file (the program is in the script byte for byte,
// from the line the script's header gives) or of the workbench's driver.

var (
	logLine      = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ ([DIWE]) \| `)
	programStart = regexp.MustCompile(`(?m)^# The program below is .* it starts at line (\d+) of this file\.$`)
	// A place in the exported script: a traceback frame or a file:line[:col].
	scriptFrame = regexp.MustCompile(`File "[^"]*exported\.py", line (\d+)`)
	scriptPlace = regexp.MustCompile(`[^\s"'([]*exported\.py:(\d+)(?::(\d+))?`)
	// The exception line Python prints last ("pypto.InternalError: ...",
	// "ValueError: ...").
	exceptionLine = regexp.MustCompile(`^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)): (.*)$`)
	checkFailed   = regexp.MustCompile(`^Check failed: (.*) at (\S+):(\d+)$`)
	driverMarker  = "\n# ---- the driver, written by PLD Workbench ----"
)

// ProgramLines says where the program is in an exported script: its first
// line and how many lines it has (0, 0 for a script this package did not
// write).
func ProgramLines(script []byte) (start, n int) {
	m := programStart.FindSubmatch(script)
	if m == nil {
		return 0, 0
	}
	start, _ = strconv.Atoi(string(m[1]))
	end := strings.Index(string(script), driverMarker)
	if end < 0 {
		return start, 0
	}
	// The driver's marker follows the program's last line and one blank
	// line: the newlines before the blank line end the lines up to the
	// program's last.
	return start, strings.Count(string(script[:end]), "\n") - start + 1
}

// place maps a line of the exported script to a line of the learner's
// file, or says it is the driver's.
type place struct {
	file         string
	start, lines int
}

func (p place) name(line int) (string, bool) {
	if p.start > 0 && line >= p.start && line < p.start+p.lines {
		return p.file + ":" + strconv.Itoa(line-p.start+1), true
	}
	return "the workbench's driver, line " + strconv.Itoa(line) + " of the exported script", false
}

// Messages is PyPTO's stderr as a reader beside the workbench's verdict
// wants it: without the debug and info log, the log's timestamps and the
// C++ traceback of the interpreter's frames, and with every place in the exported script named
// as a line of file (the learner's program) or of the driver.
func Messages(stderr string, script []byte, file string) string {
	start, n := ProgramLines(script)
	p := place{file: file, start: start, lines: n}
	var keep []string
	inCxx := false
	for _, l := range strings.Split(stderr, "\n") {
		if m := logLine.FindStringSubmatch(l); m != nil {
			if m[1] == "D" || m[1] == "I" {
				continue
			}
			l = m[1] + " | " + l[len(m[0]):] // the time of day says nothing here
		}
		if strings.HasPrefix(l, "C++ Traceback") {
			inCxx = true
			continue
		}
		if inCxx {
			if strings.HasPrefix(l, " ") || l == "" {
				continue
			}
			inCxx = false
		}
		keep = append(keep, p.rewrite(l))
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

func (p place) rewrite(l string) string {
	l = scriptFrame.ReplaceAllStringFunc(l, func(s string) string {
		n, _ := strconv.Atoi(scriptFrame.FindStringSubmatch(s)[1])
		where, in := p.name(n)
		if in {
			file, line, _ := strings.Cut(where, ":")
			return `File "` + file + `", line ` + line
		}
		return "File (" + where + ")"
	})
	return scriptPlace.ReplaceAllStringFunc(l, func(s string) string {
		m := scriptPlace.FindStringSubmatch(s)
		n, _ := strconv.Atoi(m[1])
		where, in := p.name(n)
		if in && m[2] != "" {
			where += ":" + m[2]
		}
		return where
	})
}

// Refusal is PyPTO's account of why it refused a program, read off its
// messages.
type Refusal struct {
	// Error is the error PyPTO raised: "pypto.InternalError: ..." or a
	// parser error's message, with the lines that continue it.
	Error string `json:"error"`
	// Where is the place in the learner's file it names ("prog.py:12:5"),
	// or "" when it names none there (then the compile itself failed,
	// inside PyPTO).
	Where string `json:"where,omitempty"`
	Line  int    `json:"line,omitempty"`
	Col   int    `json:"col,omitempty"`
	// Help is a parser error's "= help:" and "= note:" lines.
	Help []string `json:"help,omitempty"`
	// Internal is set for PyPTO's InternalError and its failed internal
	// checks: a defect in PyPTO, not in the program. Check names the C++
	// check and its place in PyPTO's sources.
	Internal bool   `json:"internal,omitempty"`
	Check    string `json:"check,omitempty"`
}

// RefusalOf reads why PyPTO refused from its stderr; Error is "" when the
// messages hold no error PyPTO raised (a crash, a kill).
func RefusalOf(stderr string, script []byte, file string) Refusal {
	start, n := ProgramLines(script)
	p := place{file: file, start: start, lines: n}
	var r Refusal
	lines := strings.Split(stderr, "\n")
	frame := 0 // the innermost traceback frame in the program
	raw := ""  // the exception's message as PyPTO wrote it
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \r")
		if m := scriptFrame.FindStringSubmatch(l); m != nil {
			if k, _ := strconv.Atoi(m[1]); k >= start && k < start+n {
				frame = k
			}
			continue
		}
		if msg, ok := strings.CutPrefix(l, "Error: "); ok && r.Error == "" {
			// A parser error: its location and help follow.
			r.Error = msg
			for _, f := range lines[i+1:] {
				f = strings.TrimSpace(f)
				if loc, ok := strings.CutPrefix(f, "--> "); ok && r.Where == "" {
					r.setWhere(p, loc)
				}
				if h, ok := strings.CutPrefix(f, "= "); ok {
					r.Help = append(r.Help, h)
				}
				if f == "" && len(r.Help) > 0 {
					break
				}
			}
			continue
		}
		if m := exceptionLine.FindStringSubmatch(l); m != nil && !strings.HasPrefix(lines[i], " ") {
			r.Error, raw = m[1]+": "+p.rewrite(m[2]), m[2]
			r.Internal = strings.HasSuffix(m[1], "InternalError")
			// The message runs to PyPTO's failed check, the C++ traceback
			// or the end (a codegen report is a table after a blank line).
			var more []string
			for _, f := range lines[i+1:] {
				f = strings.TrimRight(f, " \r")
				if c := checkFailed.FindStringSubmatch(f); c != nil {
					r.Check = c[1] + " at " + trimSource(c[2]) + ":" + c[3]
					r.Internal = true
					break
				}
				if strings.HasPrefix(f, "C++ Traceback") || logLine.MatchString(f) {
					break
				}
				more = append(more, f)
			}
			for len(more) > 0 && strings.TrimSpace(more[len(more)-1]) == "" {
				more = more[:len(more)-1]
			}
			for _, f := range more {
				r.Error += "\n" + p.rewrite(f)
				raw += "\n" + f
			}
		}
	}
	if r.Where == "" {
		// A location inside the message, else the innermost frame.
		if m := scriptPlace.FindStringSubmatch(raw); m != nil {
			r.setWhere(p, m[0])
		}
	}
	if r.Where == "" && frame > 0 {
		r.Line = frame - start + 1
		r.Where = file + ":" + strconv.Itoa(r.Line)
	}
	return r
}

func (r *Refusal) setWhere(p place, loc string) {
	m := scriptPlace.FindStringSubmatch(loc)
	if m == nil {
		return
	}
	n, _ := strconv.Atoi(m[1])
	if where, in := p.name(n); in {
		r.Line = n - p.start + 1
		r.Col, _ = strconv.Atoi(m[2])
		r.Where = where
		if r.Col > 0 {
			r.Where += ":" + m[2]
		}
	}
}

// trimSource names a file of PyPTO's sources from its src/ or python/
// directory: the build's absolute path means nothing to a reader.
func trimSource(path string) string {
	for _, d := range []string{"/src/", "/python/"} {
		if i := strings.LastIndex(path, d); i >= 0 {
			return path[i+1:]
		}
	}
	return path
}
