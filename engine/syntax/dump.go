package syntax

import (
	"strconv"
	"strings"
)

// Dump renders a tree as an S-expression for golden tests: deterministic,
// without positions. An expression that fits in 80 columns stays on one line;
// statements with bodies always break, one child per line, indented by two.
//
//	(def f
//	  (params a (param b (= 1)))
//	  doc
//	  (body
//	    (expr "Doubles b.")
//	    (return (+ a (* b 2)))))
//
// Names, numbers (their values) and constants print bare, strings quoted;
// operators print as themselves: (+ a b), (neg x), (cmp a < b not-in c). The
// atom doc marks a file, def or class whose first statement is its docstring.
func Dump(n Node) string {
	var b strings.Builder
	dumpNode(n).render(&b, 0)
	return b.String()
}

// dnode is a rendered node: an atom, or a list (head kids...).
type dnode struct {
	head  string
	kids  []dnode
	atom  bool
	block bool // always one kid per line
}

func dAtom(s string) dnode                   { return dnode{head: s, atom: true} }
func dList(head string, kids ...dnode) dnode { return dnode{head: head, kids: kids} }
func dBlock(head string, kids ...dnode) dnode {
	return dnode{head: head, kids: kids, block: true}
}

func (d dnode) hasBlock() bool {
	if d.block {
		return true
	}
	for _, k := range d.kids {
		if k.hasBlock() {
			return true
		}
	}
	return false
}

func (d dnode) inline(b *strings.Builder) {
	if d.atom {
		b.WriteString(d.head)
		return
	}
	b.WriteString("(" + d.head)
	for _, k := range d.kids {
		b.WriteByte(' ')
		k.inline(b)
	}
	b.WriteByte(')')
}

func (d dnode) render(b *strings.Builder, indent int) {
	if d.atom || !d.hasBlock() {
		var s strings.Builder
		d.inline(&s)
		if d.atom || indent+s.Len() <= 80 {
			b.WriteString(s.String())
			return
		}
	}
	b.WriteString("(" + d.head)
	kids := d.kids
	if len(kids) > 0 && kids[0].atom && !sequences[d.head] { // (def name, (= x, (call f: keep the name on the head line
		b.WriteString(" " + kids[0].head)
		kids = kids[1:]
	}
	for _, k := range kids {
		b.WriteString("\n" + strings.Repeat(" ", indent+2))
		k.render(b, indent+2)
	}
	b.WriteByte(')')
}

// opt renders a possibly nil expression, as _ when nil.
func dOpt(x Expr) dnode {
	if x == nil {
		return dAtom("_")
	}
	return dumpNode(x)
}

func exprList(xs []Expr) []dnode {
	out := make([]dnode, 0, len(xs))
	for _, x := range xs {
		out = append(out, dOpt(x))
	}
	return out
}

func dBody(head string, ss []Stmt) dnode {
	d := dBlock(head)
	for _, s := range ss {
		d.kids = append(d.kids, dumpNode(s))
	}
	return d
}

func dumpArgs(head string, as []Arg) dnode {
	d := dList(head)
	for _, a := range as {
		switch {
		case a.Star:
			d.kids = append(d.kids, dList("star", dOpt(a.Value)))
		case a.DoubleStar:
			d.kids = append(d.kids, dList("dstar", dOpt(a.Value)))
		case a.Name != "":
			d.kids = append(d.kids, dList("kw", dAtom(a.Name), dOpt(a.Value)))
		default:
			d.kids = append(d.kids, dOpt(a.Value))
		}
	}
	return d
}

func dumpParams(ps []*Param) dnode {
	d := dList("params")
	for _, p := range ps {
		d.kids = append(d.kids, dumpNode(p))
	}
	return d
}

var (
	sequences  = map[string]bool{"list": true, "tuple": true, "paren-tuple": true, "set": true, "fstring": true, "params": true}
	unaryNames = map[string]string{"-": "neg", "+": "pos", "~": "inv", "not": "not"}
	compNames  = [...]string{ListComp: "listcomp", GenComp: "genexp", SetComp: "setcomp", DictComp: "dictcomp"}
	constNames = [...]string{ConstTrue: "True", ConstFalse: "False", ConstNone: "None", ConstEllipsis: "..."}
)

