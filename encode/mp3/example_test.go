package mp3_test

import (
	"bytes"
	"fmt"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/encode/mp3"
)

// Importing the package registers mp3 in encode.DefaultRegistry; a
// registry of one's own takes mp3.Codec.
func ExampleCodec() {
	r := encode.NewBuiltinRegistry()
	_, err := r.Lookup("mp3")
	fmt.Println(err)
	r.Register(mp3.Codec)

	var out bytes.Buffer
	enc, err := r.NewEncoder(&out, encode.MP3)
	if err != nil {
		panic(err)
	}
	enc.Encode(make([]int16, 24000)) // one second of silence
	enc.Close()
	fmt.Println(r.Names(), out.Bytes()[0] == 0xff)
	// Output:
	// encode: unknown format "mp3" (import github.com/voxkit/voxkit/encode/mp3 to register it)
	// [flac mp3 pcm wav] true
}
