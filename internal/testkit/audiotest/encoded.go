package audiotest

import (
	"bytes"
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
