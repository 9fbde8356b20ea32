package server

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// TestShutdownWithSilentConnection opens a connection that never sends a
// request (what a browser's preconnect does) and one that made a request
// and stays open for keep-alive: Shutdown must still finish cleanly,
// well within its context, rather than wait for the read timeout.
func TestShutdownWithSilentConnection(t *testing.T) {
	ts := start(t, "")
	addr := strings.TrimPrefix(ts.url, "http://")
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	kept, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	if _, err := kept.Write([]byte("GET /api/steps HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if _, err := kept.Read(buf); err != nil || !strings.HasPrefix(string(buf), "HTTP/1.1 200") {
		t.Fatalf("keep-alive request: %q, %v", buf, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ts.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with a silent connection open: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("Shutdown used up its whole context")
	}
	// Both connections were closed by the server.
	_ = silent.SetReadDeadline(time.Now().Add(2 * time.Second))
	if n, err := silent.Read(buf); err == nil {
		t.Errorf("the silent connection is still open (read %d bytes)", n)
	}
}
