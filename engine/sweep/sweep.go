// Package sweep runs one program at every size and rank count, in several named
// variants, and reports what nccl-tests reports: for each size the
// simulated time, the algorithm bandwidth and the bus bandwidth, plus
// link_eff, the bus bandwidth as a share of the p-1 peer links a rank of a
// full mesh has. A program takes part through a factory with a size
// parameter; its header names the variants with entry templates in which
// {P} stands for the rank count and {SIZE} for the element count:
//
//	#! sweep: mesh build_allreduce({P}, {SIZE}, "mesh").run
//	#! sweep: ring build_allreduce({P}, {SIZE}, "ring").run
//	#! sweep-op: allreduce FP32      (optional: the collective and dtype)
//
// Sizes are bytes, nccl-tests' size column: the array one rank holds for an
// all-reduce or broadcast, the whole gathered or scattered array for
// all-gather, reduce-scatter and all-to-all; {SIZE} = bytes / dtype size.
// Without a sweep-op line the collective and dtype are those of the
// builtin the program calls. Each point is one emulator run with zero
// inputs and the race detector off; its time is the run's simulated
// makespan, staging in and out included.
package sweep

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"pldworkbench/engine"
	"pldworkbench/engine/diag"
	"pldworkbench/engine/emu"
	"pldworkbench/engine/header"
	"pldworkbench/engine/ir"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/lower"
)

// Variant is one named entry template.
type Variant struct {
	Name  string `json:"name"`
	Entry string `json:"entry"` // with {P} and {SIZE}
}

// Options says what to sweep.
type Options struct {
	// Variants to run; empty means the `#! sweep:` lines of the source.
	Variants []Variant
	// Ranks are the rank counts, Sizes the payloads in bytes.
	Ranks []int
	Sizes []int64
	// Collective picks the bus-bandwidth factor (see BusFactor) and DType
	// the element size; empty means the sweep-op line or the builtin.
	Collective string
	DType      string
	Platform   string
	// Budget bounds each point (its check, lowering and run); a zero
	// Timeout means 2 minutes and a zero RunSteps a billion statements, far
	// more than one run needs (a 16 MiB HOST all-reduce at P=8 takes about
	// 5 s and 30 million statements here); the rest are Options'.
	Budget limits.Budget
	// OnRow, when set, receives every row as soon as it is measured.
	OnRow func(Row)
}

// Row is one measured point.
type Row struct {
	Variant   string  `json:"variant"`
	Ranks     int     `json:"ranks"`
	Bytes     int64   `json:"bytes"`
	Count     int64   `json:"count"`
	SimTimeNs int64   `json:"sim_time_ns"`
	AlgBW     float64 `json:"algbw_gbs"`
	BusBW     float64 `json:"busbw_gbs"`
	LinkEff   float64 `json:"link_eff"`
	// Status is empty for a run that ended ok; otherwise how it ended, and
	// Error what went wrong. Failed rows take no part in crossovers.
	Status emu.Status `json:"status,omitempty"`
	Error  string     `json:"error,omitempty"`
}

// Crossover is a size at which the fastest variant changes, at one rank
// count: Below was fastest up to BelowBytes, Above is from AboveBytes on,
// and NearBytes is where the two times cross on a straight line between
// the two sizes.
type Crossover struct {
	Ranks      int    `json:"ranks"`
	Below      string `json:"below"`
	Above      string `json:"above"`
	BelowBytes int64  `json:"below_bytes"`
	AboveBytes int64  `json:"above_bytes"`
	NearBytes  int64  `json:"near_bytes"`
}

// Result is a whole sweep.
type Result struct {
	Collective string `json:"collective"`
	DType      string `json:"dtype"`
	Platform   string `json:"platform"`
	// LinkGBs is B_link in link_eff: the platform's per-link rate.
	LinkGBs    float64     `json:"link_gbs"`
	Variants   []Variant   `json:"variants"`
	Rows       []Row       `json:"rows"`
	Crossovers []Crossover `json:"crossovers"`
}

