//! The web side: routes, handlers and the server-side pages. Handlers only translate HTTP into
//! calls of the [`Service`] and back; every page is HTML rendered here (names escaped by maud),
//! with a little plain JavaScript served by the binary for the live parts and the replay.

mod admin;
mod entrant;
pub mod error;
pub mod extractors;
mod worker;

pub use crate::pages::admin::export_final;
pub use admin::ADMIN_COOKIE;

use std::convert::Infallible;
use std::sync::Arc;

use axum::Router;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Multipart, Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use futures_util::Stream;
use tower_http::compression::CompressionLayer;
use tower_http::limit::RequestBodyLimitLayer;

use crate::pages::{self, Frame};
use crate::service::{Refusal, Service};
use crate::store::Entrant;
use error::ApiError;
use extractors::{
    ApiEntrant, CountedBearerEntrant, CurrentEntrant, SameOrigin, Visitor, authenticated, entrant_of, page_error,
    session_id,
};

type Shared = Arc<Service>;

/// The session cookie: a session id (never the token; see [`crate::store::sessions`]), `HttpOnly` and
/// `SameSite=Strict` (so no other site's page can send it).
pub const SESSION_COOKIE: &str = "othello_session";

/// The shortest time between two `live` events of one event stream.
const LIVE_EVENT_INTERVAL: std::time::Duration = std::time::Duration::from_millis(100);

/// Multipart framing allowed over the file's own size limit.
const MULTIPART_OVERHEAD: usize = 64 << 10;

/// Longest a client may take to send a request's headers: a slow client cannot hold
/// connections open by sending them a byte at a time.
pub const HEADER_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// Longest a client may take to send a request's body (uploads included).
pub const BODY_READ_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);
/// Longest the open connections get to finish when the server stops.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// Serves `service` on `listener` until `stopped` fires.
pub fn serve(
    listener: std::net::TcpListener,
    service: Arc<Service>,
    stopped: tokio::sync::oneshot::Receiver<()>,
) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the web server's runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener).map_err(|e| format!("cannot listen: {e}"))?;
        accept_loop(listener, router(service), stopped).await
    })
}

/// Accepts connections and serves each over HTTP/1 with hyper's header-read timeout (which
/// `axum::serve` leaves unset), the peer's address given to the handlers as
/// [`axum::extract::ConnectInfo`]; when `stopped` fires, stops accepting and lets the open
/// connections finish their requests (for at most [`SHUTDOWN_GRACE`]).
async fn accept_loop(
    listener: tokio::net::TcpListener,
    app: Router,
    mut stopped: tokio::sync::oneshot::Receiver<()>,
) -> Result<(), String> {
    let (closing, closed) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut stopped => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of file descriptors and the like: wait a little rather than spin.
                Err(_) => {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        while connections.try_join_next().is_some() {}
        let tower = hyper_util::service::TowerToHyperService::new(app.clone());
        let service = hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
            request.extensions_mut().insert(axum::extract::ConnectInfo(peer));
            hyper::service::Service::call(&tower, request)
        });
        let mut closed = closed.clone();
        connections.spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
            let connection = builder.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => return,
                _ = closed.wait_for(|closing| *closing) => connection.as_mut().graceful_shutdown(),
            }
            let _ = connection.await;
        });
    }
    let _ = closing.send(true);
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, async { while connections.join_next().await.is_some() {} }).await;
    Ok(())
}

