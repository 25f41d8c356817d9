package cartesia_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/voxkit/voxkit/server/internal/testserver"

	"github.com/coder/websocket"

	"github.com/voxkit/voxkit/server/wire"
)

// cartesiaDict is a pronunciation dictionary as the Cartesia door shows
// it.
type cartesiaDict struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	OwnerID string `json:"owner_id"`
	Items   []struct {
		Text          string `json:"text"`
		Pronunciation string `json:"pronunciation"`
		Alias         string `json:"alias"`
		CaseSensitive bool   `json:"case_sensitive"`
	} `json:"items"`
	CreatedAt string `json:"created_at"`
}

// cartesiaError is an error answer of the Cartesia door.
type cartesiaError struct {
	Status int    `json:"status_code"`
	Code   string `json:"error_code"`
	Title  string `json:"title"`
}

// whoItems alias WHO to the organization's name.
const whoItems = `[{"text":"WHO","pronunciation":"World Health Organization"}]`

// createDict makes a dictionary of items as key's account.
func createDict(t *testing.T, e *testserver.Env, key, name, items string) cartesiaDict {
	t.Helper()
	res, b := e.CartesiaDo("POST", "/pronunciation-dicts/", key, `{"name":"`+name+`","items":`+items+`}`)
	var d cartesiaDict
	if res.StatusCode != 200 || json.Unmarshal(b, &d) != nil || d.ID == "" {
		t.Fatalf("POST /pronunciation-dicts/: %d %s", res.StatusCode, b)
	}
	return d
}

// cartesiaSpeech is the pcm of text from /tts/bytes as key, with the
// generation's extra fields; on failure, the error.
func cartesiaSpeech(t *testing.T, e *testserver.Env, key, text, extra string) ([]byte, cartesiaError) {
	t.Helper()
	body := strings.TrimSuffix(cartesiaBody(text, "raw", "pcm_s16le"), "}") + extra + "}"
	res, b := e.CartesiaDo("POST", "/tts/bytes", key, body)
	var ce cartesiaError
	if res.StatusCode != 200 {
		json.Unmarshal(b, &ce)
		return nil, ce
	}
	if ignored := res.Header.Get("X-Voxkit-Ignored"); strings.Contains(ignored, "pronunciation_dict_id") {
		t.Errorf("pronunciation_dict_id ignored: %q", ignored)
	}
	return b, ce
}

