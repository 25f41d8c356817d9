package encode_test

import (
	"bytes"
	"fmt"
	"math"

	"github.com/voxkit/voxkit/encode"
)

// Encode one second of a 440 Hz tone at 24 kHz as a complete wav clip.
func ExampleNewEncoder() {
	tone := make([]int16, 24000)
	for i := range tone {
		tone[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/24000))
	}
	var buf bytes.Buffer
	e, err := encode.NewEncoder(&buf, encode.Format{Name: "wav", SampleRate: 24000})
	if err != nil {
		panic(err)
	}
	if err := e.Encode(tone); err != nil {
		panic(err)
	}
	if err := e.Close(); err != nil {
		panic(err)
	}
	codec, _ := encode.Lookup("wav")
	fmt.Println(codec.ContentType, buf.Len(), "bytes:", buf.Len()-2*len(tone), "of header")
	fmt.Printf("%s %q\n", buf.Bytes()[:4], buf.Bytes()[8:12])
	// Output:
	// audio/wav 48044 bytes: 44 of header
	// RIFF "WAVE"
}

// Formats the built-in registry knows, and what one refuses.
func ExampleRegistry_Check() {
	fmt.Println(encode.DefaultRegistry.Names())
	fmt.Println(encode.DefaultRegistry.Check(encode.Format{Name: "opus", SampleRate: 44100}))
	fmt.Println(encode.DefaultRegistry.Check(encode.Format{Name: "opus", SampleRate: 32000}))
	// Output:
	// [flac mp3 opus pcm wav]
	// <nil>
	// encode: unsupported sample rate: opus takes [8000 12000 16000 22050 24000 44100 48000] Hz, not 32000
}
