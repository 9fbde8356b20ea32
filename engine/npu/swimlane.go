package npu

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"pldworkbench/engine/ir"
	"pldworkbench/engine/trace"
)

// SwimlaneFile is the per-dispatch record file PyPTO's runtime writes
// with RunConfig(enable_chip_swimlane=...) under
// <output_dir>/dfx_outputs/rank{r}/d{k}/.
const SwimlaneFile = "chip_swimlane_records.json"

// TaskOp is the Op of a trace event made from a swimlane record: one task
// the hardware ran, not one DSL operation.
const TaskOp = "npu.task"

// LanesLabel says what the lanes of a PyPTO run show.
const LanesLabel = "task-level slices per rank as the runtime's chip swimlane records them (one slice per AICore task, lanes by core), not per op; each rank's lane starts at its own first record"

// records is the on-disk schema of chip_swimlane_records.json, as
// hw-native-sys/simpler (PyPTO's runtime submodule, at 93adc3865) defines
// it in docs/dfx/chip-swimlane-profiling.md, "On-disk schema": raw cycle
// counts, metadata.clock_freq_hz to turn them into time, and flat tuple
// streams whose column order is fixed — aicore_tasks [core_id,
// task_token_raw, reg_task_id, start_cycles, end_cycles] and aicpu_tasks
// [core_id, reg_task_id, dispatch_cycles, finish_cycles].
type records struct {
	Level    int `json:"chip_swimlane_level"`
	Metadata struct {
		ClockFreqHz int64    `json:"clock_freq_hz"`
		NumCores    int      `json:"num_cores"`
		CoreTypes   []string `json:"core_types"`
	} `json:"metadata"`
	AICoreTasks [][]uint64 `json:"aicore_tasks"`
	AICPUTasks  [][]uint64 `json:"aicpu_tasks"`
}

var rankDir = regexp.MustCompile(`^rank(\d+)/d(\d+)$`)

// Swimlanes reads every per-rank, per-dispatch record file the manifest
// lists and turns each AICore task into one trace event on its rank, in a
// lane per core (Block is the core id). Dispatches of one rank follow each
// other in d{k} order. It returns no events, and no error, when the run
// collected no records.
func Swimlanes(dfx map[string][]string) ([]trace.Event, string, error) {
	type dispatch struct {
		rank, k int
		path    string
	}
	var ds []dispatch
	for rel, files := range dfx {
		m := rankDir.FindStringSubmatch(filepath.ToSlash(rel))
		if m == nil {
			continue
		}
		for _, f := range files {
			if filepath.Base(f) == SwimlaneFile {
				r, _ := strconv.Atoi(m[1])
				k, _ := strconv.Atoi(m[2])
				ds = append(ds, dispatch{r, k, f})
			}
		}
	}
	if len(ds) == 0 {
		return nil, "", nil
	}
	sort.Slice(ds, func(i, j int) bool {
		if ds[i].rank != ds[j].rank {
			return ds[i].rank < ds[j].rank
		}
		return ds[i].k < ds[j].k
	})
	var events []trace.Event
	seq := map[int]int64{}
	offset := map[int]int64{} // where a rank's next dispatch starts, ns
	for _, d := range ds {
		b, err := os.ReadFile(d.path)
		if err != nil {
			return nil, "", err
		}
		evs, err := Convert(b, d.rank)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %v", d.path, err)
		}
		var end int64
		for _, e := range evs {
			e.StartNs += offset[d.rank]
			e.EndNs += offset[d.rank]
			e.Seq = seq[d.rank]
			seq[d.rank]++
			end = max(end, e.EndNs)
			events = append(events, e)
		}
		offset[d.rank] = end
	}
	return events, LanesLabel, nil
}

// Convert turns one record file of rank into trace events, in start
// order, times in nanoseconds from the file's earliest AICore start.
func Convert(b []byte, rank int) ([]trace.Event, error) {
	var r records
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	if r.Metadata.ClockFreqHz <= 0 {
		return nil, fmt.Errorf("metadata.clock_freq_hz is %d, want a positive cycle rate", r.Metadata.ClockFreqHz)
	}
	hz := float64(r.Metadata.ClockFreqHz)
	var base uint64
	for i, t := range r.AICoreTasks {
		if len(t) != 5 {
			return nil, fmt.Errorf("aicore_tasks[%d] has %d columns, want 5 (core_id, task_token_raw, reg_task_id, start_cycles, end_cycles)", i, len(t))
		}
		if i == 0 || t[3] < base {
			base = t[3]
		}
	}
	ns := func(c uint64) int64 { return int64(float64(c-base) * 1e9 / hz) }
	tasks := append([][]uint64(nil), r.AICoreTasks...)
	sort.SliceStable(tasks, func(i, j int) bool { return tasks[i][3] < tasks[j][3] })
	events := make([]trace.Event, 0, len(tasks))
	for _, t := range tasks {
		core := int(t[0])
		kind := "core"
		if core < len(r.Metadata.CoreTypes) {
			kind = r.Metadata.CoreTypes[core]
		}
		if t[4] < t[3] {
			return nil, fmt.Errorf("task %d on core %d ends (cycle %d) before it starts (cycle %d)", t[2], core, t[4], t[3])
		}
		events = append(events, trace.Event{Rank: rank, Block: core, Op: TaskOp, Cat: string(ir.CatCompute), // what a task does is not recorded
			Callee:  fmt.Sprintf("task %d on %s core %d", t[2], kind, core),
			StartNs: ns(t[3]), EndNs: ns(t[4])})
	}
	return events, nil
}
