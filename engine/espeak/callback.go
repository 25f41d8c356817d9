//go:build cgo

package espeak

/*
#include <espeak-ng/speak_lib.h>
*/
import "C"

import (
	"bytes"
	"unsafe"
)

// synthCallback receives audio from espeak_Synth. It runs on the goroutine
// that called espeak_Synth, with nativeMu held, so it may use active
// freely.
// Returning 1 asks espeak to stop.
//
//export synthCallback
func synthCallback(wav *C.short, n C.int, events *C.espeak_EVENT) C.int {
	job := active
	if job == nil {
		return 1
	}
	if job.stop() {
		return 1
	}
	for ev := events; ev != nil && ev._type != C.espeakEVENT_LIST_TERMINATED; ev = (*C.espeak_EVENT)(unsafe.Add(unsafe.Pointer(ev), unsafe.Sizeof(*ev))) {
		switch ev._type {
		case C.espeakEVENT_WORD:
			job.words = append(job.words, wordAt{Char: int(ev.text_position), MS: int(ev.audio_position)})
		case C.espeakEVENT_PHONEME:
			if job.wantPhonemes {
				name := unsafe.Slice((*byte)(unsafe.Pointer(&ev.id)), 8)
				if n := bytes.IndexByte(name, 0); n >= 0 {
					name = name[:n]
				}
				if len(name) > 0 {
					job.phonemes = append(job.phonemes, string(name))
				}
			}
		}
	}
	if wav != nil && n > 0 {
		job.pcm = append(job.pcm, unsafe.Slice((*byte)(unsafe.Pointer(wav)), 2*int(n))...)
	}
	return 0
}
