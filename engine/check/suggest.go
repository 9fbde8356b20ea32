package check

import (
	"strings"

	"pldworkbench/engine/diag"
)

// This file explains calls of operations that are not in the table: a
// short form that needs its three-segment path (pld.notify), an operation
// in the wrong namespace (pld.tensor.rank), a real PyPTO operation the
// workbench does not run (pl.exp), or a misspelling (pl.lod).

// shortForms are the two-segment spellings that exist (pld-spec §4.2).
var shortForms = "world_size, rank, nranks, get_comm_ctx, alloc_window_buffer, window, remote_load and remote_store"

// unsupportedOps are PyPTO operations that exist but that the workbench
// does not check or run. Calling one is ErrUnsupportedOp, not a misspelling.
var unsupportedOps = func() map[string]bool {
	m := map[string]bool{"pld.tile.put": true, "pld.tile.get": true}
	for _, n := range strings.Fields(`
		div part_add part_mul part_max part_min exp log concat reshape reinterpret_view transpose slice
		matmul batch_matmul row_max row_sum row_min row_prod col_sum col_max col_min col_prod
		row_argmax row_argmin col_argmax col_argmin row_expand row_expand_add row_expand_sub
		row_expand_mul row_expand_div row_expand_max row_expand_min row_expand_expdif col_expand
		col_expand_mul col_expand_div col_expand_sub col_expand_add col_expand_max col_expand_min
		col_expand_expdif expand_clone expands neg abs recip fillpad fillpad_expand move
		gatherb mgather mscatter sqrt rsqrt relu matmul_acc matmul_bias gemv gemv_acc gemv_bias min max
		cmp cmps set_validshape rem rems fmod fmods and_ ands or_ ors xor xors shl shls shr shrs
		maximums minimums prelu not_ addc subc addsc subsc lrelu sel sels tri create_tensor assemble
		cos dim full scatter scatter_update sin arange gather random parallel unroll pipeline while_
		yield_ cond static_print static_assert spmd`) {
		m["pl."+n] = true
	}
	return m
}()

// unknownOp reports a call of a pl/pld path that is not in the table.
func (fc *funcChecker) unknownOp(path string, sp diag.Span) {
	if unsupportedOps[path] {
		fc.errorf(sp, ErrUnsupportedOp, "", "%s is not supported by the workbench", path)
		return
	}
	last := path[strings.LastIndex(path, ".")+1:]
	var homes []string
	for _, s := range opTable {
		for _, spelling := range spellings(s) {
			if lastSegment(spelling) == last {
				homes = append(homes, s.name())
				break
			}
		}
	}
	if len(homes) > 0 {
		want := homes[0]
		if strings.HasPrefix(path, "pld.") && strings.Count(path, ".") == 1 {
			fc.errorf(sp, ErrNamespace, "only "+shortForms+" have two-segment short forms; the rest need pld.system.*, pld.tensor.* or pld.tile.*",
				"%s is not an operation: %s needs its full path %s", path, last, want)
			return
		}
		fc.errorf(sp, ErrNamespace, "", "%s does not exist: %s is %s", path, last, want)
		return
	}
	var names []string
	for _, s := range opTable {
		names = append(names, spellings(s)...)
	}
	if near := closest(path, names); near != "" {
		fc.errorf(sp, ErrUnknownOp, "", "unknown operation %s; did you mean %s?", path, near)
		return
	}
	fc.errorf(sp, ErrUnknownOp, "", "unknown operation %s", path)
}

// spellings are the canonical name and the aliases of an operation.
func spellings(s *opSpec) []string {
	info := s.kind.Info()
	return append([]string{info.Name}, info.Aliases...)
}

func lastSegment(path string) string { return path[strings.LastIndex(path, ".")+1:] }

// closest returns the candidate nearest to name by edit distance, if it is
// near enough to be a plausible misspelling (at most a third of the name's
// length, and at most 3 edits); ties go to the alphabetically first.
func closest(name string, cands []string) string {
	maxD := min(3, len(name)/3+1)
	best, bestD := "", maxD+1
	for _, c := range cands {
		if c == name {
			continue
		}
		if d := editDistance(name, c); d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
