//! The pages, rendered with maud: every name and text from an entrant or a bot is escaped.

pub mod admin;
pub mod workers;

use maud::{DOCTYPE, Markup, html};

use crate::config::SeedingStatus;
use crate::service::{ArenaGame, ArenaView, BoardRow, BotView, GameSummary, GamesPage, PlaySetup, PublicBot, Replay};
use crate::store::Entrant;
use crate::store::Status;

/// What every page's frame shows besides its body: the visitor, the server's state and its
/// limits. The handlers fill it in; no page asks for anything itself.
pub struct Frame<'a> {
    /// The visitor, if logged in.
    pub entrant: Option<&'a Entrant>,
    /// Why the sandbox is weaker than strict, when the organiser allowed it.
    pub weak_sandbox: Option<&'a str>,
    /// The sample pool's calibration while it runs.
    pub seeding: Option<SeedingStatus>,
    pub pending_jobs: u64,
    pub max_upload_bytes: usize,
    pub test_games_per_hour: u32,
}

pub fn layout(frame: &Frame, title: &str, body: Markup) -> Markup {
    layout_with(frame, title, body, None)
}

/// The layout; a page that reloads itself every `refresh` seconds when scripts do not run (the
/// arena screen: with a script, it follows the games itself).
fn layout_with(frame: &Frame, title: &str, body: Markup, refresh: Option<u32>) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · Othello contest" }
                link rel="stylesheet" href="/assets/style.css";
                script src="/assets/app.js" defer {}
                @if let Some(seconds) = refresh { noscript { meta http-equiv="refresh" content=(seconds); } }
            }
            body {
                header {
                    a.brand href="/" { "Othello contest" }
                    nav {
                        a href="/" { "Leaderboard" }
                        a href="/arena" { "Arena screen" }
                        a href="/workers" { "Workers" }
                        a href="/final" { "Final" }
                        a href="/starter" { "Starter kit" }
                        @if let Some(entrant) = frame.entrant {
                            a href="/me" { "My bots" }
                            span.who { "Logged in as " b { (entrant.name) } }
                            form.inline method="post" action="/logout" { button type="submit" { "Log out" } }
                        } @else {
                            a href="/login" { "Log in" }
                        }
                    }
                }
                @if let Some(why) = frame.weak_sandbox {
                    p.warning #weak-sandbox {
                        "Weak sandbox: this server was started with --allow-weak-sandbox, and bots run without every layer of the sandbox ("
                        (why) ")."
                    }
                }
                @if let Some(seeding) = &frame.seeding {
                    p.note #seeding { (seeding_text(seeding)) }
                }
                main { (body) }
                footer { "Bots accepted: " (crate::service::inspect::accepted_platform()) ". Jobs waiting: " (frame.pending_jobs) "." }
            }
        }
    }
}

/// The pool's calibration in words: where it started from, what was played, the precision
/// reached and the target, and whether placements wait for it.
pub fn seeding_text(seeding: &SeedingStatus) -> String {
    let played = format!(
        "{} games played (the first {} link every bot to its neighbours; then it plays until every bot is known to ±{:.0} Elo, at most {} games)",
        seeding.games, seeding.linking_games, seeding.target_error, seeding.max_games
    );
    let mut text = match &seeding.shipped {
        Some(source) => format!(
            "The sample pool started from its shipped calibration ({source}), so bots are placed at once. It is refined here on its own games meanwhile: {played}"
        ),
        None => format!("The sample pool is being calibrated: {played}"),
    };
    if let Some(error) = seeding.widest_error {
        text.push_str(&format!("; the widest interval now is ±{error:.0}"));
    }
    if let Some(ms) = seeding.time_ms {
        text.push_str(&format!("; {ms} ms a move"));
    }
    if let Some(note) = &seeding.time_note {
        text.push_str(&format!(" ({note})"));
    }
    if !seeding.not_shipped.is_empty() {
        text.push_str(&format!(
            "; not in the shipped calibration, so rated by their games here: {}",
            seeding.not_shipped.join(", ")
        ));
    }
    if let Some(why) = &seeding.shipped_not_used {
        text.push_str(&format!("; the shipped calibration is not used: {why}"));
    }
    text.push_str(if seeding.placements_wait() {
        ". Uploads are checked meanwhile; their placement starts when it ends."
    } else {
        "."
    });
    text
}

pub fn message(frame: &Frame, title: &str, text: &str) -> Markup {
    layout(frame, title, html! { h1 { (title) } p.error { (text) } p { a href="/" { "Back to the leaderboard" } } })
}

/// A size limit in the unit that reads best: `32 MiB`, `256 KiB`.
fn size_text(bytes: usize) -> String {
    if bytes >= 1 << 20 { format!("{} MiB", bytes >> 20) } else { format!("{} KiB", bytes >> 10) }
}

