package wire

import (
	"encoding/json"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/tags"
)

// Session is the body of GET, POST /v1/session and of a password change:
// whether the browser is signed in and, if so, as whom, with the token
// its state-changing requests send in the X-CSRF-Token header. Signup
// tells a page that is not signed in whether it may offer to create an
// account.
type Session struct {
	Object    string `json:"object"` // "session"
	SignedIn  bool   `json:"signed_in"`
	Account   string `json:"account,omitempty"`
	CSRFToken string `json:"csrf_token,omitempty"`
	ExpiresAt int64  `json:"expires_at,omitempty"`
	Signup    bool   `json:"signup"`
	// HostAuth says the server is mounted in an application that signs
	// its users in (server.Options.Authenticate): the page uses that
	// sign-in, and has no sign-out or password of its own.
	HostAuth bool `json:"host_auth,omitempty"`
	// Passwords says the server signs users in with passwords
	// (POST /v1/session); Keys that it keeps API keys and clones.
	Passwords bool `json:"passwords"`
	Keys      bool `json:"keys"`
}

// SignIn is the body of POST /v1/session, and of POST /v1/accounts when
// the store keeps passwords.
type SignIn struct {
	Account  string
	Password string
}

// MaxPassword is the longest password accepted, in bytes: hashing is
// costly enough without megabyte inputs.
const MaxPassword = 256

// ParseSignIn reads {"account": "local", "password": "..."}; field names
// the account ("account" to sign in, "name" to sign up).
func ParseSignIn(body []byte, field string) (SignIn, error) {
	raw, err := decodeObject(body, `{"`+field+`":"local","password":"..."}`)
	if err != nil {
		return SignIn{}, err
	}
	var in SignIn
	if in.Account, err = nameField(raw, field, 64); err != nil {
		return SignIn{}, err
	}
	if in.Account == "" {
		return SignIn{}, fault.BadRequest(fault.CodeMissingParameter, field, "Missing required parameter: '%s'.", field)
	}
	if in.Password, err = requiredString(raw, "password", MaxPassword); err != nil {
		return SignIn{}, err
	}
	return in, nil
}

// PasswordChange is the body of POST /v1/account/password.
type PasswordChange struct {
	Current, New string
}

// ParsePasswordChange reads {"current_password": "...", "new_password":
// "..."}.
func ParsePasswordChange(body []byte) (PasswordChange, error) {
	raw, err := decodeObject(body, `{"current_password":"...","new_password":"..."}`)
	if err != nil {
		return PasswordChange{}, err
	}
	var pc PasswordChange
	if pc.Current, err = requiredString(raw, "current_password", MaxPassword); err != nil {
		return PasswordChange{}, err
	}
	if pc.New, err = requiredString(raw, "new_password", MaxPassword); err != nil {
		return PasswordChange{}, err
	}
	return pc, nil
}

// requiredString reads a string field that must be present, non-empty
// and at most maxLen bytes.
func requiredString(raw map[string]json.RawMessage, field string, maxLen int) (string, error) {
	s, ok, err := stringField(raw, field)
	switch {
	case err != nil:
		return "", err
	case !ok || s == "":
		return "", fault.BadRequest(fault.CodeMissingParameter, field, "Missing required parameter: '%s'.", field)
	case len(s) > maxLen:
		return "", fault.BadRequest(fault.CodeStringTooLong, field, "%s is longer than %d bytes.", field, maxLen)
	}
	return s, nil
}

// Tag is one audio tag of GET /v1/tags.
type Tag struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Example     string `json:"example"`
	Description string `json:"description"`
}

// TagList is the body of GET /v1/tags.
type TagList struct {
	Object string `json:"object"` // "list"
	Data   []Tag  `json:"data"`
}

// FromTags converts the tag vocabulary.
func FromTags(ts []tags.TagInfo) TagList {
	l := TagList{Object: "list", Data: make([]Tag, 0, len(ts))}
	for _, t := range ts {
		l.Data = append(l.Data, Tag{Name: t.Name, Kind: t.Kind, Example: t.Example, Description: t.Doc})
	}
	return l
}
