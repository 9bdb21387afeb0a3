//! The service layer: what the web handlers ask of the ladder and the server's tables, with the
//! rules (who may see what, size and rate limits, the library check) in one place. Every method
//! blocks (SQLite, files): handlers call it through `spawn_blocking`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use othello_db::Db;
use serde::Serialize;

use othello_arena::ggf;
use othello_arena::record::unix_now;
use othello_ladder::{Ladder, leaderboard};
use othello_sdk::Color;

use crate::config::Config;
use crate::plan::CheckReport;
use crate::shared::Shared;
use crate::store::{self, Entrant, Status, Upload};
pub use browser::{BrowserBot, PlaySetup, WasmGame};

mod browser;
pub mod entries;
pub mod finals;
mod history;
pub mod inspect;
pub mod limits;
pub mod organiser;
mod testing;

pub use history::History;
pub use testing::TestRequested;

/// A refusal, with the HTTP status it is answered with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub message: String,
}

impl Refusal {
    pub fn new(status: u16, message: impl Into<String>) -> Refusal {
        Refusal { status, message: message.into() }
    }

    /// The server's own failure (the database, the disk): 500 with what went wrong.
    pub fn internal(message: impl ToString) -> Refusal {
        Refusal { status: 500, message: message.to_string() }
    }
}

impl From<crate::store::Error> for Refusal {
    fn from(e: crate::store::Error) -> Refusal {
        Refusal::internal(e)
    }
}

/// One line of the leaderboard.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoardRow {
    pub rank: Option<usize>,
    /// The ladder entry.
    pub entry: i64,
    pub name: String,
    /// The entrant who uploaded it (`None` for the organiser's pool).
    pub entrant: Option<String>,
    /// The upload's id (its page is `/bots/{bot}` for its entrant).
    pub bot: Option<i64>,
    pub version: u32,
    pub hash: String,
    pub rating: Option<f64>,
    /// Half-width of the 95 % interval from the anchor, in Elo.
    pub error: Option<f64>,
    /// Half-width of the 95 % interval among its opponents (their ratings held fixed).
    pub placement_error: Option<f64>,
    /// The rating in the project's one Elo format (`+312.0 ± 45.0`, `+0.0 (anchor)`, `every game
    /// failed`, `unrated`), as every page shows it.
    pub rating_text: String,
    /// It lost every game by a failure: ranked last, with no rating.
    pub failing: bool,
    pub games: u64,
    pub points: f64,
    pub score: Option<f64>,
    pub failures: u64,
    pub last_played: Option<u64>,
    pub anchor: bool,
}

/// An upload as its entrant sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BotView {
    /// The upload (its `id`, `status`, `reason`, file and entrant).
    #[serde(flatten)]
    pub upload: Upload,
    pub report: Option<CheckReport>,
    /// The bot's name (from its check).
    pub name: Option<String>,
    pub rank: Option<usize>,
    pub rating: Option<f64>,
    pub error: Option<f64>,
    /// The rating in the one Elo format (see [`BoardRow::rating_text`]).
    pub rating_text: String,
    pub games: u64,
    pub points: f64,
    pub failures: u64,
}

/// One game in a list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GameSummary {
    /// A ladder game's id (`/games/{id}`), or a test game's (`/test-games/{id}`).
    pub id: i64,
    /// `rated` (a ladder game) or `test` (an unrated test game).
    pub kind: &'static str,
    pub black: String,
    pub white: String,
    /// `1-0`, `0-1` or `½-½`.
    pub result: String,
    pub termination: String,
    pub played_at: u64,
    /// The result in words, winner first, with the discs: `White wins 40–24`, `Draw 32–32`.
    pub outcome: String,
    /// How it ended, in words: `played out`, `crash by Black`, `timeout by White`,
    /// `illegal move by Black`, `resignation by White` … (see [`ending_text`]).
    pub ending: String,
}

