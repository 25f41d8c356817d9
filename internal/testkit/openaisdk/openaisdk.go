// Package openaisdk drives a test server with the official OpenAI Go
// SDK. It is a package of its own, apart from the server's test harness
// (server/internal/testserver), so that only the tests that use the SDK
// link it: the SDK is the largest package a test binary of the server
// would link otherwise (about 6 MB of code, more than the server itself),
// and every door's tests start a server.
package openaisdk

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Client returns an official OpenAI SDK client for the server ts serves,
// as key.
func Client(ts *httptest.Server, key string) *openai.Client {
	c := openai.NewClient(option.WithBaseURL(ts.URL+"/v1/"), option.WithAPIKey(key),
		option.WithMaxRetries(0), option.WithHTTPClient(ts.Client()))
	return &c
}

// CheckAPIError checks that err is the SDK's *openai.Error of status,
// type, code and param, with a message.
func CheckAPIError(t *testing.T, err error, status int, typ, code, param string) {
	t.Helper()
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v is not an *openai.Error", err)
	}
	if apiErr.StatusCode != status || apiErr.Type != typ || apiErr.Code != code || apiErr.Param != param || apiErr.Message == "" {
		t.Errorf("got %d type=%q code=%q param=%q msg=%q; want %d %q %q %q",
			apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.Param, apiErr.Message, status, typ, code, param)
	}
}
