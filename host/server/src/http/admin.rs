//! The organiser's page (`/admin`, only with the organiser's token: `othello serve admin-token`),
//! the final's results (`/final`, `GET /api/final`, and the same as one static HTML file) and the
//! live games of the arena screen (`GET /api/live`).
//!
//! The organiser logs in with the token like an entrant does, into a cookie of its own
//! (`HttpOnly`, `SameSite=Strict`); an entrant's token is not the organiser's. Every form is
//! refused when sent from another site ([`super::same_origin`]).

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use maud::{DOCTYPE, Markup, PreEscaped, html};
use serde::Deserialize;

use othello_arena::ggf;

use super::{Shared, bearer, blocking, json_refusal, page_entrant, page_refusal, pages, same_origin};
use crate::jobs::final_round::{self, FinalOptions, FinalView, Format, Slot};
use crate::service::{Refusal, Service, ending_text, outcome_text};

/// The organiser's session cookie (a session id, never the token; `HttpOnly`, `SameSite=Strict`).
pub const ADMIN_COOKIE: &str = "othello_admin";

pub fn routes() -> Router<Shared> {
    Router::new()
        .route("/admin", get(page_admin))
        .route("/admin/login", get(page_admin_login).post(admin_login))
        .route("/admin/logout", post(admin_logout))
        .route("/admin/submissions", post(admin_submissions))
        .route("/admin/time-control", post(admin_time_control))
        .route("/admin/copies", post(admin_copies))
        .route("/admin/final", post(admin_final))
        .route("/admin/entrant-token", post(admin_entrant_token))
        .route("/admin/entrants", post(admin_add_entrants))
        .route("/admin/export/final.html", get(admin_export_final))
        .route("/admin/export/leaderboard.csv", get(admin_export_leaderboard))
        .route("/admin/workers/purge", post(admin_purge_worker))
        .route("/final", get(page_final))
        .route("/api/final", get(api_final))
        .route("/api/live", get(api_live))
}

fn admin_cookie(headers: &HeaderMap) -> Option<String> {
    super::cookie(headers, ADMIN_COOKIE)
}

/// Passes the organiser (bearer token or organiser session); 401 without either, 403 with
/// another token (an entrant's included) or a session that ended.
async fn organiser(service: &Shared, headers: &HeaderMap) -> Result<(), Refusal> {
    let token = bearer(headers);
    let session = admin_cookie(headers);
    if token.is_none() && session.is_none() {
        return Err(Refusal::new(
            401,
            "this page is the organiser's: log in at /admin/login with the organiser's token",
        ));
    }
    let valid = blocking(service, move |s| {
        s.with_db(|db| match (&token, &session) {
            (Some(token), _) => crate::store::settings::is_admin_token(db, token),
            (None, Some(session)) => Ok(crate::store::sessions::holder(db, crate::store::sessions::Kind::Admin, session)?.is_some()),
            (None, None) => Ok(false),
        })
    })
    .await?;
    if valid {
        Ok(())
    } else {
        Err(Refusal::new(
            403,
            "this is not the organiser's token (an entrant's token does not open this page); \
             `othello serve admin-token` makes a new one",
        ))
    }
}

/// What the organiser's page shows.
struct AdminState {
    submissions_open: bool,
    /// The organiser's setting, if any.
    stored_time: Option<Option<std::time::Duration>>,
    final_view: Option<FinalView>,
    entrants: Vec<crate::store::Entrant>,
    /// The remote workers with their hosts (shown here only) and their tallies.
    workers: Vec<crate::jobs::remote::WorkerInfo>,
    tallies: Vec<crate::jobs::remote::WorkerTally>,
    /// Copies sent (refused or entered) and the rule for them.
    copies: Vec<crate::service::entries::Copy>,
    copy_rule: crate::store::settings::CopyRule,
}

fn admin_state(service: &Service) -> Result<AdminState, Refusal> {
    let ratings: std::collections::HashMap<i64, f64> =
        service.leaderboard()?.iter().filter_map(|row| Some((row.entry, row.rating?))).collect();
    service.with_db(|db| {
        Ok(AdminState {
            submissions_open: crate::store::submissions_open(db)?,
            stored_time: crate::store::settings::stored_time_limit(db)?,
            final_view: final_round::view(db)?,
            entrants: crate::store::entrants(db)?,
            workers: crate::jobs::remote::workers(db)?,
            tallies: crate::jobs::remote::tallies(db, &ratings)?,
            copies: crate::service::entries::copies(db)?,
            copy_rule: crate::store::settings::copy_rule(db)?,
        })
    })
}

