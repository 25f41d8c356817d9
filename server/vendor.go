package server

import (
	"net/http"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// admitVendor is core.AdmitVendor.
func (s *Server) admitVendor(r *http.Request, key string, need store.Scope) (string, *wire.Error) {
	return s.core.AdmitVendor(r, key, need)
}

// vendorSpeak runs req for a vendor API's HTTP answer through the core.
func (s *Server) vendorSpeak(w http.ResponseWriter, r *http.Request, req tts.Request, speak func(*tts.Prepared, encode.Codec) (tts.Result, error)) *wire.Error {
	return s.core.SpeakHTTP(r, core.Job{Request: req, Voice: req.Voice}, nil, speak)
}
