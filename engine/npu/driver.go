package npu

import (
	"crypto/sha256"
	"fmt"
	"path"
	"strconv"
	"strings"
	"text/template"

	"pldworkbench/engine/ir"
)

// The driver's PyPTO names, in one place so the test that checks them
// against upstream's python/pypto reads the same list the template uses:
// each is a module path and the names the driver takes from it (and, for
// keyword arguments, the callable they are passed to).
var (
	// UpstreamImports are the driver's `from M import N` lines.
	UpstreamImports = [][2]string{
		{"pypto", "ir"},
		{"pypto.ir.distributed_compiled_program", "DistributedConfig"},
		{"pypto.runtime", "RunConfig"},
	}
	// UpstreamKeywords are the keyword arguments the driver passes, by the
	// upstream function or class that must accept them.
	UpstreamKeywords = map[string][]string{
		"pypto/runtime/runner.py:RunConfig": {"platform", "distributed_config", "enable_chip_swimlane", "enable_dep_gen",
			"enable_scope_stats", "save_kernels", "save_kernels_dir"},
		"pypto/ir/distributed_compiled_program.py:DistributedConfig": {"device_ids", "num_sub_workers"},
		"pypto/ir/compile.py:compile":                                {"output_dir", "platform", "distributed_config", "skip_ptoas"},
	}
	// UpstreamAttributes are attributes the driver reads off PyPTO's
	// objects, by the file that defines them.
	UpstreamAttributes = map[string][]string{
		"pypto/ir/distributed_compiled_program.py": {"output_dir"},
	}
)

type scriptData struct {
	Spec
	Header       []string
	ProgramLine  int
	DeviceIDs    string
	OtherIDs     string
	ParamsPy     string
	GoldenCode   string
	Exact        bool
	HasGolden    bool
	NoGolden     string
	DataSHA      string
	DataBytes    int
	Source       string
	ProfileNote  string
	UsesProgram  bool
	ImportsNames [][2]string
	Prelude      string
}

// writeScript renders the exported file.
func writeScript(b *strings.Builder, spec Spec, data []byte) error {
	d := scriptData{Spec: spec, Source: string(spec.Source), ImportsNames: UpstreamImports, UsesProgram: spec.Program != "", Prelude: GoldenPrelude}
	ids := make([]string, spec.Ranks)
	for i := range ids {
		ids[i] = strconv.Itoa(i)
	}
	d.DeviceIDs = strings.Join(ids, ",")
	for i := range ids {
		ids[i] = strconv.Itoa(spec.Ranks + i)
	}
	d.OtherIDs = strings.Join(ids, ",")
	var pp []string
	for _, p := range spec.Params {
		dt := torchDTypes[p.DType]
		if p.Scalar {
			dt = "None"
		}
		pp = append(pp, fmt.Sprintf("    (%q, %q, %s, %s, %s, %s),", p.Name, dirName(p.Dir), dt, pyInts(p.Shape), pyBool(p.Scalar), pyFloat(p.Value)))
	}
	d.ParamsPy = strings.Join(pp, "\n")
	if spec.Golden != nil {
		d.HasGolden, d.GoldenCode, d.Exact = true, strings.TrimRight(spec.Golden.Code, "\n"), spec.Golden.Exact
	} else {
		d.NoGolden = spec.NoGolden
		if d.NoGolden == "" {
			d.NoGolden = "this program is not one of the course's steps, so the workbench has no golden for it"
		}
	}
	if len(data) > 0 {
		d.DataSHA = fmt.Sprintf("%x", sha256.Sum256(data))
		d.DataBytes = len(data)
	}
	d.File = path.Base(spec.File)
	d.Header = header(d.Spec, d)
	// The program starts after the header and the prologue; counting them
	// lets the header say where, so PyPTO's line numbers can be mapped
	// back to the learner's file.
	var pre strings.Builder
	if err := prologue.Execute(&pre, d); err != nil {
		return err
	}
	d.ProgramLine = strings.Count(pre.String(), "\n") + 1
	d.Header = header(d.Spec, d)
	pre.Reset()
	if err := prologue.Execute(&pre, d); err != nil {
		return err
	}
	b.WriteString(pre.String())
	b.WriteString(d.Source)
	if !strings.HasSuffix(d.Source, "\n") {
		b.WriteString("\n")
	}
	return driver.Execute(b, d)
}