fn time_text(limit: Option<std::time::Duration>) -> String {
    match limit {
        Some(t) => format!("{} ms a move", t.as_millis()),
        None => "no time limit".to_owned(),
    }
}

fn admin_page(service: &Service, state: &AdminState, error: Option<&str>) -> Markup {
    admin_page_with(service, state, error, None, &[])
}

/// Most names one list may add at once (a class, a school's year).
pub const MAX_ENTRANTS_AT_ONCE: usize = 500;

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
fn admin_page_with(
    service: &Service,
    state: &AdminState,
    error: Option<&str>,
    issued: Option<(&str, &str)>,
    added: &[AddedEntrant],
) -> Markup {
    let effective = state.stored_time.unwrap_or(service.config.time_limit);
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
                label { "Milliseconds a move (0 = no limit): " input type="number" name="time_ms" min="0" max=(crate::store::settings::MAX_TIME_MS) value=(default_ms) required; }
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
                    label { "Games a pairing (even): " input type="number" name="games_per_pair" min="2" max=(final_round::MAX_GAMES_PER_PAIR) step="2" value=(final_round::DEFAULT_GAMES_PER_PAIR) required; } " "
                    label { "Milliseconds a move: " input type="number" name="time_ms" min="0" max=(crate::store::settings::MAX_TIME_MS) value=(default_ms) required; } " "
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
            @let entering = state.copy_rule == crate::store::settings::CopyRule::Enter;
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
    pages::layout(service, None, "Organiser", body)
}

async fn render_admin(service: &Shared, status: StatusCode, error: Option<String>) -> Response {
    match blocking(service, admin_state).await {
        Ok(state) => (status, Html(admin_page(service, &state, error.as_deref()).into_string())).into_response(),
        Err(refusal) => page_refusal(service, None, refusal),
    }
}

async fn page_admin(State(service): State<Shared>, headers: HeaderMap) -> Response {
    if let Err(refusal) = organiser(&service, &headers).await {
        let entrant = page_entrant(&service, &headers).await;
        return page_refusal(&service, entrant.as_ref(), refusal);
    }
    render_admin(&service, StatusCode::OK, None).await
}

fn login_page(service: &Service, error: Option<&str>) -> Markup {
    let body = html! {
        h1 { "Organiser's log in" }
        @if let Some(error) = error { p.error { (error) } }
        form #admin-login method="post" action="/admin/login" {
            label { "The organiser's token (" code { "othello serve admin-token" } "): " input #token type="password" name="token" autocomplete="off" required; }
            button type="submit" { "Log in" }
        }
    };
    pages::layout(service, None, "Organiser", body)
}

async fn page_admin_login(State(service): State<Shared>) -> Response {
    Html(login_page(&service, None).into_string()).into_response()
}

#[derive(Deserialize)]
struct TokenForm {
    token: String,
}

async fn admin_login(
    State(service): State<Shared>,
    axum::extract::ConnectInfo(peer): axum::extract::ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<TokenForm>,
) -> Response {
    if let Err(refusal) = same_origin(&headers) {
        return page_refusal(&service, None, refusal);
    }
    let token = form.token.trim().to_owned();
    let check = token.clone();
    let old = admin_cookie(&headers);
    let kind = crate::store::sessions::Kind::Admin;
    let login = blocking(&service, move |s| {
        if !s.with_db(|db| crate::store::settings::is_admin_token(db, &check))? {
            return Ok(None);
        }
        s.start_session(kind, 0, old.as_deref()).map(Some)
    });
    match login.await {
        Ok(Some(session)) => {
            let mut response = Redirect::to("/admin").into_response();
            if let Some(value) = super::set_cookie(&headers, ADMIN_COOKIE, &session, kind.lifetime()) {
                response.headers_mut().insert(header::SET_COOKIE, value);
            }
            response
        }
        Ok(None) => {
            if let Err(refusal) = service.unauthenticated.check(peer.ip()) {
                return page_refusal(&service, None, refusal);
            }
            service.unauthenticated.note(peer.ip());
            let page = login_page(&service, Some("this is not the organiser's token"));
            (StatusCode::UNAUTHORIZED, Html(page.into_string())).into_response()
        }
        Err(refusal) => page_refusal(&service, None, refusal),
    }
}