/// Every route.
pub fn router(service: Arc<Service>) -> Router {
    let upload_limit = service.config.max_upload_bytes + MULTIPART_OVERHEAD;
    let uploads = Router::new()
        .route("/api/bots", post(api_upload))
        .route("/upload", post(page_upload))
        .layer(DefaultBodyLimit::max(upload_limit))
        .layer(RequestBodyLimitLayer::new(upload_limit));
    Router::new()
        .route("/", get(page_leaderboard))
        .route("/login", get(page_login).post(login))
        .route("/logout", post(logout))
        .route("/me", get(page_me))
        .route("/bots/{id}", get(page_bot))
        .route("/entries/{entry}", get(page_public_bot))
        .route("/api/entries/{entry}", get(api_public_bot))
        .route("/entries/{entry}/bot.wasm", get(metered_module))
        .route("/entries/{entry}/play", get(page_play))
        .route("/games/{id}", get(page_game))
        .route("/api/leaderboard", get(api_leaderboard))
        .route("/api/seeding", get(api_seeding))
        .route("/starter", get(page_starter))
        .route(
            "/starter/othello_bot.h",
            get(|| async { download("othello_bot.h", include_str!("../../../../sdk/include/othello_bot.h")) }),
        )
        .route("/starter/greedy.c", get(|| async { download("greedy.c", include_str!("../../assets/greedy.c")) }))
        .route("/api/bots/{id}", get(api_bot))
        .route("/api/bots/{id}/games", get(api_bot_games))
        .route("/api/games/{id}", get(api_game))
        .route("/api/games/latest", get(api_latest_game))
        .route("/arena", get(page_arena))
        .route("/history.svg", get(history_svg))
        .route("/api/events", get(events))
        .route(
            "/assets/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", include_str!("../../assets/app.js")) }),
        )
        .route(
            "/assets/wasm_play.js",
            get(|| async { asset("text/javascript; charset=utf-8", include_str!("../../assets/wasm_play.js")) }),
        )
        .route(
            "/assets/style.css",
            get(|| async { asset("text/css; charset=utf-8", include_str!("../../assets/style.css")) }),
        )
        .merge(uploads)
        .merge(worker::routes(service.clone()))
        .merge(admin::routes())
        .merge(entrant::routes())
        .fallback(page_not_found)
        .layer(DefaultBodyLimit::max(64 << 10))
        .layer(CompressionLayer::new())
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(BODY_READ_TIMEOUT))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(service)
}

/// What every answer says about how a browser may use it: only this site's own scripts, styles,
/// images and connections; never framed by another site; no type sniffing; no referrer sent to
/// another site (`same-origin`: with `no-referrer` browsers send `Origin: null` on this site's own
/// forms, which [`same_origin`] would refuse).
const SECURITY_HEADERS: [(&str, &str); 5] = [
    (
        "content-security-policy",
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; \
         object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "same-origin"),
    ("x-frame-options", "DENY"),
    ("cross-origin-opener-policy", "same-origin"),
];

/// The policy of the pages that run WebAssembly bots (the play page, game pages): the site's own
/// policy, and compiling WebAssembly (`'wasm-unsafe-eval'`, which allows nothing else).
const WASM_PAGE_POLICY: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
     frame-ancestors 'none'";

/// `page` with the policy that lets its script compile WebAssembly.
fn wasm_page(page: maud::Markup) -> Response {
    ([(header::CONTENT_SECURITY_POLICY, WASM_PAGE_POLICY)], Html(page.into_string())).into_response()
}

async fn security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    for (name, value) in SECURITY_HEADERS {
        headers.entry(name).or_insert(HeaderValue::from_static(value));
    }
    response
}

/// What the frame of every page shows, for the visitor `entrant`.
pub(crate) fn frame<'a>(service: &'a Service, entrant: Option<&'a Entrant>) -> Frame<'a> {
    Frame {
        entrant,
        weak_sandbox: service.shared.weak_sandbox.as_deref(),
        seeding: service.shared.seeding(),
        pending_jobs: service.pending_jobs(),
        max_upload_bytes: service.config.max_upload_bytes,
        test_games_per_hour: service.config.test_games_per_hour,
    }
}

fn html(page: maud::Markup) -> Response {
    Html(page.into_string()).into_response()
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type), (header::CACHE_CONTROL, "public, max-age=3600")], body).into_response()
}