// busFactors are the nccl-tests bus-bandwidth factors (perf-anchors §2.1,
// NVIDIA/nccl-tests doc/PERFORMANCE.md): busbw = algbw × factor(n).
var busFactors = map[string]func(n float64) float64{
	"allreduce":      func(n float64) float64 { return 2 * (n - 1) / n },
	"allgather":      func(n float64) float64 { return (n - 1) / n },
	"reduce_scatter": func(n float64) float64 { return (n - 1) / n },
	"all_to_all":     func(n float64) float64 { return (n - 1) / n },
	"broadcast":      func(n float64) float64 { return 1 },
}

// BusFactor returns nccl-tests' bus-bandwidth factor of a collective at n
// ranks, and false for a name it does not know.
func BusFactor(collective string, n int) (float64, bool) {
	f, ok := busFactors[collective]
	if !ok {
		return 0, false
	}
	return f(float64(n)), true
}

var variantName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// Header reads the `#! sweep:` and `#! sweep-op:` lines of a source.
func Header(src []byte) (variants []Variant, collective, dtype string, err error) {
	for _, h := range header.Parse(src) {
		val := h.Value
		switch h.Key {
		case "sweep":
			name, entry, _ := strings.Cut(val, " ")
			entry = strings.TrimSpace(entry)
			if !variantName.MatchString(name) || entry == "" {
				return nil, "", "", fmt.Errorf("line %d: #! sweep: got %q, want a variant name and an entry template", h.Line, val)
			}
			variants = append(variants, Variant{Name: name, Entry: entry})
		case "sweep-op":
			f := strings.Fields(val)
			if len(f) < 1 || len(f) > 2 {
				return nil, "", "", fmt.Errorf("line %d: #! sweep-op: got %q, want a collective and optionally a dtype", h.Line, val)
			}
			collective = f[0]
			if len(f) == 2 {
				dtype = f[1]
			}
		}
	}
	return variants, collective, dtype, nil
}

// ParseSizes reads a size range "LO:HI" (or a single size) in bytes, with
// K, M and G suffixes for powers of 1024, into LO, 2·LO, 4·LO, … up to HI.
func ParseSizes(s string) ([]int64, error) {
	lo, hi, isRange := strings.Cut(s, ":")
	a, err := parseBytes(lo)
	if err != nil {
		return nil, err
	}
	b := a
	if isRange {
		if b, err = parseBytes(hi); err != nil {
			return nil, err
		}
	}
	if b < a {
		return nil, fmt.Errorf("size range %s runs backwards: %d > %d bytes", s, a, b)
	}
	var out []int64
	for v := a; v <= b; v *= 2 {
		out = append(out, v)
		if len(out) > 62 {
			break
		}
	}
	return out, nil
}

func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mul := int64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'K', 'k':
			mul, s = 1<<10, s[:n-1]
		case 'M', 'm':
			mul, s = 1<<20, s[:n-1]
		case 'G', 'g':
			mul, s = 1<<30, s[:n-1]
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("size %q: want a positive number of bytes, optionally with K, M or G", s)
	}
	return v * mul, nil
}

// FormatBytes renders a byte count the way ParseSizes reads it, 16K or
// 4M, and one that is not a whole number of units to a tenth: 48.4K.
func FormatBytes(b int64) string {
	for _, u := range []struct {
		s string
		n int64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if b >= u.n && b%u.n == 0 {
			return strconv.FormatInt(b/u.n, 10) + u.s
		}
	}
	for _, u := range []struct {
		s string
		n int64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if b >= 10*u.n {
			return strconv.FormatFloat(float64(b)/float64(u.n), 'f', 1, 64) + u.s
		}
	}
	return strconv.FormatInt(b, 10)
}

