package onnx

// #cgo LDFLAGS: -ldl
// #include <dlfcn.h>
// #include <stdint.h>
// #include <stdlib.h>
// #include <string.h>
//
// // ORT's C API is a table of function pointers whose order never
// // changes (new entries go at the end); these are the indexes of the
// // entries used here, in the table of API version 24.
// enum { vkGetErrorMessage = 2, vkReleaseStatus = 93, vkAddRunConfigEntry = 165 };
//
// typedef struct { void *(*get_api)(uint32_t); const char *(*version)(void); } vkApiBase;
// static void **vk_api;
//
// // vk_init finds the API table of the ONNX Runtime library at path,
// // which must be loaded already; 0 when it cannot.
// static int vk_init(const char *path) {
// 	void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
// 	if (!h) return 0;
// 	vkApiBase *(*base)(void) = (vkApiBase *(*)(void))dlsym(h, "OrtGetApiBase");
// 	if (base) vk_api = (void **)base()->get_api(24);
// 	dlclose(h);
// 	return vk_api != NULL;
// }
//
// // vk_add_run_config sets key to value on run options; NULL or the
// // error message (to free).
// static char *vk_add_run_config(void *opts, const char *key, const char *value) {
// 	void *(*add)(void *, const char *, const char *) = (void *(*)(void *, const char *, const char *))vk_api[vkAddRunConfigEntry];
// 	void *st = add(opts, key, value);
// 	if (!st) return NULL;
// 	const char *(*msg)(void *) = (const char *(*)(void *))vk_api[vkGetErrorMessage];
// 	char *out = strdup(msg(st));
// 	((void (*)(void *))vk_api[vkReleaseStatus])(st);
// 	return out;
// }
import "C"

import (
	"errors"
	"sync"
	"unsafe"

	ort "github.com/yalue/onnxruntime_go"
)

var runConfigAPI struct {
	once sync.Once
	ok   bool
}

// addRunConfig sets a config entry of ONNX Runtime run options, which
// the Go binding does not offer: it calls the C API's AddRunConfigEntry
// on the options' handle.
func addRunConfig(o *ort.RunOptions, key, value string) error {
	runConfigAPI.once.Do(func() {
		runtimeEnv.mu.Lock()
		path := runtimeEnv.path
		runtimeEnv.mu.Unlock()
		p := C.CString(path)
		defer C.free(unsafe.Pointer(p))
		// ort.RunOptions holds only its C handle.
		runConfigAPI.ok = unsafe.Sizeof(ort.RunOptions{}) == unsafe.Sizeof(uintptr(0)) && C.vk_init(p) != 0
	})
	if !runConfigAPI.ok {
		return errors.New("run config entries are not available")
	}
	handle := *(*unsafe.Pointer)(unsafe.Pointer(o))
	k, v := C.CString(key), C.CString(value)
	defer C.free(unsafe.Pointer(k))
	defer C.free(unsafe.Pointer(v))
	if msg := C.vk_add_run_config(handle, k, v); msg != nil {
		defer C.free(unsafe.Pointer(msg))
		return errors.New(C.GoString(msg))
	}
	return nil
}

// shrinkArena makes the run of o end by giving the CPU arena's regions
// that the run left unused back to the system (ORT's run option
// memory.enable_memory_arena_shrinkage); the session must run on an
// arena.
func shrinkArena(o *ort.RunOptions) error {
	return addRunConfig(o, "memory.enable_memory_arena_shrinkage", "cpu:0")
}