/// Runs blocking service work off the async threads.
async fn blocking<T: Send + 'static>(
    service: &Shared,
    work: impl FnOnce(&Service) -> Result<T, Refusal> + Send + 'static,
) -> Result<T, Refusal> {
    let service = service.clone();
    tokio::task::spawn_blocking(move || work(&service))
        .await
        .unwrap_or_else(|e| Err(Refusal::new(500, format!("internal error: {e}"))))
}

/// A `Set-Cookie` value for `name`: `HttpOnly`, `SameSite=Strict`, `Secure` behind a TLS reverse
/// proxy (which says so in `X-Forwarded-Proto`); `value` empty ends it.
fn set_cookie(headers: &HeaderMap, name: &str, value: &str, max_age: std::time::Duration) -> Option<HeaderValue> {
    let secure = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|proto| proto.eq_ignore_ascii_case("https"));
    let max_age = if value.is_empty() { 0 } else { max_age.as_secs() };
    let cookie = format!(
        "{name}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age}{}",
        if secure { "; Secure" } else { "" }
    );
    HeaderValue::from_str(&cookie).ok()
}

async fn api_leaderboard(State(service): State<Shared>) -> Result<Response, ApiError> {
    let json = blocking(&service, |s| s.leaderboard_json()).await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], json.as_ref().clone()).into_response())
}

/// Reads the multipart field `bot`: its file name and bytes, refusing more than `limit` bytes
/// as they arrive (nothing is stored until the whole file is in and checked).
async fn read_bot_field(mut multipart: Multipart, limit: usize) -> Result<(String, Vec<u8>), Refusal> {
    let too_large = || Refusal::new(413, format!("the file is over the limit of {limit} bytes"));
    loop {
        let field = multipart.next_field().await.map_err(|e| Refusal::new(e.status().as_u16(), e.body_text()))?;
        let Some(mut field) = field else {
            return Err(Refusal::new(400, "no file: send the library as the multipart field `bot`"));
        };
        if field.name() != Some("bot") {
            continue;
        }
        let name = field.file_name().unwrap_or("").to_owned();
        let mut bytes = Vec::new();
        while let Some(chunk) = field.chunk().await.map_err(|e| Refusal::new(e.status().as_u16(), e.body_text()))? {
            if bytes.len() + chunk.len() > limit {
                return Err(too_large());
            }
            bytes.extend_from_slice(&chunk);
        }
        if bytes.is_empty() {
            return Err(Refusal::new(400, "the file is empty"));
        }
        return Ok((name, bytes));
    }
}

fn content_length_over(headers: &HeaderMap, limit: usize) -> bool {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        .is_some_and(|length| length > limit + MULTIPART_OVERHEAD)
}

/// Reads and discards the rest of a refused upload (at most the size limit, which the body
/// limit enforces): answering before the client has sent its body would close the connection
/// under it, and it would see a reset instead of the answer.
async fn drain(mut multipart: Multipart) {
    while let Ok(Some(mut field)) = multipart.next_field().await {
        while let Ok(Some(_)) = field.chunk().await {}
    }
}

/// `POST /api/bots`: the bearer token only (a cookie would let another site's page upload in
/// the entrant's name), its failures counted against the caller's address.
async fn api_upload(
    State(service): State<Shared>,
    headers: HeaderMap,
    entrant: Result<CountedBearerEntrant, ApiError>,
    multipart: Multipart,
) -> Result<Response, ApiError> {
    let entrant = match entrant {
        Ok(CountedBearerEntrant(entrant)) => entrant,
        Err(error) => {
            drain(multipart).await;
            return Err(error);
        }
    };
    let accepted = upload(&service, &headers, entrant, multipart).await?;
    // The routes' contract: 201 for a new bot; 202 for a file this entrant sent before (its
    // earlier id, already checked or queued).
    let status = if accepted.duplicate { StatusCode::ACCEPTED } else { StatusCode::CREATED };
    let location = format!("/api/bots/{}", accepted.id);
    Ok((status, [(header::LOCATION, location)], axum::Json(accepted)).into_response())
}

