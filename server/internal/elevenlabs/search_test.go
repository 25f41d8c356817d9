package elevenlabs_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"
)

// TestElevenLabsSearch: GET /v2/voices (the SDKs' voices.search) walks
// the caller's voices in pages by next_page_token, and filters by
// search, voice_type, category and voice_ids; another account's clone is
// not there; a bad page_size or token is a 422 in ElevenLabs' shape.
func TestElevenLabsSearch(t *testing.T) {
	t.Parallel() // its own server and engines, no timing bound
	e := testserver.New(t, testserver.Options{})
	if st := e.Call("POST", "/v1/voices", e.Key, `{"id":"mine","name":"My Narrator","base_voice":"en-gb"}`, nil); st != 201 {
		t.Fatalf("clone: %d", st)
	}
	if st := e.Call("POST", "/v1/voices", e.OtherKey, `{"id":"theirs","name":"My Narrator","base_voice":"en-gb"}`, nil); st != 201 {
		t.Fatalf("the other account's clone: %d", st)
	}
	type page struct {
		Voices []struct {
			ID       string `json:"voice_id"`
			Category string `json:"category"`
		} `json:"voices"`
		HasMore bool    `json:"has_more"`
		Total   int     `json:"total_count"`
		Next    *string `json:"next_page_token"`
	}
	search := func(query string) (page, []string) {
		t.Helper()
		res, b := e.ElevenDo("GET", "/v2/voices?"+query, e.Key, "")
		var p page
		if res.StatusCode != 200 || json.Unmarshal(b, &p) != nil {
			t.Fatalf("search %s: %d %.300s", query, res.StatusCode, b)
		}
		var ids []string
		for _, v := range p.Voices {
			ids = append(ids, v.ID+"/"+v.Category)
		}
		return p, ids
	}

	_, all := search("page_size=100")
	var walked []string
	query := "page_size=3"
	for n := 0; ; n++ {
		p, ids := search(query)
		walked = append(walked, ids...)
		if p.Total != len(all) || len(ids) > 3 || p.HasMore != (p.Next != nil) {
			t.Fatalf("page %d: %d voices of %d, has_more %v, next %v", n, len(ids), p.Total, p.HasMore, p.Next)
		}
		if !p.HasMore {
			break
		}
		query = "page_size=3&next_page_token=" + *p.Next
	}
	if len(all) < 7 || !slices.Equal(walked, all) || !slices.Contains(all, "mine/cloned") || slices.Contains(all, "theirs/cloned") {
		t.Errorf("pages of 3 walked %v; all at once %v", walked, all)
	}
	for query, want := range map[string][]string{
		"search=narrator":                 {"mine/cloned"},
		"voice_type=personal":             {"local-clone/cloned", "mine/cloned"},
		"category=cloned":                 {"local-clone/cloned", "mine/cloned"},
		"voice_ids=en-us&voice_ids=mine":  {"en-us/premade", "mine/cloned"},
		"voice_type=community":            nil,
		"voice_type=default&search=mine":  nil,
		"search=EN-US&voice_type=default": {"en-us/premade"},
	} {
		if _, got := search(query); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", query, got, want)
		}
	}
	for _, query := range []string{"page_size=0", "page_size=101", "page_size=x", "next_page_token=nobody"} {
		res, b := e.ElevenDo("GET", "/v2/voices?"+query, e.Key, "")
		if res.StatusCode != 422 || eleven(b) != "invalid_request" {
			t.Errorf("%s: %d %s", query, res.StatusCode, b)
		}
	}
}

// eleven is the status word of an answer in ElevenLabs' error shape.
func eleven(body []byte) string { return testserver.CloneDoors[1].Code(body) }
