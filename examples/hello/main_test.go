package main

import (
	"encoding/binary"
	"os"
	"testing"
)

// The program writes a 24 kHz mono wav file of about a second of speech.
func TestHello(t *testing.T) {
	t.Chdir(t.TempDir())
	main()
	b, err := os.ReadFile("hello.wav")
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 44 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		t.Fatalf("not a wav file: % x", b[:min(len(b), 12)])
	}
	rate := binary.LittleEndian.Uint32(b[24:])
	seconds := float64(binary.LittleEndian.Uint32(b[40:])) / 2 / float64(rate)
	if rate != 24000 || seconds < 0.5 || seconds > 3 {
		t.Errorf("%d Hz, %.2f s", rate, seconds)
	}
}

// A file that cannot be written is a failure, not a silent success: here
// hello.wav is a directory.
func TestHelloWriteFails(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.Mkdir("hello.wav", 0o755); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("main wrote nothing and did not fail")
		}
	}()
	main()
}
