package elevenlabs

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/voxkit/voxkit/server/internal/core"
	"github.com/voxkit/voxkit/voices"
)

// searchPageSize is the page size of GET /v2/voices without page_size,
// and maxSearchPage the largest one, as ElevenLabs'.
const (
	searchPageSize = 10
	maxSearchPage  = 100
)

// searchVoices answers GET /v2/voices (the SDKs' voices.search): the
// voices the caller may use, in the catalog's order, in pages of
// page_size; next_page_token is the id of the last voice of the page
// before. search matches id, name and description (any case); voice_ids
// keeps those ids; category (premade, cloned) and voice_type (default:
// the server's voices; personal, workspace, non-default, saved: the
// account's clones; community: none) filter. The other parameters
// (sort, gender, language, …) are accepted and not used.
func (d *door) searchVoices(w http.ResponseWriter, r *http.Request, account string) *apiError {
	q := r.URL.Query()
	size := searchPageSize
	if s := q.Get("page_size"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxSearchPage {
			return newError(http.StatusUnprocessableEntity, "invalid_request", "page_size must be a whole number from 1 to 100.")
		}
		size = n
	}
	var list []voices.Voice
	for _, v := range d.c.Voices.List(account) {
		if searchKeeps(q, v) {
			list = append(list, v)
		}
	}
	from := 0
	if token := q.Get("next_page_token"); token != "" {
		i := slices.IndexFunc(list, func(v voices.Voice) bool { return v.ID == token })
		if i < 0 {
			return newError(http.StatusUnprocessableEntity, "invalid_request", "next_page_token is not a token a page of this search gave.")
		}
		from = i + 1
	}
	to := min(len(list), from+size)
	page := []map[string]any{}
	for _, v := range list[from:to] {
		page = append(page, voiceOf(v))
	}
	var next any // null on the last page
	if to < len(list) {
		next = list[to-1].ID
	}
	core.WriteJSON(w, http.StatusOK, map[string]any{"voices": page, "has_more": to < len(list), "total_count": len(list), "next_page_token": next})
	return nil
}

// searchKeeps reports whether v passes the filters of the query q.
func searchKeeps(q map[string][]string, v voices.Voice) bool {
	category, _ := voiceOf(v)["category"].(string)
	if c := first(q, "category"); c != "" && c != category {
		return false
	}
	switch first(q, "voice_type") {
	case "default":
		if !v.Global() {
			return false
		}
	case "personal", "workspace", "non-default", "saved":
		if v.Global() {
			return false
		}
	case "community":
		return false
	}
	if ids := q["voice_ids"]; len(ids) > 0 && !slices.Contains(ids, v.ID) {
		return false
	}
	if s := strings.ToLower(first(q, "search")); s != "" {
		name, _ := voiceOf(v)["name"].(string)
		return strings.Contains(strings.ToLower(v.ID+"\n"+name+"\n"+v.Description), s)
	}
	return true
}

// first is the first value of the query parameter name, or "".
func first(q map[string][]string, name string) string {
	if vs := q[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}
