package sqlstore

import (
	"context"
	"testing"
	"time"
)

func TestRebind(t *testing.T) {
	for _, tc := range []struct {
		numbered    bool
		query, want string
	}{
		{true, "SELECT 1", "SELECT 1"},
		{true, "SELECT a FROM t WHERE ? = '' OR b = ?", "SELECT a FROM t WHERE $1 = '' OR b = $2"},
		{true, "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", "VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"},
		{false, "SELECT a FROM t WHERE ? = '' OR b = ?", "SELECT a FROM t WHERE ? = '' OR b = ?"},
	} {
		d := Dialect{Numbered: tc.numbered}
		if got := d.rebind(tc.query); got != tc.want {
			t.Errorf("rebind(%q), numbered %v = %q, want %q", tc.query, tc.numbered, got, tc.want)
		}
	}
}

// Times go in as the dialect keeps them and come out of either form.
func TestTimes(t *testing.T) {
	at := time.UnixMilli(1_767_225_600_123)
	millis, native := Dialect{UnixMillis: true}, Dialect{}
	if got := millis.time(at); got != int64(1_767_225_600_123) {
		t.Errorf("millis.time(at) = %v", got)
	}
	if got := millis.time(time.Time{}); got != int64(0) {
		t.Errorf("millis.time(zero) = %v, want 0", got)
	}
	if got := native.time(at); got != at {
		t.Errorf("native.time(at) = %v", got)
	}
	for _, tc := range []struct {
		src  any
		want time.Time
	}{
		{nil, time.Time{}},
		{int64(0), time.Time{}},
		{int64(1_767_225_600_123), at},
		{at, at},
	} {
		got := time.Unix(1, 0) // overwritten, zero included
		if err := (timeDest{&got}).Scan(tc.src); err != nil || !got.Equal(tc.want) {
			t.Errorf("Scan(%v) = %v, %v; want %v", tc.src, got, err, tc.want)
		}
	}
	var got time.Time
	if err := (timeDest{&got}).Scan("2026-01-01"); err == nil {
		t.Error("a string was taken for a time")
	}
}

func TestNewNeedsTheDialect(t *testing.T) {
	if _, err := New(context.Background(), nil, Dialect{InsertOrder: "rowid"}, nil); err == nil {
		t.Error("a dialect without error classes was taken")
	}
}
