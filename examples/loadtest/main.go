// Command loadtest drives a running voxkit server with concurrent speech
// requests and reports latency, pcm time to first byte, errors by status
// and the gateway overhead (x-gateway-ms − x-upstream-ms) distribution, and
// beside it x-gateway-ms − x-engine-ms (everything but inference).
//
//	loadtest -url http://127.0.0.1:8080 -key sk_... -c 16 -d 60s
//
// The key may also come from $VOXKIT_API_KEY or $OPENAI_API_KEY. Each
// client sends requests back to back, cycling through -formats and the
// built-in sentences (or -input).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return // -h printed the usage: not a failure, as with flag.ExitOnError
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

var sentences = []string{
	"Hello there.",
	"The quick brown fox jumps over the lazy dog.",
	"Please leave a message after the tone.",
	"Your order has shipped and will arrive on Tuesday.",
	"Turn left in two hundred meters.",
	"It is twenty degrees and sunny today.",
}

type config struct {
	url, key, voice string
	formats         []string
	inputs          []string
	clients         int
	duration        time.Duration
	timeout         time.Duration
}

// sample is the outcome of one request.
type sample struct {
	format   string
	status   int // 0 for a transport error
	latency  time.Duration
	ttfb     time.Duration
	upstream float64 // ms, -1 if missing
	engine   float64 // ms (x-engine-ms, inference alone), -1 if missing
	gateway  float64 // ms, -1 if missing
	err      string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	var formats, input string
	fs.StringVar(&c.url, "url", "http://127.0.0.1:8080", "server base address")
	fs.StringVar(&c.key, "key", firstEnv("VOXKIT_API_KEY", "OPENAI_API_KEY"), "API key ($VOXKIT_API_KEY or $OPENAI_API_KEY)")
	fs.StringVar(&c.voice, "voice", "alloy", "voice id or alias")
	fs.StringVar(&formats, "formats", "pcm,wav,mp3,opus,flac", "response formats to cycle through, comma-separated")
	fs.StringVar(&input, "input", "", "text of every request (default: a cycle of short sentences)")
	fs.IntVar(&c.clients, "c", 16, "concurrent clients")
	fs.DurationVar(&c.duration, "d", 60*time.Second, "test duration")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "per-request timeout")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.key == "" {
		return errors.New("no API key: pass -key or set $VOXKIT_API_KEY")
	}
	c.formats = strings.Split(formats, ",")
	c.inputs = sentences
	if input != "" {
		c.inputs = []string{input}
	}
	fmt.Fprintf(stdout, "loadtest: %d clients for %v against %s, voice %s, formats %v\n",
		c.clients, c.duration, c.url, c.voice, c.formats)
	before := loadavg()
	samples, elapsed := load(ctx, c)
	report(stdout, samples, elapsed)
	if before != "" {
		fmt.Fprintf(stdout, "host load average (1/5/15 min): %s before, %s after\n", before, loadavg())
	}
	return nil
}

// loadavg returns the host's load averages, "" where /proc has none: on
// a shared machine they say how much the figures above owe to others.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

