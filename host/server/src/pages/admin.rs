//! The organiser's pages (`/admin`, its log in) and the final's results, on the site and as one
//! file that needs no server.

use maud::{DOCTYPE, Markup, PreEscaped, html};

use othello_arena::ggf;

use super::{Frame, layout};
use crate::service::finals::{FinalView, Format, Slot};
use crate::service::organiser::AdminState;
use crate::service::{ending_text, outcome_text};
use crate::store::finals::{DEFAULT_GAMES_PER_PAIR, MAX_GAMES_PER_PAIR};
use crate::store::settings::{CopyRule, MAX_TIME_MS};

fn time_text(limit: Option<std::time::Duration>) -> String {
    match limit {
        Some(t) => format!("{} ms a move", t.as_millis()),
        None => "no time limit".to_owned(),
    }
}

pub fn page(frame: &Frame, state: &AdminState, error: Option<&str>) -> Markup {
    page_with(frame, state, error, None, &[])
}

/// One line of a list of entrants added at once: its name and its token, or why it was not added.
pub struct AddedEntrant {
    pub name: String,
    pub token: Result<String, String>,
}

/// The tokens just issued as a CSV file (`name,token,login`), for the organiser to hand out: a
/// `data:` link, as the tokens are never kept in the clear and cannot be shown again.
fn tokens_csv_link(added: &[AddedEntrant]) -> String {
    let mut csv = String::from("name,token,login\r\n");
    for entrant in added {
        if let Ok(token) = &entrant.token {
            let name = entrant.name.replace('"', "\"\"");
            csv.push_str(&format!("\"{name}\",{token},/login#token={token}\r\n"));
        }
    }
    let mut link = String::from("data:text/csv;charset=utf-8,");
    for byte in csv.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            link.push(byte as char);
        } else {
            link.push_str(&format!("%{byte:02X}"));
        }
    }
    link
}

