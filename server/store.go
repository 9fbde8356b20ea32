package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sync"

	"github.com/klauspost/compress/s2"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// schemaVersion is the store's schema; a file with a newer one is refused
// rather than misread. Version 1 kept a run's events in one blob; version
// 2 keeps them in pages (run_events) and records each run's size and
// whether it is pinned; version 3 keeps each distinct program text once
// (codes), since every run of a step stores the same few kilobytes of
// code, a third of a stored run's bytes; version 4 writes a run's result
// compressed (compressResult); migrate upgrades older files in place.
const schemaVersion = 4

// schema creates the tables of a new store. A run is keyed by its content
// hash (the id), so a second post of the same code and settings finds it;
// the result is the record's JSON (record in runs.go, outputs capped) and
// the events are pages of limits.EventPage JSON lines, each page
// compressed (compressLines: a 4-rank all-reduce's events shrink six- to
// tenfold), so a reader holds one page at a time. runs.events is the
// version 1 blob, and since version 3 the one page of a run that has one
// (pages is 0 then, as in a version 1 row). A run's code is the codes
// row its code_hash (the SHA-256 of the text) names; runs.code holds it
// only in rows written before version 3 (their code_hash is empty). size
// is what the row and its pages take, for the store budget (the codes
// are counted on their own); pinned runs (their link was shown) are never
// evicted.
const schema = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE runs (
	id          TEXT PRIMARY KEY,
	code        TEXT NOT NULL,
	settings    TEXT NOT NULL,
	status      TEXT NOT NULL,
	result      TEXT NOT NULL,
	events      BLOB NOT NULL,
	event_count INTEGER NOT NULL,
	created     TEXT NOT NULL,
	size        INTEGER NOT NULL DEFAULT 0,
	pinned      INTEGER NOT NULL DEFAULT 0,
	pages       INTEGER NOT NULL DEFAULT 0,
	code_hash   BLOB NOT NULL DEFAULT x''
);
CREATE TABLE run_events (
	run_id TEXT NOT NULL,
	page   INTEGER NOT NULL,
	count  INTEGER NOT NULL,
	data   BLOB NOT NULL,
	PRIMARY KEY (run_id, page)
) WITHOUT ROWID;
` + codesTable

// codesTable is version 3's table of program texts, and the index
// eviction uses to find a code no run names any more.
const codesTable = `
CREATE TABLE codes (
	hash BLOB PRIMARY KEY,
	code TEXT NOT NULL
);
CREATE INDEX runs_code_hash ON runs (code_hash);
`

// migrateV2 upgrades a version 2 store: its rows keep their code where it
// is (nothing is rewritten, so a large store opens at once and every
// share link answers as before); new rows name theirs in codes.
const migrateV2 = `
ALTER TABLE runs ADD COLUMN code_hash BLOB NOT NULL DEFAULT x'';
` + codesTable + `
UPDATE schema_version SET version = 3;
`

// migrateV3 upgrades a version 3 store: its results stay as they are
// (plain JSON, read as such); new rows' results are compressed, which a
// version 3 workbench would misread, hence the version.
const migrateV3 = `
UPDATE schema_version SET version = 4;
`

// migrateV1 upgrades a version 1 store: its runs keep their one-blob
// events (read as one page) and are pinned, since nothing recorded which
// of their links were shown.
const migrateV1 = `
ALTER TABLE runs ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN pages INTEGER NOT NULL DEFAULT 0;
UPDATE runs SET size = length(code) + length(result) + length(events), pinned = 1;
CREATE TABLE run_events (
	run_id TEXT NOT NULL,
	page   INTEGER NOT NULL,
	count  INTEGER NOT NULL,
	data   BLOB NOT NULL,
	PRIMARY KEY (run_id, page)
) WITHOUT ROWID;
UPDATE schema_version SET version = 2;
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

