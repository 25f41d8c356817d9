package runner

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Collectors are the runner's Prometheus metrics: the segments waiting
// to be rendered, every replica's (the queue's depth, which an
// autoscaler may scale workers on), and the renderings this server
// began.
func (r *Runner) Collectors() []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "voxkit_job_segments_pending",
			Help: "Segments of long-form jobs queued or running that are not rendered yet, on every server sharing the store."},
			func() float64 {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				n, err := r.jobs.PendingSegments(ctx)
				if err != nil {
					r.log.Warn("jobs: counting pending segments", "err", err)
					return -1
				}
				return float64(n)
			}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "voxkit_job_segment_renders_total",
			Help: "Renderings of long-form jobs' segments this server began."},
			func() float64 { return float64(r.Renders()) }),
	}
}
