// Package ortrun makes ONNX Runtime runs stop when their context is done,
// for the engines that run models (engine/onnx, engine/pocket,
// engine/supertonic), and gives them their session options.
package ortrun

import (
	"context"
	"errors"
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

// SessionOptions returns session options for threads threads inside one
// run (intra-op; inter-op 1), their pool not spinning when there are
// several, so that idle sessions cost no CPU.
func SessionOptions(threads int) (*ort.SessionOptions, error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, err
	}
	err = errors.Join(opts.SetIntraOpNumThreads(max(threads, 1)), opts.SetInterOpNumThreads(1))
	if err == nil && threads > 1 {
		err = opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0")
	}
	if err != nil {
		opts.Destroy()
		return nil, err
	}
	return opts, nil
}