/// The organiser's page; `issued` shows a new token once (the entrant's name and the token), and
/// `added` the tokens of a list of entrants just added (once, with a file to download).
pub fn page_with(
    frame: &Frame,
    state: &AdminState,
    error: Option<&str>,
    issued: Option<(&str, &str)>,
    added: &[AddedEntrant],
) -> Markup {
    let effective = state.stored_time.unwrap_or(state.command_line_time);
    let default_ms = effective.map_or(0, |t| t.as_millis() as u64);
    let final_running = state.final_view.as_ref().is_some_and(|v| v.status == "running");
    let body = html! {
        h1 { "Organiser" }
        @if let Some(error) = error { p.error #admin-error { (error) } }
        section #admin-submissions {
            h2 { "Submissions" }
            p { "Submissions are " b #submissions-state { (if state.submissions_open { "open" } else { "closed" }) } "." }
            form method="post" action="/admin/submissions" {
                input type="hidden" name="state" value=(if state.submissions_open { "close" } else { "open" });
                button type="submit" { (if state.submissions_open { "Close submissions" } else { "Open submissions" }) }
            }
        }
        section #admin-time {
            h2 { "Time control of rating games" }
            p { "Now: " b #time-control { (time_text(effective)) }
                @if state.stored_time.is_none() { " (from the command line)" } ". New checks and rating games use it; a game being played keeps its own." }
            form method="post" action="/admin/time-control" {
                label { "Milliseconds a move (0 = no limit): " input type="number" name="time_ms" min="0" max=(MAX_TIME_MS) value=(default_ms) required; }
                " " button type="submit" { "Set" }
            }
        }
        section #admin-final {
            h2 { "The final" }
            @match &state.final_view {
                None => p { "No final yet." },
                Some(view) => p { a href="/final" { "Final #" (view.info.id) } ": " (view.info.format.as_str()) ", "
                    (view.games_done) " of " (view.games_total) " games played, " (view.status) "." },
            }
            @if final_running {
                p.note { "A final is being played: the next can start when it ends." }
            } @else {
                p.note { "Every entrant's current version plays — the one it chose on its page, else its newest checked one (bots still being placed too) — seeded by rating. Its games come before the ladder's and count on the ladder too. Close submissions first." }
                form #start-final method="post" action="/admin/final" {
                    label { "Format: " select name="format" {
                        option value="round-robin" selected { "round robin" }
                        option value="knockout" { "knockout" }
                    } } " "
                    label { "Games a pairing (even): " input type="number" name="games_per_pair" min="2" max=(MAX_GAMES_PER_PAIR) step="2" value=(DEFAULT_GAMES_PER_PAIR) required; } " "
                    label { "Milliseconds a move: " input type="number" name="time_ms" min="0" max=(MAX_TIME_MS) value=(default_ms) required; } " "
                    button type="submit" { "Start the final" }
                }
            }
        }
        section #admin-entrants {
            h2 { "Entrants" }
            p.note { "Add a class at once below (a text file, one name a line), or one by one on the command line: " code { "othello serve entrant add NAME" } ". "
                "A new token ends the old one and every login made with it (a revoked entrant gets back in with it)." }
            form #add-entrants method="post" action="/admin/entrants" enctype="multipart/form-data" {
                label { "A list file (one name a line): " input type="file" name="list" accept=".txt,.csv,text/plain"; } " "
                label { "or the names: " textarea name="names" rows="3" cols="24" aria-label="names, one a line" {} } " "
                button type="submit" { "Add entrants" }
            }
            @if !added.is_empty() {
                section #added-entrants {
                    h3 { "Entrants just added" }
                    p.issued { "Their tokens are shown only this once: "
                        a #tokens-download download="tokens.csv" href=(tokens_csv_link(added)) { "download them as a file (tokens.csv)" }
                        " before you leave this page. Each student logs in at " code { "/login" } " with theirs (or with the link " code { "/login#token=…" } ")." }
                    table #added-tokens {
                        thead { tr { th { "Name" } th { "Token" } } }
                        tbody { @for entrant in added {
                            tr { td.name { (entrant.name) }
                                @match &entrant.token {
                                    Ok(token) => td { code { (token) } },
                                    Err(why) => td.error { "not added: " (why) },
                                } }
                        } }
                    }
                }
            }
            @if let Some((name, token)) = issued {
                p.issued #issued-token { "New token of " span.name { (name) } " (shown only this once): " code { (token) } }
            }
            ul { @for entrant in &state.entrants {
                li { span.name { (entrant.name) } @if entrant.revoked { " (revoked)" } " "
                    form.inline method="post" action="/admin/entrant-token" {
                        input type="hidden" name="name" value=(entrant.name);
                        button type="submit" { "New token" }
                    }
                }
            } }
            h3 { "Copies" }
            @let entering = state.copy_rule == CopyRule::Enter;
            p #copy-rule { "A file byte for byte another entrant's (or a pool bot's) is "
                b { (if entering { "entered as an entry of its own" } else { "refused, naming whose it is" }) }
                @if entering { " (named “Name (Entrant)”, its own row and games)" } "." }
            form #copies-form method="post" action="/admin/copies" {
                input type="hidden" name="rule" value=(if entering { "refuse" } else { "enter" });
                button type="submit" { (if entering { "Refuse copies from now on" } else { "Enter copies as separate entries" }) }
            }
            @if !state.copies.is_empty() {
                table #admin-copies {
                    thead { tr { th { "Sent by" } th { "A copy of" } th { "When" } th { "What happened" } } }
                    tbody { @for copy in &state.copies {
                        tr { td.name { (copy.sender) } td.name { (copy.original) } td { (ggf::format_date(copy.at)) }
                            td { (if copy.entered { "entered" } else { "refused" }) } }
                    } }
                }
            }
        }
        section #admin-workers {
            h2 { "Remote workers" }
            @if state.workers.is_empty() {
                p { "None: " code { "othello serve worker add NAME" } " gives one a token." }
            } @else {
                p.note { "Each worker's games against the rest: a bot that scores far from what the ratings predict, or fails far more often, on one worker's games flags it. "
                    "Purging removes every game the worker played and refits the ladder (revoke it too to stop it)." }
                table #admin-worker-table {
                    thead { tr { th { "Worker" } th { "Host" } th { "Cores" } th { "Games" } th { "Failures" } th { "Time losses" } th { "Residual" } th { "Flag" } th {} } }
                    tbody { @for worker in &state.workers {
                        @let tally = state.tallies.iter().find(|t| t.worker == worker.name);
                        tr {
                            td.name { (worker.name) @if worker.revoked { " (revoked)" } }
                            td.name { (worker.host.as_deref().unwrap_or("–")) }
                            td { (worker.cores.map(|c| c.to_string()).unwrap_or_else(|| "–".to_owned())) }
                            td { (tally.map_or(0, |t| t.games)) }
                            td { (tally.map_or(0, |t| t.failures)) }
                            td { (tally.map_or(0, |t| t.time_losses)) }
                            td { (tally.map_or_else(String::new, |t| format!("{:+.1} ({:+.1} σ)", t.residual, t.z))) }
                            td.flag { (tally.and_then(|t| t.flagged.clone()).unwrap_or_default()) }
                            td { form.inline method="post" action="/admin/workers/purge" {
                                input type="hidden" name="name" value=(worker.name);
                                button type="submit" { "Purge its games" }
                            } }
                        }
                    } }
                }
            }
        }
        section #admin-export {
            h2 { "Export" }
            ul {
                li { a #export-final href="/admin/export/final.html" download { "The newest final's results" } " — one HTML file that needs no server (the same as " code { "othello serve final export" } ")" }
                li { a #export-leaderboard href="/admin/export/leaderboard.csv" download { "The leaderboard" } " — a CSV file (rank, bot, entrant, version, rating, 95 % half-width, games, score, failures)" }
            }
        }
        form.inline method="post" action="/admin/logout" { button type="submit" { "Leave the organiser's page" } }
    };
    layout(frame, "Organiser", body)
}

