package meta

// Env is a Python scope: module globals, a function call's locals, or a class
// body. Lookup walks outward through Parent, as Python's closures do for the
// programs we read (no class-scope leakage into methods: a method's Env is
// the scope the class statement ran in, not the class body).
type Env struct {
	Parent *Env
	Vars   map[string]Value
	// Order lists names in first-assignment order, for stable listings.
	Order []string
}

// NewEnv returns an empty scope inside parent (nil for module globals).
func NewEnv(parent *Env) *Env {
	return &Env{Parent: parent, Vars: map[string]Value{}}
}

// Lookup finds name in e or an enclosing scope.
func (e *Env) Lookup(name string) (Value, bool) {
	for s := e; s != nil; s = s.Parent {
		if v, ok := s.Vars[name]; ok {
			return v, true
		}
	}
	return nil, false
}

// Set binds name in e itself.
func (e *Env) Set(name string, v Value) {
	if _, ok := e.Vars[name]; !ok {
		e.Order = append(e.Order, name)
	}
	e.Vars[name] = v
}