async fn upload(
    service: &Shared,
    headers: &HeaderMap,
    entrant: Entrant,
    multipart: Multipart,
) -> Result<crate::service::Accepted, Refusal> {
    let uploaded = read_and_upload(service, headers, entrant.clone(), multipart).await;
    // A refused upload counts toward the hourly limit as an accepted one does (not the limit's
    // own answer, nor closed submissions, which are no doing of the entrant's).
    if let Err(refusal) = &uploaded
        && !matches!(refusal.status, 429 | 403 | 500)
    {
        let reason = refusal.message.clone();
        let _ = blocking(service, move |s| s.note_refused_upload(&entrant, &reason)).await;
    }
    uploaded
}

async fn read_and_upload(
    service: &Shared,
    headers: &HeaderMap,
    entrant: Entrant,
    multipart: Multipart,
) -> Result<crate::service::Accepted, Refusal> {
    let limit = service.config.max_upload_bytes;
    if content_length_over(headers, limit) {
        return Err(Refusal::new(413, format!("the file is over the limit of {limit} bytes")));
    }
    let (name, bytes) = read_bot_field(multipart, limit).await?;
    blocking(service, move |s| s.upload(&entrant, &name, &bytes)).await
}

async fn api_bot(
    State(service): State<Shared>,
    Path(id): Path<i64>,
    ApiEntrant(entrant): ApiEntrant,
) -> Result<Response, ApiError> {
    Ok(axum::Json(blocking(&service, move |s| s.bot(&entrant, id)).await?).into_response())
}

async fn api_bot_games(
    State(service): State<Shared>,
    Path(id): Path<i64>,
    ApiEntrant(entrant): ApiEntrant,
) -> Result<Response, ApiError> {
    Ok(axum::Json(blocking(&service, move |s| s.bot_games(&entrant, id)).await?).into_response())
}

async fn api_latest_game(State(service): State<Shared>) -> Result<Response, ApiError> {
    Ok(axum::Json(blocking(&service, |s| s.latest_replay()).await?).into_response())
}

/// The arena screen for a projector: the newest game move by move on a large board, and the
/// standings, switching to each new game by itself.
async fn page_arena(State(service): State<Shared>, Visitor(entrant): Visitor) -> Result<Response, ApiError> {
    let live = service.shared.live.games();
    let view = blocking(&service, move |s| s.arena_view(live)).await.map_err(page_error(&service, entrant.as_ref()))?;
    Ok(html(pages::arena(&frame(&service, entrant.as_ref()), &view)))
}

async fn api_game(State(service): State<Shared>, Path(id): Path<i64>) -> Result<Response, ApiError> {
    Ok(axum::Json(blocking(&service, move |s| s.replay(id)).await?).into_response())
}