// Run runs every variant of a program at every rank count and size. It
// fails only when the sweep cannot start (no variants, no collective, bad
// options); a run that fails is a row with its status.
// The module is loaded once; each point compiles its entry from it.
func Run(ctx context.Context, m *engine.Module, opts Options) (res *Result, err error) {
	name, src := m.Name(), m.Source()
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, &engine.InternalError{Value: p, Where: "sweep", Stack: debug.Stack()}
		}
	}()
	if opts.Budget.Timeout <= 0 {
		opts.Budget.Timeout = 2 * time.Minute
	}
	if opts.Budget.RunSteps <= 0 {
		opts.Budget.RunSteps = 1_000_000_000
	}
	variants, coll, dt, err := Header(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(opts.Variants) > 0 {
		variants = opts.Variants
	}
	if len(variants) == 0 {
		return nil, fmt.Errorf("%s has no #! sweep: lines; give the variants with --entry NAME=TEMPLATE, {P} and {SIZE} in the template", name)
	}
	if len(opts.Ranks) == 0 || len(opts.Sizes) == 0 {
		return nil, fmt.Errorf("a sweep needs at least one rank count and one size")
	}
	if opts.Collective != "" {
		coll = opts.Collective
	}
	if opts.DType != "" {
		dt = opts.DType
	}
	if coll == "" || dt == "" {
		c, d, err := probeCollective(ctx, m, variants[0], opts)
		if err != nil {
			return nil, err
		}
		if coll == "" {
			coll = c
		}
		if dt == "" {
			dt = d
		}
	}
	if _, ok := busFactors[coll]; !ok {
		return nil, fmt.Errorf("no bus-bandwidth factor for collective %q, want one of allreduce, allgather, reduce_scatter, all_to_all, broadcast", coll)
	}
	dtype, ok := ir.DTypeByName(dt)
	if !ok {
		return nil, fmt.Errorf("dtype %q: want FP32, FP16, INT32, ...", dt)
	}
	prof, ok := emu.ProfileOf(opts.Platform)
	if !ok {
		return nil, fmt.Errorf("platform %q has no cost profile", opts.Platform)
	}
	res = &Result{Collective: coll, DType: dtype.String(), Platform: prof.Name, LinkGBs: prof.StreamGBs,
		Variants: variants, Rows: []Row{}, Crossovers: []Crossover{}}
	for _, p := range opts.Ranks {
		for _, v := range variants {
			for _, b := range opts.Sizes {
				if err := ctx.Err(); err != nil {
					return res, err
				}
				row := point(ctx, m, v, p, b, dtype, coll, prof, opts)
				res.Rows = append(res.Rows, row)
				if opts.OnRow != nil {
					opts.OnRow(row)
				}
			}
		}
		res.Crossovers = append(res.Crossovers, crossovers(res.Rows, p, variants)...)
	}
	return res, nil
}

// expand fills a variant's template.
func (v Variant) expand(p int, count int64) string {
	e := strings.ReplaceAll(v.Entry, "{P}", strconv.Itoa(p))
	return strings.ReplaceAll(e, "{SIZE}", strconv.FormatInt(count, 10))
}

// probeCollective checks the first variant at the first rank count and a
// 4-byte-element guess of the first size, and returns the builtin
// collective the program calls and its dtype.
func probeCollective(ctx context.Context, m *engine.Module, v Variant, opts Options) (string, string, error) {
	name := m.Name()
	count := max(opts.Sizes[0]/4, 1)
	entry := v.expand(opts.Ranks[0], count)
	compiled, _ := m.Compile(ctx, entry, engine.Options{Ranks: opts.Ranks[0], Platform: opts.Platform, Budget: opts.Budget})
	prog, err := checked(compiled)
	if err != nil {
		return "", "", fmt.Errorf("%s: variant %s at P=%d, SIZE=%d: %v", name, v.Name, opts.Ranks[0], count, err)
	}
	found := map[string]bool{}
	var coll, dt string
	for _, op := range lower.Collectives(prog) {
		c := strings.TrimPrefix(op.Name, "pld.tensor.")
		if _, ok := busFactors[c]; !ok {
			continue
		}
		if !found[c] {
			found[c] = true
			coll = c
			for _, a := range op.Args {
				if _, d, ok := ir.ShapeOf(ir.TypeOf(a)); ok {
					dt = d.String()
					break
				}
			}
		}
	}
	switch {
	case len(found) == 0:
		return "", "", fmt.Errorf("%s calls no builtin collective a sweep can name; add `#! sweep-op: allreduce FP32` (or the collective it is) to its header", name)
	case len(found) > 1:
		return "", "", fmt.Errorf("%s calls several collectives; say which one the sweep measures with `#! sweep-op: COLLECTIVE DTYPE`", name)
	}
	return coll, dt, nil
}

