package wire

import (
	"encoding/json"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/store"
)

// Account is the JSON of an account.
type Account struct {
	Object string `json:"object"` // "account"
	Name   string `json:"name"`
	// Created is when the account was made, in Unix seconds; absent for
	// an account of the host application's (server.Options.Authenticate),
	// which the server knows only by name.
	Created int64 `json:"created,omitempty"`
	// Scope, in GET /v1/account, is the scope of the credentials that
	// asked: an API key's, "admin" for a playground session or a host
	// application's sign-in; absent on a server without a store.
	Scope string `json:"scope,omitempty"`
}

// APIKey is the JSON of an API key. Key, the plaintext, is set only in
// the response that creates it.
type APIKey struct {
	Object   string `json:"object"` // "api_key"
	Prefix   string `json:"prefix"`
	Scope    string `json:"scope"` // "admin" or "speech"
	Name     string `json:"name"`
	Account  string `json:"account"`
	Created  int64  `json:"created"`
	LastUsed *int64 `json:"last_used"`
	Revoked  *int64 `json:"revoked"`
	Key      string `json:"key,omitempty"`
}

// KeyList is the body of GET /v1/keys.
type KeyList struct {
	Object string   `json:"object"` // "list"
	Data   []APIKey `json:"data"`
}

// Signup is the body of POST /v1/accounts' response: the new account
// and, when the store keeps passwords, its signed-in session; otherwise
// its first key, with the plaintext.
type Signup struct {
	Account Account  `json:"account"`
	Session *Session `json:"session,omitempty"`
	Key     *APIKey  `json:"key,omitempty"`
}

// FromAccount converts a stored account.
func FromAccount(a store.Account) Account {
	out := Account{Object: "account", Name: a.Name}
	if !a.Created.IsZero() {
		out.Created = a.Created.Unix()
	}
	return out
}

func unixOrNil(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	u := t.Unix()
	return &u
}

// FromKey converts a stored key; plaintext is "" except at creation.
func FromKey(k store.Key, plaintext string) APIKey {
	return APIKey{
		Object: "api_key", Prefix: k.Prefix, Scope: string(k.Scope), Name: k.Name, Account: k.Account,
		Created: k.Created.Unix(), LastUsed: unixOrNil(k.LastUsed), Revoked: unixOrNil(k.Revoked),
		Key: plaintext,
	}
}

// FromKeys converts a list of stored keys.
func FromKeys(ks []store.Key) KeyList {
	l := KeyList{Object: "list", Data: make([]APIKey, 0, len(ks))}
	for _, k := range ks {
		l.Data = append(l.Data, FromKey(k, ""))
	}
	return l
}

// MaxKeyName is the longest label of an API key, in bytes.
const MaxKeyName = 100

// ParseName reads the optional string field of a small JSON object body
// such as {"name": "laptop"}; an empty body means {}. The name must be
// text (see CheckText) of at most maxLen bytes.
func ParseName(body []byte, field string, maxLen int) (string, error) {
	if len(body) == 0 {
		return "", nil
	}
	raw, err := decodeObject(body, `{"`+field+`":"..."}`)
	if err != nil {
		return "", err
	}
	return nameField(raw, field, maxLen)
}

// KeyCreate is the body of POST /v1/keys.
type KeyCreate struct {
	Name  string
	Scope store.Scope
}

// ParseKeyCreate reads POST /v1/keys' body, {"name": "laptop", "scope":
// "speech"}; an empty body means {}. The scope defaults to speech.
func ParseKeyCreate(body []byte) (KeyCreate, error) {
	kc := KeyCreate{Scope: store.ScopeSpeech}
	if len(body) == 0 {
		return kc, nil
	}
	raw, err := decodeObject(body, `{"name":"laptop","scope":"speech"}`)
	if err != nil {
		return KeyCreate{}, err
	}
	if kc.Name, err = nameField(raw, "name", MaxKeyName); err != nil {
		return KeyCreate{}, err
	}
	scope, ok, err := stringField(raw, "scope")
	if err != nil {
		return KeyCreate{}, err
	}
	if ok {
		kc.Scope = store.Scope(scope)
		if !kc.Scope.Valid() {
			return KeyCreate{}, fault.BadRequest(fault.CodeInvalidValue, "scope", "scope must be %q, %q or %q, not %s.", store.ScopeAdmin, store.ScopeSpeech, store.ScopeGateway, fault.Echo(scope))
		}
	}
	return kc, nil
}

// nameField reads the optional text field of raw, of at most maxLen
// bytes.
func nameField(raw map[string]json.RawMessage, field string, maxLen int) (string, error) {
	s, _, err := stringField(raw, field)
	if err != nil {
		return "", err
	}
	if len(s) > maxLen {
		return "", fault.BadRequest(fault.CodeStringTooLong, field, "%s is longer than %d bytes.", field, maxLen)
	}
	return s, CheckText(field, s)
}

// CheckText refuses a name that is not plain text with a 400
// invalid_value on field: the U+FFFD that invalid UTF-8 or a lone
// surrogate escape decodes to, control characters (which
// would let a name forge table rows or retitle the terminal of whoever
// lists names), format characters — bidirectional controls, which
// reorder what a reader sees, and invisible ones (zero-width spaces and
// joiners U+200B–U+200D, U+FEFF, tag characters U+E0000–U+E007F), which
// make two names look alike — and the line and paragraph separators
// U+2028/U+2029.
func CheckText(field, s string) error {
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			return fault.BadRequest(fault.CodeInvalidValue, field, "%s is not valid UTF-8 text.", field)
		case unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Bidi_Control):
			return fault.BadRequest(fault.CodeInvalidValue, field,
				"%s may not contain U+%04X: control, format (bidirectional, invisible) and line separator characters are refused.", field, r)
		}
	}
	return nil
}
