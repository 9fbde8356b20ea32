package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestServe builds the command, serves on a free loopback port, asks the
// API for the steps, and stops the process with SIGTERM: exit 0.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "workbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(dir, "data"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL: %v (stderr: %s)", err, stderr.String())
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "PLD Workbench: ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, ":0/") {
		t.Fatalf("printed %q", line)
	}
	resp, err := http.Get(url + "api/steps")
	if err != nil {
		t.Fatal(err)
	}
	var steps struct {
		Steps []json.RawMessage `json:"steps"`
	}
	err = json.NewDecoder(resp.Body).Decode(&steps)
	resp.Body.Close()
	if err != nil || len(steps.Steps) != 20 {
		t.Fatalf("GET /api/steps: %d steps, %v", len(steps.Steps), err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after SIGTERM: %v (stderr: %s)", err, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "runs.db")); err != nil {
		t.Errorf("no run store: %v", err)
	}
}

// TestServePortInUse: a taken port is a clear error and exit 1.
func TestServePortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, out, errs := runCLI("serve", "--addr", ln.Addr().String(), "--data", t.TempDir())
	if code != 1 || !strings.Contains(errs, "already in use") || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, _, errs = runCLI("--addr", "127.0.0.1:0", "extra")
	if code != 2 || !strings.Contains(errs, "no arguments") {
		t.Errorf("extra argument: exit %d, stderr %q", code, errs)
	}
}

// TestServeBeyondLoopback: bound to every interface, the server prints a
// URL with a token and answers nothing without it. (The test reaches it on
// 127.0.0.1 only, and for about a second.)
func TestServeBeyondLoopback(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "workbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve", "--addr", "0.0.0.0:0", "--data", filepath.Join(dir, "data"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	_, tok, ok := strings.Cut(strings.TrimSpace(line), "/?token=")
	if !ok || len(tok) != 32 {
		t.Fatalf("printed %q, want a URL with a 32-digit token", line)
	}
	port := line[strings.LastIndex(line[:strings.Index(line, "/?token=")], ":")+1 : strings.Index(line, "/?token=")]
	base := "http://127.0.0.1:" + port
	resp, err := http.Get(base + "/api/steps")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("without the token: %d, want 401", resp.StatusCode)
	}
	resp, err = http.Get(base + "/api/steps?token=" + tok)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("with the token: %d, want 200", resp.StatusCode)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	go io.Copy(io.Discard, stdout)
	cmd.Wait()
}

// TestServeLimitFlags: the limit flags refuse bad values with exit 2 and
// a message naming the flag.
func TestServeLimitFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--store-budget", "lots"}, "--store-budget"},
		{[]string{"--mem-limit", "-1G"}, "--mem-limit"},
		{[]string{"--queue", "0"}, "--queue"},
		{[]string{"--runs", "0"}, "--runs"},
		{[]string{"--timeout", "0s"}, "--timeout"},
		{[]string{"--store-delay", "-1s"}, "--store-delay"},
	} {
		code, _, errs := runCLI(append([]string{"serve", "--addr", "127.0.0.1:0", "--data", t.TempDir()}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errs)
		}
	}
}
