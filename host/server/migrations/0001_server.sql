-- The contest server's tables, beside the ladder's (entries, games, snapshots, settings): one
-- script for SQLite and PostgreSQL (the layer gives PostgreSQL its types: an INTEGER is a
-- BIGINT, a REAL a DOUBLE PRECISION, an INTEGER PRIMARY KEY an identity column). A file from
-- before migrations were recorded (server schema 1 to 3) is brought to this by the old steps
-- first and then counted as at this migration.

-- Entrants (tokens stored as SHA-256 hashes), their uploads (content-addressed files), the
-- check reports and the job queue.
CREATE TABLE server_entrants (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL UNIQUE,           -- SHA-256 of the token, hex; the token itself is never stored
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
CREATE TABLE server_uploads (
    id INTEGER PRIMARY KEY,
    entrant INTEGER NOT NULL REFERENCES server_entrants(id),
    sha256 TEXT NOT NULL,
    file_name TEXT NOT NULL,
    path TEXT NOT NULL,                        -- uploads/<sha256>/<file name>, in a folder of its own
    size INTEGER NOT NULL,
    uploaded_at INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued', 'checking', 'rating', 'rated', 'rejected')),
    reason TEXT,                               -- why it was rejected, or why its placement stopped
    report TEXT,                               -- the check report, JSON
    entry INTEGER REFERENCES entries(id)       -- its ladder entry once checked
);
CREATE INDEX server_uploads_by_entrant ON server_uploads(entrant, uploaded_at);
-- Checks first, then placement pairs, then (when nothing else waits) refresh pairs of the rated
-- bots, and test games; `lease` names who holds a running job, until `lease_expires`.
CREATE TABLE server_jobs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('check', 'pair', 'refresh', 'test')),
    upload INTEGER NOT NULL REFERENCES server_uploads(id),
    number INTEGER NOT NULL DEFAULT 0,         -- the pair's number in the upload's placement; a test: its id
    state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done')),
    lease TEXT,
    lease_expires INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    finished_at INTEGER,
    UNIQUE (upload, kind, number)
);
CREATE INDEX server_jobs_queue ON server_jobs(state, kind, id);
-- Which job played which ladder game: written in the game's own transaction, so a job played
-- again after a crash records each of its games once.
CREATE TABLE server_job_games (
    job INTEGER NOT NULL REFERENCES server_jobs(id),
    slot INTEGER NOT NULL,
    game INTEGER NOT NULL REFERENCES games(id),
    time_limit_ms INTEGER,                     -- the limit it was played at (NULL: none)
    time_known INTEGER NOT NULL DEFAULT 0,     -- 1 once time_limit_ms was recorded with the game
    PRIMARY KEY (job, slot)
);

-- Finals: a round robin or a knockout of the entrants' chosen versions.
CREATE TABLE server_finals (
    id INTEGER PRIMARY KEY,
    format TEXT NOT NULL CHECK (format IN ('round-robin', 'knockout')),
    games_per_pair INTEGER NOT NULL,           -- even: each opening is played with colours swapped
    time_ms INTEGER,                           -- per move; NULL = no limit
    seed INTEGER NOT NULL,                     -- of the openings
    started_at INTEGER NOT NULL,
    finished_at INTEGER
);
CREATE TABLE server_final_bots (
    final INTEGER NOT NULL REFERENCES server_finals(id),
    seed INTEGER NOT NULL,
    upload INTEGER NOT NULL REFERENCES server_uploads(id),
    entry INTEGER NOT NULL REFERENCES entries(id),
    name TEXT NOT NULL,
    entrant TEXT NOT NULL,
    PRIMARY KEY (final, seed)
);
CREATE TABLE server_final_games (
    id INTEGER PRIMARY KEY,
    final INTEGER NOT NULL REFERENCES server_finals(id),
    round INTEGER NOT NULL,                    -- 1 for a round robin; a knockout's round
    match_no INTEGER NOT NULL,                 -- the pairing: its place in the round
    number INTEGER NOT NULL,                   -- the game in the pairing: 2k and 2k+1 share opening k
    black INTEGER NOT NULL,                    -- seeds
    white INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done')),
    lease TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    game INTEGER REFERENCES games(id),
    black_score REAL,
    black_discs INTEGER,
    white_discs INTEGER,
    failed INTEGER,                            -- the seed that lost by a failure, if one did
    finished_at INTEGER,
    UNIQUE (final, round, match_no, number)
);
CREATE INDEX server_final_games_queue ON server_final_games(final, state, id);

