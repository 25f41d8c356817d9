package server

import (
	"net/http"

	"github.com/voxkit/voxkit/encode"
	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/tts"
)

// admitVendor admits the caller of a vendor API with the scope need (a
// key of admin scope may do what one of speech scope may): by key, the
// vendor's own header's value, when there is one, else by the
// credentials the OpenAI API takes.
func (s *Server) admitVendor(r *http.Request, key string, need store.Scope) (string, *wire.Error) {
	return s.core.AdmitVendor(r, key, need)
}

// vendorSpeak runs req for a vendor API's HTTP answer through the core.
func (s *Server) vendorSpeak(w http.ResponseWriter, r *http.Request, req tts.Request, speak func(*tts.Prepared, encode.Codec) (tts.Result, error)) *wire.Error {
	return s.core.SpeakHTTP(r, core.Job{Request: req, Voice: req.Voice}, nil, speak)
}
