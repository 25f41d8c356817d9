package cartesia

import (
	"cmp"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/voxkit/voxkit/server/internal/cartesia/api"
	"github.com/voxkit/voxkit/server/internal/fault"
	"github.com/voxkit/voxkit/server/internal/respond"
	"github.com/voxkit/voxkit/server/internal/route"
	"github.com/voxkit/voxkit/server/store"
	"github.com/voxkit/voxkit/server/wire"
	"github.com/voxkit/voxkit/voices"
)

// voiceOf describes a voxkit voice as a Cartesia voice. Its created_at
// is when the voice was added to the catalog: a built-in voice's is the
// server's start (or the rescan that found it), a clone's its creation,
// as /v1/models' created.
func voiceOf(v voices.Voice) map[string]any {
	access, name := "public", v.ID
	if !v.Global() {
		access, name = "private", cmp.Or(v.Description, v.ID) // a clone's description is its name
	}
	lang, _, _ := strings.Cut(v.Language, "-")
	return map[string]any{"id": v.ID, "name": name, "description": v.Description, "language": lang,
		"is_owner": !v.Global(), "is_public": v.Global(), "access": access, "visibility": "all",
		"tagline": v.Engine, "locales": []any{}, "created_at": v.Created.UTC().Format(time.RFC3339)}
}

// cloneForm is the multipart body of POST /voices/clone; description,
// language, accent, base_voice_id and the older mode and enhance are
// accepted and not used. voxkit's model, temperature, steps and seed (as
// on POST /v1/voices) are taken too.
var cloneForm = wire.CloneForm{Audio: "clip",
	Fields: []string{"description", "language", "accent", "base_voice_id", "mode", "enhance", "model", "temperature", "steps", "seed"}}

// clone answers POST /voices/clone with the new voice.
func (d door) clone(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	sv, err := d.c.Voices.CloneUpload(w, r, account, cloneForm)
	if err != nil {
		return api.FromFault(route.ErrorOf(d.c.Log, r, err))
	}
	v, werr := d.c.Voices.Voice(account, sv.ID)
	if werr != nil {
		return api.VoiceNotFound(sv.ID) // deleted meanwhile
	}
	respond.WriteJSON(w, http.StatusOK, voiceOf(v))
	return nil
}

// deleteVoice answers DELETE /voices/{id} with 204.
func (d door) deleteVoice(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	if _, err := d.c.Voices.DropVoice(r.Context(), account, r.PathValue("id")); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return api.VoiceNotFound(r.PathValue("id"))
		}
		return api.FromFault(route.ErrorOf(d.c.Log, r, err))
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// listVoices lists the voices, in pages.
func (d door) listVoices(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	part, more, e := page(r, d.c.Voices.List(account), func(v voices.Voice) string { return v.ID })
	if e != nil {
		return e
	}
	list := []map[string]any{}
	for _, v := range part {
		list = append(list, voiceOf(v))
	}
	respond.WriteJSON(w, http.StatusOK, map[string]any{"data": list, "has_more": more})
	return nil
}

// page is the page of all a list request asks for (limit, and the
// cursors starting_after and ending_before, ids of items), and whether
// more lie beyond it.
func page[T any](r *http.Request, all []T, id func(T) string) ([]T, bool, *api.Error) {
	q := r.URL.Query()
	limit := 10
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return nil, false, api.BadRequest(fault.CodeInvalidValue, "limit must be 1 to 100.")
		}
		limit = n
	}
	index := func(x string) int { return slices.IndexFunc(all, func(v T) bool { return id(v) == x }) }
	from := index(q.Get("starting_after")) + 1 // 0 without a cursor
	to := min(len(all), from+limit)
	more := to < len(all)
	if x := q.Get("ending_before"); x != "" {
		to = max(0, index(x))
		from = max(0, to-limit)
		more = from > 0
	}
	return all[from:to], more, nil
}

// getVoice answers GET /voices/{id}.
func (d door) getVoice(w http.ResponseWriter, r *http.Request, account string) *api.Error {
	v, werr := d.c.Voices.Voice(account, r.PathValue("id"))
	if werr != nil {
		return api.VoiceNotFound(r.PathValue("id"))
	}
	respond.WriteJSON(w, http.StatusOK, voiceOf(v))
	return nil
}