func load(ctx context.Context, c config) ([]sample, time.Duration) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c.clients, MaxConnsPerHost: c.clients}}
	ctx, cancel := context.WithTimeout(ctx, c.duration)
	defer cancel()
	var mu sync.Mutex
	var all []sample
	var wg sync.WaitGroup
	start := time.Now()
	for id := range c.clients {
		wg.Go(func() {
			var mine []sample
			for n := id; ctx.Err() == nil; n += c.clients {
				s := one(ctx, client, c, c.formats[n%len(c.formats)], c.inputs[n%len(c.inputs)], c.timeout)
				if ctx.Err() != nil && s.status == 0 {
					break // cut off by the end of the test, not a failure
				}
				mine = append(mine, s)
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return all, time.Since(start)
}

func one(ctx context.Context, client *http.Client, c config, format, input string, timeout time.Duration) sample {
	s := sample{format: format, upstream: -1, engine: -1, gateway: -1}
	body, _ := json.Marshal(map[string]any{"model": "tts-1", "voice": c.voice, "input": input, "response_format": format})
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, strings.TrimRight(c.url, "/")+"/v1/audio/speech", bytes.NewReader(body))
	if err != nil {
		s.err = err.Error()
		return s
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	res, err := client.Do(req)
	if err != nil {
		s.err = err.Error()
		return s
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		// An API error: note its type, so a report tells a clean
		// proxy_error from anything else.
		var e struct {
			Error struct{ Type, Code string } `json:"error"`
		}
		json.NewDecoder(io.LimitReader(res.Body, 1<<16)).Decode(&e)
		s.status, s.err, s.latency = res.StatusCode, e.Error.Type, time.Since(start)
		return s
	}
	var first [1]byte
	n, err := io.ReadFull(res.Body, first[:])
	if n == 1 {
		s.ttfb = time.Since(start)
	}
	if err == nil {
		_, err = io.Copy(io.Discard, res.Body)
	}
	s.latency = time.Since(start)
	s.status = res.StatusCode
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.ErrUnexpectedEOF) && n == 1 {
		s.status, s.err = 0, "body: "+err.Error()
		return s
	}
	for _, h := range []http.Header{res.Header, res.Trailer} {
		if v, err := strconv.ParseFloat(h.Get("x-upstream-ms"), 64); err == nil {
			s.upstream = v
		}
		if v, err := strconv.ParseFloat(h.Get("x-gateway-ms"), 64); err == nil {
			s.gateway = v
		}
		if v, err := strconv.ParseFloat(h.Get("x-engine-ms"), 64); err == nil {
			s.engine = v
		}
	}
	return s
}

// quantiles returns p50, p95, p99 and max of xs (which it sorts).
func quantiles(xs []float64) [4]float64 {
	if len(xs) == 0 {
		return [4]float64{}
	}
	sort.Float64s(xs)
	q := func(p float64) float64 { return xs[min(len(xs)-1, int(p*float64(len(xs))))] }
	return [4]float64{q(0.50), q(0.95), q(0.99), xs[len(xs)-1]}
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func report(w io.Writer, samples []sample, elapsed time.Duration) {
	var ok int
	errs := map[string]int{}
	var lat, ttfb, over, up, gw, eng, overEngine []float64
	perFormat := map[string][]float64{}
	overPerFormat := map[string][]float64{}
	for _, s := range samples {
		if s.status != http.StatusOK {
			key := strconv.Itoa(s.status)
			switch {
			case s.status == 0:
				key = "transport"
			case s.err != "":
				key += " " + s.err // the error's type
			}
			errs[key]++
			continue
		}
		ok++
		lat = append(lat, msOf(s.latency))
		perFormat[s.format] = append(perFormat[s.format], msOf(s.latency))
		if s.format == "pcm" {
			ttfb = append(ttfb, msOf(s.ttfb))
		}
		if s.engine >= 0 && s.gateway >= 0 {
			eng = append(eng, s.engine)
			overEngine = append(overEngine, s.gateway-s.engine)
		}
		if s.upstream >= 0 && s.gateway >= 0 {
			over = append(over, s.gateway-s.upstream)
			overPerFormat[s.format] = append(overPerFormat[s.format], s.gateway-s.upstream)
			up = append(up, s.upstream)
			gw = append(gw, s.gateway)
		} else {
			errs["missing timing headers"]++
		}
	}
	fmt.Fprintf(w, "requests: %d ok in %v (%.1f/s)\n", ok, elapsed.Round(time.Millisecond), float64(ok)/elapsed.Seconds())
	line := func(name string, xs []float64) {
		if len(xs) == 0 {
			return
		}
		q := quantiles(xs)
		fmt.Fprintf(w, "%-28s p50 %8.3f  p95 %8.3f  p99 %8.3f  max %8.3f ms  (n=%d)\n", name, q[0], q[1], q[2], q[3], len(xs))
	}
	line("latency", lat)
	formats := make([]string, 0, len(perFormat))
	for f := range perFormat {
		formats = append(formats, f)
	}
	slices.Sort(formats)
	for _, f := range formats {
		line("latency "+f, perFormat[f])
	}
	line("pcm time to first byte", ttfb)
	line("x-upstream-ms", up)
	line("x-engine-ms", eng)
	line("x-gateway-ms", gw)
	line("gateway overhead", over)
	for _, f := range formats {
		line("gateway overhead "+f, overPerFormat[f])
	}
	line("gateway - engine", overEngine)
	if len(errs) == 0 {
		fmt.Fprintln(w, "errors: none")
		return
	}
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Fprint(w, "errors:")
	for _, k := range keys {
		fmt.Fprintf(w, " %s×%d", k, errs[k])
	}
	fmt.Fprintln(w)
}
