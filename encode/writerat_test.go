package encode_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/internal/testkit/audiotest"
)

// TestFileNotAtStart: a complete clip written to an *os.File it cannot
// write through to (a pipe such as a program's piped standard output, a
// file opened to append, one already holding bytes before the clip) is the
// same clip as one written to a plain writer, where the header's rewrite at
// offset 0 failed ("illegal seek", "invalid use of WriteAt on file opened
// with O_APPEND") or overwrote what came before the clip.
func TestFileNotAtStart(t *testing.T) {
	samples := make([]int16, 24000)
	for i := range samples {
		samples[i] = int16((i * 37) % 2000)
	}
	for _, name := range []string{"wav", "flac", "mp3"} {
		f := encode.Format{Name: name}
		want := encodeAll(t, f, samples, nil)
		opens := map[string]func(path string) (*os.File, error){
			"append": func(path string) (*os.File, error) {
				return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			},
			"after a prefix": func(path string) (*os.File, error) {
				file, err := os.Create(path)
				if err == nil {
					_, err = file.WriteString("PREFIX")
				}
				return file, err
			},
		}
		for how, open := range opens {
			t.Run(name+"/"+how, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "clip")
				file, err := open(path)
				if err != nil {
					t.Fatal(err)
				}
				if err := encodeTo(file, f, samples); err != nil {
					t.Fatalf("encoding to a file opened to %s: %v", how, err)
				}
				file.Close()
				got, _ := os.ReadFile(path)
				got = bytes.TrimPrefix(got, []byte("PREFIX"))
				if !bytes.Equal(got, want) {
					t.Errorf("a file opened to %s holds %d bytes (%.8q), not the %d bytes of the clip (%.8q)", how, len(got), got, len(want), want)
				}
			})
		}
		t.Run(name+"/pipe", func(t *testing.T) {
			got, err := audiotest.ThroughPipe(func(w *os.File) error { return encodeTo(w, f, samples) })
			if err != nil {
				t.Fatalf("encoding to a pipe: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("the pipe got %d bytes, not the %d bytes of the clip", len(got), len(want))
			}
		})
	}
}

func encodeTo(w io.Writer, f encode.Format, samples []int16) error {
	e, err := encode.NewEncoder(w, f)
	if err != nil {
		return err
	}
	if err := e.Encode(samples); err != nil {
		e.Close()
		return err
	}
	return e.Close()
}

// TestCloseTwice: a second Close (a deferred one after an explicit one, say)
// writes nothing more, and Encode after Close fails, for every format,
// streamed and whole, as flac, mp3 and opus did: a complete wav got its
// header written again at its end, and wav and pcm took samples after Close.
func TestCloseTwice(t *testing.T) {
	samples := make([]int16, 4800)
	for i := range samples {
		samples[i] = int16(i % 700)
	}
	for _, name := range encode.DefaultRegistry.Names() {
		for _, streaming := range []bool{false, true} {
			f := encode.Format{Name: name, Streaming: streaming}
			t.Run(fmt.Sprintf("%s/streaming=%v", name, streaming), func(t *testing.T) {
				var b bytes.Buffer
				e, err := encode.NewEncoder(&b, f)
				if err != nil {
					t.Fatal(err)
				}
				if err := e.Encode(samples); err != nil {
					t.Fatal(err)
				}
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
				n := b.Len()
				e.Close() // its error says it was closed: either way, no harm
				if b.Len() != n {
					t.Errorf("the second Close wrote %d bytes more", b.Len()-n)
				}
				if err := e.Encode(samples); err == nil {
					t.Error("Encode after Close succeeded")
				}
				if b.Len() != n {
					t.Errorf("Encode after Close wrote %d bytes", b.Len()-n)
				}
			})
		}
	}
}
