// Package sandbox runs a command confined by the kernel: a
// Profile says where the command may write, what stays read-only inside
// those places, what is hidden from it and whether it has a network; Run
// builds that file-system view in a user and mount namespace, applies
// Landlock as the outer allow-list and execs the command. It knows the
// policy's answers (the profile derived from them), not the wire.
package sandbox

import (
	"fmt"
	"os"
	"path/filepath"

	json "github.com/goccy/go-json"
)

// ProfileVersion is the version of the profile file format.
const ProfileVersion = 1

// Entry is one path of a profile and the words that say why it is there:
// which rule (file:line) or which built-in protection.
type Entry struct {
	Path string `json:"path"`
	Why  string `json:"why"`
	// Dir says a read-only path that does not exist yet is a folder
	// (.git/hooks) rather than a file (.git/config).
	Dir bool `json:"dir,omitempty"`
}

// Profile is what a confined command may do. Paths are absolute and, where
// they exist, real (symlinks resolved): a mount or a Landlock rule binds an
// inode, not a spelling.
type Profile struct {
	Version int `json:"version"`
	// Mode is the policy's sandbox knob: "on" or "required". With
	// "required" a machine that cannot enforce every part refuses to run
	// the command instead of running it less confined.
	Mode string `json:"mode"`
	// Cwd is the command's working directory.
	Cwd string `json:"cwd"`
	// Write are the write roots; everything else is read-only.
	Write []Entry `json:"write"`
	// ReadOnly are paths inside the write roots that stay read-only,
	// whether they exist or not (one that does not is given a placeholder
	// for the command's lifetime).
	ReadOnly []Entry `json:"readOnly"`
	// Hidden are paths the command cannot read: a file is covered by an
	// empty read-only file, a directory by an empty unreadable one.
	Hidden []Entry `json:"hidden"`
	// Sockets are the socket folders and files hidden as Hidden is, so
	// that the command cannot reach processes outside through them.
	Sockets []Entry `json:"sockets"`
	// Absent are protected files that are not there yet and have no
	// placeholder (one would show in the work tree): one the command
	// creates is moved aside within absentPoll.
	Absent []Entry `json:"absent,omitempty"`
	// NetworkOff gives the command loopback only.
	NetworkOff bool `json:"networkOff"`
	// Unenforced says, in words, what this profile knows it does not make
	// the kernel enforce (a walk cut short by its bound, for instance).
	Unenforced []string `json:"unenforced,omitempty"`
}

// Validate reports the first thing wrong with p, naming it.
func (p *Profile) Validate() error {
	if p.Version != ProfileVersion {
		return fmt.Errorf("profile version %d, want %d", p.Version, ProfileVersion)
	}
	switch p.Mode {
	case "on", "required":
	default:
		return fmt.Errorf("profile mode %q, want \"on\" or \"required\"", p.Mode)
	}
	if !filepath.IsAbs(p.Cwd) {
		return fmt.Errorf("profile cwd %q is not absolute", p.Cwd)
	}
	for _, list := range []struct {
		name string
		es   []Entry
	}{{"write", p.Write}, {"readOnly", p.ReadOnly}, {"hidden", p.Hidden}, {"sockets", p.Sockets}, {"absent", p.Absent}} {
		for i, e := range list.es {
			if !filepath.IsAbs(e.Path) || filepath.Clean(e.Path) != e.Path || e.Path == "/" && list.name != "write" {
				return fmt.Errorf("profile %s[%d]: %q is not a clean absolute path", list.name, i, e.Path)
			}
		}
	}
	return nil
}

// WriteFile writes p to path, readable by its owner only (it names what
// the command may not touch and is read back by toolgate itself).
func (p *Profile) WriteFile(path string) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("write profile: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write profile %s: %w", path, err)
	}
	return f.Close()
}

// ReadProfile reads and validates a profile file. One that is not a
// regular file, is larger than maxProfile, can be written by others than
// its owner, or does not parse is an error: a confined command never runs
// from a profile it cannot trust.
func ReadProfile(path string) (*Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read profile: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read profile %s: %w", path, err)
	}
	if !info.Mode().IsRegular() || info.Size() > maxProfile {
		return nil, fmt.Errorf("read profile %s: not a regular file under %d bytes", path, maxProfile)
	}
	if info.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("read profile %s: writable by others (mode %v)", path, info.Mode().Perm())
	}
	data := make([]byte, info.Size())
	if _, err := f.ReadAt(data, 0); err != nil && int64(len(data)) != info.Size() {
		return nil, fmt.Errorf("read profile %s: %w", path, err)
	}
	return decodeProfile(path, data)
}

// maxProfile bounds a profile file (a walk's hidden files are bounded too).
const maxProfile = 16 << 20

func decodeProfile(where string, data []byte) (*Profile, error) {
	var p Profile
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("read profile %s: %w", where, err)
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("read profile %s: %w", where, err)
	}
	return &p, nil
}
