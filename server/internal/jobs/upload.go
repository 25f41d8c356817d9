package jobs

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/voxkit/voxkit/internal/book"
	"github.com/voxkit/voxkit/server/internal/fault"
)

// uploaded reads a multipart POST /v1/audio/jobs: the text in the file
// field "file", the speech fields as form fields (voice=alloy,
// speed=1.2, lexicons=ID,ID, captions=srt), as a JSON body with its
// chapters.
func (d *door) uploaded(w http.ResponseWriter, r *http.Request, max int64) ([]byte, *fault.Error) {
	raw, werr := d.Body.ReadBodyOf(w, r, max, "multipart/form-data")
	if werr != nil {
		return nil, werr
	}
	_, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	form, err := multipart.NewReader(bytes.NewReader(raw), params["boundary"]).ReadForm(max)
	if err != nil {
		return nil, fault.BadRequest(fault.CodeInvalidValue, "file", "The multipart form could not be read: %s.", fault.Clip(err.Error(), 200))
	}
	defer form.RemoveAll()
	files := form.File["file"]
	if len(files) != 1 {
		return nil, fault.BadRequest(fault.CodeMissingParameter, "file", "Send the text as one file in the form field 'file'.")
	}
	f, err := files[0].Open()
	if err != nil {
		return nil, fault.BadRequest(fault.CodeInvalidValue, "file", "The file could not be read.")
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fault.BadRequest(fault.CodeInvalidValue, "file", "The file could not be read.")
	}
	chapters, werr := parseBook(files[0].Filename, files[0].Header.Get("Content-Type"), data)
	if werr != nil {
		return nil, werr
	}
	body := map[string]any{"chapters": chapters}
	for k, vs := range form.Value {
		v := vs[len(vs)-1]
		switch k {
		case "speed", "seed":
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fault.BadRequest(fault.CodeInvalidType, k, "%s must be a number.", k)
			}
			body[k] = n
		case "normalize", "strict_tags":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fault.BadRequest(fault.CodeInvalidType, k, "%s must be true or false.", k)
			}
			body[k] = b
		case "timestamps": // true or false as in JSON, else "word" or "none"
			if b, err := strconv.ParseBool(v); err == nil {
				body[k] = b
			} else {
				body[k] = v
			}
		case "lexicons", "captions":
			list := []string{}
			for _, s := range strings.Split(v, ",") {
				if s = strings.TrimSpace(s); s != "" {
					list = append(list, s)
				}
			}
			body[k] = list
		default:
			body[k] = v
		}
	}
	b, _ := json.Marshal(body)
	return b, nil
}

// chapter is a chapter as a JSON job names it.
type chapter struct {
	Title string `json:"title"`
	Input string `json:"input"`
}

// parseBook reads an uploaded book into chapters with package book:
// plain text, Markdown (a chapter at each "#" or "##" heading), HTML and
// EPUB (its spine, cut where its table of contents points). A book of one
// untitled chapter (plain text) is named for the file.
func parseBook(filename, contentType string, data []byte) ([]chapter, *fault.Error) {
	chs, err := book.Parse(filename, contentType, data)
	if err != nil {
		switch {
		case errors.Is(err, book.ErrUnsupported):
			return nil, fault.BadRequest(fault.CodeUnsupportedMedia, "file", "Unsupported file %s: send plain text (.txt), Markdown (.md), HTML or EPUB.", fault.Echo(filename))
		case errors.Is(err, book.ErrEmpty):
			return nil, fault.BadRequest(fault.CodeStringTooShort, "file", "The file has no text to speak.")
		case errors.Is(err, book.ErrEncoding):
			return nil, fault.BadRequest(fault.CodeInvalidValue, "file", "The file is not UTF-8 text.")
		}
		return nil, fault.BadRequest(fault.CodeInvalidValue, "file", "%s", fault.Clip(err.Error(), 300))
	}
	out := make([]chapter, len(chs))
	for i, c := range chs {
		out[i] = chapter{Title: c.Title, Input: c.Text}
	}
	if len(out) == 1 && out[0].Title == "" {
		out[0].Title = strings.TrimSuffix(path.Base(filename), path.Ext(filename))
	}
	return out, nil
}
