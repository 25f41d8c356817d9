package onnx

// #include <malloc.h>
import "C"

// trimHeap gives the C heap's free memory back to the system. ONNX
// Runtime allocates a model's weights and its load-time copies with
// malloc; once a session is destroyed (or created, its copies freed),
// glibc keeps the freed pages mapped unless asked, so a server that loads
// and unloads voices would grow its resident memory without it.
func trimHeap() { C.malloc_trim(0) }