// TestCartesiaDicts: Cartesia's pronunciation dictionaries — made from
// items (aliases, <<phonemes>>, case sensitivity), listed in pages (with
// and without the SDK's trailing slash), read, updated as a new version
// that speech uses at once, deleted; another account's as unknown as
// none; bad items refused in Cartesia's shape.
func TestCartesiaDicts(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	d := createDict(t, e, e.Key, "acronyms", `[`+strings.Trim(whoItems, "[]")+`,
		{"text":"bayou","pronunciation":"<<ˈ|b|ɑ|ˈ|j|u>>"},
		{"text":"green valley","alias":"<<ɡ|ɹ|i|n>> <<v|æ|l|i>>"},
		{"text":"cat","pronunciation":"dog","case_sensitive":true}]`)
	type item struct {
		text, pronunciation string
		sensitive           bool
	}
	want := []item{{"WHO", "World Health Organization", false}, {"bayou", "<<ˈ|b|ɑ|ˈ|j|u>>", false},
		{"green valley", "<<ɡ|ɹ|i|n>> <<v|æ|l|i>>", false}, {"cat", "dog", true}}
	res, b := e.CartesiaDo("GET", "/pronunciation-dicts/"+d.ID, e.Key, "")
	var got cartesiaDict
	json.Unmarshal(b, &got)
	if res.StatusCode != 200 || got.Name != "acronyms" || got.OwnerID == "" || got.CreatedAt == "" || len(got.Items) != len(want) {
		t.Fatalf("GET: %d %s", res.StatusCode, b)
	}
	for i, w := range want {
		if it := got.Items[i]; it.Text != w.text || it.Pronunciation != w.pronunciation || it.Alias != w.pronunciation || it.CaseSensitive != w.sensitive {
			t.Errorf("item %d: %+v, want %+v", i, it, w)
		}
	}
	second := createDict(t, e, e.Key, "second", whoItems)
	var page struct {
		Data    []cartesiaDict `json:"data"`
		HasMore bool           `json:"has_more"`
	}
	for _, path := range []string{"/pronunciation-dicts?limit=1", "/pronunciation-dicts/?limit=1&starting_after=" + d.ID} {
		res, b = e.CartesiaDo("GET", path, e.Key, "")
		json.Unmarshal(b, &page)
		if res.StatusCode != 200 || len(page.Data) != 1 || page.HasMore != (page.Data[0].ID == d.ID) {
			t.Errorf("GET %s: %d %s", path, res.StatusCode, b)
		}
	}
	if page.Data[0].ID != second.ID || len(page.Data[0].Items) != 1 {
		t.Errorf("second page: %+v", page.Data)
	}

	// Another account sees none of them, and may neither change nor
	// delete one.
	res, b = e.CartesiaDo("GET", "/pronunciation-dicts/", e.OtherKey, "")
	if json.Unmarshal(b, &page); res.StatusCode != 200 || len(page.Data) != 0 {
		t.Errorf("another account's list: %d %s", res.StatusCode, b)
	}
	for _, method := range []string{"GET", "PATCH", "DELETE"} {
		res, b := e.CartesiaDo(method, "/pronunciation-dicts/"+d.ID, e.OtherKey, `{"items":[]}`)
		var ce cartesiaError
		if json.Unmarshal(b, &ce); res.StatusCode != 404 || ce.Code != wire.CodeLexiconNotFound || ce.Status != 404 || ce.Title == "" {
			t.Errorf("another account's %s: %d %s", method, res.StatusCode, b)
		}
	}

	// Bad items and bodies, each a 400 in Cartesia's shape, naming the
	// item or field at fault where it has one.
	for name, tc := range map[string]struct{ body, says string }{
		"empty text":        {`{"name":"x","items":[{"text":" ","pronunciation":"y"}]}`, "items[0].text is empty"},
		"no pronunciation":  {`{"name":"x","items":[{"text":"a","pronunciation":"y"},{"text":"b"}]}`, "items[1].pronunciation is empty"},
		"words and phones":  {`{"name":"x","items":[{"text":"a","pronunciation":"say <<eɪ>>"}]}`, "items[0].pronunciation mixes"},
		"no name":           {`{"items":[]}`, "name"},
		"not JSON":          {`{"name":`, "malformed JSON"},
		"items a string":    {`{"name":"x","items":"a"}`, "items cannot be a JSON string"},
		"pronunciation too": {`{"name":"x","items":[{"text":"a","pronunciation":"` + strings.Repeat("b", 300) + `"}]}`, ""},
	} {
		res, b := e.CartesiaDo("POST", "/pronunciation-dicts/", e.Key, tc.body)
		var ce cartesiaError
		if json.Unmarshal(b, &ce); res.StatusCode != 400 || ce.Status != 400 || ce.Code == "" || ce.Title == "" || !strings.Contains(string(b), tc.says) {
			t.Errorf("%s: %d %s; want a 400 saying %q", name, res.StatusCode, b, tc.says)
		}
	}

	// An update is a new version, which speech uses at once; the name
	// stays.
	text := "We met the WHO today."
	before, _ := cartesiaSpeech(t, e, e.Key, text, `,"pronunciation_dict_id":"`+d.ID+`"`)
	res, b = e.CartesiaDo("PATCH", "/pronunciation-dicts/"+d.ID, e.Key, `{"name":"renamed","items":[{"text":"WHO","pronunciation":"the World Health Organization of the United Nations"}]}`)
	if json.Unmarshal(b, &got); res.StatusCode != 200 || len(got.Items) != 1 || got.Name != "acronyms" || res.Header.Get("X-Voxkit-Ignored") != "name" {
		t.Errorf("PATCH: %d %s", res.StatusCode, b)
	}
	after, _ := cartesiaSpeech(t, e, e.Key, text, `,"pronunciation_dict_id":"`+d.ID+`"`)
	spelled := e.OpenAIPCM("en-us", "We met the the World Health Organization of the United Nations today.")
	if !testserver.Near(len(after), len(spelled)) || testserver.Near(len(after), len(before)) {
		t.Errorf("after the update %d bytes, the new alias written out %d, before %d", len(after), len(spelled), len(before))
	}

	// Deleted, it is gone.
	if res, b := e.CartesiaDo("DELETE", "/pronunciation-dicts/"+d.ID, e.Key, ""); res.StatusCode != 204 {
		t.Errorf("DELETE: %d %s", res.StatusCode, b)
	}
	if res, _ := e.CartesiaDo("GET", "/pronunciation-dicts/"+d.ID, e.Key, ""); res.StatusCode != 404 {
		t.Errorf("GET after DELETE: %d", res.StatusCode)
	}
	if _, ce := cartesiaSpeech(t, e, e.Key, text, `,"pronunciation_dict_id":"`+d.ID+`"`); ce.Status != 404 || ce.Code != wire.CodeLexiconNotFound {
		t.Errorf("speech with a deleted dictionary: %+v", ce)
	}
}

