package id3_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/voxkit/voxkit/internal/codec/id3"
)

func ExampleEncode() {
	var file bytes.Buffer
	err := id3.Encode(&file, id3.Tag{Title: "The Lighthouse", Chapters: []id3.Chapter{
		{Title: "Chapter 1", Start: 0, End: 95 * time.Second},
		{Title: "Chapter 2", Start: 95 * time.Second, End: 190 * time.Second},
	}})
	if err != nil {
		panic(err)
	}
	// ... then the mp3 stream itself.
	fmt.Printf("%q, %d bytes\n", file.Bytes()[:5], file.Len())
	// Output:
	// "ID3\x03\x00", 163 bytes
}
