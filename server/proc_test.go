package server

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests that measure memory or kill the server run the real
// `workbench serve` binary in a child process: its VmHWM (peak resident
// set, from /proc) covers everything the process did, which a sampler in
// this process would miss between samples, and kill -9 needs a process of
// its own.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// workbenchBin builds cmd/workbench once per test binary.
func workbenchBin(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pld-serve-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "workbench")
		out, err := exec.Command("go", "build", "-o", binPath, "pldworkbench/cmd/workbench").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// child is a `workbench serve` process.
type child struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncBuffer
	waited chan error
}

// startChild serves dir from a new process with extra flags.
func startChild(t testing.TB, dir string, flags ...string) *child {
	t.Helper()
	return startChildBin(t, workbenchBin(t), dir, flags...)
}

// startChildBin is startChild with a given binary: the recorded-API test
// runs the old workbench this way.
func startChildBin(t testing.TB, bin, dir string, flags ...string) *child {
	t.Helper()
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--data", dir}, flags...)
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, stderr: newSyncBuffer(), waited: make(chan error, 1)}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("reading the URL: %v (stderr: %s)", err, c.stderr.String())
	}
	go io.Copy(io.Discard, stdout)
	go func() { c.waited <- cmd.Wait() }()
	u, ok := strings.CutPrefix(strings.TrimSpace(line), "PLD Workbench: ")
	if !ok {
		t.Fatalf("printed %q", line)
	}
	c.url = strings.TrimSuffix(u, "/")
	t.Cleanup(func() { c.kill() })
	return c
}

// kill sends SIGKILL and waits for the process.
func (c *child) kill() {
	if c.cmd.ProcessState != nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-c.waited:
	case <-time.After(10 * time.Second):
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (c *child) stop(t testing.TB) {
	t.Helper()
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-c.waited:
		if err != nil {
			t.Errorf("serve exited with %v: %s", err, c.stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Errorf("serve did not exit on SIGTERM")
	}
}

// procStatus reads a field of /proc/PID/status in bytes (VmHWM, VmRSS).
func procStatus(t testing.TB, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
