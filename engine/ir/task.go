package ir

// Tasks and deferred completion, as upstream PyPTO's chip orchestrations
// write them:
//
//	with pl.manual_scope():
//	    with pl.at(level=pl.Level.CORE_GROUP) as wait_tid:
//	        pld.system.defer_wait(signal, [0, 0], expected=1, cmp=pld.WaitCmp.Ge)
//	    with pl.at(level=pl.Level.CORE_GROUP, deps=[wait_tid]):
//	        ...
//
// Each pl.at(CORE_GROUP) scope is outlined into a kernel; its call from
// the orchestration is a task. Call.Task binds the task's id (a value of
// type TaskID) and Call.Deps lists the ids the task waits for. A task whose
// kernel holds a pld.system.defer_wait (OpDeferWait) releases its core when
// its body ends and completes only when the signal cell reaches the
// expected value; its dependents start after that. TaskDrainOp closes a
// manual scope: the orchestration goes on only when every task the scope
// deferred has completed.

// TaskID is the type of a task id (`as tid` of a pl.at scope).
type TaskID struct{}

func (*TaskID) Kind() string     { return "value" }
func (t *TaskID) String() string { return "TaskId" }

// TaskDrainOp is task.drain(): the end of a manual scope, where the
// orchestration runs the tasks it deferred (a deferred waiter and its
// dependents) and goes on when they have completed. No operands;
// orchestration only.
const TaskDrainOp = "task.drain"

func verifyTaskDrain(v *verifier, s *Op) {
	if v.fn.Level != Orchestration {
		v.errorf(s.Span, "%s is not allowed at the %s level", s.Name, v.fn.Level)
	}
	if len(s.Args) != 0 || len(s.Attrs) != 0 || s.Result != nil {
		v.errorf(s.Span, "%s takes no operands and has no result", s.Name)
	}
}

// taskCall checks a call's task id and dependencies: only an
// orchestration's kernel call is a task, and every dependency is a task id
// defined before the call.
func (v *verifier) taskCall(s *Call, d defs) {
	if s.Task == nil && len(s.Deps) == 0 {
		return
	}
	if v.fn.Level != Orchestration || s.Callee == nil || s.Callee.Level != InCore {
		v.errorf(s.Span, "a task id or deps= on a call that is not an orchestration's kernel call")
	}
	for _, dep := range s.Deps {
		if _, ok := v.use(s.Span, dep, d).(*TaskID); !ok {
			v.errorf(s.Span, "dependency %s is not a task id", operand(dep))
		}
	}
	if s.Task != nil {
		if _, ok := s.Task.Type.(*TaskID); !ok {
			v.errorf(s.Span, "task id %s has type %s, want TaskId", s.Task.Name, typeString(s.Task.Type))
		}
		v.define(s.Span, s.Task, d)
	}
}