// TestCartesiaDictSpeech: pronunciation_dict_id changes the audio on
// /tts/bytes, /tts/sse and the WebSocket (to the length of the alias
// written out; a phoneme item to that of its phonemes); another
// account's dictionary is unknown (404, an error event on the socket).
func TestCartesiaDictSpeech(t *testing.T) {
	e := testserver.New(t, testserver.Options{})
	d := createDict(t, e, e.Key, "acronyms", whoItems)
	use := `,"pronunciation_dict_id":"` + d.ID + `"`
	text := "We met the WHO today."
	plain, _ := cartesiaSpeech(t, e, e.Key, text, "")
	spelled := e.OpenAIPCM("en-us", "We met the World Health Organization today.")
	named, _ := cartesiaSpeech(t, e, e.Key, text, use)
	if !testserver.Near(len(named), len(spelled)) || testserver.Near(len(named), len(plain)) {
		t.Errorf("bytes with the dictionary %d, the alias written out %d, without %d", len(named), len(spelled), len(plain))
	}
	if _, ce := cartesiaSpeech(t, e, e.OtherKey, text, use); ce.Status != 404 || ce.Code != wire.CodeLexiconNotFound {
		t.Errorf("another account's dictionary: %+v", ce)
	}
	if _, ce := cartesiaSpeech(t, e, e.Key, text, `,"pronunciation_dict_id":"nope"`); ce.Status != 404 {
		t.Errorf("an unknown dictionary: %+v", ce)
	}
	phones := createDict(t, e, e.Key, "phones", `[{"text":"Zed","pronunciation":"<<w|ɝ|l|d|h|ɛ|l|θ|ɔ|ɹ|ɡ|ə|n|ə|z|eɪ|ʃ|ə|n>>"}]`)
	if with, _ := cartesiaSpeech(t, e, e.Key, "Zed", `,"pronunciation_dict_id":"`+phones.ID+`"`); testserver.Near(len(with), len(e.OpenAIPCM("en-us", "Zed"))) {
		t.Errorf("a phoneme item left the audio as it was: %d bytes", len(with))
	}

	// SSE: the chunks' audio.
	_, b := e.CartesiaDo("POST", "/tts/sse", e.Key, strings.TrimSuffix(cartesiaBody(text, "raw", "pcm_s16le"), "}")+use+"}")
	var sse []byte
	for line := range strings.Lines(string(b)) {
		var ev testserver.CartesiaEvent
		if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok && json.Unmarshal([]byte(data), &ev) == nil && ev.Type == "chunk" {
			a, _ := base64.StdEncoding.DecodeString(ev.Data)
			sse = append(sse, a...)
		}
	}
	if !testserver.Near(len(sse), len(spelled)) {
		t.Errorf("sse with the dictionary %d bytes, the alias written out %d: %.300s", len(sse), len(spelled), b)
	}

	// The socket: the first message of a context names the dictionary.
	c := e.CartesiaSocket()
	send := func(id, dict, transcript string, more bool) {
		m, _ := json.Marshal(map[string]any{"context_id": id, "voice": "en-us", "transcript": transcript, "continue": more, "pronunciation_dict_id": dict,
			"output_format": map[string]any{"container": "raw", "encoding": "pcm_s16le", "sample_rate": 24000}})
		if err := c.Write(context.Background(), websocket.MessageText, m); err != nil {
			t.Fatal(err)
		}
	}
	send("a", d.ID, "We met the ", true)
	send("a", "", "WHO today.", false)
	var socket []byte
	for ev := testserver.ReadCartesia(t, c); ev.Type != "done"; ev = testserver.ReadCartesia(t, c) {
		a, _ := base64.StdEncoding.DecodeString(ev.Data)
		socket = append(socket, a...)
		if ev.Type == "error" {
			t.Fatalf("socket: error %s", ev.ErrorCode)
		}
	}
	if !testserver.Near(len(socket), len(spelled)) {
		t.Errorf("socket with the dictionary %d bytes, the alias written out %d", len(socket), len(spelled))
	}
	send("b", "nope", text, false)
	if ev := testserver.ReadCartesia(t, c); ev.Type != "error" || ev.ContextID != "b" || ev.ErrorCode != wire.CodeLexiconNotFound {
		t.Errorf("an unknown dictionary on the socket: %s %s %s", ev.Type, ev.ContextID, ev.ErrorCode)
	}
}
