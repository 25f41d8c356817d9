package tts_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/engine/espeak"
	"github.com/voxkit/voxkit/tts"
	"github.com/voxkit/voxkit/tts/espeaktts"
)

// A complete clip goes to a new file as it is made: the header, which
// holds the clip's length, is rewritten at the end. A file that is not new
// (a pipe, one opened to append) gets the clip whole at the end instead.
func ExampleSynthesizer_WriteClip() {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer synth.Close()
	dir, err := os.MkdirTemp("", "voxkit")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "hello.wav")
	f, err := os.Create(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	req := tts.Request{Voice: "en-gb", Input: "Hello from a file.", Format: encode.Format{Name: "wav", SampleRate: 16000}}
	res, err := synth.WriteClip(context.Background(), f, req)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path) // what was written is not a whole clip
		fmt.Println(err)
		return
	}
	clip, _ := os.ReadFile(path)
	fmt.Println(string(clip[:4]), binary.LittleEndian.Uint32(clip[24:]), "Hz")
	fmt.Println("header's data size matches:", int(binary.LittleEndian.Uint32(clip[40:])) == 2*res.Samples)
	// Output:
	// RIFF 16000 Hz
	// header's data size matches: true
}

// Stream answers an HTTP request with audio that starts as soon as its
// first sentence is made: the format's streaming form, flushed sentence by
// sentence. Errors of the request come back before anything is written.
func ExampleSynthesizer_Stream() {
	synth, err := espeaktts.New(espeak.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer synth.Close()
	handler := func(w http.ResponseWriter, r *http.Request) {
		req := tts.Request{Voice: r.FormValue("voice"), Input: r.FormValue("text"),
			Format: encode.Format{Name: "wav", Streaming: true}}
		p, err := synth.Prepare(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		codec, _ := synth.Codec(req.Format)
		w.Header().Set("Content-Type", codec.ContentType)
		if _, err := p.Stream(r.Context(), w); err != nil {
			panic(http.ErrAbortHandler) // the client sees a cut, not a short success
		}
	}
	for _, query := range []string{"voice=en-us&text=Hi.+Bye.", "voice=xx&text=Hi."} {
		rec := httptest.NewRecorder()
		handler(rec, httptest.NewRequest("GET", "/speak?"+query, nil))
		body := rec.Body.String()
		fmt.Println(rec.Code, rec.Header().Get("Content-Type"), body[:min(4, len(body))], rec.Flushed)
	}
	// Output:
	// 200 audio/wav RIFF true
	// 400 text/plain; charset=utf-8 tts: false
}