/// What ± means, said the same way on every page that shows a rating: one meaning everywhere.
pub const PLUS_MINUS: &str = "Rating ± x: Elo from a maximum-likelihood fit of every game, anchored at the pool's random bot (0); ± is the half-width of its 95 % interval.";

/// The note that says what ± means (on every page with a rating).
pub fn plus_minus_note() -> Markup {
    html! { p.note.plus-minus { (PLUS_MINUS) } }
}

pub fn leaderboard(frame: &Frame, rows: &[BoardRow]) -> Markup {
    let body = html! {
        h1 { "Leaderboard" }
        (plus_minus_note())
        p.note { "Updates live. A bot's name opens its page and its games." @if frame.entrant.is_some() { " Your bots are highlighted." } }
        table #board data-me=[frame.entrant.map(|e| e.name.as_str())] {
            thead { tr { th { "#" } th { "Bot" } th { "Entrant" } th { "Version" } th { "Rating" } th { "Games" } th { "Score" } th { "Failures" } } }
            tbody {
                @for row in rows {
                    tr.mine[frame.entrant.is_some_and(|e| row.entrant.as_deref() == Some(e.name.as_str()))] {
                        td { (row.rank.map(|r| r.to_string()).unwrap_or_else(|| "–".to_owned())) }
                        td.name { a href={ "/entries/" (row.entry) } { (row.name) } }
                        td { (row.entrant.as_deref().unwrap_or("(pool)")) }
                        td { "v" (row.version) " " code { (row.hash) } }
                        td { (row.rating_text) }
                        td { (row.games) }
                        td { (row.score.map(|s| format!("{:.1} %", 100.0 * s)).unwrap_or_default()) }
                        td { (row.failures) }
                    }
                }
            }
        }
        section #history {
            h2 { "Rating history" }
            p.note { "Each current bot's rating as the ladder's games accumulated (refitted from the games up to each point)." }
            img #history-plot src="/history.svg" alt="The rating of each current bot over the ladder's games" width="960" height="420";
        }
    };
    layout(frame, "Leaderboard", body)
}

pub fn login(frame: &Frame, error: Option<&str>) -> Markup {
    let body = html! {
        h1 { "Log in" }
        @if let Some(error) = error { p.error { (error) } }
        @if let Some(entrant) = frame.entrant { p { "You are logged in as " b { (entrant.name) } ". " a href="/me" { "Your bots" } } }
        form #login method="post" action="/login" {
            label { "Your token (from the organiser): " input #token type="password" name="token" autocomplete="off" required; }
            button type="submit" { "Log in" }
        }
    };
    layout(frame, "Log in", body)
}

/// The entrant's uploads, newest first, each with its version number: its place among the
/// entrant's own uploads that passed their check (1 = the first), as the leaderboard numbers
/// them; an upload that did not pass has none (0).
fn versions(bots: &[BotView]) -> Vec<(&BotView, usize)> {
    let mut sorted: Vec<&BotView> = bots.iter().collect();
    sorted.sort_by_key(|bot| bot.upload.id);
    let mut number = 0;
    let mut numbered: Vec<(&BotView, usize)> = sorted
        .into_iter()
        .map(|bot| {
            if bot.upload.entry.is_some() {
                number += 1;
                (bot, number)
            } else {
                (bot, 0)
            }
        })
        .collect();
    numbered.reverse();
    numbered
}

