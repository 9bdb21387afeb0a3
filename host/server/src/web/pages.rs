//! The pages, rendered with maud: every name and text from an entrant or a bot is escaped.

use maud::{DOCTYPE, Markup, html};

use crate::service::{BoardRow, BotView, GameSummary, Replay, Service};
use crate::store::Entrant;

pub(crate) fn layout(service: &Service, entrant: Option<&Entrant>, title: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · Othello contest" }
                link rel="stylesheet" href="/assets/style.css";
                script src="/assets/app.js" defer {}
            }
            body {
                header {
                    a.brand href="/" { "Othello contest" }
                    nav {
                        a href="/" { "Leaderboard" }
                        a href="/arena" { "Arena screen" }
                        a href="/workers" { "Workers" }
                        a href="/final" { "Final" }
                        @if let Some(entrant) = entrant {
                            a href="/me" { "My bots" }
                            span.who { "Logged in as " b { (entrant.name) } }
                            form.inline method="post" action="/logout" { button type="submit" { "Log out" } }
                        } @else {
                            a href="/login" { "Log in" }
                        }
                    }
                }
                @if let Some(why) = &service.shared.weak_sandbox {
                    p.warning #weak-sandbox {
                        "Weak sandbox: this server was started with --allow-weak-sandbox, and bots run without every layer of the sandbox ("
                        (why) ")."
                    }
                }
                main { (body) }
                footer { "Bots accepted: " (crate::inspect::accepted_platform()) ". Jobs waiting: " (service.pending_jobs()) "." }
            }
        }
    }
}

pub fn message(service: &Service, entrant: Option<&Entrant>, title: &str, text: &str) -> Markup {
    layout(
        service,
        entrant,
        title,
        html! { h1 { (title) } p.error { (text) } p { a href="/" { "Back to the leaderboard" } } },
    )
}

