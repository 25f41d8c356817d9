package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// job is a job as the server shows it (docs/jobs.md).
type job struct {
	ID             string `json:"id"`
	Status         string `json:"status"`
	ResponseFormat string `json:"response_format"`
	Progress       struct {
		Percent       float64  `json:"percent"`
		SegmentsDone  int      `json:"segments_done"`
		SegmentsTotal int      `json:"segments_total"`
		AudioSeconds  float64  `json:"audio_seconds"`
		ETASeconds    *float64 `json:"eta_seconds"`
	} `json:"progress"`
	Chapters []struct {
		Index int    `json:"index"`
		Title string `json:"title"`
	} `json:"chapters"`
	CreatedAt int64 `json:"created_at"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error"`
}

type jobList struct {
	Data    []job  `json:"data"`
	LastID  string `json:"last_id"`
	HasMore bool   `json:"has_more"`
}

// apiError is an error answer of the server, in OpenAI's shape.
type apiError struct {
	Status  int
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    string `json:"code"`
	Param   string `json:"param"`
}

func (e *apiError) Error() string {
	s := fmt.Sprint(e.Status)
	if e.Type != "" {
		s += " " + e.Type
	}
	if e.Code != "" {
		s += " (" + e.Code + ")"
	}
	return s + ": " + e.Message
}

// client calls the server's API at base (its /v1) with an API key.
type client struct {
	base, key string
	http      *http.Client
}

func newClient(base, key string) *client {
	return &client{base: strings.TrimSuffix(base, "/"), key: key, http: &http.Client{}}
}

// jobPath is the path of job id's resource under the API, suffix "" the
// job itself.
func jobPath(id, suffix string) string {
	return "/audio/jobs/" + url.PathEscape(id) + suffix
}

// do sends a request to path (under the API) and returns the answer if
// it is a success, else the server's error as an *apiError.
func (c *client) do(ctx context.Context, method, path string, body io.Reader, contentType string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, errInterrupted
		}
		return nil, err
	}
	if res.StatusCode < 300 {
		return res, nil
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	var answer struct {
		Error *apiError `json:"error"`
	}
	if json.Unmarshal(b, &answer) != nil || answer.Error == nil {
		text := strings.TrimSpace(string(b))
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		answer.Error = &apiError{Message: http.StatusText(res.StatusCode) + ": " + text}
	}
	answer.Error.Status = res.StatusCode
	return nil, answer.Error
}

// doJSON sends a request without a body and decodes the answer into v.
func (c *client) doJSON(ctx context.Context, method, path string, v any) error {
	res, err := c.do(ctx, method, path, nil, "")
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	return nil
}

func (c *client) getJSON(ctx context.Context, path string, v any) error {
	return c.doJSON(ctx, http.MethodGet, path, v)
}

// event is one server-sent event.
type event struct {
	name string
	data []byte
}

// events reads the server-sent events of r, calling f with each, until
// r ends or f returns an error (errStop ends it without one).
func events(r io.Reader, f func(event) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var e event
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if e.name != "" || e.data != nil {
				if err := f(e); err != nil {
					if errors.Is(err, errStop) {
						return nil
					}
					return err
				}
			}
			e = event{}
		case strings.HasPrefix(line, ":"): // a comment
		case strings.HasPrefix(line, "event:"):
			e.name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			d := strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")
			if e.data != nil {
				e.data = append(e.data, '\n')
			}
			e.data = append(e.data, d...)
		}
	}
	return sc.Err()
}

var errStop = errors.New("stop")
