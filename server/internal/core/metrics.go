package core

import (
	"cmp"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/tts"
)

// metrics are the server's Prometheus collectors. A nil *metrics counts
// nothing, so the server calls it unconditionally.
type metrics struct {
	requests     *prometheus.CounterVec   // route, method, status, format
	synthesis    *prometheus.HistogramVec // format
	engine       *prometheus.HistogramVec // format
	overhead     *prometheus.HistogramVec // format
	firstByte    *prometheus.HistogramVec // format
	slotWait     prometheus.Histogram
	audio        *prometheus.CounterVec // format
	engineErrors prometheus.Counter
	inFlight     prometheus.Gauge
}

// Buckets of the latency histograms, in seconds: from half a millisecond
// (gateway overhead) to a minute (a long clip).
var latencyBuckets = []float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

func newMetrics(reg prometheus.Registerer, synth *tts.Synthesizer) (*metrics, error) {
	byFormat := func(name, help string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "voxkit", Name: name, Help: help, Buckets: latencyBuckets}, []string{"format"})
	}
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "voxkit", Name: "http_requests_total",
			Help: "HTTP requests answered, by route, method, status and audio format (\"\" when none)."},
			[]string{"route", "method", "status", "format"}),
		synthesis: byFormat("synthesis_seconds", "Time producing a speech response's audio (x-upstream-ms): engine, effects, resampling, encoding."),
		engine:    byFormat("engine_seconds", "Time inside the engines, waiting for a render slot included (x-engine-ms)."),
		overhead:  byFormat("gateway_overhead_seconds", "A speech response's time outside synthesis until its timing was known (x-gateway-ms minus x-upstream-ms)."),
		firstByte: byFormat("time_to_first_byte_seconds", "Time from a speech request's arrival to the first byte of its body."),
		slotWait: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "voxkit", Name: "slot_wait_seconds",
			Help: "Time a speech request waited for render slots that others held.", Buckets: latencyBuckets}),
		audio: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "voxkit", Name: "audio_seconds_total",
			Help: "Seconds of audio produced, by format."}, []string{"format"}),
		engineErrors: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "voxkit", Name: "engine_errors_total",
			Help: "Syntheses that failed in an engine (502 engine_error, or the same error in a stream)."}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "voxkit", Name: "requests_in_flight",
			Help: "HTTP requests being served, WebSocket sessions included."}),
	}
	busy := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "voxkit", Name: "render_slots_busy",
		Help: "Render slots (tts.Options.MaxParallel) in use."}, func() float64 { return float64(synth.Load().Busy) })
	queue := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "voxkit", Name: "render_queue_depth",
		Help: "Pieces of text waiting for a render slot."}, func() float64 { return float64(synth.Load().Waiting) })
	for _, c := range []prometheus.Collector{m.requests, m.synthesis, m.engine, m.overhead, m.firstByte, m.slotWait,
		m.audio, m.engineErrors, m.inFlight, busy, queue} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Served counts a finished HTTP request: its route, status and format,
// and for audio the time to its first byte. Speak counts the speech.
func (m *metrics) Served(r *http.Request, ri *route.Request, status int, firstByte time.Time) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(cmp.Or(ri.Route, "other"), methodLabel(r.Method), strconv.Itoa(status), ri.Format).Inc()
	if ri.Format != "" && status == http.StatusOK && !firstByte.IsZero() { // audio, not an error
		m.firstByte.WithLabelValues(ri.Format).Observe(firstByte.Sub(ri.Start).Seconds())
	}
}

// methodLabel is a request's method as a metrics label: the methods of
// RFC 9110 and PATCH as they are, any other "other", so that clients
// cannot grow the label set (each label value is a series kept forever).
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method
	}
	return "other"
}

// speech counts one finished synthesis (a request, or one utterance of a
// WebSocket session).
func (m *metrics) speech(format string, res tts.Result, gateway time.Duration) {
	if m == nil {
		return
	}
	m.synthesis.WithLabelValues(format).Observe(res.SynthesisTime.Seconds())
	m.engine.WithLabelValues(format).Observe(res.EngineTime.Seconds())
	m.overhead.WithLabelValues(format).Observe(max(0, gateway-res.SynthesisTime).Seconds())
	m.slotWait.Observe(res.SlotWait.Seconds())
	m.audio.WithLabelValues(format).Add(res.Audio.Seconds())
}

// failed counts a synthesis error that is the engine's.
func (m *metrics) failed(e *fault.Error) {
	if m != nil && e.Code == fault.CodeEngineError {
		m.engineErrors.Inc()
	}
}

// Begin counts a request in flight.
func (m *metrics) Begin() {
	if m != nil {
		m.inFlight.Inc()
	}
}

// End counts a request in flight no more.
func (m *metrics) End() {
	if m != nil {
		m.inFlight.Dec()
	}
}

// Handle serves r with next inside the middleware (route.Handle), the
// core's log and metrics its own.
func (c *Core) Handle(w http.ResponseWriter, r *http.Request, next http.Handler) {
	var obs route.Observer
	if c.metrics != nil {
		obs = c.metrics
	}
	route.Handle(w, r, next, c.Log, obs)
}
