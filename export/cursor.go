package export

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	json "github.com/goccy/go-json"
)

// CursorPath is the export cursor of the log at path.
func CursorPath(log string) string { return log + ".export.cursor" }

// LockPath is the lock a sender of the log at path holds.
func LockPath(log string) string { return log + ".export.lock" }

// Cursor is what the collector acknowledged of one log: the log's identity
// (device, inode, first record's hash) and the last acknowledged record
// (its seq and hash, and the offset just past its line). It also keeps
// what a later process needs to go on as one sender: the counts, and an
// outage in progress.
type Cursor struct {
	Version int    `json:"version"`
	LogID   string `json:"logId"`
	Device  uint64 `json:"device"`
	Inode   uint64 `json:"inode"`
	First   string `json:"firstHash"`
	Seq     uint64 `json:"seq"`
	Hash    string `json:"hash"`
	Offset  int64  `json:"offset"`
	// Sent counts the records acknowledged under this cursor, Rejected
	// those of them a collector said it rejected (partial_success).
	Sent     uint64  `json:"sent"`
	Rejected uint64  `json:"rejected"`
	Outage   *Outage `json:"outage,omitempty"`
}

// Outage is a run of failed attempts to send: it becomes one
// export_failed record when a send succeeds again.
type Outage struct {
	Since      time.Time `json:"since"`
	Attempts   int       `json:"attempts"`
	FirstError string    `json:"firstError"`
	LastError  string    `json:"lastError"`
	// RetryAt is when the next attempt may be made (back-off, or the
	// collector's Retry-After): a hook does not start a drain before.
	RetryAt time.Time `json:"retryAt"`
}

const cursorVersion = 1

// LogID is the identity of a log as records carry it (toolgate.log_id):
// a hash of its device, inode and first record's hash.
func LogID(dev, ino uint64, first string) string {
	sum := sha256.Sum256([]byte(strconv.FormatUint(dev, 10) + ":" + strconv.FormatUint(ino, 10) + ":" + first))
	return hex.EncodeToString(sum[:16])
}

// ReadCursor reads the cursor of the log at path: nil, nil when there is
// none. A cursor that cannot be read as one is an error: the caller starts
// again from the log's first record (delivery is at least once).
func ReadCursor(log string) (*Cursor, error) {
	b, err := os.ReadFile(CursorPath(log))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c Cursor
	if err := json.Unmarshal(b, &c); err != nil || c.Version != cursorVersion || c.Offset < 0 {
		return nil, fmt.Errorf("the export cursor %s is not a cursor toolgate wrote", CursorPath(log))
	}
	return &c, nil
}

// writeCursor replaces the cursor atomically: a new file renamed over the
// old one, so a reader sees the old cursor or the new, never half of one.
// It is not synced: a cursor that a crash takes back to an older one, or
// leaves unreadable, costs records sent again, never records lost (and a
// sync per batch would cost every batch a disk flush).
func writeCursor(log string, c *Cursor) error {
	c.Version = cursorVersion
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	path := CursorPath(log)
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("cannot write the export cursor %s: %w", path, err)
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("cannot write the export cursor %s: %w", path, err)
	}
	return nil
}