pub fn login(frame: &Frame, error: Option<&str>) -> Markup {
    let body = html! {
        h1 { "Organiser's log in" }
        @if let Some(error) = error { p.error { (error) } }
        form #admin-login method="post" action="/admin/login" {
            label { "The organiser's token (" code { "othello serve admin-token" } "): " input #token type="password" name="token" autocomplete="off" required; }
            button type="submit" { "Log in" }
        }
    };
    layout(frame, "Organiser", body)
}

pub fn round_name(round: u32, rounds: usize) -> String {
    match rounds as u32 - round {
        0 => "Final".to_owned(),
        1 => "Semi-finals".to_owned(),
        2 => "Quarter-finals".to_owned(),
        _ => format!("Round {round}"),
    }
}

/// A game's result winner first (`White wins 40–24`), so a white win never reads like a loss.
fn score_text(black_score: Option<f64>, discs: Option<[u32; 2]>) -> String {
    black_score.map_or_else(String::new, |score| outcome_text(score, discs))
}

pub fn points(p: f64) -> String {
    if p.fract() == 0.0 { format!("{p:.0}") } else { format!("{p:.1}") }
}

/// The final's results: the standings, a knockout's bracket, and its games, each linked by
/// `game_link(ladder game id)`. Plain HTML: it needs no script.
pub fn final_body(view: &FinalView, game_link: &dyn Fn(i64) -> String) -> Markup {
    // Each bot with its entrant, wherever the final shows one.
    let name = |seed: u32| {
        view.bots
            .iter()
            .find(|b| b.seed == seed)
            .map_or_else(|| "?".to_owned(), |b| format!("{} ({})", b.name, b.entrant))
    };
    let slot = |slot: Slot| match slot {
        Slot::Bot(seed) => name(seed),
        Slot::Bye => "(bye)".to_owned(),
        Slot::Pending => "…".to_owned(),
    };
    let knockout = view.info.format == Format::Knockout;
    html! {
        h1 { "Final #" (view.info.id) }
        p #final-status data-status=(view.status) {
            (if knockout { "Knockout" } else { "Round robin" }) ", " (view.info.games_per_pair) " games a pairing (colours swapped on each opening), "
            (time_text(view.info.time_ms.map(std::time::Duration::from_millis))) ". "
            b { (view.games_done) " of " (view.games_total) " games played" }
            (if view.status == "finished" { " — finished." } else { " — being played." })
        }
        h2 { "Standings" }
        table #final-standings {
            thead { tr { th { "#" } th { "Bot" } th { "Entrant" } th { "Points" } th { "W" } th { "D" } th { "L" } th { "Disc difference" } th { "Failures" }
                @if knockout { th { "Reached" } } } }
            tbody {
                @for line in &view.standings {
                    tr {
                        td { (line.rank) } td.name { (line.name) } td.name { (line.entrant) } td { (points(line.points)) }
                        td { (line.wins) } td { (line.draws) } td { (line.losses) }
                        td { (format!("{:+}", line.disc_difference)) } td { (line.failures) }
                        @if knockout { td { (if line.reached == 0 { String::new() } else { round_name(line.reached, view.rounds.len()) }) } }
                    }
                }
            }
        }
        @if knockout {
            h2 { "Bracket" }
            div.bracket #final-bracket {
                @for (index, round) in view.rounds.iter().enumerate() {
                    div.round {
                        h3 { (round_name(index as u32 + 1, view.rounds.len())) }
                        @for m in round {
                            div.match {
                                @for (side, s) in [(0, m.a), (1, m.b)] {
                                    div class=(if matches!(s, Slot::Bot(seed) if m.winner == Some(seed)) { "side winner" } else { "side" }) {
                                        span.name { (slot(s)) }
                                        @if !m.games.is_empty() { span.points { (points(m.points[side])) } }
                                    }
                                }
                                @match m.decided_by {
                                    Some("discs") => div.tiebreak { "level on points: on discs" },
                                    Some("seed") => div.tiebreak { "level on points and discs: the better seed" },
                                    _ => {},
                                }
                            }
                        }
                    }
                }
            }
        }
        h2 { "Games" }
        table #final-games {
            thead { tr { th { "Game" } @if knockout { th { "Round" } } th { "Black" } th { "White" } th { "Result" } } }
            tbody {
                @for game in &view.games {
                    tr {
                        td { @if let Some(id) = game.game { a href=(game_link(id)) { "#" (id) } } @else { (game.state) } }
                        @if knockout { td { (round_name(game.round, view.rounds.len())) } }
                        td.name { (name(game.black)) } td.name { (name(game.white)) }
                        td { (score_text(game.black_score, game.discs)) }
                    }
                }
            }
        }
    }
}

