package emu

import (
	"pldworkbench/engine/ir"
)

// Tasks and deferred completion (ir/task.go). A chip orchestration's
// kernel calls run one after another on the rank's machine, as every call
// does; what the emulator adds is the order PyPTO's runtime allows. A task
// whose kernel registers a pld.system.defer_wait is not run where it is
// submitted: it goes to the rank's deferred queue, and so does every task
// that names a queued task in deps=. The orchestration goes on submitting
// the tasks that do not depend on them (in upstream's deferred-completion
// test, the publisher that writes the peer's payload and signal), and at
// the end of the manual scope (task.drain) runs the queued tasks in
// submission order: the waiter's deferred wait is then a wait on the cell
// — the rank parks until the signal arrives, which is when PyPTO completes
// the waiter's task id — and its dependents run after it. Holding no core
// while it waits, a deferred waiter never stops a later task from
// running, which is the point of defer_wait; the emulator has no cores to
// exhaust, so a blocking pld.system.wait in the same place is not the
// deadlock it is on hardware. The checker says so in an info diagnostic.

// taskInfo is what a task call (ir.Call with Task or Deps) carries.
type taskInfo struct {
	slot     int    // the task id's slot, -1 for none
	deps     []opnd // the task ids it waits for
	deferred bool   // its kernel registers a deferred wait
}

// deferredTask is a submitted task not run yet.
type deferredTask struct {
	n    *node
	args []val
	syms map[string]int64
	id   int64
}

// compileTask fills n.task for a call that is a task, nil otherwise.
func (c *compiler) compileTask(n *node, s *ir.Call) {
	deferred := holdsDeferWait(s.Callee)
	if s.Task == nil && len(s.Deps) == 0 && !deferred {
		return
	}
	t := &taskInfo{slot: -1, deferred: deferred}
	if s.Task != nil {
		t.slot = c.slot(s.Task)
	}
	for _, d := range s.Deps {
		t.deps = append(t.deps, c.operand(d))
	}
	n.task = t
}

// holdsDeferWait reports whether f's body registers a deferred wait.
func holdsDeferWait(f *ir.Func) bool {
	found := false
	if f != nil && f.Body != nil {
		ir.Walk(f.Body, func(s ir.Stmt) bool {
			if op, ok := s.(*ir.Op); ok && op.Kind() == ir.OpDeferWait {
				found = true
			}
			return !found
		})
	}
	return found
}

// submitTask runs or queues the task call n; queued is false when it is
// to run at once, as a plain call.
func (m *machine) submitTask(n *node) (queued bool, f *failure) {
	t := n.task
	id := int64(len(m.taskQueued))
	defer_ := t.deferred
	for _, d := range t.deps {
		if dep := m.eval(d).i; dep >= 0 && dep < id && m.taskQueued[dep] {
			defer_ = true
		}
	}
	m.taskQueued = append(m.taskQueued, defer_)
	if t.slot >= 0 {
		m.top().env[t.slot] = val{i: id}
	}
	if !defer_ {
		return false, nil
	}
	args, syms, f := m.callArgs(n)
	if f != nil {
		return true, f
	}
	m.deferred = append(m.deferred, deferredTask{n: n, args: args, syms: syms, id: id})
	return true, nil
}

// drain runs the next deferred task and stays in front of the drain until
// the queue is empty; the ids of the scope's tasks end with it.
func (m *machine) drain() {
	if len(m.deferred) == 0 {
		m.taskQueued = m.taskQueued[:0]
		return
	}
	t := m.deferred[0]
	m.deferred = m.deferred[1:]
	m.taskQueued[t.id] = false
	fr := m.top()
	fr.cursors[len(fr.cursors)-1].pc-- // back to the drain, once the task returns
	m.pushFrame(t.n.callee, t.args, t.syms, t.n.res)
}