async fn admin_logout(State(service): State<Shared>, headers: HeaderMap) -> Response {
    if let Err(refusal) = same_origin(&headers) {
        return page_refusal(&service, None, refusal);
    }
    if let Some(session) = admin_cookie(&headers)
        && let Err(refusal) = blocking(&service, move |s| s.end_session(&session)).await
    {
        return page_refusal(&service, None, refusal);
    }
    let mut response = Redirect::to("/").into_response();
    if let Some(value) = super::set_cookie(&headers, ADMIN_COOKIE, "", std::time::Duration::ZERO) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

/// The checks every organiser's form passes: sent from this site, by the organiser.
async fn organiser_form(service: &Shared, headers: &HeaderMap) -> Result<(), Response> {
    if let Err(refusal) = same_origin(headers) {
        return Err(page_refusal(service, None, refusal));
    }
    if let Err(refusal) = organiser(service, headers).await {
        return Err(page_refusal(service, None, refusal));
    }
    Ok(())
}

/// After an organiser's form: back to the page, or the page with the error.
async fn after_form(service: &Shared, result: Result<(), Refusal>) -> Response {
    match result {
        Ok(()) => {
            service.shared.changed();
            Redirect::to("/admin").into_response()
        }
        Err(refusal) => {
            let status = StatusCode::from_u16(refusal.status).unwrap_or(StatusCode::BAD_REQUEST);
            render_admin(service, status, Some(refusal.message)).await
        }
    }
}

#[derive(Deserialize)]
struct NameForm {
    name: String,
}

/// A new token for an entrant, shown once on the page.
async fn admin_entrant_token(
    State(service): State<Shared>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<NameForm>,
) -> Response {
    if let Err(response) = organiser_form(&service, &headers).await {
        return response;
    }
    let name = form.name.clone();
    let issued = blocking(&service, move |s| {
        let token = s
            .with_db(|db| crate::store::reissue_token(db, crate::store::TokenHolder::Entrant, &name))
            .map_err(|r| Refusal::new(400, r.message))?;
        Ok((admin_state(s)?, token))
    })
    .await;
    match issued {
        Ok((state, token)) => {
            Html(admin_page_with(&service, &state, None, Some((&form.name, &token)), &[]).into_string()).into_response()
        }
        Err(refusal) => after_form(&service, Err(refusal)).await,
    }
}

/// Adds a list of entrants (a file of one name a line, or names typed in), showing their tokens
/// once. A name that cannot be added (taken, too like another's, empty) is listed with why; the
/// others are added all the same.
async fn admin_add_entrants(
    State(service): State<Shared>,
    headers: HeaderMap,
    mut multipart: axum::extract::Multipart,
) -> Response {
    if let Err(response) = organiser_form(&service, &headers).await {
        return response;
    }
    let mut text = String::new();
    loop {
        match multipart.next_field().await {
            Ok(Some(field)) => match field.bytes().await {
                Ok(bytes) => match std::str::from_utf8(&bytes) {
                    Ok(part) => {
                        text.push_str(part.trim_start_matches('\u{feff}'));
                        text.push('\n');
                    }
                    Err(_) => {
                        let why = "the list is not text (UTF-8): save it as plain text, one name a line";
                        return after_form(&service, Err(Refusal::new(400, why))).await;
                    }
                },
                Err(e) => {
                    return after_form(&service, Err(Refusal::new(400, format!("the list did not arrive: {e}")))).await;
                }
            },
            Ok(None) => break,
            Err(e) => {
                return after_form(&service, Err(Refusal::new(400, format!("the list did not arrive: {e}")))).await;
            }
        }
    }
    let names: Vec<String> = text.lines().map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned).collect();
    if names.is_empty() {
        return after_form(&service, Err(Refusal::new(400, "the list has no name: one name a line"))).await;
    }
    if names.len() > MAX_ENTRANTS_AT_ONCE {
        let why = format!("the list has {} names: at most {MAX_ENTRANTS_AT_ONCE} at once", names.len());
        return after_form(&service, Err(Refusal::new(400, why))).await;
    }
    let result = blocking(&service, move |s| {
        let added = s.with_db(|db| {
            Ok(names
                .into_iter()
                .map(|name| AddedEntrant { token: crate::store::add_entrant(db, &name), name })
                .collect::<Vec<_>>())
        })?;
        Ok((admin_state(s)?, added))
    })
    .await;
    match result {
        Ok((state, added)) => {
            service.shared.changed();
            Html(admin_page_with(&service, &state, None, None, &added).into_string()).into_response()
        }
        Err(refusal) => after_form(&service, Err(refusal)).await,
    }
}

