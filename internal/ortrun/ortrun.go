// Package ortrun makes ONNX Runtime runs stop when their context is done,
// for the engines that run models (engine/onnx, engine/pocket).
package ortrun

import (
	"context"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// Options returns run options that terminate a run when ctx is done, and
// their release, which the caller must call once the run has returned;
// nil options (and a release that does nothing) when ctx can never be
// done. The release waits for a termination under way, so the options
// are never used after they are destroyed.
func Options(ctx context.Context) (*ort.RunOptions, func(), error) {
	if ctx.Done() == nil {
		return nil, func() {}, nil
	}
	o, err := ort.NewRunOptions()
	if err != nil {
		return nil, nil, err
	}
	var mu sync.Mutex
	destroyed := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !destroyed {
			o.Terminate()
		}
	})
	return o, func() {
		stop()
		mu.Lock()
		defer mu.Unlock()
		destroyed = true
		o.Destroy()
	}, nil
}
