package main

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/voxkit/voxkit/engine/onnx"
)

// voiceLoadBuckets are the buckets of voxkit_voice_load_seconds, the onnx
// engine's model loads (onnx.Options.OnLoad): a cold Piper medium voice
// takes 0.3 to 1 s.
var voiceLoadBuckets = []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

func newVoiceLoadSeconds() prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "voxkit", Name: "voice_load_seconds",
		Help: "Time each load of a voice's model took (its first use, or its first use since it was unloaded).", Buckets: voiceLoadBuckets})
}

// observeLoad is the onnx engine's OnLoad: it times the load in h.
func observeLoad(h prometheus.Histogram) func(string, time.Duration) {
	return func(_ string, took time.Duration) { h.Observe(took.Seconds()) }
}

// voiceCollectors are the metrics of the onnx engine's loaded voices,
// beside the load histogram.
func voiceCollectors(piper *onnx.Engine, loadSeconds prometheus.Histogram) []prometheus.Collector {
	stat := func(f func(onnx.Residency) float64) func() float64 {
		return func() float64 { return f(piper.Residency()) }
	}
	gauge := func(name, help string, f func(onnx.Residency) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "voxkit", Name: name, Help: help}, stat(f))
	}
	counter := func(name, help string, f func(onnx.Residency) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "voxkit", Name: name, Help: help}, stat(f))
	}
	return []prometheus.Collector{
		loadSeconds,
		counter("voice_loads_total", "Voice models loaded (sessions created) on first use.", func(r onnx.Residency) float64 { return float64(r.Loads) }),
		counter("voice_load_errors_total", "Voice model loads that failed.", func(r onnx.Residency) float64 { return float64(r.LoadErrors) }),
		counter("voice_evictions_total", "Voice models unloaded to stay within -voice-memory.", func(r onnx.Residency) float64 { return float64(r.Evictions) }),
		gauge("voices_loaded", "Voice models loaded now (a multi-speaker or Kokoro model counts once).", func(r onnx.Residency) float64 { return float64(r.Models) }),
		gauge("voice_loaded_bytes", "Bytes of the model files loaded now, what -voice-memory bounds.", func(r onnx.Residency) float64 { return float64(r.Bytes) }),
		gauge("voice_memory_budget_bytes", "-voice-memory (0: no bound).", func(r onnx.Residency) float64 { return float64(r.Budget) }),
	}
}
