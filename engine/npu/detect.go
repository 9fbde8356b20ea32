package npu

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"pldworkbench/engine/limits"
)

// Toolchain is what Detect found: the Python that runs exported scripts,
// the PyPTO and torch it imports, and the NPUs attached. Missing says, one
// sentence each, what is not there and how to get it; it is empty when an
// exported script can run on every platform.
type Toolchain struct {
	Python    string `json:"python"`
	PythonOK  bool   `json:"python_ok"`
	PyPTO     string `json:"pypto,omitempty"` // its __version__, "" when not importable
	PyPTOPath string `json:"pypto_path,omitempty"`
	Torch     string `json:"torch,omitempty"`
	// PTOAS is the PTO assembler PyPTO finds (its own lookup: PTOAS_ROOT,
	// else PATH); NoPTOAS says PyPTO looked and found none. PyPTO compiles
	// without one (the kernels stop at their .pto), but cannot build the
	// kernels a run needs.
	PTOAS        string   `json:"ptoas,omitempty"`
	NoPTOAS      bool     `json:"no_ptoas,omitempty"`
	Devices      []int    `json:"devices"`
	DeviceSource string   `json:"device_source,omitempty"` // "npu-smi" or "/dev/davinci*"
	Missing      []string `json:"missing"`
}

// Usable reports whether an exported script can run on platform: PyPTO and
// torch import, PyPTO has its assembler, and a card platform has devices.
func (tc Toolchain) Usable(platform string) bool {
	if !tc.Compiles() || tc.NoPTOAS {
		return false
	}
	return strings.HasSuffix(platform, "sim") || len(tc.Devices) > 0
}

// Compiles reports whether an exported script can be compiled here
// (--compile-only): PyPTO and torch import; it needs no assembler and no
// cards.
func (tc Toolchain) Compiles() bool { return tc.PyPTO != "" && tc.Torch != "" }

// MissingFor is Missing narrowed to what platform needs: a simulator
// needs no cards.
func (tc Toolchain) MissingFor(platform string) []string {
	var out []string
	for _, m := range tc.Missing {
		if strings.HasSuffix(platform, "sim") && strings.HasPrefix(m, "no Ascend NPU") {
			continue
		}
		out = append(out, m)
	}
	return out
}

// DetectOptions says where to look.
type DetectOptions struct {
	Python  string   // default "python3"
	Env     []string // the environment of the probes (default os.Environ())
	Timeout time.Duration
	// DevRoot is the directory of the device nodes (default /dev).
	DevRoot string
}

// The messages of what is missing, and how to get it.
const (
	missingPython = "python3 is not on PATH: install Python 3 (apt-get install python3)"
	missingPyPTO  = "pypto is not importable by python3: build it from https://github.com/hw-native-sys/pypto (clone with --recursive, then pip install -e . in the clone) or put its python/ directory on PYTHONPATH"
	missingTorch  = "torch is not importable by python3: pip install torch (or apt-get install python3-torch); PyPTO takes host tensors as torch tensors"
	missingPTOAS  = "PyPTO finds no PTO assembler (ptoas: $PTOAS_ROOT, else PATH): it compiles without one (--compile-only, check --with-pypto), but a run needs the kernels it assembles; get a PTOAS release (https://github.com/hw-native-sys/PTOAS) and set PTOAS_ROOT to it"
	missingNPU    = "no Ascend NPU found (no npu-smi on PATH and no /dev/davinci* device nodes): use --platform a2a3sim or a5sim for PyPTO's simulator, or install the Ascend driver that provides npu-smi"
)

// probe is what the Python probe prints: one JSON object.
const probe = `import json
r = {}
try:
    import pypto
    r["pypto"] = str(getattr(pypto, "__version__", "unknown"))
    r["pypto_path"] = getattr(pypto, "__file__", "") or ""
except Exception as e:
    r["pypto_error"] = repr(e)
try:
    # PyPTO's own lookup of its assembler; a PyPTO without it says nothing.
    from pypto.backend._ptoas_locate import find_ptoas_binary
    r["ptoas"] = find_ptoas_binary() or ""
except Exception:
    pass
try:
    import torch
    r["torch"] = str(getattr(torch, "__version__", "unknown"))
except Exception as e:
    r["torch_error"] = repr(e)
print(json.dumps(r))
`

// Detect looks for python3, pypto, torch and NPUs. It never fails: what
// it cannot find is in Missing.
func Detect(ctx context.Context, opts DetectOptions) Toolchain {
	if opts.Python == "" {
		opts.Python = "python3"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = limits.PyPTOProbe
	}
	if opts.DevRoot == "" {
		opts.DevRoot = "/dev"
	}
	tc := Toolchain{Python: opts.Python, Devices: []int{}, Missing: []string{}}
	path, err := exec.LookPath(opts.Python)
	if err != nil {
		tc.Missing = append(tc.Missing, missingPython, missingPyPTO)
	} else {
		tc.Python, tc.PythonOK = path, true
		ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		cmd := exec.CommandContext(ctx, path, "-c", probe)
		cmd.Env = opts.Env
		out, err := cmd.Output()
		cancel()
		var r struct {
			PyPTO     string  `json:"pypto"`
			PyPTOPath string  `json:"pypto_path"`
			Torch     string  `json:"torch"`
			PTOAS     *string `json:"ptoas"`
		}
		if err == nil {
			err = json.Unmarshal(out, &r)
		}
		tc.PyPTO, tc.PyPTOPath, tc.Torch = r.PyPTO, r.PyPTOPath, r.Torch
		if tc.PyPTO == "" {
			tc.Missing = append(tc.Missing, missingPyPTO)
		}
		if tc.Torch == "" {
			tc.Missing = append(tc.Missing, missingTorch)
		}
		if r.PTOAS != nil {
			tc.PTOAS, tc.NoPTOAS = *r.PTOAS, *r.PTOAS == ""
		}
		if tc.PyPTO != "" && tc.NoPTOAS {
			tc.Missing = append(tc.Missing, missingPTOAS)
		}
	}
	tc.Devices, tc.DeviceSource = devices(ctx, opts)
	if len(tc.Devices) == 0 {
		tc.Missing = append(tc.Missing, missingNPU)
	}
	return tc
}

var npuID = regexp.MustCompile(`(?m)NPU ID\s*:\s*(\d+)`)
var davinci = regexp.MustCompile(`^davinci(\d+)$`)

// devices lists the NPUs: npu-smi's "NPU ID" lines when it runs, else the
// /dev/davinciN nodes the driver creates (one per card; davinci_manager
// and friends are not cards).
func devices(ctx context.Context, opts DetectOptions) ([]int, string) {
	if smi, err := exec.LookPath("npu-smi"); err == nil {
		ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
		if out, err := exec.CommandContext(ctx, smi, "info", "-l").Output(); err == nil {
			var ids []int
			for _, m := range npuID.FindAllStringSubmatch(string(out), -1) {
				n, _ := strconv.Atoi(m[1])
				ids = append(ids, n)
			}
			if len(ids) > 0 {
				sort.Ints(ids)
				return ids, "npu-smi"
			}
		}
	}
	entries, err := os.ReadDir(opts.DevRoot)
	if err != nil {
		return []int{}, ""
	}
	ids := []int{}
	for _, e := range entries {
		if m := davinci.FindStringSubmatch(e.Name()); m != nil {
			n, _ := strconv.Atoi(m[1])
			ids = append(ids, n)
		}
	}
	sort.Ints(ids)
	if len(ids) == 0 {
		return ids, ""
	}
	return ids, filepath.Join(opts.DevRoot, "davinci*")
}
