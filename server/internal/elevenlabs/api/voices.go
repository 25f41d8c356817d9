// Package api holds the shapes of ElevenLabs' API that the ElevenLabs
// door translates: its voices and their search, and its pronunciation
// dictionaries as voxkit's lexicons and back. Pure data and translation:
// no part of a request's lifecycle is here.
package api

import (
	"cmp"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/voxkit/voxkit/voices"
)

// Voice describes a voxkit voice as an ElevenLabs voice.
func Voice(v voices.Voice) map[string]any {
	category, name := "premade", v.ID
	if !v.Global() {
		category, name = "cloned", cmp.Or(v.Description, v.ID) // a clone's description is its name
	}
	labels := map[string]string{"engine": v.Engine}
	if v.Language != "" {
		labels["language"] = v.Language
	}
	return map[string]any{"voice_id": v.ID, "name": name, "category": category,
		"description": v.Description, "labels": labels, "available_for_tiers": []string{},
		"is_owner": !v.Global()}
}

// searchPageSize is the page size of GET /v2/voices without page_size,
// and maxSearchPage the largest one, as ElevenLabs'.
const (
	searchPageSize = 10
	maxSearchPage  = 100
)

// SearchPage answers the query q of GET /v2/voices (the SDKs'
// voices.search) over list, the voices the caller may use: the page's
// voices, in list's order, in pages of page_size, the next_page_token
// being the id of the last voice of the page before. search matches id,
// name and description (any case); voice_ids keeps those ids; category
// (premade, cloned) and voice_type (default: the server's voices;
// personal, workspace, non-default, saved: the account's clones;
// community: none) filter. The other parameters (sort, gender, language,
// …) are accepted and not used. Its error is an invalid page_size or
// token, said for the client.
func SearchPage(q url.Values, list []voices.Voice) (map[string]any, error) {
	size := searchPageSize
	if s := q.Get("page_size"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxSearchPage {
			return nil, errors.New("page_size must be a whole number from 1 to 100.")
		}
		size = n
	}
	list = slices.DeleteFunc(slices.Clone(list), func(v voices.Voice) bool { return !searchKeeps(q, v) })
	from := 0
	if token := q.Get("next_page_token"); token != "" {
		i := slices.IndexFunc(list, func(v voices.Voice) bool { return v.ID == token })
		if i < 0 {
			return nil, errors.New("next_page_token is not a token a page of this search gave.")
		}
		from = i + 1
	}
	to := min(len(list), from+size)
	page := []map[string]any{}
	for _, v := range list[from:to] {
		page = append(page, Voice(v))
	}
	var next any // null on the last page
	if to < len(list) {
		next = list[to-1].ID
	}
	return map[string]any{"voices": page, "has_more": to < len(list), "total_count": len(list), "next_page_token": next}, nil
}

// searchKeeps reports whether v passes the filters of the query q.
func searchKeeps(q url.Values, v voices.Voice) bool {
	category, _ := Voice(v)["category"].(string)
	if c := q.Get("category"); c != "" && c != category {
		return false
	}
	switch q.Get("voice_type") {
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
	if s := strings.ToLower(q.Get("search")); s != "" {
		name, _ := Voice(v)["name"].(string)
		return strings.Contains(strings.ToLower(v.ID+"\n"+name+"\n"+v.Description), s)
	}
	return true
}