// checked is p as the checker built it, or the first error that stopped
// it.
func checked(p *engine.Program) (*ir.Program, error) {
	for _, d := range p.Diags {
		if d.Severity == diag.Error {
			return nil, fmt.Errorf("%s", d.Msg)
		}
	}
	if p.Checked() == nil {
		return nil, fmt.Errorf("the entry names no host orchestrator")
	}
	return p.Checked(), nil
}

// point runs one variant at p ranks on b bytes.
func point(ctx context.Context, m *engine.Module, v Variant, p int, b int64, dt ir.DType,
	coll string, prof emu.Profile, opts Options) Row {
	row := Row{Variant: v.Name, Ranks: p, Bytes: b, Count: b / int64(dt.Bytes())}
	fail := func(st emu.Status, format string, args ...any) Row {
		row.Status, row.Error = st, fmt.Sprintf(format, args...)
		return row
	}
	if row.Count*int64(dt.Bytes()) != b || row.Count == 0 {
		return fail(emu.StatusCompileError, "%d bytes is not a whole number of %s elements", b, dt)
	}
	o := engine.Options{Ranks: p, Platform: opts.Platform, Budget: opts.Budget}
	compiled, _ := m.Compile(ctx, v.expand(p, row.Count), o)
	if compiled.Stopped() {
		r := compiled.Run(ctx, engine.RunOptions{Options: o}) // says how it stopped, running nothing
		return fail(r.Status, "%s", r.Error.Message)
	}
	if _, err := checked(compiled); err != nil {
		return fail(emu.StatusCompileError, "%v", err)
	}
	prog := compiled.Lowered()
	if prog == nil {
		r := compiled.Run(ctx, engine.RunOptions{Options: o})
		return fail(r.Status, "%s", r.Error.Message)
	}
	meter, cancel := limits.Start(ctx, o.Budget.WithDefaults(limits.CLIBudget()))
	defer cancel()
	// zeroInputs are float64s, one per element: charged before they are
	// made, like Run's.
	inBytes := zeroBytes(prog)
	if !meter.Reserve(inBytes) {
		return fail(emu.StatusRuntimeError, "the host tensors want %s; the limit is %s", limits.Bytes(inBytes), limits.Bytes(meter.Budget.Memory))
	}
	limits.CountRun(meter.Context())
	r := emu.Run(meter.Context(), prog, emu.Options{Inputs: zeroInputs(prog), Platform: opts.Platform, NoRaces: true,
		Timeout: meter.Budget.Timeout, MaxSteps: meter.Budget.RunSteps, Meter: meter})
	if r.Status != emu.StatusOK {
		msg := string(r.Status)
		if r.Error != nil {
			msg = r.Error.Error()
		}
		return fail(r.Status, "%s", msg)
	}
	row.SimTimeNs = r.Stats.SimTimeNs
	if row.SimTimeNs > 0 {
		factor, _ := BusFactor(coll, p)
		row.AlgBW = float64(b) / float64(row.SimTimeNs) // bytes per ns = GB/s
		row.BusBW = row.AlgBW * factor
		if p > 1 {
			row.LinkEff = row.BusBW / (float64(p-1) * prof.StreamGBs)
		}
	}
	return row
}

// zeroInputs makes every input host tensor of prog, all zeros: a sweep
// measures time, and zeros cost the least to make.
func zeroInputs(prog *ir.Program) map[string]*emu.Tensor {
	in := map[string]*emu.Tensor{}
	for _, p := range emu.HostParams(prog) {
		if !p.Scalar && p.Dir != ir.Out {
			in[p.Name] = emu.Zeros(p.DType, p.Shape...)
		}
	}
	return in
}

// zeroBytes is what zeroInputs makes: a float64 per element of every
// input host tensor (saturating, so a shape of absurd size is refused
// rather than wrapped).
func zeroBytes(prog *ir.Program) int64 {
	var total int64
	for _, p := range emu.HostParams(prog) {
		if p.Scalar || p.Dir == ir.Out {
			continue
		}
		n := int64(8)
		for _, d := range p.Shape {
			if d < 0 || (d > 0 && n > math.MaxInt64/4/int64(d)) {
				return math.MaxInt64 / 2
			}
			n *= int64(d)
		}
		if total += n; total > math.MaxInt64/4 {
			return math.MaxInt64 / 2
		}
	}
	return total
}

