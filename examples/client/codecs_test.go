package main

// These tests use every format: register the cgo codecs.
import (
	_ "github.com/voxkit/voxkit/encode/mp3"
	_ "github.com/voxkit/voxkit/encode/opus"
)