/// `current`: the upload that counts, if the entrant chose one.
pub fn me(frame: &Frame, bots: &[BotView], current: Option<i64>, error: Option<&str>) -> Markup {
    let body = html! {
        h1 { "Your bots" }
        @if let Some(error) = error { p.error #upload-error { (error) } }
        form #upload method="post" action="/upload" enctype="multipart/form-data" {
            label { "Upload a bot (" (crate::service::inspect::accepted_platform()) ", at most " (size_text(frame.max_upload_bytes)) "): "
                input type="file" name="bot" required; }
            button type="submit" { "Upload" }
        }
        @if bots.is_empty() { p { "No bot yet." } } @else {
            h2 { "Versions" }
            (plus_minus_note())
            p.note { "Each version of your bots side by side, newest first. The current one plays the refresh games and the final: your newest checked version, unless you choose another with its " b { "Make current" } " button (a new upload is current again)." }
            table #versions data-live="versions" {
                thead { tr { th { "Bot" } th { "Version" } th { "Upload" } th { "File" } th { "Uploaded" } th { "Status" } th { "Rating" } th { "Games" } th { "Score" } th { "Failures" } th { "Counts" } } }
                tbody {
                    @for (bot, version) in versions(bots) {
                        tr.current[current == Some(bot.upload.id)] {
                            td.name { (bot.name.as_deref().unwrap_or("")) }
                            td { @if version > 0 { "v" (version) } @else { "–" } @if current == Some(bot.upload.id) { " " span.badge { "current" } } }
                            td { a href={ "/bots/" (bot.upload.id) } { "#" (bot.upload.id) } }
                            td { (bot.upload.file_name) }
                            td { (othello_arena::ggf::format_date(bot.upload.uploaded_at).replace('_', " ").trim_end_matches(".UTC")) " UTC" }
                            td { (bot.upload.status.as_str()) }
                            td { (bot.rating_text) }
                            td { (bot.games) }
                            td { (if bot.games > 0 { format!("{:.1} %", 100.0 * bot.points / bot.games as f64) } else { String::new() }) }
                            td { (bot.failures) }
                            td {
                                @if current == Some(bot.upload.id) { "yes" }
                                @else if bot.upload.entry.is_some() && matches!(bot.upload.status, Status::Rating | Status::Rated) {
                                    form.inline method="post" action={ "/bots/" (bot.upload.id) "/current" } {
                                        button type="submit" aria-label={ "make version " (version) " of " (bot.name.as_deref().unwrap_or("")) " current" } { "Make current" }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    };
    layout(frame, "Your bots", body)
}

/// What the bot page offers for test games.
pub struct TestGamesPanel {
    /// The current bots of the leaderboard.
    pub opponents: Vec<BoardRow>,
    /// Pairs waiting or being played.
    pub pending: u32,
    /// Pairs that could not be played: id and why.
    pub failed: Vec<(i64, String)>,
}

/// What the bot page says above its record: that the file just uploaded is one of the
/// entrant's earlier versions (so nothing new was queued).
pub struct UploadedAgain {
    /// Its version number among the entrant's checked uploads (`None` when it did not pass).
    pub version: Option<usize>,
    /// Whether it is the version that counts now.
    pub current: bool,
}

pub fn bot(
    frame: &Frame,
    bot: &BotView,
    games: &GamesPage,
    test_games: &[GameSummary],
    tests: &TestGamesPanel,
    again: Option<&UploadedAgain>,
) -> Markup {
    let can_test = bot.upload.entry.is_some() && matches!(bot.upload.status, Status::Rating | Status::Rated);
    let body = html! {
        h1 { "Bot #" (bot.upload.id) ": " span.name { (bot.name.as_deref().unwrap_or(&bot.upload.file_name)) } }
        @if let Some(again) = again {
            div.notice #uploaded-again role="status" {
                p { b { "You uploaded this same file before." } " "
                    @match again.version {
                        Some(version) => { "It is your version v" (version) " (upload #" (bot.upload.id) "), so nothing new was queued: its check, rating and games are below." }
                        None => { "It is your upload #" (bot.upload.id) ", which did not pass its check, so nothing new was queued: the reason is below." }
                    }
                }
                @if again.current { p { "It is already the version that counts." } }
                @else if can_test {
                    form.inline method="post" action={ "/bots/" (bot.upload.id) "/current" } {
                        "It is not the version that counts now. "
                        button type="submit" { "Make this version current" }
                    }
                }
            }
        }
        @if let Some(entry) = bot.upload.entry { p { a href={ "/entries/" (entry) } { "Its public page" } " (what everyone sees)" } }
        dl #bot data-id=(bot.upload.id) data-status=(bot.upload.status.as_str()) {
            dt { "File" } dd { (bot.upload.file_name) " (" (bot.upload.size) " bytes, SHA-256 " code { (bot.upload.sha256) } ")" }
            dt { "Status" } dd #status { (bot.upload.status.as_str()) }
            @if let Some(reason) = &bot.upload.reason { dt { "Why" } dd #reason { (reason) } }
            dt { "Rating" } dd #rating { (bot.rating_text) }
            dt { "Games" } dd #games { (bot.games) }
            dt { "Score" } dd #points { (bot.points) }
            dt { "Lost by failure" } dd #failures { (bot.failures) }
        }
        (plus_minus_note())
        h2 { "Check report" }
        @match &bot.report {
            None => p { "Waiting for the check…" },
            Some(report) => {
                ul #report {
                    li { "Loads: " (if report.loads { "yes" } else { "no" }) }
                    @if let Some(error) = &report.error { li.error { "Why not: " (error) } }
                    @if let Some(abi) = report.abi_version { li { "ABI version: " (abi) } }
                    @if let Some(name) = &report.name { li { "Name: " span.name { (name) } } }
                    li { "Levels: " (if report.levels == 0 { "none".to_owned() } else { format!("1–{}", report.levels) }) }
                    li { "Optional exports: "
                        (if report.search_info { "search info " } else { "" })
                        (if report.last_error { "error text " } else { "" })
                        (if report.analysis { "analysis" } else { "" })
                        (if !report.search_info && !report.last_error && !report.analysis { "none" } else { "" }) }
                }
                @for game in &report.games {
                    // Its own discs first, so a loss with white never reads like a win.
                    @let (mine, theirs) = if game.color == "white" { (game.discs[1], game.discs[0]) } else { (game.discs[0], game.discs[1]) };
                    h3 { "With " (game.color) " against " (game.opponent) ": " (game.result) " " (mine) "–" (theirs) " (its discs first)" }
                    @if let Some(failure) = &game.failure { p.error { (failure) } }
                    @if !game.stderr_tail.is_empty() { pre.stderr { @for line in &game.stderr_tail { (line) "\n" } } }
                    p.times { "Move times (ms): " (game.move_times_ms.iter().map(|t| format!("{t}")).collect::<Vec<_>>().join(" ")) }
                }
            }
        }
        @if let Some(entry) = bot.upload.entry.filter(|_| bot.games > 0) {
            h2 { "Rating history" }
            img #bot-history src={ "/history.svg?entry=" (entry) } alt="This bot's rating over the ladder's games" width="960" height="420";
        }
        h2 #test-games { "Test games" }
        p.note { "A pair of unrated games (colours swapped) against a current bot of the leaderboard, played after the checks and before the ladder's games; no rating counts them. At most "
            (frame.test_games_per_hour) " pairs an hour." }
        @if tests.pending > 0 { p #test-pending { (tests.pending) " pair(s) of test games waiting or being played." } }
        @for (id, why) in &tests.failed { p.error { "Test games #" (id) " could not be played: " (why) } }
        @if !can_test { p { "Test games are open to a bot once it passed its check." } } @else {
            form #test-form method="post" action={ "/bots/" (bot.upload.id) "/test-games" } {
                label { "Opponent: "
                    select name="opponent" required {
                        @for row in tests.opponents.iter().filter(|r| Some(r.entry) != bot.upload.entry) {
                            option value=(row.entry) { (row.name) " v" (row.version) " (" (row.entrant.as_deref().unwrap_or("pool")) ", " (row.rating_text) ")" }
                        }
                    }
                }
                " " button type="submit" { "Play 2 test games" }
            }
        }
        @if !test_games.is_empty() {
            h3 { "Your test games" }
            (games_table("test-games-list", test_games))
        }
        h2 #rated-games { "Rated games" }
        (games_section(games, &format!("/bots/{}", bot.upload.id)))
    };
    layout(frame, "Bot", body)
}

/// A list of games: each links to its replay and says who won, by how much and how it ended.
fn games_table(id: &str, games: &[GameSummary]) -> Markup {
    html! {
        table.games id=(id) {
            thead { tr { th { "Game" } th { "Black" } th { "White" } th { "Result" } th { "How it ended" } } }
            tbody {
                @for game in games {
                    tr.test[game.kind == "test"] {
                        @if game.kind == "test" {
                            td { a href={ "/test-games/" (game.id) } { "test #" (game.id) } }
                        } @else {
                            td { a href={ "/games/" (game.id) } { "#" (game.id) } }
                        }
                        td.name { (game.black) } td.name { (game.white) }
                        td.outcome { (game.outcome) } td.ending { (game.ending) }
                    }
                }
            }
        }
    }
}

/// A page of rated games with links to the others (`BASE?page=N`).
fn games_section(games: &GamesPage, base: &str) -> Markup {
    html! {
        @if games.total == 0 { p { "No rated game yet." } } @else {
            p.note #games-count { (games.total) " rated games, newest first; page " (games.page) " of " (games.pages) "." }
            (games_table("games-list", &games.games))
            @if games.pages > 1 {
                nav.pages aria-label="pages of games" {
                    @if games.page > 1 {
                        a href={ (base) "?page=1" } { "Newest" } " "
                        a rel="prev" href={ (base) "?page=" (games.page - 1) } { "Newer" } " "
                    }
                    span { "Page " (games.page) " of " (games.pages) } " "
                    @if games.page < games.pages {
                        a rel="next" href={ (base) "?page=" (games.page + 1) } { "Older" } " "
                        a href={ (base) "?page=" (games.pages) } { "Oldest" }
                    }
                }
            }
        }
    }
}

/// A bot of the leaderboard as anyone sees it: its rating, its entrant, its rated games.
pub fn public_bot(frame: &Frame, bot: &PublicBot, module: bool) -> Markup {
    let row = &bot.row;
    let mine = frame.entrant.is_some_and(|e| row.entrant.as_deref() == Some(e.name.as_str()));
    let body = html! {
        h1 { span.name { (row.name) } (entrant_note(row.entrant.as_deref())) }
        @if mine { @if let Some(upload) = row.bot { p { "Your bot: " a href={ "/bots/" (upload) } { "its check report and test games" } } } }
        @if module {
            p #play-link { "A WebAssembly bot: " a href={ "/entries/" (row.entry) "/play" } { "play against it in your browser" } "." }
        }
        (plus_minus_note())
        dl #public-bot data-entry=(row.entry) {
            dt { "Rank" } dd { (row.rank.map(|r| r.to_string()).unwrap_or_else(|| "–".to_owned())) }
            dt { "Rating" } dd #rating { (row.rating_text) }
            dt { "Version" } dd { "v" (row.version) " " code { (row.hash) } }
            dt { "Games" } dd { (row.games) }
            dt { "Score" } dd { (row.score.map(|s| format!("{:.1} %", 100.0 * s)).unwrap_or_default()) }
            dt { "Lost by failure" } dd { (row.failures) }
        }
        @if row.games > 0 {
            h2 { "Rating history" }
            img #bot-history src={ "/history.svg?entry=" (row.entry) } alt="This bot's rating over the ladder's games" width="960" height="420";
        }
        h2 { "Rated games" }
        (games_section(&bot.games, &format!("/entries/{}", row.entry)))
    };
    layout(frame, &row.name, body)
}

/// A game against a WebAssembly bot in the visitor's browser (`/entries/ID/play`): the page's
/// script runs the bot's metered module with the host's imports and fuel.
pub fn play(frame: &Frame, setup: &PlaySetup) -> Markup {
    let body = html! {
        h1 { "Play against " span.name { (setup.bot.name) } }
        p.note { "The bot runs in your browser, on its WebAssembly engine, with the server's fuel: it thinks for "
            (setup.limit_ms.map(|ms| format!("{ms} ms")).unwrap_or_else(|| "as long as it likes".to_owned()))
            " a move on its virtual clock, and plays as it does on the server." }
        div #play data-module=(setup.bot.module) data-limit-ms=(setup.limit_ms.map(|ms| ms.to_string()).unwrap_or_default())
            data-seed=(setup.seed) data-load-fuel=(setup.load_fuel)
            data-level=(setup.bot.level.map(|l| l.to_string()).unwrap_or_default()) data-state="loading" {
            div.board {
                svg #play-board viewBox="0 0 8 8" width="400" height="400" role="img" aria-label="the board" {
                    (board_squares("---------------------------OX------XO---------------------------"))
                }
            }
            form.inline #play-form {
                label for="play-colour" { "You play " }
                select #play-colour { option value="X" selected { "black (first)" } option value="O" { "white" } }
                " " button #play-start type="button" disabled { "Start a game" }
            }
            p #play-status aria-live="polite" { "Loading the bot…" }
            ol #play-moves aria-label="moves" {}
        }
        script src="/assets/wasm_play.js" defer {}
    };
    layout(frame, &format!("Play against {}", setup.bot.name), body)
}

pub fn game(frame: &Frame, replay: &Replay, ply: Option<usize>) -> Markup {
    game_page(frame, replay, false, ply)
}

/// A game's replay page; `test` for an unrated test game. Without JavaScript it is a page per
/// position (`?ply=N`, the final one by default) with links to step; the script steps in place.
pub fn game_page(frame: &Frame, replay: &Replay, test: bool, ply: Option<usize>) -> Markup {
    let data = serde_json::to_string(replay).expect("replays serialize");
    let last = replay.positions.len().saturating_sub(1);
    let ply = ply.unwrap_or(last).min(last);
    let board = replay.positions.get(ply).map(String::as_str).unwrap_or("");
    let step = |to: usize| format!("?ply={to}");
    let body = html! {
        h1 { (if test { "Test game #" } else { "Game #" }) (replay.id) }
        @if test { p.note { "An unrated test game: no rating counts it." } }
        p { span.name { (replay.black) } (entrant_note(replay.black_entrant.as_deref())) " (black) – "
            span.name { (replay.white) } (entrant_note(replay.white_entrant.as_deref())) " (white)" }
        p #outcome { b { (replay.outcome) } ", " (replay.ending)
            @if !replay.detail.is_empty() { " (" (replay.detail) ")" } }
        @if let Some(ms) = replay.time_limit_ms {
            p #time-control { "Played at " (ms) " ms a move, " (clock_text(replay.clock)) "." }
        }
        div #replay data-game=(data) data-ply=(ply) {
            div.board {
                svg #board-svg viewBox="0 0 8 8" width="400" height="400" role="img" aria-label={ "the board after move " (ply) } {
                    (board_squares(board))
                }
                nav.controls aria-label="replay controls" {
                    a #first href=(step(0)) role="button" aria-label="first position" title="start" { "|◀" } " "
                    a #prev href=(step(ply.saturating_sub(1))) role="button" aria-label="previous move" title="previous move (←)" { "◀" } " "
                    span #ply aria-live="polite" { (ply) " / " (replay.moves.len()) } " "
                    a #next href=(step((ply + 1).min(last))) role="button" aria-label="next move" title="next move (→)" { "▶" } " "
                    a #last href=(step(last)) role="button" aria-label="last position" title="end" { "▶|" }
                }
            }
            ol #moves aria-label="moves" {
                @for (i, mv) in replay.moves.iter().enumerate() {
                    li.current[i + 1 == ply] { a href=(step(i + 1)) {
                        (if mv.color == 'X' { "● " } else { "○ " }) (mv.mv) "  " (mv.ms) " ms"
                        @if let Some(eval) = mv.eval { "  eval " (format!("{eval:.1}")) }
                    } }
                }
            }
        }
        @if replay.wasm.is_some() {
            section #recompute-section {
                h2 { "Re-compute this game" }
                p.note { "Both bots are WebAssembly modules: their games are the same on every machine. Your browser can play every move again with the two modules, their fuel and the game's seed, and say whether each is the recorded one." }
                button #recompute type="button" { "Re-compute in this browser" }
                p #recompute-result aria-live="polite" {}
            }
            script src="/assets/wasm_play.js" defer {}
        }
    };
    layout(frame, "Game", body)
}

