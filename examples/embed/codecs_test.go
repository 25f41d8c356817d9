package main

// These tests serve every format: register the cgo codecs, as
// examples/server does.
import (
	_ "github.com/voxkit/voxkit/encode/mp3"
	_ "github.com/voxkit/voxkit/encode/opus"
)