func header(spec Spec, d scriptData) []string {
	fill := spec.Fill
	if fill == "randn" && d.DataSHA != "" {
		fill = fmt.Sprintf("randn (seed %d, from %s)", spec.Seed, spec.DataFile)
	}
	h := []string{
		fmt.Sprintf("Exported by PLD Workbench from %s: entry %s at %d ranks, inputs %s, platform %s.", spec.File, spec.Entry, spec.Ranks, fill, spec.Platform),
		"",
		"Run it with PyPTO installed (python3 with pypto and torch importable):",
		"",
		fmt.Sprintf("    python3 THIS_FILE                     # on devices %s of %s", d.DeviceIDs, spec.Platform),
		fmt.Sprintf("    python3 THIS_FILE --device %s    # other device ids: exactly %d of them", d.OtherIDs, spec.Ranks),
		"    python3 THIS_FILE --platform a2a3sim  # PyPTO's simulator instead of cards",
		"    python3 THIS_FILE --compile-only      # compile, print the build directory, stop",
		"    python3 THIS_FILE --swimlane          # also collect per-rank swimlane records (DFX)",
		"",
		"It writes THIS_FILE's name with .manifest.json (or --manifest PATH): the outputs,",
		"the golden's verdict and the DFX files under <output_dir>/dfx_outputs/rank{r}/d{k}/.",
		"Exit status: 0 the outputs match the golden (or there is none), 1 they do not, 2 usage.",
	}
	if fill != spec.Fill {
		h = append(h, fmt.Sprintf("The inputs are in %s beside this file (%d bytes, sha256 %s).", spec.DataFile, d.DataBytes, d.DataSHA))
	}
	if d.HasGolden {
		g := "the step's golden, exported from the workbench's checks"
		if spec.Golden.Prose != "" {
			g = spec.Golden.Prose
		}
		h = append(h, "Golden: "+g+".")
	} else {
		h = append(h, "Golden: none: "+d.NoGolden+". The outputs are written, not checked.")
	}
	h = append(h,
		"With --swimlane on a card, PyPTO runs the program twice (a dependency pass, then",
		"a timing pass) without restoring pl.InOut tensors in between.",
		fmt.Sprintf("The program below is %s exactly as written; it starts at line %d of this file.", spec.File, d.ProgramLine))
	return h
}

func dirName(d ir.Dir) string {
	switch d {
	case ir.Out:
		return "out"
	case ir.InOut:
		return "inout"
	}
	return "in"
}

func pyInts(s []int) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = strconv.Itoa(v)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func pyBool(v bool) string {
	if v {
		return "True"
	}
	return "False"
}

func pyFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

var funcs = template.FuncMap{"quote": strconv.Quote, "platforms": func() string {
	q := make([]string, len(Platforms))
	for i, p := range Platforms {
		q[i] = strconv.Quote(p)
	}
	return "[" + strings.Join(q, ", ") + "]"
}}

// prologue opens the file. Run as a script, the module's name is changed
// before the program is defined: every course file ends in its own
// `if __name__ == "__main__":` harness, which must not run in place of the
// driver, and the program text may not be touched. The module stays
// registered under its new name because Python finds a class's source
// through sys.modules, and PyPTO reads the source of what it compiles.
var prologue = template.Must(template.New("prologue").Funcs(funcs).Delims("[[", "]]").Parse(`[[range .Header]]#[[if .]] [[.]][[end]]
[[end]]import sys as _pld_sys

_pld_as_script = __name__ == "__main__"
if _pld_as_script:
    __name__ = "pld_exported_program"
    _pld_sys.modules[__name__] = _pld_sys.modules["__main__"]

# ---- the program, exactly as written ----
`))

