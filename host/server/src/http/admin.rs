//! The organiser's page (`/admin`, only with the organiser's token: `othello serve admin-token`),
//! the final's results (`/final`, `GET /api/final`, and the same as one static HTML file) and the
//! live games of the arena screen (`GET /api/live`).
//!
//! The organiser logs in with the token like an entrant does, into a cookie of its own
//! (`HttpOnly`, `SameSite=Strict`); an entrant's token is not the organiser's. Every form is
//! refused when sent from another site ([`super::extractors::same_origin`]).

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use super::error::ApiError;
use super::extractors::{Admin, SameOrigin, Visitor, cookie, page_error};
use super::{Shared, blocking, frame, html, set_cookie};
use crate::pages;
use crate::pages::admin::AddedEntrant;
use crate::service::Refusal;
use crate::store::finals::{FinalOptions, Format};

/// The organiser's session cookie (a session id, never the token; `HttpOnly`, `SameSite=Strict`).
pub const ADMIN_COOKIE: &str = "othello_admin";

/// Most names one list may add at once (a class, a school's year).
pub const MAX_ENTRANTS_AT_ONCE: usize = 500;

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

/// The organiser's page with `status`, saying `error` if there is one.
async fn render_admin(service: &Shared, status: StatusCode, error: Option<String>) -> Result<Response, ApiError> {
    let state = blocking(service, |s| s.admin_state()).await.map_err(page_error(service, None))?;
    Ok((status, html(pages::admin::page(&frame(service, None), &state, error.as_deref()))).into_response())
}

/// The organiser's page; anyone else is refused with a page that shows who is logged in.
async fn page_admin(
    State(service): State<Shared>,
    Visitor(entrant): Visitor,
    admin: Result<Admin, ApiError>,
) -> Result<Response, ApiError> {
    if let Err(refused) = admin {
        return Err(page_error(&service, entrant.as_ref())(Refusal::from(refused)));
    }
    render_admin(&service, StatusCode::OK, None).await
}

async fn page_admin_login(State(service): State<Shared>) -> Response {
    html(pages::admin::login(&frame(&service, None), None))
}

#[derive(Deserialize)]
struct TokenForm {
    token: String,
}

async fn admin_login(
    State(service): State<Shared>,
    axum::extract::ConnectInfo(peer): axum::extract::ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    _: SameOrigin,
    axum::Form(form): axum::Form<TokenForm>,
) -> Result<Response, ApiError> {
    let token = form.token.trim().to_owned();
    let old = cookie(&headers, ADMIN_COOKIE);
    let kind = crate::store::sessions::Kind::Admin;
    let login = blocking(&service, move |s| {
        if !s.is_organiser(Some(&token), None)? {
            return Ok(None);
        }
        s.start_session(kind, 0, old.as_deref()).map(Some)
    });
    match login.await.map_err(page_error(&service, None))? {
        Some(session) => {
            let mut response = Redirect::to("/admin").into_response();
            if let Some(value) = set_cookie(&headers, ADMIN_COOKIE, &session, kind.lifetime()) {
                response.headers_mut().insert(header::SET_COOKIE, value);
            }
            Ok(response)
        }
        None => {
            service.unauthenticated.check(peer.ip()).map_err(page_error(&service, None))?;
            service.unauthenticated.note(peer.ip());
            let page = pages::admin::login(&frame(&service, None), Some("this is not the organiser's token"));
            Ok((StatusCode::UNAUTHORIZED, html(page)).into_response())
        }
    }
}

async fn admin_logout(State(service): State<Shared>, headers: HeaderMap, _: SameOrigin) -> Result<Response, ApiError> {
    if let Some(session) = cookie(&headers, ADMIN_COOKIE) {
        blocking(&service, move |s| s.end_session(&session)).await.map_err(page_error(&service, None))?;
    }
    let mut response = Redirect::to("/").into_response();
    if let Some(value) = set_cookie(&headers, ADMIN_COOKIE, "", std::time::Duration::ZERO) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    Ok(response)
}