/// A board as a small SVG, drawn on the server (for the static export, which has no script).
fn board_svg(board: &str) -> Markup {
    let squares: Vec<char> = board.chars().take(64).collect();
    html! {
        svg.board viewBox="0 0 8 8" width="200" height="200" role="img" aria-label="final position" {
            rect width="8" height="8" fill="#2e7d4f" {}
            @for i in 0..=8 {
                line x1=(i) y1="0" x2=(i) y2="8" stroke="#154a2c" stroke-width="0.03" {}
                line x1="0" y1=(i) x2="8" y2=(i) stroke="#154a2c" stroke-width="0.03" {}
            }
            @for (square, c) in squares.iter().enumerate() {
                @if *c == 'X' || *c == 'O' {
                    circle cx=(format!("{}.5", square % 8)) cy=(format!("{}.5", square / 8)) r="0.42"
                        fill=(if *c == 'X' { "#111" } else { "#f4f4f4" }) {}
                }
            }
        }
    }
}

/// The final's results as one HTML file: the style inline, no script, each game's moves and
/// final position written out below the tables (the tables link to them).
pub fn export_final(view: &FinalView, games: &[othello_ladder::StoredGame]) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "Final #" (view.info.id) " · Othello contest" }
                style { (PreEscaped(include_str!("../../assets/style.css"))) }
            }
            body {
                main {
                    (final_body(view, &|game| format!("#game-{game}")))
                    h2 { "The games" }
                    @for stored in games {
                        @let id = stored.id;
                        @match ggf::read_games(&stored.ggf).ok().and_then(|g| g.into_iter().next()) {
                            None => p #{"game-" (id)} { "Game #" (id) " cannot be read." },
                            Some(game) => {
                                section.game #{"game-" (id)} {
                                    // How it ended as the ladder recorded it (a crash, a timeout …): the GGF says "resigned".
                                    h3 { "Game #" (id) ": " span.name { (game.black) } " (black) – " span.name { (game.white) } " (white): "
                                        (outcome_text(stored.black_score, Some(game.result.discs))) ", " (ending_text(&stored.termination, stored.black_score)) }
                                    @if let Some(last) = game.positions().last() { (board_svg(&last.to_board_string())) }
                                    p.moves { (game.moves.iter().map(|m| m.mv.to_string()).collect::<Vec<_>>().join(" ")) }
                                }
                            }
                        }
                    }
                }
                footer { "Exported by othello serve final export." }
            }
        }
    }
}

/// `/final`: the newest final, or that none has started; the page follows it live either way.
pub fn final_page(frame: &Frame, view: Option<&FinalView>) -> Markup {
    let body = match view {
        Some(view) => html! {
            (final_body(view, &|game| format!("/games/{game}")))
            // The page follows this final while it runs, and the next one when it starts.
            div #final-live data-final=(view.info.id) data-status=(view.status) {}
        },
        None => {
            html! { h1 { "The final" } p #no-final { "No final has been started yet: this page shows it as soon as it starts." }
            div #final-live data-final="" data-status="none" {} }
        }
    };
    layout(frame, "Final", body)
}
