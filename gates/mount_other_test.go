//go:build !linux

package gates

import "errors"

// mountTmpfs: mounts are Linux's here.
func mountTmpfs(dir string) error { return errors.ErrUnsupported }

func unmount(dir string, lazy bool) error { return errors.ErrUnsupported }