/// After an organiser's form: back to the page, or the page with the error.
async fn after_form(service: &Shared, result: Result<(), Refusal>) -> Result<Response, ApiError> {
    match result {
        Ok(()) => {
            service.shared.changed();
            Ok(Redirect::to("/admin").into_response())
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
    _: SameOrigin,
    _: Admin,
    axum::Form(form): axum::Form<NameForm>,
) -> Result<Response, ApiError> {
    let name = form.name.clone();
    let issued = blocking(&service, move |s| {
        let token = s
            .with_db(|db| Ok(crate::store::reissue_token(db, crate::store::TokenHolder::Entrant, &name)?))
            .map_err(|r| Refusal::new(400, r.message))?;
        Ok((s.admin_state()?, token))
    })
    .await;
    match issued {
        Ok((state, token)) => {
            let issued = Some((form.name.as_str(), token.as_str()));
            Ok(html(pages::admin::page_with(&frame(&service, None), &state, None, issued, &[])))
        }
        Err(refusal) => after_form(&service, Err(refusal)).await,
    }
}

/// Reads the list of names of the entrants form (a file of one name a line, or names typed in).
async fn read_names(mut multipart: axum::extract::Multipart) -> Result<Vec<String>, Refusal> {
    let mut text = String::new();
    loop {
        let field =
            multipart.next_field().await.map_err(|e| Refusal::new(400, format!("the list did not arrive: {e}")))?;
        let Some(field) = field else { break };
        let bytes = field.bytes().await.map_err(|e| Refusal::new(400, format!("the list did not arrive: {e}")))?;
        let Ok(part) = std::str::from_utf8(&bytes) else {
            return Err(Refusal::new(400, "the list is not text (UTF-8): save it as plain text, one name a line"));
        };
        text.push_str(part.trim_start_matches('\u{feff}'));
        text.push('\n');
    }
    let names: Vec<String> = text.lines().map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned).collect();
    if names.is_empty() {
        return Err(Refusal::new(400, "the list has no name: one name a line"));
    }
    if names.len() > MAX_ENTRANTS_AT_ONCE {
        return Err(Refusal::new(
            400,
            format!("the list has {} names: at most {MAX_ENTRANTS_AT_ONCE} at once", names.len()),
        ));
    }
    Ok(names)
}

/// Adds a list of entrants, showing their tokens once. A name that cannot be added (taken, too
/// like another's, empty) is listed with why; the others are added all the same.
async fn admin_add_entrants(
    State(service): State<Shared>,
    _: SameOrigin,
    _: Admin,
    multipart: axum::extract::Multipart,
) -> Result<Response, ApiError> {
    let names = match read_names(multipart).await {
        Ok(names) => names,
        Err(refusal) => return after_form(&service, Err(refusal)).await,
    };
    let result = blocking(&service, move |s| {
        let added = s.with_db(|db| {
            Ok(names
                .into_iter()
                .map(|name| AddedEntrant { token: crate::store::add_entrant(db, &name).map_err(String::from), name })
                .collect::<Vec<_>>())
        })?;
        Ok((s.admin_state()?, added))
    })
    .await;
    match result {
        Ok((state, added)) => {
            service.shared.changed();
            Ok(html(pages::admin::page_with(&frame(&service, None), &state, None, None, &added)))
        }
        Err(refusal) => after_form(&service, Err(refusal)).await,
    }
}

/// The newest final's results as one HTML file, downloaded from the organiser's page.
async fn admin_export_final(State(service): State<Shared>, _: Admin) -> Result<Response, ApiError> {
    let (view, games) = blocking(&service, |s| s.final_with_games()).await.map_err(page_error(&service, None))?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_DISPOSITION, "attachment; filename=\"final.html\""),
        ],
        pages::admin::export_final(&view, &games).into_string(),
    )
        .into_response())
}

/// The leaderboard as CSV, downloaded from the organiser's page.
async fn admin_export_leaderboard(State(service): State<Shared>, _: Admin) -> Result<Response, ApiError> {
    let rows = blocking(&service, |s| s.leaderboard()).await.map_err(page_error(&service, None))?;
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
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (header::CONTENT_DISPOSITION, "attachment; filename=\"leaderboard.csv\""),
        ],
        csv,
    )
        .into_response())
}

/// Removes a worker's games and refits the ladder.
async fn admin_purge_worker(
    State(service): State<Shared>,
    _: SameOrigin,
    _: Admin,
    axum::Form(form): axum::Form<NameForm>,
) -> Result<Response, ApiError> {
    let result = blocking(&service, move |s| s.purge_worker(&form.name).map(drop)).await;
    after_form(&service, result).await
}

#[derive(Deserialize)]
struct SubmissionsForm {
    state: String,
}

async fn admin_submissions(
    State(service): State<Shared>,
    _: SameOrigin,
    _: Admin,
    axum::Form(form): axum::Form<SubmissionsForm>,
) -> Result<Response, ApiError> {
    let result = match form.state.as_str() {
        state @ ("open" | "close") => {
            let open = state == "open";
            blocking(&service, move |s| s.with_db(|db| Ok(crate::store::set_submissions_open(db, open)?))).await
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
    _: SameOrigin,
    _: Admin,
    axum::Form(form): axum::Form<CopiesForm>,
) -> Result<Response, ApiError> {
    let result = match crate::store::settings::CopyRule::parse(&form.rule) {
        Ok(rule) => {
            blocking(&service, move |s| s.with_db(|db| Ok(crate::store::settings::set_copy_rule(db, rule)?))).await
        }
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
    _: SameOrigin,
    _: Admin,
    axum::Form(form): axum::Form<TimeForm>,
) -> Result<Response, ApiError> {
    let result = match parse_ms(&form.time_ms) {
        Ok(ms) => {
            blocking(&service, move |s| {
                s.with_db(|db| Ok(crate::store::settings::set_time_ms(db, ms)?))
                    .map_err(|r| Refusal::new(400, r.message))
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
    _: SameOrigin,
    _: Admin,
    axum::Form(form): axum::Form<FinalForm>,
) -> Result<Response, ApiError> {
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
        Ok(options) => blocking(&service, move |s| s.start_final(options)).await,
        Err(refusal) => Err(refusal),
    };
    if result.is_ok() {
        service.shared.changed();
        return Ok(Redirect::to("/final").into_response());
    }
    after_form(&service, result).await
}

async fn api_final(State(service): State<Shared>) -> Result<Response, ApiError> {
    match blocking(&service, |s| s.final_view()).await? {
        Some(view) => Ok(axum::Json(view).into_response()),
        None => Err(ApiError::new(404, "no final has been started")),
    }
}

async fn api_live(State(service): State<Shared>) -> Result<Response, ApiError> {
    let mut games = service.shared.live.games();
    let entrants = blocking(&service, |s| s.entrants_by_entry()).await?;
    for game in &mut games {
        game.black_entrant = entrants.get(&game.entries[0]).cloned();
        game.white_entrant = entrants.get(&game.entries[1]).cloned();
    }
    Ok(axum::Json(games).into_response())
}

async fn page_final(State(service): State<Shared>, Visitor(entrant): Visitor) -> Result<Response, ApiError> {
    let view = blocking(&service, |s| s.final_view()).await.map_err(page_error(&service, entrant.as_ref()))?;
    Ok(html(pages::admin::final_page(&frame(&service, entrant.as_ref()), view.as_ref())))
}
