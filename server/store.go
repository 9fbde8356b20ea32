package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// schemaVersion is the store's schema; a file with a newer one is refused
// rather than misread.
const schemaVersion = 1

// schema creates the tables. A run is keyed by its content hash (the id),
// so a second post of the same code and settings finds it; the result is
// the record's JSON (record in runs.go) and the events are the run's JSON
// lines, gzip-compressed (a 4-rank all-reduce's few thousand events shrink
// about tenfold).
const schema = `
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
	id          TEXT PRIMARY KEY,
	code        TEXT NOT NULL,
	settings    TEXT NOT NULL,
	status      TEXT NOT NULL,
	result      TEXT NOT NULL,
	events      BLOB NOT NULL,
	event_count INTEGER NOT NULL,
	created     TEXT NOT NULL
);
`

// openStore opens path (creating it) in WAL mode, so readers (GET, replays)
// never wait for the one writer, and checks the schema version.
func openStore(path string) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("server: opening %s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	if err := migrate(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("server: %s: %w", path, err)
	}
	return db, nil
}

func migrate(db *sql.DB) error {
	if _, err := db.Exec(schema); err != nil {
		return err
	}
	var v int
	err := db.QueryRow(`SELECT version FROM schema_version`).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = db.Exec(`INSERT INTO schema_version (version) VALUES (?)`, schemaVersion)
		return err
	case err != nil:
		return err
	case v > schemaVersion:
		return fmt.Errorf("the run store has schema version %d, this workbench knows %d: use a newer workbench or another --data directory", v, schemaVersion)
	}
	return nil
}

// storedRun is one row of the runs table.
type storedRun struct {
	ID, Code, Settings, Status, Result, Created string
	Events                                      []byte // gzip-compressed JSON lines
	EventCount                                  int
}

// put writes a run in one transaction. A row already there (two servers,
// or a race the live map did not catch) is kept: same id, same content.
func putRun(ctx context.Context, db *sql.DB, r *storedRun) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `INSERT OR IGNORE INTO runs (id, code, settings, status, result, events, event_count, created)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, r.ID, r.Code, r.Settings, r.Status, r.Result, r.Events, r.EventCount, r.Created)
	if err != nil {
		return err
	}
	return tx.Commit()
}

// getRun reads a run; ok is false when the id is not stored.
func getRun(ctx context.Context, db *sql.DB, id string, withEvents bool) (*storedRun, bool, error) {
	r := &storedRun{ID: id}
	cols := `code, settings, status, result, event_count, created, x''`
	if withEvents {
		cols = `code, settings, status, result, event_count, created, events`
	}
	err := db.QueryRowContext(ctx, `SELECT `+cols+` FROM runs WHERE id = ?`, id).
		Scan(&r.Code, &r.Settings, &r.Status, &r.Result, &r.EventCount, &r.Created, &r.Events)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return r, true, nil
}

// hasRun reports whether id is stored.
func hasRun(ctx context.Context, db *sql.DB, id string) (bool, error) {
	var one int
	err := db.QueryRowContext(ctx, `SELECT 1 FROM runs WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// gzipLines compresses JSON lines.
func gzipLines(lines [][]byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for _, l := range lines {
		if _, err := zw.Write(l); err != nil {
			return nil, err
		}
		if _, err := zw.Write([]byte{'\n'}); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// gunzip decompresses a stored events blob.
func gunzip(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return io.ReadAll(zr)
}

// splitLines splits JSON lines, dropping the empty last one.
func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		if i > 0 {
			out = append(out, b[:i])
		}
		b = b[i+1:]
	}
	return out
}
