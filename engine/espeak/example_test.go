//go:build cgo

package espeak_test

import (
	"context"
	"fmt"

	"github.com/voxkit/voxkit/engine"
	"github.com/voxkit/voxkit/engine/espeak"
)

func Example() {
	e, err := espeak.New(espeak.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	ctx := context.Background()

	ph, _ := e.Phonemize(ctx, "en-us", "Hello, world!")
	fmt.Println(ph)

	sentences := 0
	err = e.Synthesize(ctx, engine.Request{Voice: "en-gb", Text: "Good morning. How are you?"}, func(c engine.Chunk) error {
		sentences++
		fmt.Println("sample rate", c.SampleRate)
		return nil
	})
	fmt.Println(sentences, "sentences, error:", err)
	// Output:
	// [həlˈoʊ, wˈɜːld!]
	// sample rate 22050
	// sample rate 22050
	// 2 sentences, error: <nil>
}