/// How a game's clock reads on its page.
fn clock_text(clock: Option<&str>) -> &'static str {
    match clock {
        Some("cpu") => "counted on the CPU-time clock (the bot's own CPU time)",
        Some("wall") => "counted on the wall clock",
        Some("fuel") => "counted in fuel (WebAssembly bots: the same on every machine)",
        _ => "on a clock not recorded",
    }
}

/// A board's squares (`X` black, `O` white, 64 of them) as the inside of an 8×8 SVG.
fn board_squares(board: &str) -> Markup {
    html! {
        rect width="8" height="8" fill="#2e7d4f" {}
        @for i in 0..=8 {
            line x1=(i) y1="0" x2=(i) y2="8" stroke="#154a2c" stroke-width="0.03" {}
            line x1="0" y1=(i) x2="8" y2=(i) stroke="#154a2c" stroke-width="0.03" {}
        }
        @for (square, c) in board.chars().take(64).enumerate() {
            @if c == 'X' || c == 'O' {
                circle cx=(format!("{}.5", square % 8)) cy=(format!("{}.5", square / 8)) r="0.42"
                    fill=(if c == 'X' { "#111" } else { "#f4f4f4" }) {}
            }
        }
    }
}

/// A bot with its entrant (the pool's bots have none), as the arena screen names it.
fn with_entrant(name: &str, entrant: Option<&str>) -> String {
    match entrant {
        Some(entrant) => format!("{name} ({entrant})"),
        None => name.to_owned(),
    }
}

