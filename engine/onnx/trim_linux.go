package onnx

// #include <malloc.h>
import "C"

// trimHeap gives the C heap's free memory back to the system. ONNX
// Runtime allocates a model's weights and its load-time copies with
// malloc; once a session is created (its copies freed) or destroyed,
// glibc keeps the freed pages mapped unless asked: without it a loaded
// Piper medium voice held 69 to 78 MiB of resident memory, with it 62.6
// to 62.8 (its weights are 59; BenchmarkRSSPerVoice), and a server that
// loads and unloads voices would grow.
func trimHeap() { C.malloc_trim(0) }
