package wire

import (
	"encoding/json"
	"time"

	"github.com/voxkit/voxkit/server/store"
)

// Account is the JSON of an account.
type Account struct {
	Object  string `json:"object"` // "account"
	Name    string `json:"name"`
	Created int64  `json:"created"`
}

// APIKey is the JSON of an API key. Key, the plaintext, is set only in
// the response that creates it.
type APIKey struct {
	Object   string `json:"object"` // "api_key"
	Prefix   string `json:"prefix"`
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

// Signup is the body of POST /v1/accounts' response: the new account and
// its first key, with the plaintext.
type Signup struct {
	Account Account `json:"account"`
	Key     APIKey  `json:"key"`
}

// FromAccount converts a stored account.
func FromAccount(a store.Account) Account {
	return Account{Object: "account", Name: a.Name, Created: a.Created.Unix()}
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
		Object: "api_key", Prefix: k.Prefix, Name: k.Name, Account: k.Account,
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

// ParseName reads the optional string field name of a small JSON object
// body such as {"name": "laptop"}; an empty body means {}.
func ParseName(body []byte, field string, maxLen int) (string, error) {
	if len(body) == 0 {
		return "", nil
	}
	var raw map[string]json.RawMessage
	if err := decodeStrict(body, &raw); err != nil {
		return "", BadRequest(CodeInvalidJSON, "", "We could not parse the JSON body of your request: %s.", describeJSONError(err))
	}
	s, _, err := stringField(raw, field)
	if err != nil {
		return "", err
	}
	if len(s) > maxLen {
		return "", BadRequest(CodeStringTooLong, field, "%s is longer than %d bytes.", field, maxLen)
	}
	return s, nil
}
