package emu

import (
	"pldworkbench/engine/ir"
)

// Communication domains (check/domains.go): a window buffer whose views
// the host dispatches to some ranks only carries those ranks in order
// (ir.DomainAttr on its allocation). A peer of a view of it is an index
// into that list, and the comm context of the view counts and numbers its
// members: upstream's two overlapping groups {0, 1} and {1, 2} each call
// their other member peer 1 - r. A buffer without the attribute is the
// world's, where a peer is the rank itself.

// allocDomain returns the domain an allocation names, nil for the world.
func allocDomain(op *ir.Op) []int {
	a, ok := op.Attr(ir.DomainAttr).(ir.IntsAttr)
	if !ok {
		return nil
	}
	out := make([]int, len(a))
	for i, r := range a {
		out[i] = int(r)
	}
	return out
}

// inDomain maps p, a peer of window t, to a rank.
func (m *machine) inDomain(n *node, t *tref, p int) (int, *failure) {
	if t == nil || t.buf == nil || t.buf.domain == nil {
		return p, nil
	}
	if d := t.buf.domain; p < len(d) {
		return d[p], nil
	}
	return 0, m.fail(n, codePeer, "a peer of a window is numbered within the devices its buffer is dispatched to",
		"%s: peer %d out of range [0, %d) of %s's communication domain (ranks %v)", n.irop.Name, p, len(t.buf.domain), t.buf.name, t.buf.domain)
}

// commCtxOf is the comm context of window argument i: its buffer's domain.
func (m *machine) commCtxOf(n *node) commCtx {
	if t, f := m.ref(n, 0); f == nil && t.buf != nil {
		return commCtx{domain: t.buf.domain}
	}
	return commCtx{}
}

// rankIn returns pld.rank (the rank's index in the domain) or pld.nranks
// (the domain's size) of ctx.
func (m *machine) rankIn(n *node, ctx commCtx) (int64, *failure) {
	if ctx.domain == nil {
		if n.op == opRank {
			return int64(m.rank), nil
		}
		return int64(m.s.P), nil
	}
	if n.op == opNRanks {
		return int64(len(ctx.domain)), nil
	}
	for i, r := range ctx.domain {
		if r == m.rank {
			return int64(i), nil
		}
	}
	return 0, m.fail(n, codePeer, "", "pld.rank: rank %d is not in the communication domain %v of this window", m.rank, ctx.domain)
}

// reshapeWindow returns window t in the shape of the pld.DistributedTensor
// parameter want when the two shapes differ: PyPTO hands a dispatch the
// window's buffer, which the kernel reads in the shape it declares
// (upstream's multi-group test passes [64] views to [1, 64] parameters).
// nt is nil when there is nothing to reshape; fits is false when want does
// not fit in the buffer, which the caller reports.
func reshapeWindow(t *tref, want ir.Type) (nt *tref, fits bool) {
	w, ok := want.(*ir.DistributedTensor)
	if !ok || t.buf == nil || !w.ReshapesFrom(t.dt, t.shape) {
		return nil, true
	}
	c := *t
	c.shape = make([]int, len(w.Shape))
	for i, d := range w.Shape {
		c.shape[i] = int(d.N)
	}
	return &c, c.nbytes() <= t.buf.size
}
