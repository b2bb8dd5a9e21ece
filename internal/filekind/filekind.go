// Package filekind says in words what a file is when it is not a regular
// file: the one wording of the policy files' and the audit log's refusals.
package filekind

import "io/fs"

// Of is what kind of file m is, in words ("a directory", "a named pipe
// (FIFO)", …); "" for a regular file.
func Of(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "of type " + m.Type().String()
}
