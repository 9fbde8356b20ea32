package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"pldworkbench/engine/limits"
	"pldworkbench/server"
)

// runServe serves the web workbench until SIGINT or SIGTERM, then shuts
// down gracefully: runs still executing are cancelled, finished ones are
// written, the store is closed.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("serve", "usage: workbench [serve] [--addr HOST:PORT] [--data DIR] [--token T] [--runs N] [--queue N] [--timeout DUR] [--mem-limit SIZE] [--store-budget SIZE] [--store-delay DUR]", stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (loopback by default; a port of 0 picks a free one)")
	token := fs.String("token", "", "access token required on every request when --addr is not loopback (default: a random one, printed in the URL)")
	data := fs.String("data", "", "data directory for the run store runs.db (default: $XDG_DATA_HOME/pld-workbench or ~/.local/share/pld-workbench)")
	runs := fs.Int("runs", limits.MaxRuns, "worker slots: runs, checks, IR, compares and step checks executing at once")
	queue := fs.Int("queue", limits.MaxQueue, "runs that may wait for a slot; a post beyond gets 503 with Retry-After")
	timeout := fs.Duration("timeout", limits.DefaultTimeout, "wall clock of one run, from when it has a slot")
	storeBudget := fs.String("store-budget", limits.Bytes(limits.StoreBudget), "size of the run store beyond which the oldest unpinned runs are evicted: 512MiB, 2GiB, ...")
	storeDelay := fs.Duration("store-delay", limits.StoreDelay, "how long a finished run's record waits to be committed with the runs that finish meanwhile; its done and share link go out before (0: after its commit)")
	memLimit := fs.String("mem-limit", limits.Bytes(limits.DefaultMemory), "memory one piece of work may make (windows × P, host tensors, tiles, events, compile-time values): 512MiB, 1GiB, 2G, ...")
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "serve takes no arguments, got %q\n", fs.Args())
		return 2
	}
	if *runs < 1 || *queue < 1 || *timeout <= 0 || *storeDelay < 0 {
		fmt.Fprintln(stderr, "serve: --runs and --queue must be at least 1, --timeout positive, --store-delay not negative")
		return 2
	}
	delay := *storeDelay
	if delay == 0 {
		delay = -1 // server.Options: negative is none, 0 the default
	}
	budget, err := limits.ParseBytes(*storeBudget)
	if err != nil {
		fmt.Fprintf(stderr, "--store-budget: %v\n", err)
		return 2
	}
	mem, err := limits.ParseBytes(*memLimit)
	if err != nil {
		fmt.Fprintf(stderr, "--mem-limit: %v\n", err)
		return 2
	}
	// Every slot may hold one piece of work's budget: freed memory goes
	// back to the system promptly above that (limits.SetSoftMemoryLimit).
	limits.SetSoftMemoryLimit(mem, *runs)
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(limits.ServeGCPercent)
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
	// On loopback the server answers only loopback Host names; beyond it,
	// other machines can reach it, so every request needs the token, as
	// Jupyter does.
	tok := ""
	if !isLoopback(ln.Addr()) {
		if tok = *token; tok == "" {
			tok = randomToken()
		}
	}
	srv, err := server.New(server.Options{DataDir: dir, Logger: stderr, Token: tok, MaxConcurrentRuns: *runs, MaxQueue: *queue,
		RunTimeout: *timeout, StoreBudget: budget, StoreDelay: delay, MemoryBudget: mem, TuneProcs: true,
		LogEvery: limits.LogEvery})
	if err != nil {
		ln.Close()
		fmt.Fprintf(stderr, "workbench: %v\n", err)
		return 1
	}
	if tok == "" {
		fmt.Fprintf(stdout, "PLD Workbench: http://%s/\n", ln.Addr())
	} else {
		fmt.Fprintf(stdout, "PLD Workbench: http://%s/?token=%s\n", ln.Addr(), tok)
		fmt.Fprintln(stdout, "  (bound beyond loopback: every request needs this token; open the URL once and the page keeps it)")
	}

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

// isLoopback reports whether a listener's address is on the loopback
// interface only (0.0.0.0 and :: are every interface, so not).
func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// randomToken makes a 128-bit access token.
func randomToken() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b)
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