// crossovers finds, at p ranks, every size at which the fastest variant
// changes (ties keep the earlier variant in the order given).
func crossovers(rows []Row, p int, variants []Variant) []Crossover {
	order := map[string]int{}
	for i, v := range variants {
		order[v.Name] = i
	}
	type best struct {
		bytes int64
		row   Row
		all   map[string]int64
	}
	var sizes []*best
	at := map[int64]*best{}
	for _, r := range rows {
		if r.Ranks != p || r.Status != "" {
			continue
		}
		b := at[r.Bytes]
		if b == nil {
			b = &best{bytes: r.Bytes, row: r, all: map[string]int64{}}
			at[r.Bytes] = b
			sizes = append(sizes, b)
		} else if r.SimTimeNs < b.row.SimTimeNs || r.SimTimeNs == b.row.SimTimeNs && order[r.Variant] < order[b.row.Variant] {
			b.row = r
		}
		b.all[r.Variant] = r.SimTimeNs
	}
	var out []Crossover
	for i := 1; i < len(sizes); i++ {
		lo, hi := sizes[i-1], sizes[i]
		if lo.row.Variant == hi.row.Variant {
			continue
		}
		c := Crossover{Ranks: p, Below: lo.row.Variant, Above: hi.row.Variant, BelowBytes: lo.bytes, AboveBytes: hi.bytes, NearBytes: hi.bytes}
		// d(b) = t_below(b) - t_above(b) is <= 0 at lo and > 0 at hi.
		d0 := float64(lo.all[c.Below] - lo.all[c.Above])
		d1 := float64(hi.all[c.Below] - hi.all[c.Above])
		if _, ok := lo.all[c.Above]; ok {
			if _, ok := hi.all[c.Below]; ok && d1 != d0 {
				c.NearBytes = lo.bytes + int64(float64(hi.bytes-lo.bytes)*(-d0)/(d1-d0))
			}
		}
		out = append(out, c)
	}
	return out
}

// CrossoverLine says in words which variant is fastest where at p ranks:
// "8 ranks: mesh fastest up to 16K, ring from 32K (the times cross near
// 24K)".
func (r *Result) CrossoverLine(p int) string {
	var cs []Crossover
	for _, c := range r.Crossovers {
		if c.Ranks == p {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		name := fastestAll(r.Rows, p)
		switch {
		case name == "":
			return fmt.Sprintf("%d ranks: no run finished", p)
		case len(r.Variants) < 2:
			return fmt.Sprintf("%d ranks: one variant, nothing to compare", p)
		}
		return fmt.Sprintf("%d ranks: %s fastest at every size (no crossover)", p, name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d ranks: %s fastest up to %s", p, cs[0].Below, FormatBytes(cs[0].BelowBytes))
	for i, c := range cs {
		fmt.Fprintf(&b, ", %s from %s", c.Above, FormatBytes(c.AboveBytes))
		if i+1 < len(cs) {
			fmt.Fprintf(&b, " up to %s", FormatBytes(cs[i+1].BelowBytes))
		}
	}
	var near []string
	for _, c := range cs {
		near = append(near, FormatBytes(c.NearBytes))
	}
	fmt.Fprintf(&b, " (the times cross near %s; %d crossover", strings.Join(near, ", "), len(cs))
	if len(cs) > 1 {
		b.WriteString("s")
	}
	b.WriteString(")")
	return b.String()
}

// fastestAll names the variant fastest at every size of p ranks (the
// caller knows there is no crossover).
func fastestAll(rows []Row, p int) string {
	var name string
	var t int64 = -1
	var bytes int64 = -1
	for _, row := range rows {
		if row.Ranks != p || row.Status != "" {
			continue
		}
		if bytes < 0 || row.Bytes < bytes || row.Bytes == bytes && row.SimTimeNs < t {
			name, t, bytes = row.Variant, row.SimTimeNs, row.Bytes
		}
	}
	return name
}