/// The newest final's results as one HTML file, downloaded from the organiser's page.
async fn admin_export_final(State(service): State<Shared>, headers: HeaderMap) -> Response {
    if let Err(refusal) = organiser(&service, &headers).await {
        return page_refusal(&service, None, refusal);
    }
    match blocking(&service, |s| s.final_with_games()).await {
        Ok((view, games)) => (
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::CONTENT_DISPOSITION, "attachment; filename=\"final.html\""),
            ],
            export_final(&view, &games).into_string(),
        )
            .into_response(),
        Err(refusal) => page_refusal(&service, None, refusal),
    }
}

/// The leaderboard as CSV, downloaded from the organiser's page.
async fn admin_export_leaderboard(State(service): State<Shared>, headers: HeaderMap) -> Response {
    if let Err(refusal) = organiser(&service, &headers).await {
        return page_refusal(&service, None, refusal);
    }
    match blocking(&service, |s| s.leaderboard()).await {
        Ok(rows) => {
            let quote = |text: &str| format!("\"{}\"", text.replace('"', "\"\""));
            let mut csv = String::from("rank,bot,entrant,version,rating,error_95,games,score,failures\r\n");
            for row in rows.iter() {
                csv.push_str(&format!(
                    "{},{},{},{},{},{},{},{},{}\r\n",
                    row.rank.map(|r| r.to_string()).unwrap_or_default(),
                    quote(&row.name),
                    quote(row.entrant.as_deref().unwrap_or("")),
                    row.version,
                    row.rating.map(|r| format!("{r:.1}")).unwrap_or_default(),
                    row.error.map(|e| format!("{e:.1}")).unwrap_or_default(),
                    row.games,
                    row.score.map(|s| format!("{s:.4}")).unwrap_or_default(),
                    row.failures
                ));
            }
            (
                [
                    (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
                    (header::CONTENT_DISPOSITION, "attachment; filename=\"leaderboard.csv\""),
                ],
                csv,
            )
                .into_response()
        }
        Err(refusal) => page_refusal(&service, None, refusal),
    }
}

/// Removes a worker's games and refits the ladder.
async fn admin_purge_worker(
    State(service): State<Shared>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<NameForm>,
) -> Response {
    if let Err(response) = organiser_form(&service, &headers).await {
        return response;
    }
    let result = blocking(&service, move |s| s.purge_worker(&form.name).map(drop)).await;
    after_form(&service, result).await
}

#[derive(Deserialize)]
struct SubmissionsForm {
    state: String,
}

async fn admin_submissions(
    State(service): State<Shared>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<SubmissionsForm>,
) -> Response {
    if let Err(response) = organiser_form(&service, &headers).await {
        return response;
    }
    let result = match form.state.as_str() {
        state @ ("open" | "close") => {
            let open = state == "open";
            blocking(&service, move |s| s.with_db(|db| crate::store::set_submissions_open(db, open))).await
        }
        other => Err(Refusal::new(400, format!("`{other}`: submissions are `open` or `close`"))),
    };
    after_form(&service, result).await
}

#[derive(Deserialize)]
struct CopiesForm {
    rule: String,
}

async fn admin_copies(
    State(service): State<Shared>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<CopiesForm>,
) -> Response {
    if let Err(response) = organiser_form(&service, &headers).await {
        return response;
    }
    let result = match crate::store::settings::CopyRule::parse(&form.rule) {
        Ok(rule) => blocking(&service, move |s| s.with_db(|db| crate::store::settings::set_copy_rule(db, rule))).await,
        Err(why) => Err(Refusal::new(400, why)),
    };
    after_form(&service, result).await
}

#[derive(Deserialize)]
struct TimeForm {
    time_ms: String,
}

fn parse_ms(text: &str) -> Result<u64, Refusal> {
    text.trim()
        .parse::<u64>()
        .map_err(|_| Refusal::new(400, format!("`{text}`: the time a move is a whole number of milliseconds")))
}

async fn admin_time_control(
    State(service): State<Shared>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<TimeForm>,
) -> Response {
    if let Err(response) = organiser_form(&service, &headers).await {
        return response;
    }
    let result = match parse_ms(&form.time_ms) {
        Ok(ms) => {
            blocking(&service, move |s| {
                s.with_db(|db| crate::store::settings::set_time_ms(db, ms)).map_err(|r| Refusal::new(400, r.message))
            })
            .await
        }
        Err(refusal) => Err(refusal),
    };
    after_form(&service, result).await
}

#[derive(Deserialize)]
struct FinalForm {
    format: String,
    games_per_pair: String,
    time_ms: String,
}

async fn admin_final(
    State(service): State<Shared>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<FinalForm>,
) -> Response {
    if let Err(response) = organiser_form(&service, &headers).await {
        return response;
    }
    let options = (|| {
        let format = Format::parse(&form.format).map_err(|e| Refusal::new(400, e))?;
        let games_per_pair = form
            .games_per_pair
            .trim()
            .parse::<u32>()
            .map_err(|_| Refusal::new(400, "games a pairing: a whole even number"))?;
        let ms = parse_ms(&form.time_ms)?;
        if ms > crate::store::settings::MAX_TIME_MS {
            return Err(Refusal::new(400, format!("at most {} ms a move", crate::store::settings::MAX_TIME_MS)));
        }
        Ok(FinalOptions {
            format,
            games_per_pair,
            time_limit: (ms > 0).then(|| std::time::Duration::from_millis(ms)),
            seed: service.config.seed,
        })
    })();
    let result = match options {
        Ok(options) => {
            blocking(&service, move |s| {
                if s.config.workers == 0 {
                    // Nobody would play it: remote workers play checks and rating pairs only.
                    return Err(Refusal::new(
                        409,
                        "this server plays no games itself (--workers 0), and remote workers do not play a \
                         final's games: restart it with --workers 1 or more to run the final",
                    ));
                }
                final_round::start(&s.config.ladder, options).map_err(|why| Refusal::new(409, why))?;
                s.shared.work_added();
                Ok(())
            })
            .await
        }
        Err(refusal) => Err(refusal),
    };
    if result.is_ok() {
        service.shared.changed();
        return Redirect::to("/final").into_response();
    }
    after_form(&service, result).await
}

async fn api_final(State(service): State<Shared>) -> Response {
    match blocking(&service, |s| s.with_db(|db| final_round::view(db))).await {
        Ok(Some(view)) => axum::Json(view).into_response(),
        Ok(None) => json_refusal(Refusal::new(404, "no final has been started")),
        Err(refusal) => json_refusal(refusal),
    }
}

async fn api_live(State(service): State<Shared>) -> Response {
    let mut games = service.shared.live.games();
    match blocking(&service, |s| s.entrants_by_entry()).await {
        Ok(entrants) => {
            for game in &mut games {
                game.black_entrant = entrants.get(&game.entries[0]).cloned();
                game.white_entrant = entrants.get(&game.entries[1]).cloned();
            }
            axum::Json(games).into_response()
        }
        Err(refusal) => json_refusal(refusal),
    }
}

async fn page_final(State(service): State<Shared>, headers: HeaderMap) -> Response {
    let entrant = page_entrant(&service, &headers).await;
    match blocking(&service, |s| s.with_db(|db| final_round::view(db))).await {
        Ok(Some(view)) => {
            let body = html! {
                (final_body(&view, &|game| format!("/games/{game}")))
                // The page follows this final while it runs, and the next one when it starts.
                div #final-live data-final=(view.info.id) data-status=(view.status) {}
            };
            Html(pages::layout(&service, entrant.as_ref(), "Final", body).into_string()).into_response()
        }
        Ok(None) => Html(
            pages::layout(
                &service,
                entrant.as_ref(),
                "Final",
                html! { h1 { "The final" } p #no-final { "No final has been started yet: this page shows it as soon as it starts." }
                    div #final-live data-final="" data-status="none" {} },
            )
            .into_string(),
        )
        .into_response(),
        Err(refusal) => page_refusal(&service, entrant.as_ref(), refusal),
    }
}

pub(crate) fn round_name(round: u32, rounds: usize) -> String {
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

pub(crate) fn points(p: f64) -> String {
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
