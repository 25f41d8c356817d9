package wyoming

import (
	"bufio"
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, "audio-chunk", map[string]any{"rate": 24000, "width": 2, "channels": 1, "timestamp": nil}, []byte{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if err := Write(&buf, "describe", nil, nil); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(&buf)
	e, err := Read(r)
	if err != nil || e.Type != "audio-chunk" || string(e.Data["rate"]) != "24000" || !bytes.Equal(e.Payload, []byte{1, 2, 3, 4}) {
		t.Fatalf("%+v %v", e, err)
	}
	if e, err := Read(r); err != nil || e.Type != "describe" || len(e.Payload) != 0 {
		t.Fatalf("%+v %v", e, err)
	}
}

// TestReadsWhatClientsWrite: data inline and as data_length merged over
// it, null fields, a version, no trailing data.
func TestReadsWhatClientsWrite(t *testing.T) {
	data := `{"text": "Hello.", "voice": {"name": "x"}}`
	in := `{"type": "synthesize", "data": {"text": "old", "voice": null}, "data_length": ` + strconv.Itoa(len(data)) +
		`, "payload_length": null, "version": "1.9.0"}` + "\n" + data + `{"type": "describe"}` + "\n"
	r := bufio.NewReader(strings.NewReader(in))
	e, err := Read(r)
	if err != nil {
		t.Fatal(err)
	}
	var voice struct{ Name string }
	if e.String("text") != "Hello." || e.Object("voice", &voice) != nil || voice.Name != "x" {
		t.Errorf("merged data: %+v", e)
	}
	if e, err := Read(r); err != nil || e.Type != "describe" {
		t.Errorf("next: %+v %v", e, err)
	}
}

func TestLimits(t *testing.T) {
	for name, in := range map[string]string{
		"long header":  `{"type":"x","pad":"` + strings.Repeat("a", MaxHeader) + `"}` + "\n",
		"huge data":    `{"type":"x","data_length":99999999}` + "\n",
		"huge payload": `{"type":"x","payload_length":99999999}` + "\n",
	} {
		if _, err := Read(bufio.NewReader(strings.NewReader(in))); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %v, want ErrTooLarge", name, err)
		}
	}
	for name, in := range map[string]string{
		"not json":      "hello\n",
		"no type":       `{"data":{}}` + "\n",
		"short data":    `{"type":"x","data_length":10}` + "\n{}",
		"short payload": `{"type":"x","payload_length":10}` + "\nabc",
		"cut header":    `{"type":"x"`,
	} {
		if _, err := Read(bufio.NewReader(strings.NewReader(in))); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestReadSkippingPayload: the payload is read past, not kept, and the
// next event is read; its limit still holds.
func TestReadSkippingPayload(t *testing.T) {
	var buf bytes.Buffer
	Write(&buf, "audio-chunk", map[string]any{"rate": 16000}, bytes.Repeat([]byte{7}, 100000))
	Write(&buf, "describe", nil, nil)
	r := bufio.NewReader(&buf)
	e, err := ReadSkippingPayload(r)
	if err != nil || e.Type != "audio-chunk" || e.Payload != nil || string(e.Data["rate"]) != "16000" {
		t.Fatalf("%+v %v", e, err)
	}
	if e, err := ReadSkippingPayload(r); err != nil || e.Type != "describe" {
		t.Fatalf("next: %+v %v", e, err)
	}
	for name, in := range map[string]string{
		"huge":  `{"type":"x","payload_length":99999999}` + "\n",
		"short": `{"type":"x","payload_length":10}` + "\nabc",
	} {
		if _, err := ReadSkippingPayload(bufio.NewReader(strings.NewReader(in))); err == nil || name == "huge" && !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestMalformed: an event that is not one is ErrMalformed, whose text
// speaks of the protocol, not of Go.
func TestMalformed(t *testing.T) {
	for name, in := range map[string]string{
		"not json":      "hello\n",
		"no type":       `{"data":{}}` + "\n",
		"type a number": `{"type":5}` + "\n",
		"not an object": `[1]` + "\n",
		"data a list":   `{"type":"x","data":[1]}` + "\n",
		"bad data":      `{"type":"x","data_length":3}` + "\n[1]",
	} {
		_, err := Read(bufio.NewReader(strings.NewReader(in)))
		if !errors.Is(err, ErrMalformed) || strings.Contains(err.Error(), "Go ") || strings.Contains(err.Error(), "json:") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestClip(t *testing.T) {
	for in, want := range map[string]string{
		"short":                              "short",
		strings.Repeat("a", MaxEcho):         strings.Repeat("a", MaxEcho),
		strings.Repeat("a", MaxEcho+1):       strings.Repeat("a", MaxEcho) + "…",
		strings.Repeat("a", MaxEcho-1) + "é": strings.Repeat("a", MaxEcho-1) + "…",
	} {
		if got := Clip(in); got != want {
			t.Errorf("Clip(%q) = %q, want %q", in, got, want)
		}
	}
}