// migrate creates a new store's tables or upgrades an old one, in one
// transaction either way.
func migrate(db *sql.DB) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'`).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		if _, err := tx.Exec(schema); err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO schema_version (version) VALUES (?)`, schemaVersion); err != nil {
			return err
		}
		return tx.Commit()
	}
	var v int
	err = tx.QueryRow(`SELECT version FROM schema_version`).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return errors.New("the run store has no schema version: use another --data directory")
	case err != nil:
		return err
	case v > schemaVersion:
		return fmt.Errorf("the run store has schema version %d, this workbench knows %d: use a newer workbench or another --data directory", v, schemaVersion)
	}
	if v == 1 {
		if _, err := tx.Exec(migrateV1); err != nil {
			return fmt.Errorf("upgrading the run store from version 1: %w", err)
		}
		v = 2
	}
	if v == 2 {
		if _, err := tx.Exec(migrateV2); err != nil {
			return fmt.Errorf("upgrading the run store from version 2: %w", err)
		}
		v = 3
	}
	if v == 3 {
		if _, err := tx.Exec(migrateV3); err != nil {
			return fmt.Errorf("upgrading the run store from version 3: %w", err)
		}
	}
	return tx.Commit()
}

// prepared is db's statement for query, prepared once and kept: SQLite's
// parser was a tenth of the server's CPU per run when every call
// prepared its statement again (database/sql keeps the statement
// prepared on each pooled connection it has been used on). The cache is
// keyed by the *sql.DB, which a server opens once.
func prepared(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	key := stmtKey{db, query}
	if st, ok := stmts.Load(key); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if prev, loaded := stmts.LoadOrStore(key, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

type stmtKey struct {
	db    *sql.DB
	query string
}

var stmts sync.Map // stmtKey → *sql.Stmt

// forgetStatements closes and drops db's prepared statements (Server.Shutdown,
// before db.Close).
func forgetStatements(db *sql.DB) {
	stmts.Range(func(k, v any) bool {
		if k.(stmtKey).db == db {
			v.(*sql.Stmt).Close()
			stmts.Delete(k)
		}
		return true
	})
}

// queryRow is db.QueryRowContext through a prepared statement.
func queryRow(ctx context.Context, db *sql.DB, query string, args ...any) (*sql.Row, error) {
	st, err := prepared(ctx, db, query)
	if err != nil {
		return nil, err
	}
	return st.QueryRowContext(ctx, args...), nil
}

// storedRun is one row of the runs table.
type storedRun struct {
	ID, Code, Settings, Status, Created string
	Result                              string // the record's JSON (stored compressed since version 4)
	Legacy                              []byte // a version 1 row's events blob (gzip-compressed JSON lines)
	CodeHash                            []byte // codeHash(Code) when the writer has it (putRunTx), else nil
	EventCount, Pages                   int
	Pinned                              bool
}

// page is one stored page of events: its count and its gzip-compressed
// JSON lines.
type page struct {
	count int
	data  []byte
}

// putRunTx writes a run and its pages in tx; next yields the pages in
// order (nil data: no more). A row already there (two servers, or a race
// the live map did not catch) is kept: same id, same content. The pages
// are made before the row is written, so the row carries its size and
// page count in one statement. The code goes into codes unless its text
// is there already; the size returned counts it only then. The record
// is result, its JSON (r.Result is not read).
func putRunTx(ctx context.Context, tx writeTx, r *storedRun, result []byte, next func() (page, error)) (size int64, err error) {
	var pages []page
	result = compressResult(result)
	size = int64(len(r.Settings) + len(result))
	for {
		p, err := next()
		if err != nil {
			return 0, err
		}
		if p.data == nil {
			break
		}
		pages = append(pages, p)
		size += int64(len(p.data))
	}
	// One page (most runs) stays in the row, as version 1 kept its one
	// blob (pages 0): a run_events row was another B-tree written per
	// run, a tenth of the server's CPU per run.
	inline, npages := []byte{}, len(pages)
	if len(pages) == 1 {
		inline, npages, pages = pages[0].data, 0, nil
	}
	hash := r.CodeHash
	if hash == nil {
		hash = codeHash(r.Code)
	}
	res, err := tx.exec(ctx, `INSERT OR IGNORE INTO runs (id, code, settings, status, result, events, event_count, created, pinned, size, pages, code_hash)
		VALUES (?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.ID, r.Settings, r.Status, result, inline, r.EventCount, r.Created, r.Pinned, size, npages, hash)
	if err != nil {
		return 0, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return 0, nil
	}
	if res, err = tx.exec(ctx, `INSERT OR IGNORE INTO codes (hash, code) VALUES (?, ?)`, hash, r.Code); err != nil {
		return 0, err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		size += int64(len(r.Code))
	}
	for i, p := range pages {
		if _, err := tx.exec(ctx, `INSERT INTO run_events (run_id, page, count, data) VALUES (?, ?, ?, ?)`,
			r.ID, i, p.count, p.data); err != nil {
			return 0, err
		}
	}
	return size, nil
}

// codeHash is the key of a program text in codes.
func codeHash(code string) []byte {
	h := sha256.Sum256([]byte(code))
	return h[:]
}

// storeSize is what the runs and the codes take, for the store budget.
func storeSize(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int64, error) {
	var total sql.NullInt64
	err := q.QueryRowContext(ctx, `SELECT (SELECT coalesce(sum(size), 0) FROM runs) + (SELECT coalesce(sum(length(code)), 0) FROM codes)`).Scan(&total)
	return total.Int64, err
}

// evict deletes the oldest unpinned runs, other than those in keep (the
// runs just written, whose links are about to be sent), while the store is over budget
// bytes, and the codes no run names any more; it returns the ids it
// deleted and the store's size after.
func evict(ctx context.Context, db *sql.DB, budget int64, keep map[string]bool) ([]string, int64, error) {
	total, err := storeSize(ctx, db)
	if err != nil {
		return nil, 0, err
	}
	over := total - budget
	if over <= 0 {
		return nil, total, nil
	}
	rows, err := db.QueryContext(ctx, `SELECT id, size, code_hash FROM runs WHERE pinned = 0 ORDER BY rowid`)
	if err != nil {
		return nil, 0, err
	}
	var ids []string
	var hashes [][]byte
	for rows.Next() && over > 0 {
		var id string
		var size int64
		var hash []byte
		if err := rows.Scan(&id, &size, &hash); err != nil {
			rows.Close()
			return nil, 0, err
		}
		if keep[id] {
			continue
		}
		ids = append(ids, id)
		if len(hash) > 0 {
			hashes = append(hashes, hash)
		}
		over -= size
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback()
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `DELETE FROM run_events WHERE run_id = ?`, id); err != nil {
			return nil, 0, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE id = ?`, id); err != nil {
			return nil, 0, err
		}
	}
	for _, h := range hashes {
		if _, err := tx.ExecContext(ctx, `DELETE FROM codes WHERE hash = ? AND NOT EXISTS (SELECT 1 FROM runs WHERE code_hash = ?)`, h, h); err != nil {
			return nil, 0, err
		}
	}
	if total, err = storeSize(ctx, tx); err != nil {
		return nil, 0, err
	}
	return ids, total, tx.Commit()
}

// getRun reads a run without its events; ok is false when the id is not
// stored.
func getRun(ctx context.Context, db *sql.DB, id string) (*storedRun, bool, error) {
	r := &storedRun{ID: id}
	row, err := queryRow(ctx, db, `SELECT coalesce(c.code, r.code), r.settings, r.status, r.result, r.event_count, r.created, r.pages, r.pinned
		FROM runs r LEFT JOIN codes c ON c.hash = r.code_hash WHERE r.id = ?`, id)
	if err != nil {
		return nil, false, err
	}
	var result []byte
	err = row.Scan(&r.Code, &r.Settings, &r.Status, &result, &r.EventCount, &r.Created, &r.Pages, &r.Pinned)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if r.Result, err = decompressResult(result); err != nil {
		return nil, false, fmt.Errorf("run %s: stored result: %w", id, err)
	}
	return r, true, nil
}

// getPage reads page n of a run's events as JSON lines. A version 1 row
// (no pages) has its whole blob as page 0.
func getPage(ctx context.Context, db *sql.DB, sr *storedRun, n int) ([][]byte, error) {
	var blob []byte
	if sr.Pages == 0 {
		if n > 0 {
			return nil, nil
		}
		row, err := queryRow(ctx, db, `SELECT events FROM runs WHERE id = ?`, sr.ID)
		if err == nil {
			err = row.Scan(&blob)
		}
		if err != nil {
			return nil, fmt.Errorf("run %s: stored events: %w", sr.ID, err)
		}
	} else {
		if n >= sr.Pages {
			return nil, nil
		}
		row, err := queryRow(ctx, db, `SELECT data FROM run_events WHERE run_id = ? AND page = ?`, sr.ID, n)
		if err == nil {
			err = row.Scan(&blob)
		}
		if err != nil {
			return nil, fmt.Errorf("run %s: stored events page %d: %w", sr.ID, n, err)
		}
	}
	raw, err := decompressPage(blob)
	if err != nil {
		return nil, fmt.Errorf("run %s: stored events page %d: %w", sr.ID, n, err)
	}
	return withCategories(splitLines(raw)), nil
}

// hasRun reports whether id is stored.
func hasRun(ctx context.Context, db *sql.DB, id string) (bool, error) {
	var one int
	row, err := queryRow(ctx, db, `SELECT 1 FROM runs WHERE id = ?`, id)
	if err != nil {
		return false, err
	}
	err = row.Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// A page of events is stored compressed. Since schema version 3 it is
// S2 (klauspost/compress/s2, a Snappy successor, already built in through
// fasthttp), marked by s2Page: a step-8 run's page of 15 KB took 4.6 µs
// to compress to 2.3 KB, where gzip at its fastest level took 21–53 µs
// (klauspost's and compress/gzip's) for 1.7 KB, and on the path every
// run takes that was a tenth of the server's CPU per run. Pages written
// before are gzip (they begin 1f 8b, never s2Page's first byte) and read
// as they were.
const s2Page = "\x00S2"

// pageBufs holds the buffers a page's lines are joined in before
// compression.
var pageBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// compressLines compresses JSON lines into a stored page.
func compressLines(lines [][]byte) []byte {
	raw := pageBufs.Get().(*bytes.Buffer)
	defer pageBufs.Put(raw)
	raw.Reset()
	for _, l := range lines {
		raw.Write(l)
		raw.WriteByte('\n')
	}
	return s2Blob(raw.Bytes())
}

// s2Scratch holds the buffers S2 encodes into (s2Blob).
var s2Scratch = sync.Pool{New: func() any { return new([]byte) }}

// s2Blob is src compressed behind s2Page. It is encoded into a pooled
// buffer of S2's bound and copied out at its size: the bound (a sixth
// more than src) allocated per page and per record was most of what a
// run's store write allocated, for blobs a sixth to a third of src.
func s2Blob(src []byte) []byte {
	sp := s2Scratch.Get().(*[]byte)
	defer s2Scratch.Put(sp)
	n := s2.MaxEncodedLen(len(src))
	if cap(*sp) < n {
		*sp = make([]byte, n)
	}
	enc := s2.Encode((*sp)[:n], src)
	out := make([]byte, len(s2Page)+len(enc))
	copy(out, s2Page)
	copy(out[len(s2Page):], enc)
	return out
}

// compressResult is a record's JSON as stored since version 4: S2 behind
// s2Page, as a page. A step-8 run's record (its outputs and the golden's
// values beside them, 8.6 KB) took three overflow pages of SQLite's 4 KiB
// beside its row; compressed (2.4 KB, in 6 µs) it takes one, and each
// page was two writes to the WAL at the commit and one more at the
// checkpoint.
func compressResult(js []byte) []byte { return s2Blob(js) }

// decompressResult reads a stored result: compressed since version 4,
// JSON text before (it begins with '{', never s2Page's first byte).
func decompressResult(b []byte) (string, error) {
	rest, ok := bytes.CutPrefix(b, []byte(s2Page))
	if !ok {
		return string(b), nil
	}
	js, err := s2.Decode(nil, rest)
	return string(js), err
}

// decompressPage decompresses a stored page of either format.
func decompressPage(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, nil
	}
	if rest, ok := bytes.CutPrefix(b, []byte(s2Page)); ok {
		return s2.Decode(nil, rest)
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