impl GameSummary {
    /// A game of the list, its outcome read from its record (the discs are only there).
    pub fn new(
        id: i64,
        kind: &'static str,
        names: [String; 2],
        black_score: f64,
        termination: String,
        played_at: u64,
        ggf_text: &str,
    ) -> GameSummary {
        let discs = ggf::read_games(ggf_text).ok().and_then(|games| games.into_iter().next()).map(|g| g.result.discs);
        let [black, white] = names;
        GameSummary {
            id,
            kind,
            outcome: outcome_text(black_score, discs),
            ending: ending_text(&termination, black_score),
            black,
            white,
            result: result_text(black_score),
            termination,
            played_at,
        }
    }
}

pub use crate::shared::live::{ending_text, outcome_text};

/// Games a bot's page lists at once (older ones on the next pages).
pub const GAMES_PER_PAGE: u64 = 50;

/// One page of a bot's rated games, newest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GamesPage {
    pub games: Vec<GameSummary>,
    /// The page shown, from 1.
    pub page: u64,
    pub pages: u64,
    /// Rated games in all.
    pub total: u64,
}

/// A bot of the leaderboard as anyone sees it (`/entries/{entry}`): its row and its rated games,
/// never its file, check output or test games.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PublicBot {
    pub row: BoardRow,
    pub games: GamesPage,
}

/// One move of a replay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayMove {
    pub color: char,
    /// `d3` or `pass`.
    #[serde(rename = "move")]
    pub mv: String,
    pub ms: f64,
    /// The mover's evaluation in discs, when the bot gave one.
    pub eval: Option<f64>,
}

/// A whole game for the replay page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Replay {
    pub id: i64,
    pub black: String,
    pub white: String,
    /// The entrant of each side's bot (`None` for the organiser's pool, and for test games).
    pub black_entrant: Option<String>,
    pub white_entrant: Option<String>,
    pub result: String,
    pub termination: String,
    pub detail: String,
    /// The result in words, winner first (see [`outcome_text`]).
    pub outcome: String,
    /// How it ended, in words (see [`ending_text`]).
    pub ending: String,
    /// The board before each move and after the last: 64 characters `X`, `O`, `-` (a1, b1 … h8)
    /// and the side to move.
    pub positions: Vec<String>,
    pub moves: Vec<ReplayMove>,
    pub time_limit_ms: Option<u64>,
    /// The clock the time limit was counted on: `cpu`, `wall`, or `fuel` (two WebAssembly
    /// bots); `None` for a game recorded before games carried it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<&'static str>,
    /// Both bots' modules, when both are WebAssembly bots: what a browser needs to play the game
    /// again (the game page's "Re-compute in this browser").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wasm: Option<WasmGame>,
}

/// What an upload led to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Accepted {
    pub id: i64,
    pub status: Status,
    pub sha256: String,
    /// The same file was uploaded before by this entrant: this is that upload.
    pub duplicate: bool,
    /// For a duplicate: what it is (its version, whether it counts) and what to do, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// How long a finished final stays on the arena screen (its standings and winner) before the
/// leaderboard comes back: an hour.
pub const ARENA_HOLDS_FINAL_SECS: u64 = 3600;
/// Rows of the leaderboard the arena screen shows (it must fit a projector's screen).
pub const ARENA_LEADERBOARD_ROWS: usize = 10;

/// The game on the arena screen.
#[derive(Debug, Clone)]
pub enum ArenaGame {
    /// Being played now (or just ended, its worker not on another yet).
    Live(Box<crate::shared::live::LiveGame>),
    /// No game is being played: the newest recorded one.
    Replay(Box<Replay>),
}

/// The arena screen as it is served (see [`Service::arena_view`]).
#[derive(Debug, Clone)]
pub struct ArenaView {
    pub game: Option<ArenaGame>,
    /// The final shown: running, or finished within [`ARENA_HOLDS_FINAL_SECS`].
    pub final_view: Option<crate::service::finals::FinalView>,
    /// The top of the leaderboard, when no final is shown.
    pub leaderboard: Vec<BoardRow>,
}