/// Server-Sent Events: `change` whenever a game ends or a bot's status moves (the pages then
/// fetch what they show), and `live` at every move of a game being played (the arena screen
/// fetches `/api/live`). The stream ends when the server stops.
async fn events(State(service): State<Shared>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let mut changes = service.shared.changes.subscribe();
    changes.mark_unchanged();
    let mut moves = service.shared.live.moves.subscribe();
    moves.mark_unchanged();
    let stream =
        futures_util::stream::unfold((changes, moves, service), |(mut changes, mut moves, service)| async move {
            let event = tokio::select! {
                changed = changes.changed() => {
                    changed.ok()?;
                    Event::default().event("change").data(changes.borrow_and_update().to_string())
                }
                moved = moves.changed() => {
                    moved.ok()?;
                    // At most ten a second, however many games are played at once: the moves
                    // of the pause come in one event (the screen fetches the games then).
                    tokio::time::sleep(LIVE_EVENT_INTERVAL).await;
                    Event::default().event("live").data(moves.borrow_and_update().to_string())
                }
            };
            if service.shared.stop.load(std::sync::atomic::Ordering::SeqCst) {
                return None; // the server is stopping: open pages must not hold it up
            }
            Some((Ok(event), (changes, moves, service)))
        });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

#[derive(serde::Deserialize)]
struct HistoryQuery {
    /// One ladder entry's history alone (a bot's page); the current bots' by default.
    entry: Option<i64>,
}

/// The rating-history plot as an SVG image (names escaped), refreshed with each change.
async fn history_svg(
    State(service): State<Shared>,
    axum::extract::Query(query): axum::extract::Query<HistoryQuery>,
) -> Result<Response, ApiError> {
    let svg = blocking(&service, move |s| {
        let entries: Vec<i64> = match query.entry {
            Some(entry) => vec![entry],
            None => s.current_bots()?.iter().map(|row| row.entry).collect(),
        };
        let entrants = s.entrants_by_entry()?;
        Ok(s.history()?.plot(&entries, &entrants))
    })
    .await?;
    let svg = if svg.starts_with("<svg") {
        svg
    } else {
        // No history yet: an empty plot that says so, still an image.
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"960\" height=\"60\"><text x=\"10\" y=\"30\" \
         font-family=\"system-ui, sans-serif\" font-size=\"14\">No rating history yet.</text></svg>"
            .to_owned()
    };
    Ok(([(header::CONTENT_TYPE, "image/svg+xml; charset=utf-8"), (header::CACHE_CONTROL, "no-cache")], svg)
        .into_response())
}

/// A starter-kit file, downloaded under its own name.
fn download(name: &'static str, text: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\"")),
        ],
        text,
    )
        .into_response()
}

async fn page_starter(State(service): State<Shared>, Visitor(entrant): Visitor) -> Response {
    html(pages::starter(&frame(&service, entrant.as_ref())))
}

/// A 404 page of the site's own (JSON under `/api/`).
async fn page_not_found(State(service): State<Shared>, uri: axum::http::Uri, Visitor(entrant): Visitor) -> ApiError {
    let error = ApiError::new(404, format!("no route {}", uri.path()));
    if uri.path().starts_with("/api/") {
        return error;
    }
    error.page(|_| pages::not_found(&frame(&service, entrant.as_ref()), uri.path()))
}

/// The sample pool's calibration: `{"running": false}` once it is done, else its counts.
async fn api_seeding(State(service): State<Shared>) -> Response {
    match service.shared.seeding() {
        Some(status) => {
            let mut json = serde_json::to_value(&status).unwrap_or_default();
            json["running"] = serde_json::Value::Bool(true);
            axum::Json(json).into_response()
        }
        None => axum::Json(serde_json::json!({ "running": false })).into_response(),
    }
}

async fn page_leaderboard(State(service): State<Shared>, Visitor(entrant): Visitor) -> Result<Response, ApiError> {
    if entrant.is_none() {
        let page = blocking(&service, |s| {
            s.public_leaderboard_page(|rows| pages::leaderboard(&frame(s, None), rows).into_string())
        });
        return Ok(Html(page.await.map_err(page_error(&service, None))?.as_ref().clone()).into_response());
    }
    let rows = blocking(&service, |s| s.leaderboard()).await.map_err(page_error(&service, entrant.as_ref()))?;
    Ok(html(pages::leaderboard(&frame(&service, entrant.as_ref()), &rows)))
}

async fn page_login(State(service): State<Shared>, Visitor(entrant): Visitor) -> Response {
    html(pages::login(&frame(&service, entrant.as_ref()), None))
}

#[derive(serde::Deserialize)]
struct LoginForm {
    token: String,
}