-- Remote workers, their leases and what they reported.
CREATE TABLE server_workers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL UNIQUE,           -- SHA-256 of the token, hex, as for entrants
    created_at INTEGER NOT NULL,
    revoked_at INTEGER,
    host TEXT,                                 -- what the worker said at its last claim
    cores INTEGER,
    last_seen INTEGER,
    games INTEGER NOT NULL DEFAULT 0           -- games it played that counted
);
CREATE TABLE server_leases (
    id TEXT PRIMARY KEY,
    job INTEGER NOT NULL REFERENCES server_jobs(id),
    worker INTEGER NOT NULL REFERENCES server_workers(id),
    plan TEXT NOT NULL,                        -- what the server decided the job plays, JSON
    issued_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,               -- Unix ms
    state TEXT NOT NULL DEFAULT 'active'
        CHECK (state IN ('active', 'submitted', 'released', 'refused', 'dropped')),
    result_sha256 TEXT                         -- of the accepted result: the same one again is harmless
);
CREATE INDEX server_leases_by_worker ON server_leases(worker, state);
CREATE TABLE server_load_verdicts (
    job INTEGER NOT NULL REFERENCES server_jobs(id),
    worker INTEGER NOT NULL REFERENCES server_workers(id),
    reason TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (job, worker)
);
CREATE TABLE server_worker_games (
    game INTEGER NOT NULL PRIMARY KEY REFERENCES games(id),
    worker INTEGER NOT NULL REFERENCES server_workers(id),
    job INTEGER NOT NULL,
    subject INTEGER NOT NULL                   -- the entry the job was for (the plan's first bot)
);
CREATE INDEX server_worker_games_by_worker ON server_worker_games(worker);
CREATE TABLE server_worker_refusals (
    id INTEGER PRIMARY KEY,
    worker INTEGER REFERENCES server_workers(id),
    lease TEXT,
    job INTEGER,
    reason TEXT NOT NULL,
    at INTEGER NOT NULL
);
-- Every re-play of a worker's pair: whether its moves were the server's, and the first difference.
CREATE TABLE server_worker_replays (
    worker INTEGER NOT NULL REFERENCES server_workers(id),
    job INTEGER NOT NULL,
    lease TEXT NOT NULL,
    matched INTEGER NOT NULL,
    detail TEXT NOT NULL,
    at INTEGER NOT NULL
);

-- Unrated test games an entrant asks for, and their records.
CREATE TABLE server_test_games (
    id INTEGER PRIMARY KEY,
    entrant INTEGER NOT NULL REFERENCES server_entrants(id),
    upload INTEGER NOT NULL REFERENCES server_uploads(id),
    opponent INTEGER NOT NULL REFERENCES entries(id),   -- a ladder entry
    state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done')),
    lease TEXT,
    reason TEXT,                                        -- why it could not be played
    requested_at INTEGER NOT NULL,
    finished_at INTEGER
);
CREATE INDEX server_test_games_queue ON server_test_games(state, id);
CREATE INDEX server_test_games_by_entrant ON server_test_games(entrant, requested_at);
CREATE TABLE server_test_game_records (
    id INTEGER PRIMARY KEY,
    test INTEGER NOT NULL REFERENCES server_test_games(id),
    slot INTEGER NOT NULL,
    black TEXT NOT NULL,
    white TEXT NOT NULL,
    black_score REAL NOT NULL,
    termination TEXT NOT NULL,
    played_at INTEGER NOT NULL,
    ggf TEXT NOT NULL,
    UNIQUE (test, slot)
);

-- Uploads refused before they were stored (they count toward the hourly limit).
CREATE TABLE server_refused_uploads (
    id INTEGER PRIMARY KEY,
    entrant INTEGER NOT NULL REFERENCES server_entrants(id),
    reason TEXT NOT NULL,
    at INTEGER NOT NULL
);
CREATE INDEX server_refused_uploads_by_entrant ON server_refused_uploads(entrant, at);
-- The version an entrant chose to count (none: the newest).
CREATE TABLE server_chosen_versions (
    entrant INTEGER NOT NULL PRIMARY KEY REFERENCES server_entrants(id),
    upload INTEGER NOT NULL REFERENCES server_uploads(id)
);
-- Copies of another entrant's file: refused, or entered on their own, as the organiser chose.
CREATE TABLE server_copies (
    id INTEGER PRIMARY KEY,
    entrant INTEGER NOT NULL REFERENCES server_entrants(id),
    sha256 TEXT NOT NULL,
    original TEXT NOT NULL,                    -- whose file it is, in words
    at INTEGER NOT NULL,
    entered INTEGER NOT NULL DEFAULT 0         -- 1: entered as an entry of its own; 0: refused
);
-- Login sessions (the cookie holds the id; only its hash is kept).
CREATE TABLE server_sessions (
    id_hash TEXT PRIMARY KEY,                  -- SHA-256 of the cookie's session id, hex
    kind TEXT NOT NULL CHECK (kind IN ('entrant', 'admin')),
    holder INTEGER NOT NULL,                   -- the entrant's id (0 for the organiser)
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL                -- Unix seconds
);
CREATE INDEX server_sessions_by_holder ON server_sessions(kind, holder);

-- Programs that predate recorded migrations read this and refuse the file, as it is newer.
INSERT INTO settings (key, value) VALUES ('server_schema', '4')
    ON CONFLICT (key) DO UPDATE SET value = excluded.value;
