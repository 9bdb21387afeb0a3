-- Several `othello serve` processes on one database (replicas).

-- Each running server process: it renews `seen_at` (Unix ms) twice a second; one not seen for
-- ten seconds is gone, and the games its workers held (leases `local:<id>:<n>`) are queued again.
-- `live` is the games its workers are playing (JSON), for the other replicas' arena screens.
CREATE TABLE server_replicas (
    id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    seen_at INTEGER NOT NULL,
    live TEXT NOT NULL DEFAULT '[]'
);

-- Work one replica at a time does (the pool's calibration): held by a replica until it lapses.
CREATE TABLE server_leaders (
    role TEXT PRIMARY KEY,
    replica TEXT NOT NULL,
    expires_at INTEGER NOT NULL
);

-- Every upload's bytes, by content: any replica can play, serve or re-play a bot another one
-- took, and a backup of the database holds every bot.
CREATE TABLE server_upload_files (
    sha256 TEXT PRIMARY KEY,
    bytes BLOB NOT NULL,
    stored_at INTEGER NOT NULL
);

-- A counter bumped whenever something a page shows changed on any replica; each replica polls
-- it so its live pages follow the others' games.
CREATE TABLE server_change_counter (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
INSERT INTO server_change_counter (name, value) VALUES ('pages', 0);
