package conform

import (
	"strings"

	"pldworkbench/engine/syntax"
)

// A test that gives its program concrete tensors (a = torch.full((128,
// 128), 5.0) ... compiled(a, b, f, g)) fixes the program's pl.dynamic
// dimensions by their shapes, as PyPTO's runtime binds them from the
// tensors it is handed. argShapes reads those shapes statically: the
// arguments of the call of the compiled program (a local bound to
// ir.compile(...)), each a local bound to a torch factory whose shape is
// a literal of small integer expressions. An argument it cannot read is
// nil; the dimensions it names stay at the rank count.
func (d *discoverer) argShapes(fn *syntax.FuncDef, locals map[string]syntax.Expr, env map[string]string) [][]int {
	var out [][]int
	syntax.Walk(&syntax.FuncDef{Body: fn.Body}, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || out != nil {
			return out == nil
		}
		id, ok := c.Fn.(*syntax.Ident)
		if !ok {
			return true
		}
		bound, ok := locals[id.Name].(*syntax.CallExpr)
		if !ok || !strings.HasSuffix(d.text(bound.Fn), "compile") {
			return true
		}
		out = make([][]int, len(c.Args))
		for i, a := range c.Args {
			if a.Name != "" {
				continue
			}
			if arg, ok := a.Value.(*syntax.Ident); ok {
				if mk, ok := locals[arg.Name].(*syntax.CallExpr); ok {
					out[i] = d.torchShape(mk, env)
				}
			}
		}
		return false
	})
	return out
}

// torchShape is the shape a torch factory call makes (torch.zeros((T, D),
// ...), torch.full((128, 128), 5.0), torch.ones(4, 8)), or nil.
func (d *discoverer) torchShape(c *syntax.CallExpr, env map[string]string) []int {
	fn := d.text(c.Fn)
	switch fn {
	case "torch.zeros", "torch.ones", "torch.full", "torch.empty", "torch.randn", "torch.rand":
	default:
		return nil
	}
	var dims []syntax.Expr
	var pos []syntax.Expr
	for _, a := range c.Args {
		if a.Name == "" {
			pos = append(pos, a.Value)
		}
	}
	if len(pos) == 0 {
		return nil
	}
	switch t := unparen(pos[0]).(type) {
	case *syntax.TupleLit:
		dims = t.Elts
	case *syntax.ListLit:
		dims = t.Elts
	default:
		if fn == "torch.full" {
			return nil
		}
		dims = pos // torch.zeros(4, 8)
	}
	shape := make([]int, len(dims))
	for i, x := range dims {
		n, ok := d.intValue(d.subst(x, env), nil)
		if !ok || n <= 0 {
			return nil
		}
		shape[i] = n
	}
	return shape
}
