package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"pldworkbench/engine"
	"pldworkbench/engine/emu"
)

// apiError is an error with the status and hint the client gets:
// {"error": "...", "hint": "..."}.
type apiError struct {
	Status     int    `json:"-"`
	RetryAfter int    `json:"-"` // seconds, sent as Retry-After when > 0 (503)
	Msg        string `json:"error"`
	Hint       string `json:"hint,omitempty"`
}

func (e *apiError) Error() string { return e.Msg }

// errorf makes an apiError.
func errorf(status int, hint, format string, args ...any) *apiError {
	return &apiError{Status: status, Msg: fmt.Sprintf(format, args...), Hint: hint}
}

// errorHandler turns every error a handler returns (or a panic the recover
// middleware caught) into the JSON error body.
func (s *Server) errorHandler(c *fiber.Ctx, err error) error {
	var ae *apiError
	if !errors.As(err, &ae) {
		var fe *fiber.Error
		switch {
		case errors.As(err, &fe) && fe.Code == fiber.StatusRequestEntityTooLarge:
			ae = errorf(fe.Code, "keep programs under 256 KiB", "request body too large: at most %d bytes", bodyLimit)
		case errors.As(err, &fe) && fe.Code == fiber.StatusNotFound:
			ae = errorf(fe.Code, "API.md lists the routes", "no route %s %s", c.Method(), c.Path())
		case errors.As(err, &fe):
			ae = errorf(fe.Code, "", "%s", fe.Message)
		default:
			s.logf("error %s %s: %v", c.Method(), c.Path(), err)
			ae = errorf(fiber.StatusInternalServerError, "this is a bug in the workbench; the log has the details", "internal error: %v", err)
		}
	}
	if ae.RetryAfter > 0 {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(ae.RetryAfter))
	}
	return c.Status(ae.Status).JSON(ae)
}

// internalError is a panic in work the server ran for a client, caught:
// the client gets it as an internal error, the log gets the stack.
type internalError struct {
	what  string
	value any
}

func (e *internalError) Error() string {
	return fmt.Sprintf("internal error in the workbench while running %s: %v", e.what, e.value)
}

// guard runs f, turning a panic into an *internalError after logging its
// stack: no program a user posts may take the server down with it.
func (s *Server) guard(what string, f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			s.logf("panic in %s: %v\n%s", what, p, debug.Stack())
			err = &internalError{what: what, value: p}
		}
	}()
	if h := s.testHook.Load(); h != nil {
		(*h)(what)
	}
	f()
	return nil
}

// internalAPIError is the 500 answer of a guarded request.
func internalAPIError(err error) *apiError {
	return errorf(fiber.StatusInternalServerError, "this is a bug in the workbench, not in your program; the server log has the details", "%v", err)
}

// internalDone is the done message of a run whose engine panicked.
func internalDone(err error) []byte {
	return mustJSON(doneMsg{Type: "done", Status: string(emu.StatusRuntimeError),
		Error: &emu.RunError{Rank: -1, Message: err.Error(), Hint: "this is a bug in the workbench, not in your program; the server log has the details"}})
}

// decode reads a JSON request body into v.
func decode(c *fiber.Ctx, v any) error { return decodeJSON(c.Body(), v) }

// decodeJSON reads a JSON request (a body, or a session's run request)
// into v.
func decodeJSON(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errorf(fiber.StatusBadRequest, `send a JSON object, e.g. {"code": "..."}`, "empty request body")
	}
	if err := json.Unmarshal(body, v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return errorf(fiber.StatusBadRequest, `send a JSON object, e.g. {"code": "..."}`, "bad JSON at byte %d: %v", se.Offset, err)
		case errors.As(err, &te):
			return errorf(fiber.StatusBadRequest, "API.md lists each field's type", "bad JSON: field %q is a %s, want %s", te.Field, te.Value, te.Type)
		}
		return errorf(fiber.StatusBadRequest, `send a JSON object, e.g. {"code": "..."}`, "bad JSON: %v", err)
	}
	return nil
}

// checkCode enforces the size limit and the presence of code.
func checkCode(field, code string) error {
	if len(code) > MaxCode {
		return errorf(fiber.StatusRequestEntityTooLarge, "keep programs under 256 KiB", "%s is %d bytes, more than the %d allowed", field, len(code), MaxCode)
	}
	if code == "" {
		return errorf(fiber.StatusBadRequest, "paste the program's text into "+field, "%s is empty", field)
	}
	return nil
}

// engineInternal logs a panic the engine recovered itself (an
// *engine.InternalError) with its stack and returns it as a guarded panic
// would be: a bug in the workbench, named as one, never stored.
func (s *Server) engineInternal(what string, ie *engine.InternalError) error {
	s.logf("panic in %s (recovered by the engine): %v\n%s", what, ie, ie.Stack)
	return &internalError{what: what, value: ie.Value}
}