/// Seconds with one decimal, as the arena's clocks read.
fn seconds_text(ms: f64) -> String {
    format!("{:.1} s", ms / 1000.0)
}

/// A time a move as the arena's clocks say it: `600 s`, `100 ms`.
fn limit_text(ms: u64) -> String {
    if ms >= 10_000 && ms.is_multiple_of(1000) { format!("{} s", ms / 1000) } else { format!("{ms} ms") }
}

/// The red dot on the square of the last move (`d3`), nothing for a pass.
fn last_move_mark(mv: Option<&str>) -> Markup {
    let square = mv.and_then(|mv| {
        let bytes = mv.as_bytes();
        (bytes.len() == 2 && (b'a'..=b'h').contains(&bytes[0]) && (b'1'..=b'8').contains(&bytes[1]))
            .then(|| (bytes[0] - b'a', bytes[1] - b'1'))
    });
    html! {
        @if let Some((col, row)) = square {
            circle cx=(format!("{col}.5")) cy=(format!("{row}.5")) r="0.1" fill="#e33" {}
        }
    }
}

/// The arena screen, drawn by the server from the live games and the final (a page that works
/// without JavaScript, reloading itself every few seconds); the script then follows every move
/// and fetches the standings part again after each change.
pub fn arena(frame: &Frame, view: &ArenaView) -> Markup {
    struct Shown {
        title: String,
        players: String,
        board: String,
        last: Option<String>,
        clocks: String,
        text: String,
    }
    let shown = view.game.as_ref().map(|game| match game {
        ArenaGame::Live(game) => {
            let ply = game.positions.len().saturating_sub(1);
            let last = ply.checked_sub(1).and_then(|i| game.moves.get(i));
            let mut clocks = format!("● {}    ○ {}", seconds_text(game.used_ms[0]), seconds_text(game.used_ms[1]));
            if let Some(limit) = game.time_limit_ms {
                clocks.push_str(&format!("    ({} a move)", limit_text(limit)));
            }
            let text = match (&game.result, last) {
                (Some(result), _) => result.clone(),
                (None, Some(mv)) => {
                    let mut text =
                        format!("{ply}. {} {}  {} ms", if mv.color == 'X' { "●" } else { "○" }, mv.mv, mv.ms);
                    if let Some(eval) = mv.eval {
                        text.push_str(&format!("  eval {eval:+.1}"));
                        if let Some(depth) = mv.depth {
                            text.push_str(&format!(" (depth {depth})"));
                        }
                    }
                    text
                }
                (None, None) => "From the opening…".to_owned(),
            };
            Shown {
                title: game.title.clone(),
                players: format!(
                    "● {}  –  ○ {}",
                    with_entrant(&game.black, game.black_entrant.as_deref()),
                    with_entrant(&game.white, game.white_entrant.as_deref())
                ),
                board: game.positions.last().cloned().unwrap_or_default(),
                last: last.map(|mv| mv.mv.clone()),
                clocks,
                text,
            }
        }
        ArenaGame::Replay(replay) => Shown {
            title: format!("Game #{} (replay)", replay.id),
            players: format!(
                "● {}  –  ○ {}",
                with_entrant(&replay.black, replay.black_entrant.as_deref()),
                with_entrant(&replay.white, replay.white_entrant.as_deref())
            ),
            board: replay.positions.last().cloned().unwrap_or_default(),
            last: replay.moves.last().map(|mv| mv.mv.clone()),
            clocks: String::new(),
            text: format!("{}, {}", replay.outcome, replay.ending),
        },
    });
    let body = html! {
        div #arena {
            div.board {
                @match &shown {
                    Some(shown) => {
                        p.title #arena-title { (shown.title) }
                        p.players #arena-players { (shown.players) }
                        svg #board-svg viewBox="0 0 8 8" width="640" height="640" role="img" aria-label="board" data-board=(shown.board) {
                            (board_squares(&shown.board))
                            (last_move_mark(shown.last.as_deref()))
                        }
                        p.clocks #arena-clocks { (shown.clocks) }
                        p #arena-move { (shown.text) }
                    }
                    None => {
                        p.title #arena-title {}
                        p.players #arena-players { "Waiting for the first game…" }
                        svg #board-svg viewBox="0 0 8 8" width="640" height="640" role="img" aria-label="board" {}
                        p.clocks #arena-clocks {}
                        p #arena-move {}
                    }
                }
            }
            (arena_side(view))
        }
    };
    layout_with(frame, "Arena", body, Some(ARENA_REFRESH_SECS))
}