/// Each entrant's name by its ladder entries (see [`Service::entrants_by_entry`]).
pub type EntrantsByEntry = Arc<HashMap<i64, String>>;

pub struct Service {
    pub config: Arc<Config>,
    pub shared: Arc<Shared>,
    pub addr: SocketAddr,
    db: Mutex<Db>,
    ladder: Mutex<Ladder>,
    /// The leaderboard as of a change count.
    board_cache: Mutex<Option<(u64, Arc<Vec<BoardRow>>)>>,
    /// Jobs waiting or running, as of a change count (every page's footer shows it).
    pending_cache: Mutex<Option<(u64, u64)>>,
    /// The rating history, as of a change count.
    history_cache: Mutex<Option<(u64, Arc<History>)>>,
    /// The leaderboard page as a visitor who is not logged in sees it, as of a change count.
    public_page_cache: Mutex<Option<(u64, Arc<String>)>>,
    /// `GET /api/leaderboard`'s JSON, as of a change count.
    leaderboard_json_cache: Mutex<Option<(u64, Arc<String>)>>,
    /// Each entrant's ladder entries, by entry, as of a change count.
    entrants_cache: Mutex<Option<(u64, EntrantsByEntry)>>,
    /// Requests without a valid token, per address.
    pub unauthenticated: limits::AddressLimit,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Service {
    pub fn new(config: Arc<Config>, shared: Arc<Shared>, db: Db, addr: SocketAddr) -> Result<Service, String> {
        let ladder = Ladder::open(&config.ladder)?;
        Ok(Service {
            config,
            shared,
            addr,
            db: Mutex::new(db),
            ladder: Mutex::new(ladder),
            board_cache: Mutex::new(None),
            pending_cache: Mutex::new(None),
            history_cache: Mutex::new(None),
            public_page_cache: Mutex::new(None),
            leaderboard_json_cache: Mutex::new(None),
            entrants_cache: Mutex::new(None),
            unauthenticated: limits::AddressLimit::default(),
        })
    }

    /// The entrant of a token, unless it is unknown or revoked.
    pub fn entrant(&self, token: &str) -> Result<Option<Entrant>, Refusal> {
        store::entrant_by_token(&lock(&self.db), token).map_err(Refusal::internal)
    }

    /// The entrant logged in with session `id`, unless it ended, expired or the entrant was revoked.
    pub fn session_entrant(&self, id: &str) -> Result<Option<Entrant>, Refusal> {
        let db = lock(&self.db);
        let Some(holder) = crate::store::sessions::holder(&db, crate::store::sessions::Kind::Entrant, id)? else {
            return Ok(None);
        };
        store::entrant_by_id(&db, holder).map_err(Refusal::internal)
    }

    /// Starts a login session (the cookie's id); `replaces`, the visitor's session before, ends.
    pub fn start_session(
        &self,
        kind: crate::store::sessions::Kind,
        holder: i64,
        replaces: Option<&str>,
    ) -> Result<String, Refusal> {
        let db = lock(&self.db);
        if let Some(old) = replaces {
            crate::store::sessions::end(&db, old)?;
        }
        crate::store::sessions::start(&db, kind, holder).map_err(Refusal::internal)
    }

    /// Removes every game the remote worker `name` played and refits the ladder.
    pub fn purge_worker(&self, name: &str) -> Result<usize, Refusal> {
        let purged = crate::store::workers::purge_worker(&mut lock(&self.db), &mut lock(&self.ladder), name)
            .map_err(|why| Refusal::new(400, why))?;
        self.shared.changed();
        Ok(purged)
    }

    /// Ends a login session (logout).
    pub fn end_session(&self, id: &str) -> Result<(), Refusal> {
        crate::store::sessions::end(&lock(&self.db), id).map_err(Refusal::internal)
    }

    /// The leaderboard, best first (computed once per change).
    pub fn leaderboard(&self) -> Result<Arc<Vec<BoardRow>>, Refusal> {
        let version = *self.shared.changes.borrow();
        // Held while computing: requests arriving meanwhile wait for this one's result instead
        // of each refitting the ladder.
        let mut cache = lock(&self.board_cache);
        if let Some((cached, rows)) = cache.as_ref()
            && *cached == version
        {
            return Ok(rows.clone());
        }
        let board = leaderboard(&lock(&self.ladder)).map_err(Refusal::internal)?;
        let uploads = store::uploads_by_entry(&lock(&self.db))?;
        let by_entry: HashMap<i64, &Upload> = uploads.iter().filter_map(|u| Some((u.entry?, u))).collect();
        // An entrant's versions are numbered among its own checked uploads (as `/me` does), not
        // by name across every entrant.
        let mut own_versions: HashMap<i64, u32> = HashMap::new();
        let mut counted: HashMap<i64, u32> = HashMap::new();
        let mut in_order: Vec<&Upload> = uploads.iter().filter(|u| u.entry.is_some()).collect();
        in_order.sort_by_key(|u| u.id);
        for upload in in_order {
            let n = counted.entry(upload.entrant).or_default();
            *n += 1;
            own_versions.insert(upload.id, *n);
        }
        let rows: Vec<BoardRow> = board
            .rows
            .into_iter()
            .map(|row| {
                let upload = by_entry.get(&row.entry);
                let rating_text = row.rating_text();
                BoardRow {
                    rank: row.rank,
                    entry: row.entry,
                    name: row.name,
                    entrant: upload.map(|u| u.entrant_name.clone()),
                    bot: upload.map(|u| u.id),
                    version: upload.and_then(|u| own_versions.get(&u.id)).map_or(row.version, |&v| v as _),
                    hash: row.hash,
                    rating: row.rating,
                    error: row.error,
                    placement_error: row.placement_error,
                    rating_text,
                    failing: row.failing,
                    games: row.games,
                    points: row.points,
                    score: row.score,
                    failures: row.failures,
                    last_played: row.last_played,
                    anchor: row.anchor,
                }
            })
            .collect();
        let rows = Arc::new(rows);
        *cache = Some((version, rows.clone()));
        Ok(rows)
    }

    /// The entrant of each ladder entry that is an upload (the pool's entries are not in it):
    /// every page that shows a bot shows its entrant with it.
    pub fn entrants_by_entry(&self) -> Result<EntrantsByEntry, Refusal> {
        let version = *self.shared.changes.borrow();
        let mut cache = lock(&self.entrants_cache);
        if let Some((cached, map)) = cache.as_ref()
            && *cached == version
        {
            return Ok(map.clone());
        }
        let uploads = store::uploads_by_entry(&lock(&self.db))?;
        let map: EntrantsByEntry =
            Arc::new(uploads.into_iter().filter_map(|u| Some((u.entry?, u.entrant_name))).collect());
        *cache = Some((version, map.clone()));
        Ok(map)
    }

    /// The leaderboard page for a visitor who is not logged in, rendered by `render` once per
    /// change: 50 visitors cost one refit and one rendering, not 50.
    pub fn public_leaderboard_page(&self, render: impl FnOnce(&[BoardRow]) -> String) -> Result<Arc<String>, Refusal> {
        let version = *self.shared.changes.borrow();
        let mut cache = lock(&self.public_page_cache);
        if let Some((cached, page)) = cache.as_ref()
            && *cached == version
        {
            return Ok(page.clone());
        }
        let page = Arc::new(render(&self.leaderboard()?));
        *cache = Some((version, page.clone()));
        Ok(page)
    }

    /// The leaderboard as JSON, serialized once per change.
    pub fn leaderboard_json(&self) -> Result<Arc<String>, Refusal> {
        let version = *self.shared.changes.borrow();
        let mut cache = lock(&self.leaderboard_json_cache);
        if let Some((cached, json)) = cache.as_ref()
            && *cached == version
        {
            return Ok(json.clone());
        }
        let json = Arc::new(serde_json::to_string(self.leaderboard()?.as_ref()).expect("rows serialize"));
        *cache = Some((version, json.clone()));
        Ok(json)
    }

    /// Takes an uploaded file: rate limit, then the library check (before anything is stored or
    /// run), then the file in a folder of its own named by its hash, and its check queued.
    pub fn upload(&self, entrant: &Entrant, raw_file_name: &str, bytes: &[u8]) -> Result<Accepted, Refusal> {
        if bytes.len() > self.config.max_upload_bytes {
            return Err(Refusal::new(413, format!("the file is over {} bytes", self.config.max_upload_bytes)));
        }
        if !store::submissions_open(&lock(&self.db))? {
            return Err(Refusal::new(403, "submissions are closed: the organiser is not taking new bots now"));
        }
        let hour_ago = unix_now().saturating_sub(3600);
        let recent = store::uploads_since(&lock(&self.db), entrant.id, hour_ago)?;
        if recent >= self.config.uploads_per_hour {
            return Err(Refusal::new(
                429,
                format!(
                    "{recent} uploads in the last hour (refused ones count too): the limit is {}; try again later",
                    self.config.uploads_per_hour
                ),
            ));
        }
        if self.config.require_wasm && !crate::service::inspect::is_wasm(bytes) {
            return Err(Refusal::new(422, crate::service::inspect::wasm_required()));
        }
        crate::service::inspect::check_upload(raw_file_name, bytes).map_err(|why| Refusal::new(422, why))?;
        let sha256 = store::sha256_hex(bytes);
        // Bound first: the lock must not be held while `version_of` takes it again.
        let earlier = store::upload_by_hash(&lock(&self.db), entrant.id, &sha256)?;
        if let Some(earlier) = earlier {
            let (version, current) = self.version_of(entrant, earlier.id)?;
            let message = match (version, current) {
                (Some(v), true) => format!(
                    "this file is your version v{v} (upload {}), the one that counts already: nothing new was queued",
                    earlier.id
                ),
                (Some(v), false) => format!(
                    "this file is your version v{v} (upload {}): nothing new was queued; to make it count again, POST /api/bots/{}/current (or its Make current button on /me)",
                    earlier.id, earlier.id
                ),
                (None, _) => format!(
                    "this file is your upload {}, which did not pass its check: nothing new was queued",
                    earlier.id
                ),
            };
            return Ok(Accepted {
                id: earlier.id,
                status: earlier.status,
                sha256,
                duplicate: true,
                message: Some(message),
            });
        }
        let copy = entries::refuse_copy(&lock(&self.db), &lock(&self.ladder), entrant.id, &sha256)
            .map_err(Refusal::internal)?;
        if let Some(why) = copy {
            return Err(Refusal::new(409, why));
        }
        let file_name = crate::service::inspect::stored_file_name(raw_file_name, bytes);
        let path = self.config.uploads_dir().join(&sha256).join(&file_name);
        if !path.is_file() {
            crate::store::blobs::write_file(&path, bytes)
                .map_err(|e| Refusal::internal(format!("cannot store the upload: {e}")))?;
        }
        // In the database too: every replica can play it.
        crate::store::blobs::keep(&lock(&self.db), &sha256, bytes).map_err(Refusal::internal)?;
        let id = store::add_upload(&mut lock(&self.db), entrant.id, &sha256, &file_name, &path, bytes.len() as u64)?;
        self.shared.work_added();
        self.shared.changed();
        Ok(Accepted { id, status: Status::Queued, sha256, duplicate: false, message: None })
    }

    /// Notes an upload of `entrant` that was refused (too large, not a library, a copy …): it
    /// counts toward the hourly limit like an accepted one.
    pub fn note_refused_upload(&self, entrant: &Entrant, reason: &str) -> Result<(), Refusal> {
        store::note_refused_upload(&lock(&self.db), entrant.id, reason).map_err(Refusal::internal)
    }

    /// The upload `id`, if it is `entrant`'s (another's answers as if it did not exist).
    fn own_upload(&self, entrant: &Entrant, id: i64) -> Result<Upload, Refusal> {
        match store::upload(&lock(&self.db), id)? {
            Some(upload) if upload.entrant == entrant.id => Ok(upload),
            _ => Err(Refusal::new(404, format!("you have no bot {id}"))),
        }
    }

    /// The version number of the entrant's upload `id` (its place among the entrant's checked
    /// uploads, from 1: as the leaderboard and `/me` number them; `None` for one that did not
    /// pass) and whether it is the version that counts now.
    pub fn version_of(&self, entrant: &Entrant, id: i64) -> Result<(Option<usize>, bool), Refusal> {
        let uploads = store::uploads_of(&lock(&self.db), entrant.id)?;
        let mut checked: Vec<i64> = uploads.iter().filter(|u| u.entry.is_some()).map(|u| u.id).collect();
        checked.sort_unstable();
        let version = checked.iter().position(|&u| u == id).map(|i| i + 1);
        let current = self.current_version(entrant)? == Some(id);
        Ok((version, current))
    }

    pub fn bot(&self, entrant: &Entrant, id: i64) -> Result<BotView, Refusal> {
        let upload = self.own_upload(entrant, id)?;
        self.view(upload)
    }

    fn view(&self, upload: Upload) -> Result<BotView, Refusal> {
        let report: Option<CheckReport> = upload.report.as_deref().and_then(|r| serde_json::from_str(r).ok());
        let board = self.leaderboard()?;
        let row = upload.entry.and_then(|entry| board.iter().find(|row| row.entry == entry));
        Ok(BotView {
            name: report.as_ref().and_then(|r| r.name.clone()),
            rank: row.and_then(|r| r.rank),
            rating: row.and_then(|r| r.rating),
            error: row.and_then(|r| r.error),
            rating_text: row.map_or_else(|| "unrated".to_owned(), |r| r.rating_text.clone()),
            games: row.map_or(0, |r| r.games),
            points: row.map_or(0.0, |r| r.points),
            failures: row.map_or(0, |r| r.failures),
            report,
            upload,
        })
    }

    /// The entrant's uploads, newest first.
    pub fn bots_of(&self, entrant: &Entrant) -> Result<Vec<BotView>, Refusal> {
        let uploads = store::uploads_of(&lock(&self.db), entrant.id)?;
        uploads.into_iter().map(|u| self.view(u)).collect()
    }

    /// The games of the entrant's upload `id`, its test games among them, newest first.
    pub fn bot_games(&self, entrant: &Entrant, id: i64) -> Result<Vec<GameSummary>, Refusal> {
        let mut games = self.rated_games(entrant, id)?;
        games.extend(self.test_games_of(entrant, id)?);
        games.sort_by(|a, b| b.played_at.cmp(&a.played_at).then(b.id.cmp(&a.id)));
        Ok(games)
    }

    /// The ladder games of the entrant's upload `id`, newest first.
    fn rated_games(&self, entrant: &Entrant, id: i64) -> Result<Vec<GameSummary>, Refusal> {
        let upload = self.own_upload(entrant, id)?;
        let Some(entry) = upload.entry else { return Ok(Vec::new()) };
        let ladder = lock(&self.ladder);
        let games = ladder.games_of(entry).map_err(Refusal::internal)?;
        self.summaries(&ladder, games)
    }

    fn summaries(&self, ladder: &Ladder, games: Vec<othello_ladder::StoredGame>) -> Result<Vec<GameSummary>, Refusal> {
        let names: HashMap<i64, String> =
            ladder.entries().map_err(Refusal::internal)?.into_iter().map(|e| (e.id, e.identity.label())).collect();
        let name = |id: i64| names.get(&id).cloned().unwrap_or_default();
        Ok(games
            .into_iter()
            .map(|g| {
                GameSummary::new(
                    g.id,
                    "rated",
                    [name(g.black), name(g.white)],
                    g.black_score,
                    g.termination,
                    g.played_at,
                    &g.ggf,
                )
            })
            .collect())
    }

    /// Page `page` (from 1) of the rated games of ladder entry `entry`, newest first.
    pub fn games_page(&self, entry: i64, page: u64) -> Result<GamesPage, Refusal> {
        let page = page.max(1);
        let ladder = lock(&self.ladder);
        let (games, total) =
            ladder.games_page_of(entry, (page - 1) * GAMES_PER_PAGE, GAMES_PER_PAGE).map_err(Refusal::internal)?;
        let games = self.summaries(&ladder, games)?;
        Ok(GamesPage { games, page, pages: total.div_ceil(GAMES_PER_PAGE).max(1), total })
    }

    /// The rated games page of the entrant's upload `id` (none before its check placed it).
    pub fn bot_games_page(&self, entrant: &Entrant, id: i64, page: u64) -> Result<GamesPage, Refusal> {
        match self.own_upload(entrant, id)?.entry {
            Some(entry) => self.games_page(entry, page),
            None => Ok(GamesPage { games: Vec::new(), page: 1, pages: 1, total: 0 }),
        }
    }

    /// A bot of the leaderboard as anyone sees it: its row and a page of its rated games.
    pub fn public_bot(&self, entry: i64, page: u64) -> Result<PublicBot, Refusal> {
        let board = self.leaderboard()?;
        let row = board
            .iter()
            .find(|row| row.entry == entry)
            .cloned()
            .ok_or_else(|| Refusal::new(404, format!("there is no bot {entry} on the leaderboard")))?;
        Ok(PublicBot { row, games: self.games_page(entry, page)? })
    }

    /// A ladder game for the replay page (games are public, as the leaderboard is).
    pub fn replay(&self, id: i64) -> Result<Replay, Refusal> {
        let stored = lock(&self.ladder).game(id).map_err(Refusal::internal)?;
        let Some(stored) = stored else {
            return Err(Refusal::new(404, format!("there is no game {id}")));
        };
        let mut replay = self.replay_of(id, &stored.ggf)?;
        // The ladder keeps how the game ended (a crash, a timeout …): the GGF record cannot say.
        replay.termination = stored.termination.clone();
        replay.ending = ending_text(&replay.termination, stored.black_score);
        if replay.termination != "normal" && replay.termination != "resigned" {
            let loser = if stored.black_score == 0.0 { &replay.black } else { &replay.white };
            replay.detail = format!("{loser} lost by a failure: {}", replay.termination);
        }
        // The time a move as planned (the GGF keeps whole seconds: 200 ms would read as 1 s).
        if let Some(planned) = store::game_time_limit(&lock(&self.db), id)? {
            replay.time_limit_ms = planned;
        }
        let entrants = self.entrants_by_entry()?;
        replay.black_entrant = entrants.get(&stored.black).cloned();
        replay.white_entrant = entrants.get(&stored.white).cloned();
        replay.wasm = self.wasm_game(stored.black, stored.white, &stored.ggf)?;
        Ok(replay)
    }

    /// A game's record (one GGF game) for the replay page.
    fn replay_of(&self, id: i64, ggf_text: &str) -> Result<Replay, Refusal> {
        let game = ggf::read_games(ggf_text)
            .map_err(|e| Refusal::internal(format!("game {id} cannot be read: {e}")))?
            .into_iter()
            .next()
            .ok_or_else(|| Refusal::internal(format!("game {id} is empty")))?;
        let positions = game.positions().iter().map(|p| p.to_board_string()).collect();
        let moves = game
            .moves
            .iter()
            .map(|m| ReplayMove {
                color: if m.color == Color::Black { 'X' } else { 'O' },
                mv: m.mv.to_string(),
                ms: (m.elapsed.as_secs_f64() * 1e4).round() / 10.0,
                eval: m.info.as_ref().and_then(|i| i.eval),
            })
            .collect();
        let score = match game.result.winner {
            Some(Color::Black) => 1.0,
            Some(Color::White) => 0.0,
            None => 0.5,
        };
        Ok(Replay {
            outcome: outcome_text(score, Some(game.result.discs)),
            ending: ending_text(game.result.termination().as_str(), score),
            id,
            black: game.black.clone(),
            white: game.white.clone(),
            black_entrant: None,
            white_entrant: None,
            result: format!("{} ({}–{})", result_text(score), game.result.discs[0], game.result.discs[1]),
            termination: game.result.termination().as_str().to_owned(),
            detail: game.result.detail().to_owned(),
            positions,
            moves,
            time_limit_ms: game.time_limit_ms,
            clock: game.clock.map(othello_arena::seat::Clock::as_str),
            wasm: None,
        })
    }

    /// The newest final and the records of its games, for its export (404 before a final).
    pub fn final_with_games(
        &self,
    ) -> Result<(crate::service::finals::FinalView, Vec<othello_ladder::StoredGame>), Refusal> {
        let view = crate::service::finals::view(&lock(&self.db))
            .map_err(Refusal::internal)?
            .ok_or_else(|| Refusal::new(404, "no final has been started yet: there is nothing to export"))?;
        let ladder = lock(&self.ladder);
        let mut games = Vec::new();
        for game in view.games.iter().filter_map(|g| g.game) {
            if let Some(stored) = ladder.game(game).map_err(Refusal::internal)? {
                games.push(stored);
            }
        }
        Ok((view, games))
    }

    /// The newest game, for the arena screen.
    pub fn latest_replay(&self) -> Result<Replay, Refusal> {
        let latest = store::latest_game(&lock(&self.db))?;
        self.replay(latest.ok_or_else(|| Refusal::new(404, "no game has been played yet"))?)
    }

    /// What the arena screen shows when it is served (so it is a page without JavaScript too):
    /// the game being played now (`live`, the final's first), else the newest recorded one; the
    /// final while it runs and for [`ARENA_HOLDS_FINAL_SECS`] after it ends (its winner stays on
    /// the screen), else the top of the leaderboard.
    pub fn arena_view(&self, live: Vec<crate::shared::live::LiveGame>) -> Result<ArenaView, Refusal> {
        let entrants = self.entrants_by_entry()?;
        let game = match live.into_iter().next() {
            Some(mut game) => {
                game.black_entrant = entrants.get(&game.entries[0]).cloned();
                game.white_entrant = entrants.get(&game.entries[1]).cloned();
                Some(ArenaGame::Live(Box::new(game)))
            }
            None => match self.latest_replay() {
                Ok(replay) => Some(ArenaGame::Replay(Box::new(replay))),
                Err(refusal) if refusal.status == 404 => None,
                Err(refusal) => return Err(refusal),
            },
        };
        let now = unix_now();
        let final_view =
            self.with_db(|db| crate::service::finals::view(db))?.filter(|view| match view.info.finished_at {
                None => true,
                Some(finished) => now.saturating_sub(finished) < ARENA_HOLDS_FINAL_SECS,
            });
        let leaderboard = match final_view {
            Some(_) => Vec::new(),
            None => self.leaderboard()?.iter().take(ARENA_LEADERBOARD_ROWS).cloned().collect(),
        };
        Ok(ArenaView { game, final_view, leaderboard })
    }

    /// Runs `work` on the server's own connection to the ladder file (the organiser's pages and
    /// the final read and write their tables through it).
    pub fn with_db<T>(&self, work: impl FnOnce(&mut Db) -> Result<T, String>) -> Result<T, Refusal> {
        work(&mut lock(&self.db)).map_err(Refusal::internal)
    }

    /// Jobs waiting or being played (counted once per change).
    pub fn pending_jobs(&self) -> u64 {
        let version = *self.shared.changes.borrow();
        if let Some((cached, count)) = *lock(&self.pending_cache)
            && cached == version
        {
            return count;
        }
        let count = store::pending_jobs(&lock(&self.db)).unwrap_or(0);
        *lock(&self.pending_cache) = Some((version, count));
        count
    }
}

fn result_text(black_score: f64) -> String {
    if black_score >= 1.0 {
        "1-0"
    } else if black_score <= 0.0 {
        "0-1"
    } else {
        "½-½"
    }
    .to_owned()
}
