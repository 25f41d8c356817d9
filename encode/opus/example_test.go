package opus_test

import (
	"bytes"
	"fmt"

	"github.com/voxkit/voxkit/encode"
	_ "github.com/voxkit/voxkit/encode/opus"
)

// Importing the package registers opus in encode.DefaultRegistry.
func Example() {
	var out bytes.Buffer
	enc, err := encode.NewEncoder(&out, encode.Opus)
	if err != nil {
		panic(err)
	}
	enc.Encode(make([]int16, 24000)) // one second of silence
	enc.Close()
	fmt.Println(string(out.Bytes()[:4]), string(out.Bytes()[28:36]))
	// Output: OggS OpusHead
}