// driver follows the program. Its inputs follow engine.MakeInputs's
// rules: element i of an index fill is i converted to the dtype (torch's
// conversion of a Python number rounds to nearest, as the workbench's
// float32 conversion does), ones and zeros are what they say, a dynamic
// dimension is the rank count, pl.Out tensors start as zeros.
var driver = template.Must(template.New("driver").Funcs(funcs).Delims("[[", "]]").Parse(`
# ---- the driver, written by PLD Workbench ----

_PLD_ENTRY = [[quote .Entry]]
_PLD_RANKS = [[.Ranks]]
_PLD_FILL = [[quote .Fill]]
_PLD_DATA_FILE = [[if .DataSHA]][[quote .DataFile]][[else]]None[[end]]
_PLD_DATA_SHA256 = [[if .DataSHA]][[quote .DataSHA]][[else]]None[[end]]
_PLD_EXACT = [[if .Exact]]True[[else]]False[[end]]
_PLD_NO_GOLDEN = [[if .HasGolden]]None[[else]][[quote .NoGolden]][[end]]

# (name, direction, torch dtype, shape, is scalar, scalar value), in the
# host orchestrator's signature order.
def _pld_params(torch):
    return [
[[.ParamsPy]]
    ]


def _pld_fill_values(dtype, n, fill, torch):
    if fill == "index":
        vals = list(range(n))
    elif fill == "ones":
        vals = [1] * n
    else:
        vals = [0] * n
    if dtype == torch.bool:
        return [v != 0 for v in vals]
    if dtype.is_floating_point:
        return [float(v) for v in vals]
    return vals


def _pld_read_data(path, torch):
    import hashlib
    import struct

    with open(path, "rb") as f:
        raw = f.read()
    if hashlib.sha256(raw).hexdigest() != _PLD_DATA_SHA256:
        raise SystemExit(f"{path}: its sha256 is not the one this script was exported with")
    return list(struct.unpack("<%dd" % (len(raw) // 8), raw))


def _pld_make_args(here, torch):
    args, tensors = [], {}
    data, at = None, 0
    if _PLD_DATA_FILE is not None:
        import os

        data = _pld_read_data(os.path.join(here, _PLD_DATA_FILE), torch)
    for name, direction, dtype, shape, scalar, value in _pld_params(torch):
        if scalar:
            args.append(value)
            continue
        n = _pld_numel(shape)
        if direction == "out":
            vals = _pld_fill_values(dtype, n, "zeros", torch)
        elif data is not None:
            vals, at = data[at : at + n], at + n
            if dtype == torch.bool:
                vals = [v != 0 for v in vals]
            elif not dtype.is_floating_point:
                vals = [int(v) for v in vals]
        else:
            vals = _pld_fill_values(dtype, n, _PLD_FILL, torch)
        t = torch.tensor(vals, dtype=dtype).reshape(shape)
        args.append(t)
        tensors[name] = t
    return args, tensors


[[.Prelude]]
[[if .HasGolden]][[.GoldenCode]]
[[else]]def golden(p, inp):
    return None
[[end]]

def _pld_close(got, want, exact):
    import math

    if exact:
        return got == want or (isinstance(got, float) and math.isnan(got) and math.isnan(want))
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    return abs(got - want) <= 1e-5 + 1e-5 * abs(want)


def _pld_json_value(v):
    import math

    if isinstance(v, bool):
        return 1 if v else 0
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    return v


def _pld_main():
    import argparse
    import json
    import os

    import torch
[[range .ImportsNames]]    from [[index . 0]] import [[index . 1]]
[[end]]
    ap = argparse.ArgumentParser(description="PLD Workbench export: " + _PLD_ENTRY)
    ap.add_argument("-p", "--platform", default=[[quote .Platform]], choices=[[platforms]])
    ap.add_argument("-d", "--device", default=[[quote .DeviceIDs]], help="comma-separated device ids, exactly %d" % _PLD_RANKS)
    ap.add_argument("--compile-only", action="store_true")
    ap.add_argument("--swimlane", action="store_true", help="collect per-rank swimlane records")
    ap.add_argument("--output-dir", default=None, help="PyPTO's build directory (default: PyPTO's choice)")
    ap.add_argument("--manifest", default=None)
    opts = ap.parse_args()

    ids = [int(tok) for tok in opts.device.split(",") if tok.strip()]
    if len(ids) != _PLD_RANKS:
        print(f"the program was checked and exported at {_PLD_RANKS} ranks: give exactly {_PLD_RANKS} device ids, got {ids}", file=_pld_sys.stderr)
        return 2
    here = os.path.dirname(os.path.abspath(__file__))
    manifest_path = opts.manifest or os.path.splitext(os.path.abspath(__file__))[0] + ".manifest.json"
    manifest = {"workbench_export": 1, "entry": _PLD_ENTRY, "ranks": _PLD_RANKS, "platform": opts.platform,
                "device_ids": ids, "fill": _PLD_FILL, "status": "started", "outputs": {}, "mismatches": [], "dfx": {}}

    def write_manifest():
        with open(manifest_path, "w") as f:
            json.dump(manifest, f, allow_nan=False)

    args, tensors = _pld_make_args(here, torch)
    dist = DistributedConfig(device_ids=ids, num_sub_workers=0)
[[if .UsesProgram]]    compile_kw = {"platform": opts.platform, "distributed_config": dist}
    if opts.output_dir:
        compile_kw["output_dir"] = opts.output_dir
    if opts.compile_only and not (os.environ.get("PTOAS_ROOT") or __import__("shutil").which("ptoas")):
        # No PTO assembler here: stop at the MLIR, as @pl.jit does by itself.
        compile_kw["skip_ptoas"] = True
    compiled = ir.compile([[.Program]], **compile_kw)
[[else]]    compile_config = RunConfig(platform=opts.platform, distributed_config=dist)
    if opts.output_dir:
        compile_config = RunConfig(platform=opts.platform, distributed_config=dist, save_kernels=True, save_kernels_dir=opts.output_dir)
    compiled = [[.Entry]].compile(*args, config=compile_config)
[[end]]    manifest["output_dir"] = str(compiled.output_dir)
    if opts.compile_only:
        manifest["status"] = "compiled"
        write_manifest()
        print(f"compiled for {_PLD_RANKS} ranks into {compiled.output_dir}")
        return 0

    if opts.swimlane:
        run_config = RunConfig(platform=opts.platform, enable_chip_swimlane=True, enable_dep_gen=True)
    else:
        run_config = RunConfig(platform=opts.platform)
[[if .Method]]    # The class has several entries (host orchestrators, or the chip
    # orchestrations of a program with no HOST level); one is picked by name.
    getattr(compiled, [[quote .Method]])(*args, config=run_config)
[[else]]    compiled(*args, config=run_config)
[[end]]
    outs = {}
    for name, direction, dtype, shape, scalar, value in _pld_params(torch):
        if scalar:
            continue
        t = tensors[name]
        flat = t.flatten().tolist()
        if direction != "in":
            outs[name] = (flat, tuple(shape))
            manifest["outputs"][name] = {"dtype": str(dtype).replace("torch.", ""), "shape": list(shape),
                                         "data": [_pld_json_value(v) for v in flat]}
    inp = {name: (tensors[name].flatten().tolist(), tuple(t.shape)) for name, t in tensors.items()}
    want = golden(_PLD_RANKS, inp)
    status = 0
    if want is None:
        manifest["status"] = "no_golden"
        manifest["no_golden"] = _PLD_NO_GOLDEN
    else:
        for name, (wvals, wshape) in sorted(want.items()):
            gvals = outs[name][0]
            bad = [i for i, (g, w) in enumerate(zip(gvals, wvals)) if not _pld_close(float(g), float(w), _PLD_EXACT)]
            if len(gvals) != len(wvals):
                bad = bad or [min(len(gvals), len(wvals))]
            if bad:
                i = bad[0]
                got = gvals[i] if i < len(gvals) else None
                manifest["mismatches"].append({"output": name, "wrong": len(bad), "of": len(wvals), "first": i,
                                               "got": _pld_json_value(got), "want": _pld_json_value(wvals[i]) if i < len(wvals) else None})
                print(f"{name}: {len(bad)} of {len(wvals)} elements wrong; element {i}: got {got}, want {wvals[i] if i < len(wvals) else None}", file=_pld_sys.stderr)
                status = 1
        manifest["status"] = "ok" if status == 0 else "mismatch"
    dfx = os.path.join(str(compiled.output_dir), "dfx_outputs")
    if os.path.isdir(dfx):
        for root, _dirs, files in sorted(os.walk(dfx)):
            rel = os.path.relpath(root, dfx)
            for fname in sorted(files):
                manifest["dfx"].setdefault(rel, []).append(os.path.join(root, fname))
    write_manifest()
    print("OK" if status == 0 else "MISMATCH", manifest_path)
    return status


if _pld_as_script:
    raise SystemExit(_pld_main())
`))