pub fn leaderboard(service: &Service, entrant: Option<&Entrant>, rows: &[BoardRow]) -> Markup {
    let body = html! {
        h1 { "Leaderboard" }
        p.note { "Elo from a maximum-likelihood fit of every game; ± is the 95 % interval. Updates live." }
        table #board {
            thead { tr { th { "#" } th { "Bot" } th { "Entrant" } th { "Version" } th { "Rating" } th { "Games" } th { "Score" } th { "Failures" } } }
            tbody {
                @for row in rows {
                    tr {
                        td { (row.rank.map(|r| r.to_string()).unwrap_or_else(|| "–".to_owned())) }
                        td.name { (row.name) }
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
    };
    layout(service, entrant, "Leaderboard", body)
}

pub fn login(service: &Service, entrant: Option<&Entrant>, error: Option<&str>) -> Markup {
    let body = html! {
        h1 { "Log in" }
        @if let Some(error) = error { p.error { (error) } }
        @if let Some(entrant) = entrant { p { "You are logged in as " b { (entrant.name) } ". " a href="/me" { "Your bots" } } }
        form #login method="post" action="/login" {
            label { "Your token (from the organiser): " input #token type="password" name="token" autocomplete="off" required; }
            button type="submit" { "Log in" }
        }
    };
    layout(service, entrant, "Log in", body)
}

pub fn me(service: &Service, entrant: &Entrant, bots: &[BotView], error: Option<&str>) -> Markup {
    let body = html! {
        h1 { "Your bots" }
        @if let Some(error) = error { p.error #upload-error { (error) } }
        form #upload method="post" action="/upload" enctype="multipart/form-data" {
            label { "Upload a bot (" (crate::inspect::accepted_platform()) ", at most " ((service.config.max_upload_bytes >> 20)) " MiB): "
                input type="file" name="bot" required; }
            button type="submit" { "Upload" }
        }
        @if bots.is_empty() { p { "No bot yet." } } @else {
            table {
                thead { tr { th { "Upload" } th { "File" } th { "Bot" } th { "Status" } th { "Rating" } th { "Games" } th { "Failures" } } }
                tbody {
                    @for bot in bots {
                        tr {
                            td { a href={ "/bots/" (bot.upload.id) } { "#" (bot.upload.id) } }
                            td { (bot.upload.file_name) }
                            td.name { (bot.name.as_deref().unwrap_or("")) }
                            td { (bot.upload.status.as_str()) }
                            td { (bot.rating_text) }
                            td { (bot.games) }
                            td { (bot.failures) }
                        }
                    }
                }
            }
        }
    };
    layout(service, Some(entrant), "Your bots", body)
}

pub fn bot(service: &Service, entrant: &Entrant, bot: &BotView, games: &[GameSummary]) -> Markup {
    let body = html! {
        h1 { "Bot #" (bot.upload.id) ": " span.name { (bot.name.as_deref().unwrap_or(&bot.upload.file_name)) } }
        dl #bot data-id=(bot.upload.id) data-status=(bot.upload.status.as_str()) {
            dt { "File" } dd { (bot.upload.file_name) " (" (bot.upload.size) " bytes, SHA-256 " code { (bot.upload.sha256) } ")" }
            dt { "Status" } dd #status { (bot.upload.status.as_str()) }
            @if let Some(reason) = &bot.upload.reason { dt { "Why" } dd #reason { (reason) } }
            dt { "Rating" } dd #rating { (bot.rating_text) }
            dt { "Games" } dd #games { (bot.games) }
            dt { "Score" } dd #points { (bot.points) }
            dt { "Lost by failure" } dd #failures { (bot.failures) }
        }
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
                    h3 { "With " (game.color) " against " (game.opponent) ": " (game.result) " " (game.discs[0]) "–" (game.discs[1]) }
                    @if let Some(failure) = &game.failure { p.error { (failure) } }
                    @if !game.stderr_tail.is_empty() { pre.stderr { @for line in &game.stderr_tail { (line) "\n" } } }
                    p.times { "Move times (ms): " (game.move_times_ms.iter().map(|t| format!("{t}")).collect::<Vec<_>>().join(" ")) }
                }
            }
        }
        h2 { "Games" }
        @if games.is_empty() { p { "No rated game yet." } } @else {
            table #games-list {
                thead { tr { th { "Game" } th { "Black" } th { "White" } th { "Result" } th { "End" } } }
                tbody {
                    @for game in games {
                        tr {
                            td { a href={ "/games/" (game.id) } { "#" (game.id) } }
                            td.name { (game.black) } td.name { (game.white) }
                            td { (game.result) } td { (game.termination) }
                        }
                    }
                }
            }
        }
    };
    layout(service, Some(entrant), "Bot", body)
}

pub fn game(service: &Service, entrant: Option<&Entrant>, replay: &Replay) -> Markup {
    let data = serde_json::to_string(replay).expect("replays serialize");
    let body = html! {
        h1 { "Game #" (replay.id) }
        p { span.name { (replay.black) } " (black) – " span.name { (replay.white) } " (white): " (replay.result) ", " (replay.termination)
            @if !replay.detail.is_empty() { " (" (replay.detail) ")" } }
        div #replay data-game=(data) {
            div.board {
                svg #board-svg viewBox="0 0 8 8" width="400" height="400" role="img" aria-label="board" {}
                div.controls {
                    button #first type="button" title="start" { "|◀" } " "
                    button #prev type="button" title="previous move (←)" { "◀" } " "
                    span #ply { "0" } " "
                    button #next type="button" title="next move (→)" { "▶" } " "
                    button #last type="button" title="end" { "▶|" }
                }
            }
            ol #moves {}
        }
    };
    layout(service, entrant, "Game", body)
}

pub fn arena(service: &Service, entrant: Option<&Entrant>) -> Markup {
    let body = html! {
        div #arena {
            div.board {
                p.title #arena-title {}
                p.players #arena-players { "Waiting for the first game…" }
                svg #board-svg viewBox="0 0 8 8" width="640" height="640" role="img" aria-label="board" {}
                p.clocks #arena-clocks {}
                p #arena-move {}
            }
            div.standings {
                h2 #arena-standings-title { "Standings" }
                table #arena-standings { thead { tr {} } tbody {} }
                div.bracket #arena-bracket {}
            }
        }
    };
    layout(service, entrant, "Arena", body)
}
