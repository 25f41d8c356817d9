package upstream

import "github.com/prometheus/client_golang/prometheus"

// Collector returns the Prometheus collector of the workers: requests,
// errors, health and outstanding requests, by worker.
func (p *Pool) Collector() prometheus.Collector { return collector{p.fleet} }

type collector struct{ f *fleet }

var (
	descRequests    = prometheus.NewDesc("voxkit_upstream_requests_total", "Requests sent to an upstream worker.", []string{"worker"}, nil)
	descErrors      = prometheus.NewDesc("voxkit_upstream_errors_total", "Requests to an upstream worker that failed (connection, 5xx, broken stream).", []string{"worker"}, nil)
	descHealthy     = prometheus.NewDesc("voxkit_upstream_healthy", "Whether an upstream worker is in rotation (1) or not (0).", []string{"worker"}, nil)
	descOutstanding = prometheus.NewDesc("voxkit_upstream_outstanding", "Requests in progress on an upstream worker.", []string{"worker"}, nil)
)

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descRequests
	ch <- descErrors
	ch <- descHealthy
	ch <- descOutstanding
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	for _, w := range c.f.list() {
		healthy := 0.0
		if w.healthy.Load() {
			healthy = 1
		}
		ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, float64(w.requests.Load()), w.url)
		ch <- prometheus.MustNewConstMetric(descErrors, prometheus.CounterValue, float64(w.errors.Load()), w.url)
		ch <- prometheus.MustNewConstMetric(descHealthy, prometheus.GaugeValue, healthy, w.url)
		ch <- prometheus.MustNewConstMetric(descOutstanding, prometheus.GaugeValue, float64(w.outstanding.Load()), w.url)
	}
}
