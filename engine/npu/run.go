package npu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"pldworkbench/engine/floats"
	"pldworkbench/engine/limits"
	"pldworkbench/engine/trace"
)

// RunSpec is one run of an exported script.
type RunSpec struct {
	Script   []byte
	Data     []byte // the randn data file, nil for the other fills
	DataFile string
	Platform string
	Devices  []int // exactly the script's rank count; nil = 0..P-1
	Swimlane bool  // ask for the per-rank swimlane records
	// CompileOnly stops after PyPTO's compile (the script's --compile-only).
	CompileOnly bool
	Python      string   // default "python3"
	Env         []string // default os.Environ()
	// Timeout and Memory are the run's deadline and memory budget: the
	// script's process group is killed at the deadline, and Memory bounds
	// its data segment (RLIMIT_DATA, which counts the heap and private
	// mappings, not the shared libraries torch maps).
	Timeout time.Duration
	Memory  int64
	// Dir is where the temporary run directory is made ("" = the system's).
	Dir string
	// Keep leaves the run directory in place (Result.Dir names it).
	Keep bool
}

// Run statuses beyond the manifest's own (ok, mismatch, no_golden,
// compiled).
const (
	StatusTimeout = "timeout"
	StatusError   = "error" // the script failed before writing a verdict
)

// Result is what a run of an exported script gave back.
type Result struct {
	Status   string        `json:"status"`
	ExitCode int           `json:"exit_code"`
	Elapsed  time.Duration `json:"elapsed_ns"`
	Manifest *Manifest     `json:"manifest,omitempty"`
	// Stderr is the tail of the script's standard error (PyPTO's messages).
	Stderr string `json:"stderr,omitempty"`
	Stdout string `json:"stdout,omitempty"`
	Dir    string `json:"dir,omitempty"`
	// Events are the swimlane records as trace events; Lanes says what a
	// slice of them is.
	Events []trace.Event `json:"-"`
	Lanes  string        `json:"lanes,omitempty"`
}

// Manifest is the JSON file the driver writes.
type Manifest struct {
	Status     string              `json:"status"`
	Entry      string              `json:"entry"`
	Ranks      int                 `json:"ranks"`
	Platform   string              `json:"platform"`
	DeviceIDs  []int               `json:"device_ids"`
	Fill       string              `json:"fill"`
	OutputDir  string              `json:"output_dir"`
	Outputs    map[string]Output   `json:"outputs"`
	Mismatches []Mismatch          `json:"mismatches"`
	DFX        map[string][]string `json:"dfx"`
	NoGolden   string              `json:"no_golden,omitempty"`
}

// Output is one output tensor of the manifest.
type Output struct {
	DType string        `json:"dtype"`
	Shape []int         `json:"shape"`
	Data  floats.Floats `json:"data"` // the driver writes NaN and the infinities as strings
}

// Mismatch is the driver's account of one output that missed its golden.
type Mismatch struct {
	Output string `json:"output"`
	Wrong  int    `json:"wrong"`
	Of     int    `json:"of"`
	First  int    `json:"first"`
}

// Run runs an exported script in a fresh temporary directory under the
// spec's deadline and memory limit, then reads its manifest and swimlane
// records back. An error is returned only when the run could not be
// started at all; what the script did is in Result.
func Run(ctx context.Context, spec RunSpec) (*Result, error) {
	if spec.Python == "" {
		spec.Python = "python3"
	}
	py, err := exec.LookPath(spec.Python)
	if err != nil {
		return nil, errors.New(missingPython)
	}
	dir, err := os.MkdirTemp(spec.Dir, "pld-pypto-")
	if err != nil {
		return nil, err
	}
	res := &Result{Dir: dir}
	if !spec.Keep {
		defer os.RemoveAll(dir)
		res.Dir = ""
	}
	script := filepath.Join(dir, "exported.py")
	if err := os.WriteFile(script, spec.Script, 0o644); err != nil {
		return nil, err
	}
	if spec.Data != nil {
		if err := os.WriteFile(filepath.Join(dir, spec.DataFile), spec.Data, 0o644); err != nil {
			return nil, err
		}
	}
	manifest := filepath.Join(dir, "manifest.json")
	args := []string{script, "--platform", spec.Platform, "--manifest", manifest, "--output-dir", filepath.Join(dir, "build")}
	if spec.Devices != nil {
		ids := make([]string, len(spec.Devices))
		for i, d := range spec.Devices {
			ids[i] = strconv.Itoa(d)
		}
		args = append(args, "--device", strings.Join(ids, ","))
	}
	if spec.Swimlane {
		args = append(args, "--swimlane")
	}
	if spec.CompileOnly {
		args = append(args, "--compile-only")
	}
	if spec.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, spec.Timeout)
		defer cancel()
	}
	cmd := command(ctx, py, args, spec.Memory)
	cmd.Dir = dir
	cmd.Env = spec.Env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	res.Elapsed = time.Since(start)
	res.ExitCode = cmd.ProcessState.ExitCode()
	res.Stdout, res.Stderr = tail(stdout.String()), tail(stderr.String())
	if ctx.Err() != nil {
		res.Status = StatusTimeout
		return res, nil
	}
	var m Manifest
	b, rerr := os.ReadFile(manifest)
	if rerr != nil || json.Unmarshal(b, &m) != nil || m.Status == "started" {
		res.Status = StatusError
		if err == nil {
			res.Stderr += "\nthe script ended without writing its verdict to the manifest"
		}
		return res, nil
	}
	res.Manifest, res.Status = &m, m.Status
	res.Events, res.Lanes, err = Swimlanes(m.DFX)
	if err != nil {
		res.Stderr += "\nswimlane records: " + err.Error()
	}
	return res, nil
}

// command runs python under the memory limit, in its own process group so
// the deadline kills PyPTO's workers too. The limit is set by the shell's
// ulimit (Go's os/exec has no per-child rlimit).
func command(ctx context.Context, py string, args []string, memory int64) *exec.Cmd {
	var cmd *exec.Cmd
	if memory > 0 {
		kib := strconv.FormatInt((memory+1023)/1024, 10)
		cmd = exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", `ulimit -d ` + kib + ` && exec "$0" "$@"`, py}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, py, args...)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = limits.PyPTOKillGrace
	return cmd
}

func tail(s string) string {
	if len(s) > limits.PyPTOMessages {
		return "…" + s[len(s)-limits.PyPTOMessages:]
	}
	return s
}