func dumpNode(n Node) dnode {
	switch n := n.(type) {
	case *File:
		d := dBody("file", n.Body)
		if n.Doc != nil {
			d.kids = append([]dnode{dAtom("doc")}, d.kids...)
		}
		return d
	case *Ident:
		return dAtom(n.Name)
	case *NumberLit:
		if n.Kind == IntNumber {
			return dAtom(strconv.FormatInt(n.Int, 10))
		}
		s := strconv.FormatFloat(n.Float, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eIN") {
			s += ".0"
		}
		return dAtom(s)
	case *StringLit:
		return dAtom(strconv.Quote(n.Value))
	case *FStringLit:
		d := dList("fstring")
		for _, p := range n.Parts {
			if p.Expr == nil {
				d.kids = append(d.kids, dAtom(strconv.Quote(p.Text)))
				continue
			}
			f := dList("field", dumpNode(p.Expr))
			if p.Conv != "" {
				f.kids = append(f.kids, dAtom("!"+p.Conv))
			}
			if p.Format != "" {
				f.kids = append(f.kids, dAtom(":"+strconv.Quote(p.Format)))
			}
			d.kids = append(d.kids, f)
		}
		return d
	case *ConstLit:
		return dAtom(constNames[n.Kind])
	case *ListLit:
		return dList("list", exprList(n.Elts)...)
	case *TupleLit:
		if n.Paren {
			return dList("paren-tuple", exprList(n.Elts)...)
		}
		return dList("tuple", exprList(n.Elts)...)
	case *SetLit:
		return dList("set", exprList(n.Elts)...)
	case *DictLit:
		d := dList("dict")
		for i := range n.Keys {
			if n.Keys[i] == nil {
				d.kids = append(d.kids, dList("**", dOpt(n.Values[i])))
			} else {
				d.kids = append(d.kids, dList(":", dOpt(n.Keys[i]), dOpt(n.Values[i])))
			}
		}
		return d
	case *CompExpr:
		d := dList(compNames[n.Kind])
		if n.Kind == DictComp {
			d.kids = append(d.kids, dOpt(n.Key))
		}
		d.kids = append(d.kids, dOpt(n.Elt))
		for _, f := range n.Fors {
			c := dList("for", dOpt(f.Target), dOpt(f.Iter))
			for _, cond := range f.Ifs {
				c.kids = append(c.kids, dList("if", dOpt(cond)))
			}
			d.kids = append(d.kids, c)
		}
		return d
	case *ParenExpr:
		return dList("paren", dOpt(n.X))
	case *AttrExpr:
		return dList(".", dOpt(n.X), dAtom(n.Name))
	case *IndexExpr:
		return dList("index", dOpt(n.X), dOpt(n.Index))
	case *SliceExpr:
		d := dList("slice", dOpt(n.Lo), dOpt(n.Hi))
		if n.Step != nil {
			d.kids = append(d.kids, dOpt(n.Step))
		}
		return d
	case *CallExpr:
		d := dumpArgs("call", n.Args)
		d.kids = append([]dnode{dOpt(n.Fn)}, d.kids...)
		return d
	case *UnaryExpr:
		return dList(unaryNames[n.Op], dOpt(n.X))
	case *BinaryExpr:
		return dList(n.Op, dOpt(n.X), dOpt(n.Y))
	case *BoolExpr:
		return dList(n.Op, dOpt(n.X), dOpt(n.Y))
	case *CompareExpr:
		d := dList("cmp", dOpt(n.X))
		for i, op := range n.Ops {
			d.kids = append(d.kids, dAtom(strings.ReplaceAll(op, " ", "-")), dOpt(n.Ys[i]))
		}
		return d
	case *CondExpr:
		return dList("ifexp", dOpt(n.Then), dOpt(n.Cond), dOpt(n.Else))
	case *LambdaExpr:
		return dList("lambda", dumpParams(n.Params), dOpt(n.Body))
	case *StarExpr:
		return dList("star", dOpt(n.X))
	}
	return dumpStmt(n)
}

