package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"pldworkbench/engine/limits"
	"pldworkbench/server"
)

// runServe serves the web workbench until SIGINT or SIGTERM, then shuts
// down gracefully: runs still executing are cancelled, finished ones are
// written, the store is closed.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (loopback by default; a port of 0 picks a free one)")
	data := fs.String("data", "", "data directory for the run store runs.db (default: $XDG_DATA_HOME/pld-workbench or ~/.local/share/pld-workbench)")
	runs := fs.Int("runs", limits.MaxRuns, "worker slots: runs, checks, IR, compares and step checks executing at once")
	queue := fs.Int("queue", limits.MaxQueue, "runs that may wait for a slot; a post beyond gets 503 with Retry-After")
	timeout := fs.Duration("timeout", limits.RunTimeout, "wall clock of one run, from when it has a slot")
	var budget sizeFlag = limits.StoreBudget
	fs.Var(&budget, "store-budget", "size of the run store beyond which the oldest unpinned runs are evicted (e.g. 512MiB, 2GiB)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: workbench [serve] [--addr HOST:PORT] [--data DIR] [--runs N] [--queue N] [--timeout D] [--store-budget SIZE]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "serve takes no arguments, got %q\n", fs.Args())
		return 2
	}
	if *runs < 1 || *queue < 1 || *timeout <= 0 || budget <= 0 {
		fmt.Fprintln(stderr, "serve: --runs and --queue must be at least 1, --timeout and --store-budget positive")
		return 2
	}
	dir := *data
	if dir == "" {
		var err error
		if dir, err = defaultDataDir(); err != nil {
			fmt.Fprintf(stderr, "workbench: %v; give --data DIR\n", err)
			return 1
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			fmt.Fprintf(stderr, "workbench: %s is already in use: stop the other server or pick another port with --addr 127.0.0.1:PORT\n", *addr)
		} else {
			fmt.Fprintf(stderr, "workbench: listening on %s: %v\n", *addr, err)
		}
		return 1
	}
	srv, err := server.New(server.Options{DataDir: dir, Logger: stderr, MaxConcurrentRuns: *runs, MaxQueue: *queue,
		RunTimeout: *timeout, StoreBudget: int64(budget)})
	if err != nil {
		ln.Close()
		fmt.Fprintf(stderr, "workbench: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "PLD Workbench: http://%s/\n", ln.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "workbench: %v\n", err)
		shutdown(srv, stderr)
		return 1
	case <-ctx.Done():
	}
	stop()
	code := 0
	if !shutdown(srv, stderr) {
		code = 1
	}
	if err := <-served; err != nil {
		fmt.Fprintf(stderr, "workbench: %v\n", err)
		code = 1
	}
	return code
}

// shutdown stops the server, giving runs and connections 10 seconds.
func shutdown(srv *server.Server, stderr io.Writer) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		fmt.Fprintf(stderr, "workbench: shutting down: %v\n", err)
		return false
	}
	return true
}

// defaultDataDir is the per-user data directory of the run store.
func defaultDataDir() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "pld-workbench"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory for the run store: %v", err)
	}
	return filepath.Join(home, ".local", "share", "pld-workbench"), nil
}

// sizeFlag is a byte count written as a number with an optional binary
// unit: 1048576, 512KiB, 64MiB, 2GiB (KB, MB, GB and K, M, G mean the
// same binary units).
type sizeFlag int64

func (f *sizeFlag) String() string { return strconv.FormatInt(int64(*f), 10) }

func (f *sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*f = sizeFlag(n)
	return nil
}

// parseSize reads a sizeFlag.
func parseSize(v string) (int64, error) {
	s := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix []string
		mult   int64
	}{{[]string{"GiB", "GB", "G"}, 1 << 30}, {[]string{"MiB", "MB", "M"}, 1 << 20}, {[]string{"KiB", "KB", "K"}, 1 << 10}, {[]string{"B"}, 1}} {
		found := false
		for _, suf := range u.suffix {
			if rest, ok := strings.CutSuffix(s, suf); ok {
				s, mult, found = strings.TrimSpace(rest), u.mult, true
				break
			}
		}
		if found {
			break
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("size %q: want a number of bytes, e.g. 512MiB or 2GiB", v)
	}
	return int64(n * float64(mult)), nil
}
