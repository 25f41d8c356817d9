package fault

import (
	"fmt"
	"net/http"
)

// CodeTooManyContexts refuses a concurrent context beyond the
// connection's limit.
const CodeTooManyContexts = "too_many_contexts"

// TooManyContexts refuses a concurrent input stream when max are open on
// the connection already: 429 too_many_contexts.
func TooManyContexts(max int) *Error {
	return &Error{Status: http.StatusTooManyRequests, Type: TypeInvalidRequest, Code: CodeTooManyContexts,
		Message: fmt.Sprintf("At most %d concurrent input streams may be open on one connection; end one (input.done or speech.cancel) first.", max)}
}