func dumpStmt(n Node) dnode {
	switch n := n.(type) {
	case *Param:
		name := n.Name
		if n.Star {
			name = "*" + name
		} else if n.DoubleStar {
			name = "**" + name
		}
		if n.Annotation == nil && n.Default == nil && !n.KwOnly {
			return dAtom(name)
		}
		d := dList("param", dAtom(name))
		if n.KwOnly {
			d.kids = append(d.kids, dAtom("kwonly"))
		}
		if n.Annotation != nil {
			d.kids = append(d.kids, dList(":", dOpt(n.Annotation)))
		}
		if n.Default != nil {
			d.kids = append(d.kids, dList("=", dOpt(n.Default)))
		}
		return d
	case *Decorator:
		return dList("@", dOpt(n.X))
	case *FuncDef:
		d := dBlock("def", dAtom(n.Name))
		for _, dec := range n.Decorators {
			d.kids = append(d.kids, dumpNode(dec))
		}
		d.kids = append(d.kids, dumpParams(n.Params))
		if n.Result != nil {
			d.kids = append(d.kids, dList("->", dOpt(n.Result)))
		}
		if n.Doc != nil {
			d.kids = append(d.kids, dAtom("doc"))
		}
		return append1(d, dBody("body", n.Body))
	case *ClassDef:
		d := dBlock("class", dAtom(n.Name))
		for _, dec := range n.Decorators {
			d.kids = append(d.kids, dumpNode(dec))
		}
		if len(n.Bases) > 0 {
			d.kids = append(d.kids, dumpArgs("bases", n.Bases))
		}
		if n.Doc != nil {
			d.kids = append(d.kids, dAtom("doc"))
		}
		return append1(d, dBody("body", n.Body))
	case *AssignStmt:
		if n.Annotation != nil {
			d := dList("annassign", exprList(n.Targets)...)
			d.kids = append(d.kids, dOpt(n.Annotation))
			if n.Value != nil {
				d.kids = append(d.kids, dOpt(n.Value))
			}
			return d
		}
		return dList("=", append(exprList(n.Targets), dOpt(n.Value))...)
	case *AugAssignStmt:
		return dList(n.Op+"=", dOpt(n.Target), dOpt(n.Value))
	case *ExprStmt:
		return dList("expr", dOpt(n.X))
	case *IfStmt:
		head := "if"
		if n.Elif {
			head = "elif"
		}
		d := dBlock(head, dOpt(n.Cond), dBody("then", n.Body))
		if n.Else != nil {
			d.kids = append(d.kids, dBody("else", n.Else))
		}
		return d
	case *ForStmt:
		d := dBlock("for", dOpt(n.Target), dOpt(n.Iter), dBody("body", n.Body))
		if n.Else != nil {
			d.kids = append(d.kids, dBody("else", n.Else))
		}
		return d
	case *WhileStmt:
		d := dBlock("while", dOpt(n.Cond), dBody("body", n.Body))
		if n.Else != nil {
			d.kids = append(d.kids, dBody("else", n.Else))
		}
		return d
	case *WithStmt:
		d := dBlock("with")
		for _, it := range n.Items {
			d.kids = append(d.kids, dList("as", dOpt(it.X), dOpt(it.Target)))
		}
		return append1(d, dBody("body", n.Body))
	case *TryStmt:
		d := dBlock("try", dBody("body", n.Body))
		for _, c := range n.Excepts {
			d.kids = append(d.kids, dumpNode(c))
		}
		if n.Else != nil {
			d.kids = append(d.kids, dBody("else", n.Else))
		}
		if n.Finally != nil {
			d.kids = append(d.kids, dBody("finally", n.Finally))
		}
		return d
	case *ExceptClause:
		d := dBlock("except", dOpt(n.Type))
		if n.Name != "" {
			d.kids = append(d.kids, dList("as", dAtom(n.Name)))
		}
		return append1(d, dBody("body", n.Body))
	case *YieldStmt:
		name := "yield"
		if n.From {
			name = "yield-from"
		}
		if n.Value == nil {
			return dList(name)
		}
		return dList(name, dOpt(n.Value))
	case *ReturnStmt:
		if n.Value == nil {
			return dList("return")
		}
		return dList("return", dOpt(n.Value))
	case *RaiseStmt:
		d := dList("raise")
		if n.X != nil {
			d.kids = append(d.kids, dOpt(n.X))
		}
		if n.Cause != nil {
			d.kids = append(d.kids, dList("from", dOpt(n.Cause)))
		}
		return d
	case *AssertStmt:
		d := dList("assert", dOpt(n.Cond))
		if n.Msg != nil {
			d.kids = append(d.kids, dOpt(n.Msg))
		}
		return d
	case *BranchStmt:
		return dList(n.Tok)
	case *GlobalStmt:
		d := dList(n.Tok)
		for _, name := range n.Names {
			d.kids = append(d.kids, dAtom(name))
		}
		return d
	case *DelStmt:
		return dList("del", exprList(n.Targets)...)
	case *ImportStmt:
		return dList("import", importNames(n.Names)...)
	case *FromImportStmt:
		mod := strings.Repeat(".", n.Level) + strings.Join(n.Module, ".")
		d := dList("from", dAtom(mod))
		if n.Star {
			return append1(d, dAtom("*"))
		}
		d.kids = append(d.kids, importNames(n.Names)...)
		return d
	}
	return dAtom("?")
}

func append1(d dnode, k dnode) dnode {
	d.kids = append(d.kids, k)
	return d
}

func importNames(names []ImportName) []dnode {
	var out []dnode
	for _, n := range names {
		path := dAtom(strings.Join(n.Path, "."))
		if n.As != "" {
			out = append(out, dList("as", path, dAtom(n.As)))
		} else {
			out = append(out, path)
		}
	}
	return out
}