async fn login(
    State(service): State<Shared>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    _: SameOrigin,
    axum::Form(form): axum::Form<LoginForm>,
) -> Result<Response, ApiError> {
    let token = form.token.trim().to_owned();
    let entrant = authenticated(&service, peer, entrant_of(&service, Some(token))).await.map_err(|refusal| {
        ApiError::new(refusal.status, refusal.message)
            .page(|message| pages::login(&frame(&service, None), Some(message)))
    })?;
    // A new session at every login; the one this browser had before ends.
    let old = session_id(&headers);
    let kind = crate::store::sessions::Kind::Entrant;
    let id = blocking(&service, move |s| s.start_session(kind, entrant.id, old.as_deref()))
        .await
        .map_err(page_error(&service, None))?;
    let mut response = Redirect::to("/me").into_response();
    if let Some(value) = set_cookie(&headers, SESSION_COOKIE, &id, kind.lifetime()) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    Ok(response)
}

async fn logout(State(service): State<Shared>, headers: HeaderMap, _: SameOrigin) -> Result<Response, ApiError> {
    if let Some(id) = session_id(&headers) {
        blocking(&service, move |s| s.end_session(&id)).await.map_err(page_error(&service, None))?;
    }
    let mut response = Redirect::to("/").into_response();
    if let Some(value) = set_cookie(&headers, SESSION_COOKIE, "", std::time::Duration::ZERO) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    Ok(response)
}

/// The entrant's page: their bots, and the upload that counts.
async fn page_me(State(service): State<Shared>, CurrentEntrant(entrant): CurrentEntrant) -> Result<Response, ApiError> {
    let who = entrant.clone();
    let (bots, current) = blocking(&service, move |s| Ok((s.bots_of(&who)?, s.current_version(&who).ok().flatten())))
        .await
        .map_err(page_error(&service, Some(&entrant)))?;
    Ok(html(pages::me(&frame(&service, Some(&entrant)), &bots, current, None)))
}

async fn page_upload(
    State(service): State<Shared>,
    headers: HeaderMap,
    origin: Result<SameOrigin, ApiError>,
    entrant: Result<CurrentEntrant, Redirect>,
    multipart: Multipart,
) -> Result<Response, ApiError> {
    // The body is read to its end before any answer (see `drain`).
    let entrant = match (origin, entrant) {
        (Ok(_), Ok(CurrentEntrant(entrant))) => entrant,
        (Err(refused), _) => {
            drain(multipart).await;
            return Err(refused);
        }
        (Ok(_), Err(to_login)) => {
            drain(multipart).await;
            return Ok(to_login.into_response());
        }
    };
    match upload(&service, &headers, entrant.clone(), multipart).await {
        // The same file again opens its earlier upload, saying so (and offering to make it current).
        Ok(accepted) if accepted.duplicate => {
            Ok(Redirect::to(&format!("/bots/{}?again=1", accepted.id)).into_response())
        }
        Ok(accepted) => Ok(Redirect::to(&format!("/bots/{}", accepted.id)).into_response()),
        Err(refusal) => {
            let who = entrant.clone();
            let (bots, current) = blocking(&service, move |s| {
                Ok((s.bots_of(&who).unwrap_or_default(), s.current_version(&who).ok().flatten()))
            })
            .await
            .unwrap_or_default();
            let frame = frame(&service, Some(&entrant));
            Err(ApiError::from(refusal).page(|message| pages::me(&frame, &bots, current, Some(message))))
        }
    }
}

/// `?page=N` of a list of games (from 1), and `?again=1` after a re-upload of the same file.
#[derive(serde::Deserialize)]
struct BotPageQuery {
    page: Option<String>,
    again: Option<String>,
}

impl BotPageQuery {
    fn page(&self) -> u64 {
        self.page.as_deref().and_then(|p| p.trim().parse().ok()).unwrap_or(1)
    }
}

