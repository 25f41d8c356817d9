package testserver

import (
	"slices"
	"testing"
	"time"
)

// reportPercentiles reports the p50 and p99 of durations d in
// milliseconds, as the metrics NAME-p50-ms and NAME-p99-ms (prefix is
// "NAME-"). It sorts d.
func ReportPercentiles(b *testing.B, prefix string, d []time.Duration) {
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, prefix+"p50-ms")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, prefix+"p99-ms")
}
