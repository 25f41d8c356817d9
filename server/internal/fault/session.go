package fault

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// InvalidCredentials is the 401 of a failed sign-in. It does not say
// whether the account exists.
func InvalidCredentials() *Error {
	return &Error{Status: http.StatusUnauthorized, Type: TypeInvalidRequest, Code: CodeInvalidCredentials,
		Message: "Wrong account name or password."}
}

// TooManyAttempts is the 429 of a sign-in refused by throttling; the
// caller sets Retry-After.
func TooManyAttempts(retry time.Duration) *Error {
	return &Error{Status: http.StatusTooManyRequests, Type: TypeInvalidRequest, Code: CodeTooManyAttempts,
		Message: fmt.Sprintf("Too many failed sign-ins; try again in %s seconds.", strconv.Itoa(int(retry.Seconds()+0.999)))}
}

// BadCSRFToken is the 403 of a state-changing request made with the
// session cookie but without the session's X-CSRF-Token header: a form
// or script of another site.
func BadCSRFToken() *Error {
	return &Error{Status: http.StatusForbidden, Type: TypePermission, Code: CodeBadCSRFToken,
		Message: "This request was made with the playground's sign-in cookie but without its X-CSRF-Token header; reload the playground."}
}

// SessionExpired is the 401 of a request whose session cookie names no
// live session (signed out, expired or ended by a password change).
func SessionExpired() *Error {
	return &Error{Status: http.StatusUnauthorized, Type: TypeInvalidRequest, Code: CodeSessionExpired,
		Message: "Your sign-in has ended; sign in again."}
}

// WeakPassword is the 400 of a new password shorter than min characters.
func WeakPassword(param string, min int) *Error {
	return BadRequest(CodeStringTooShort, param, "The password must have at least %d characters.", min)
}
