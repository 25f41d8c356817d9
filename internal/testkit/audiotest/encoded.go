package audiotest

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/voxkit/voxkit/encode"
)

// Encoded is samples encoded in the format f by package encode, whole.
func Encoded(t testing.TB, f encode.Format, samples []int16) []byte {
	t.Helper()
	var b bytes.Buffer
	enc, err := encode.NewEncoder(&b, f)
	if err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(samples); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// ThroughPipe runs write on the writing end of a pipe, as a program's
// standard output piped on is (an *os.File that cannot seek), and returns
// what came out of the other end and write's error.
func ThroughPipe(write func(w *os.File) error) ([]byte, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	read := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		read <- b
	}()
	err = write(w)
	w.Close()
	got := <-read
	r.Close()
	return got, err
}
