// This file lets spawn_linux.go declare the runtime's fork hooks without
// bodies (they are linked by name).
