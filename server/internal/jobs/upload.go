package jobs

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

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

// parseBook reads an uploaded text into chapters: plain text is one
// chapter named for the file; in Markdown each "#" or "##" heading
// starts a chapter of its title.
//
// TODO(media): replace with package internal/book's Parse (txt, md and
// EPUB, whose spine and nav give chapters) once it is merged.
func parseBook(filename, contentType string, data []byte) ([]chapter, *fault.Error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	ext := strings.ToLower(path.Ext(filename))
	if !utf8.Valid(data) {
		return nil, fault.BadRequest(fault.CodeInvalidValue, "file", "The file is not UTF-8 text.")
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	title := strings.TrimSuffix(path.Base(filename), path.Ext(filename))
	switch {
	case ext == ".md" || ext == ".markdown" || mt == "text/markdown":
		var out []chapter
		cur := chapter{}
		for line := range strings.Lines(text) {
			if h, ok := strings.CutPrefix(line, "#"); ok && (strings.HasPrefix(h, " ") || strings.HasPrefix(h, "# ")) {
				if strings.TrimSpace(cur.Input) != "" {
					out = append(out, cur)
				}
				cur = chapter{Title: strings.TrimSpace(strings.TrimLeft(h, "#"))}
				continue
			}
			cur.Input += line
		}
		if strings.TrimSpace(cur.Input) != "" {
			out = append(out, cur)
		}
		if len(out) == 0 {
			return nil, fault.BadRequest(fault.CodeStringTooShort, "file", "The file has no text to speak.")
		}
		return out, nil
	case ext == ".txt" || mt == "text/plain" || ext == "" && mt == "":
		return []chapter{{Title: title, Input: text}}, nil
	}
	return nil, fault.BadRequest(fault.CodeUnsupportedMedia, "file", "Unsupported file %s: send plain text (.txt) or Markdown (.md); EPUB is not read yet.", fault.Echo(filename))
}
