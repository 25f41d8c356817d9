package elevenlabs

import "github.com/voxkit/voxkit/server/internal/vendordoor"

// Rooms are what the door uses of the core, the socket runtime and the
// rooms beside them: the same as Cartesia's door (package vendordoor).
type Rooms = vendordoor.Rooms