/// How often the arena screen reloads itself without JavaScript (with it, it follows every move).
pub const ARENA_REFRESH_SECS: u32 = 5;

/// The arena's standings: the final's (its winner once it is decided, a knockout's bracket), else
/// the top of the leaderboard. The script fetches this part again after each change.
fn arena_side(view: &ArenaView) -> Markup {
    html! {
        div.standings #arena-side {
            @if let Some(fin) = &view.final_view {
                @let finished = fin.status == "finished";
                @let knockout = fin.info.format == crate::store::finals::Format::Knockout;
                h2 #arena-standings-title {
                    "Final #" (fin.info.id) ": " (fin.games_done) " / " (fin.games_total) " games"
                    @if finished { ", finished" }
                }
                @if finished {
                    @if let Some(winner) = fin.standings.first() {
                        p.winner #arena-winner { "Winner: " span.name { (winner.name) } " (" span.entrant { (winner.entrant) } ")" }
                    }
                }
                table #arena-standings {
                    thead { tr { th { "#" } th { "Bot" } th { "Entrant" } th { "Points" } th { "W-D-L" } th title="disc difference" { "Discs" } th title="games lost by a failure" { "Fail" } } }
                    tbody {
                        @for line in &fin.standings {
                            tr.champion[finished && line.rank == 1] {
                                td { (line.rank) } td.name { (line.name) } td.name { (line.entrant) }
                                td { (admin::points(line.points)) }
                                td { (line.wins) "-" (line.draws) "-" (line.losses) }
                                td { (format!("{:+}", line.disc_difference)) } td { (line.failures) }
                            }
                        }
                    }
                }
                @if knockout {
                    div.bracket #arena-bracket {
                        @for (index, round) in fin.rounds.iter().enumerate() {
                            div.round {
                                h3 { (admin::round_name(index as u32 + 1, fin.rounds.len())) }
                                @for m in &round[..] {
                                    div.match {
                                        @for (side, slot) in [(0, m.a), (1, m.b)] {
                                            @let name = match slot {
                                                crate::store::finals::Slot::Bot(seed) => fin.bots.iter().find(|b| b.seed == seed).map_or("?", |b| b.name.as_str()),
                                                crate::store::finals::Slot::Bye => "(bye)",
                                                crate::store::finals::Slot::Pending => "…",
                                            };
                                            div class=(if matches!(slot, crate::store::finals::Slot::Bot(seed) if m.winner == Some(seed)) { "side winner" } else { "side" }) {
                                                span.name { (name) }
                                                @if !m.games.is_empty() { span.points { (admin::points(m.points[side])) } }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                } @else {
                    div.bracket #arena-bracket {}
                }
            } @else {
                h2 #arena-standings-title { "Leaderboard" }
                table #arena-standings {
                    thead { tr { th { "#" } th { "Bot" } th { "Entrant" } th { "Rating" } th { "Games" } } }
                    tbody {
                        @for row in &view.leaderboard {
                            tr {
                                td { (row.rank.map(|r| r.to_string()).unwrap_or_else(|| "–".to_owned())) }
                                td.name { (row.name) }
                                td { (row.entrant.as_deref().unwrap_or("(pool)")) }
                                td { (row.rating_text) }
                                td { (row.games) }
                            }
                        }
                    }
                }
                div.bracket #arena-bracket {}
            }
        }
    }
}

/// ` (of ENTRANT)` after a bot's name, nothing for a pool bot: a bot is never shown without
/// whose it is.
pub fn entrant_note(entrant: Option<&str>) -> maud::Markup {
    maud::html! { @if let Some(entrant) = entrant { " (" span.entrant { (entrant) } ")" } }
}

/// The starter kit: everything a student needs to go from nothing to an uploaded bot.
pub fn starter(frame: &Frame) -> Markup {
    let platform = crate::service::inspect::accepted_platform();
    let body = html! {
        h1 { "Starter kit" }
        p { "A bot is a small library with two functions: " code { "init" } " (return your bot's name) and "
            code { "think" } " (given the board, return your move). This server runs bots built as a "
            b #starter-platform { (platform) } "." }
        section #starter-files {
            h2 { "1. Download two files into one folder" }
            ul {
                li { a href="/starter/othello_bot.h" download { "othello_bot.h" } " — the header: the board, the functions, the helpers" }
                li { a href="/starter/greedy.c" download { "greedy.c" } " — a first bot that plays the move flipping the most discs" }
            }
        }
        section #starter-build {
            h2 { "2. Build it" }
            p { "In that folder, with your compiler:" }
            @for (compiler, line) in crate::service::inspect::BUILD_LINES {
                h3 { (compiler) }
                pre { code { (line) } }
            }
            p.note { "Upload the library the compiler makes (" code { ".so" } " or " code { ".dll" } "), not " code { "greedy.c" } ". "
                "Writing C++? Keep " code { "#include \"othello_bot.h\"" } " at the top: it declares the functions " code { "extern \"C\"" } " so they keep their names." }
        }
        section #starter-upload {
            h2 { "3. Upload it" }
            p { "Log in with the link your teacher gave you, then use " a href="/me" { "My bots" } ". "
                "It is checked in a few seconds (it must load and play two games against a random bot), then placed on the leaderboard." }
        }
        section #starter-rules {
            h2 { "The rules and the interface" }
            ul {
                li { "Standard Othello on 8×8; each game starts from a random opening of a few moves, and every pairing plays it twice with colours swapped." }
                li { code { "think" } " gets " code { "board->black" } ", " code { "board->white" } " (one bit per square, a1 = bit 0), "
                    code { "board->to_move" } " and " code { "board->legal" } " (your legal moves)." }
                li { "Return " code { "othello_move(row, col)" } " (row and column 0–7) for a legal square, or " code { "OTHELLO_PASS" } " only when " code { "board->legal" } " is 0. Any other byte loses the game (an illegal move)." }
                li { "A move must come within the time limit; a crash, a timeout or an illegal move loses that game." }
                li { code { "init" } " is called before every game: reset your state there. Your name must not look like another entrant's bot." }
            }
        }
    };
    layout(frame, "Starter kit", body)
}

/// The page of an address that leads nowhere.
pub fn not_found(frame: &Frame, path: &str) -> Markup {
    let body = html! {
        h1 { "Page not found" }
        p #not-found { "There is no page at " code { (path) } " on this contest." }
        p { a href="/" { "The leaderboard" } " · " a href="/starter" { "Starter kit" } " · " a href="/me" { "My bots" } }
    };
    layout(frame, "Page not found", body)
}
