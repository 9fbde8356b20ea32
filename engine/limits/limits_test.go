package limits

import (
	"context"
	"testing"
	"time"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{
		"512MiB": 512 << 20, "1GiB": 1 << 30, "2G": 2 << 30, "64M": 64 << 20, "100K": 100 << 10,
		"1gb": 1 << 30, "4096": 4096, "1.5GiB": 3 << 29, " 8 MiB ": 8 << 20,
	} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1G", "0", "1T", "1e30G"} {
		if got, err := ParseBytes(in); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", in, got)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{96: "96 B", 1 << 30: "1 GiB", 8 << 30: "8 GiB", 3 << 29: "1.5 GiB", 16<<20 - 8: "16.0 MiB", 1536: "1.5 KiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestWithDefaults(t *testing.T) {
	b := Budget{Memory: 64 << 20}.WithDefaults(ServerBudget())
	if b.Memory != 64<<20 || b.Timeout != DefaultTimeout || b.Steps != DefaultSteps || b.RunSteps != DefaultRunSteps || b.MaxRanks != MaxRanks {
		t.Errorf("got %+v", b)
	}
	if c := (Budget{}).WithDefaults(CLIBudget()); c.MaxRanks != 0 || c.Memory != CLIMemory {
		t.Errorf("CLI defaults: got %+v, want no rank cap and 4 GiB", c)
	}
}

// TestMeterReserve: a reservation past the budget is refused whole and
// charges nothing; released bytes can be reserved again; Peak remembers.
func TestMeterReserve(t *testing.T) {
	m := NewMeter(context.Background(), Budget{Memory: 100})
	if !m.Reserve(60) || m.Reserve(41) || m.Held() != 60 {
		t.Fatalf("held %d after 60 ok and 41 refused", m.Held())
	}
	m.Release(50)
	if !m.Reserve(90) || m.Held() != 100 || m.Peak() != 100 || m.Left() != 0 {
		t.Errorf("held %d peak %d left %d, want 100 100 0", m.Held(), m.Peak(), m.Left())
	}
	if !m.Compile(100) || m.Compile(1) {
		t.Errorf("compile charge: want 100 within and 101 past the budget")
	}
	var none *Meter
	if !none.Reserve(1<<62) || !none.Step(1<<62) || none.Stopped() != nil {
		t.Error("a nil meter must be unlimited")
	}
}

func TestMeterSteps(t *testing.T) {
	m := NewMeter(context.Background(), Budget{Steps: 10})
	if !m.Step(10) || m.Step(1) || m.Spent() != 11 {
		t.Errorf("spent %d", m.Spent())
	}
}

func TestStartDeadline(t *testing.T) {
	m, cancel := Start(context.Background(), Budget{Timeout: 10 * time.Millisecond})
	defer cancel()
	<-m.Context().Done()
	if err := m.Stopped(); !IsTimeout(err) {
		t.Errorf("Stopped() = %v, want the deadline", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	m2, cancel2 := Start(ctx, Budget{Timeout: time.Hour})
	defer cancel2()
	stop()
	if err := m2.Stopped(); err == nil || IsTimeout(err) {
		t.Errorf("Stopped() = %v, want canceled", err)
	}
}
