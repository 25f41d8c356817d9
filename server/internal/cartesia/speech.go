package cartesia

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/align"
	"github.com/voxkit/voxkit/server/internal/cartesia/api"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/normalize"
)

// body reads and checks the body of /tts/bytes or /tts/sse. Whether the
// transcript has anything to say is tts's to tell (tts.ErrEmptyInput),
// as Speak prepares it.
func (d door) body(w http.ResponseWriter, r *http.Request, account string, containers ...string) (core.Job, api.Generation, core.Output, *api.Error) {
	var g api.Generation
	if e := d.decode(w, r, &g); e != nil {
		return core.Job{}, g, core.Output{}, e
	}
	if g.Transcript == nil {
		return core.Job{}, g, core.Output{}, api.BadRequest(fault.CodeMissingParameter, "transcript is required and may not be empty.")
	}
	f, e := output(g.OutputFormat, containers...)
	if e != nil {
		return core.Job{}, g, f, e
	}
	j, ignored, e := d.toJob(account, g, f)
	if e != nil {
		return j, g, f, e
	}
	if len(ignored) > 0 {
		w.Header().Set("X-Voxkit-Ignored", strings.Join(ignored, ", "))
	}
	return j, g, f, nil
}

// decode reads the JSON body of r into v.
func (d door) decode(w http.ResponseWriter, r *http.Request, v any) *api.Error {
	body, werr := d.c.Body.ReadBody(w, r)
	if werr != nil {
		return api.FromFault(werr)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return api.BadRequest(fault.CodeInvalidJSON, "The body is not the JSON this endpoint takes: %s", fault.JSONFault(err))
	}
	return nil
}

// bytes answers POST /tts/bytes: the audio, streamed as it is
// synthesized.
func (d door) bytes(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	j, _, f, e := d.body(w, r, account, "raw", "wav", "mp3")
	if e != nil {
		return e
	}
	var contentType string
	lw := d.c.Speech.Lazy(w, func() { w.Header().Set("Content-Type", contentType) })
	j.Out = lw
	return api.FromFault(d.c.Speech.SpeakHTTP(r, j, nil, func(p *tts.Prepared, codec encode.Codec) (tts.Result, error) {
		contentType = cmp.Or(f.ContentType, codec.ContentType)
		res, err := p.Stream(r.Context(), f.Writer(lw))
		if err == nil {
			lw.Start() // no audio at all: still an answer
		}
		return res, err
	}))
}

// events writes the events of /tts/sse, each with the request's
// context_id, through a writer that gives each its write deadline. The
// first write that fails ends the stream: the audio writer then fails
// too, which stops the synthesis.
type events struct {
	lw      *respond.Lazy
	context string
	audio   core.Buffer // of the sentence being synthesized
	err     error
}

func (ev *events) send(m map[string]any) {
	if ev.err != nil {
		return
	}
	if ev.context != "" {
		m["context_id"] = ev.context
	}
	data, _ := json.Marshal(m)
	if _, ev.err = fmt.Fprintf(ev.lw, "event: %s\ndata: %s\n\n", m["type"], data); ev.err == nil {
		ev.err = ev.lw.Flush()
	}
}

// chunk sends audio as a chunk event.
func (ev *events) chunk(audio []byte, stepTime float64) {
	ev.send(map[string]any{"type": "chunk", "data": base64.StdEncoding.EncodeToString(audio), "done": false,
		"status_code": 206, "step_time": stepTime})
}

// Write takes audio for the next chunk.
func (ev *events) Write(p []byte) (int, error) {
	if ev.err != nil {
		return 0, ev.err
	}
	return ev.audio.Write(p)
}

// sse answers POST /tts/sse: chunk events as sentences are synthesized,
// timestamps events when asked, then done.
func (d door) sse(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	j, g, f, e := d.body(w, r, account, "raw")
	if e != nil {
		return e
	}
	ri := route.Info(r.Context())
	ev := &events{context: g.Context, lw: d.c.Speech.Lazy(w, func() {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
	})}
	words := newWords(g.UseNormalizedTimestamps, d.c.Speech.Normalizer(j.Request))
	words.write(j.Request.Input)
	last := time.Now()
	j.Request.OnSentence = func(s tts.SentenceDone) {
		ev.chunk(ev.audio.Take(), float64(time.Since(last).Microseconds())/1000)
		last = time.Now()
		if g.AddTimestamps {
			ev.send(map[string]any{"type": "timestamps", "done": false, "status_code": 206, "word_timestamps": words.sentence(s)})
		}
	}
	late := func(werr *fault.Error) { ev.send(api.FromFault(werr).Event("", ri.ID)) } // the stream has begun: the error is its last event
	j.Out = ev.lw
	return api.FromFault(d.c.Speech.SpeakHTTP(r, j, late, func(p *tts.Prepared, _ encode.Codec) (tts.Result, error) {
		res, err := p.Stream(r.Context(), f.Writer(ev))
		if err != nil {
			return res, err
		}
		if rest := ev.audio.Take(); len(rest) > 0 {
			ev.chunk(rest, 0)
		}
		ev.send(map[string]any{"type": "done", "done": true, "status_code": 200})
		return res, nil
	}))
}

// words makes Cartesia's word timestamps, sentence by sentence: the
// words as written, or (normalized) the words of the normalized text.
type words struct {
	normalized bool
	aligner    align.Aligner // the input so far; used for normalized words
}

// newWords returns the word timestamps of a speech read with normalize
// (core.Normalizer).
func newWords(normalized bool, normalize func(string) (normalize.Text, bool)) *words {
	return &words{normalized: normalized, aligner: align.Aligner{Normalize: normalize}}
}

// write adds text of the input, which normalized words are aligned on.
func (w *words) write(text string) {
	if w.normalized {
		w.aligner.Write(text)
	}
}

// sentence is the word_timestamps of the sentence s.
func (w *words) sentence(s tts.SentenceDone) map[string]any {
	list, start, end := []string{}, []float64{}, []float64{}
	if w.normalized {
		_, na := w.aligner.Sentence(s.Words, false)
		word := -1 // the index of the word being read, -1 between words
		for i, ch := range na.Chars {
			if strings.TrimSpace(ch) == "" {
				word = -1
				continue
			}
			if word < 0 {
				list, start, end = append(list, ""), append(start, na.Start[i]), append(end, na.End[i])
				word = len(list) - 1
			}
			list[word] += ch
			end[word] = na.End[i]
		}
		// As the words as written: without their punctuation, and none
		// that is punctuation alone.
		kept := 0
		for i, wd := range list {
			if wd = strings.TrimFunc(wd, unicode.IsPunct); wd != "" {
				list[kept], start[kept], end[kept] = wd, start[i], end[i]
				kept++
			}
		}
		list, start, end = list[:kept], start[:kept], end[:kept]
	} else {
		for _, wd := range s.Words {
			list, start, end = append(list, wd.Word), append(start, wd.Start.Seconds()), append(end, wd.End.Seconds())
		}
	}
	return map[string]any{"words": list, "start": align.RoundMS(start), "end": align.RoundMS(end)}
}