async fn page_bot(
    State(service): State<Shared>,
    Path(id): Path<i64>,
    axum::extract::Query(query): axum::extract::Query<BotPageQuery>,
    CurrentEntrant(entrant): CurrentEntrant,
) -> Result<Response, ApiError> {
    let who = entrant.clone();
    let (page, again) = (query.page(), query.again.is_some());
    let (bot, games, test_games, tests, again) = blocking(&service, move |s| {
        let (pending, failed) = s.pending_test_games(&who, id)?;
        let tests = pages::TestGamesPanel { opponents: s.current_bots()?, pending, failed };
        let again = if again {
            let (version, current) = s.version_of(&who, id)?;
            Some(pages::UploadedAgain { version, current })
        } else {
            None
        };
        Ok((s.bot(&who, id)?, s.bot_games_page(&who, id, page)?, s.test_games_of(&who, id)?, tests, again))
    })
    .await
    .map_err(page_error(&service, Some(&entrant)))?;
    let frame = frame(&service, Some(&entrant));
    Ok(html(pages::bot(&frame, &bot, &games, &test_games, &tests, again.as_ref())))
}

/// A bot of the leaderboard as anyone sees it (linked from its name there).
async fn page_public_bot(
    State(service): State<Shared>,
    Path(entry): Path<i64>,
    axum::extract::Query(query): axum::extract::Query<BotPageQuery>,
    Visitor(entrant): Visitor,
) -> Result<Response, ApiError> {
    let page = query.page();
    let (bot, module) = blocking(&service, move |s| Ok((s.public_bot(entry, page)?, s.is_module_entry(entry)?)))
        .await
        .map_err(page_error(&service, entrant.as_ref()))?;
    Ok(html(pages::public_bot(&frame(&service, entrant.as_ref()), &bot, module)))
}

async fn api_public_bot(
    State(service): State<Shared>,
    Path(entry): Path<i64>,
    axum::extract::Query(query): axum::extract::Query<BotPageQuery>,
) -> Result<Response, ApiError> {
    let page = query.page();
    Ok(axum::Json(blocking(&service, move |s| s.public_bot(entry, page)).await?).into_response())
}

/// `?ply=N`: the position a replay page shows without JavaScript.
#[derive(serde::Deserialize)]
pub(crate) struct PlyQuery {
    ply: Option<String>,
}

impl PlyQuery {
    pub(crate) fn ply(&self) -> Option<usize> {
        self.ply.as_deref().and_then(|p| p.trim().parse().ok())
    }
}

async fn page_game(
    State(service): State<Shared>,
    Path(id): Path<i64>,
    axum::extract::Query(query): axum::extract::Query<PlyQuery>,
    Visitor(entrant): Visitor,
) -> Result<Response, ApiError> {
    let replay = blocking(&service, move |s| s.replay(id)).await.map_err(page_error(&service, entrant.as_ref()))?;
    Ok(wasm_page(pages::game(&frame(&service, entrant.as_ref()), &replay, query.ply())))
}

/// The metered copy of a WebAssembly bot on the leaderboard, what the pages run (see
/// [`othello_wasm::metering`]).
async fn metered_module(State(service): State<Shared>, Path(entry): Path<String>) -> Result<Response, ApiError> {
    let Ok(entry) = entry.parse::<i64>() else {
        return Ok((StatusCode::NOT_FOUND, "no such bot").into_response());
    };
    let bytes = blocking(&service, move |s| s.metered_module(entry)).await?;
    Ok((
        [(header::CONTENT_TYPE, "application/wasm"), (header::CACHE_CONTROL, "public, max-age=3600")],
        bytes.as_ref().clone(),
    )
        .into_response())
}

/// A game against a WebAssembly bot, played in the visitor's browser.
async fn page_play(
    State(service): State<Shared>,
    Path(entry): Path<i64>,
    Visitor(entrant): Visitor,
) -> Result<Response, ApiError> {
    let setup =
        blocking(&service, move |s| s.play_setup(entry)).await.map_err(page_error(&service, entrant.as_ref()))?;
    Ok(wasm_page(pages::play(&frame(&service, entrant.as_ref()), &setup)))
}
