package author

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/hook"
	"github.com/toolgate/toolgate/policy"
)

// ErrAgentFile is EditFor's error for an agent file (.md): suggestions go
// into a JSON policy file.
var ErrAgentFile = errors.New("an agent file; choose a JSON policy file with --file")

// PolicyEdit is the edit that adds suggestions to a policy file: its
// content before and after, and how many rules it adds.
type PolicyEdit struct {
	Old, New []byte
	Adds     int
}

// EditFor is the edit that adds rep's suggestions as allow rules to the
// policy file target (absent: a new file). A file with errors is not
// edited, and an edit that would not parse is never made.
func EditFor(target string, rep SuggestReport) (PolicyEdit, error) {
	old, err := os.ReadFile(target)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return PolicyEdit{}, err
	}
	if strings.HasSuffix(target, ".md") {
		return PolicyEdit{}, fmt.Errorf("%s is %w", target, ErrAgentFile)
	}
	if len(old) > 0 {
		if pf := policy.ParseFile(target, old); len(pf.Errors) > 0 {
			return PolicyEdit{}, fmt.Errorf("%s has errors; fix them first (toolgate validate %s): %s", target, target, pf.Errors[0])
		}
	}
	var adds []policy.Addition
	for _, s := range rep.Suggestions {
		adds = append(adds, policy.Addition{Surface: s.Surface, Pattern: s.Pattern, Action: policy.Allow})
	}
	edit := PolicyEdit{Old: old, New: old, Adds: len(adds)}
	if len(adds) > 0 {
		if edit.New, err = policy.AddRules(old, adds); err != nil {
			return PolicyEdit{}, fmt.Errorf("%s: %v", target, err)
		}
		if pf := policy.ParseFile(target, edit.New); len(pf.Errors) > 0 {
			// Cannot happen for a file that parsed; never write one that does not.
			return PolicyEdit{}, fmt.Errorf("the edited %s would not be valid: %s", target, pf.Errors[0])
		}
	}
	return edit, nil
}

// ProjectOf reports whether target is one of the project-scope policy
// files of the project at cwd, and that project's folder.
func ProjectOf(target, cwd string) (string, bool) {
	for _, p := range []string{policy.ProjectPath(cwd), policy.ToolgateProjectPath(cwd), policy.LegacyProjectPath(cwd)} {
		if filepath.Clean(target) == p {
			return cwd, true
		}
	}
	if filepath.Dir(filepath.Clean(target)) == filepath.Join(cwd, ".pi", "agents") {
		return cwd, true
	}
	return "", false
}

// ProjectRoot is the root of the project whose policy file path is (the
// folder holding its .toolgate or .pi folder), "" when path is no
// project's policy file. A project's file is shared with the project, so
// it must hold no absolute path.
func ProjectRoot(path string) string {
	for _, tail := range []string{
		filepath.Join(".toolgate", "config.json"),
		filepath.Join(".pi", "extensions", "pi-permission-system", "config.json"),
	} {
		if strings.HasSuffix(path, string(filepath.Separator)+tail) {
			return strings.TrimSuffix(path, string(filepath.Separator)+tail)
		}
	}
	return ""
}

// UsedBySessions reports whether path is one of the policy files a session
// in the current directory reads.
func UsedBySessions(opts hook.Options, path string) bool {
	for _, s := range PolicySources(opts).Sources {
		if s.Path == path {
			return true
		}
	}
	return false
}

// WriteFileAtomic replaces path with data through a temporary file in the
// same folder (a reader never sees half a policy), keeping its mode.
func WriteFileAtomic(path string, data []byte) error {
	mode := fs.FileMode(0o600)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".toolgate-suggest-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
