package emu

// GeneralPaths clears, in every node of cp, the marks the interpreter's
// fast paths take (for the tests that compare them with the general
// ones): a rank then runs each comparison and the if after it as two
// statements through compareIf, writes every comparison's result, and
// resolves every signal op's window, peer, value and cell through
// windowArg, windowPeer, intArg and signalCell.
func GeneralPaths(cp *Compiled) {
	var walk func(b []*node)
	walk = func(b []*node) {
		for _, n := range b {
			n.ifn, n.resDead = nil, false
			n.sigWin, n.sigPeer, n.sigOffs, n.sigValOK = 0, sigOff{}, nil, false
			walk(n.body)
			walk(n.els)
		}
	}
	for _, f := range cp.funcs {
		walk(f.body)
	}
}
