package wire

import "github.com/voxkit/voxkit/server/internal/vocab"

// HeaderProbe marks a request as a health check (vocab.HeaderProbe).
const HeaderProbe = vocab.HeaderProbe
