//! The web side: routes, handlers and the server-side pages. Handlers only translate HTTP into
//! calls of the [`Service`] and back; every page is HTML rendered here (names escaped by maud),
//! with a little plain JavaScript served by the binary for the live parts and the replay.

pub(crate) mod admin;
mod entrant;
use crate::pages;

pub use admin::{ADMIN_COOKIE, export_final};

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

use crate::service::{Refusal, Service};
use crate::store::Entrant;

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
        .merge(crate::jobs::remote::router(service.clone()))
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

/// A page of the site's layout (for the pages of other modules).
pub(crate) fn page(service: &Service, title: &str, body: maud::Markup) -> maud::Markup {
    pages::layout(service, None, title, body)
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type), (header::CACHE_CONTROL, "public, max-age=3600")], body).into_response()
}

/// A refusal as JSON: `{"error": "…"}` with its status.
fn json_refusal(refusal: Refusal) -> Response {
    let status = StatusCode::from_u16(refusal.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, axum::Json(serde_json::json!({ "error": refusal.message }))).into_response()
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

/// The token of `Authorization: Bearer TOKEN`.
fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_owned())
}

/// The value of the cookie `name`.
fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get_all(header::COOKIE).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(';')).find_map(|pair| {
        let (key, value) = pair.trim().split_once('=')?;
        (key == name && !value.is_empty()).then(|| value.to_owned())
    })
}

/// The session id of the session cookie.
fn session_id(headers: &HeaderMap) -> Option<String> {
    cookie(headers, SESSION_COOKIE)
}

/// The entrant of the session cookie, if it is a live session.
async fn session_entrant(service: &Shared, headers: &HeaderMap) -> Option<Entrant> {
    let id = session_id(headers)?;
    blocking(service, move |s| s.session_entrant(&id)).await.ok().flatten()
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

/// The entrant of `token`, or 401.
async fn entrant_of(service: &Shared, token: Option<String>) -> Result<Entrant, Refusal> {
    let Some(token) = token else {
        return Err(Refusal::new(401, "log in: send your token as `Authorization: Bearer TOKEN`"));
    };
    blocking(service, move |s| s.entrant(&token)).await?.ok_or_else(|| {
        Refusal::new(401, "this token is not valid (unknown or revoked): ask the organiser for a new one")
    })
}

/// An API caller: a bearer token, or the session cookie for the pages' own reads.
async fn api_entrant(service: &Shared, headers: &HeaderMap) -> Result<Entrant, Refusal> {
    if let Some(token) = bearer(headers) {
        return entrant_of(service, Some(token)).await;
    }
    if session_id(headers).is_none() {
        return entrant_of(service, None).await;
    }
    session_entrant(service, headers)
        .await
        .ok_or_else(|| Refusal::new(401, "your login has ended (logged out, expired or a new token): log in again"))
}

/// A page's visitor, if logged in.
async fn page_entrant(service: &Shared, headers: &HeaderMap) -> Option<Entrant> {
    session_entrant(service, headers).await
}

/// Refuses a form sent from another site: its `Origin` (or, without one, its `Sec-Fetch-Site`)
/// must be this server. The session cookie is `SameSite=Strict` besides.
fn same_origin(headers: &HeaderMap) -> Result<(), Refusal> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        let origin_host = origin.split_once("://").map_or("", |(_, rest)| rest).trim_end_matches('/');
        if origin_host.is_empty() || !origin_host.eq_ignore_ascii_case(host) {
            return Err(Refusal::new(403, "a form sent from another site is refused"));
        }
        return Ok(());
    }
    match headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        Some("same-origin" | "none") | None => Ok(()),
        Some(_) => Err(Refusal::new(403, "a form sent from another site is refused")),
    }
}

async fn api_leaderboard(State(service): State<Shared>) -> Response {
    match blocking(&service, |s| s.leaderboard_json()).await {
        Ok(json) => ([(header::CONTENT_TYPE, "application/json")], json.as_ref().clone()).into_response(),
        Err(refusal) => json_refusal(refusal),
    }
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

async fn api_upload(
    State(service): State<Shared>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    multipart: Multipart,
) -> Response {
    let entrant = match authenticated(&service, peer, api_entrant_bearer(&service, &headers)).await {
        Ok(entrant) => entrant,
        Err(refusal) => {
            drain(multipart).await;
            return json_refusal(refusal);
        }
    };
    match upload(&service, &headers, entrant, multipart).await {
        Ok(accepted) => {
            // The routes' contract: 201 for a new bot; 202 for a file this entrant sent before
            // (its earlier id, already checked or queued).
            let status = if accepted.duplicate { StatusCode::ACCEPTED } else { StatusCode::CREATED };
            let location = format!("/api/bots/{}", accepted.id);
            (status, [(header::LOCATION, location)], axum::Json(accepted)).into_response()
        }
        Err(refusal) => json_refusal(refusal),
    }
}

/// Uploads through the API take the bearer token only: a cookie would let another site's page
/// upload in the entrant's name.
async fn api_entrant_bearer(service: &Shared, headers: &HeaderMap) -> Result<Entrant, Refusal> {
    entrant_of(service, bearer(headers)).await
}

/// Who `who` authenticates. A failure is noted against `peer`'s address, and past the address's
/// limit it is answered 429 (a valid token always passes: a class behind one address is not
/// locked out by one mistyped token).
async fn authenticated<T>(
    service: &Shared,
    peer: std::net::SocketAddr,
    who: impl std::future::Future<Output = Result<T, Refusal>>,
) -> Result<T, Refusal> {
    let who = who.await;
    if who.is_err() {
        service.unauthenticated.check(peer.ip())?;
        service.unauthenticated.note(peer.ip());
    }
    who
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

async fn api_bot(State(service): State<Shared>, headers: HeaderMap, Path(id): Path<i64>) -> Response {
    let result = match api_entrant(&service, &headers).await {
        Ok(entrant) => blocking(&service, move |s| s.bot(&entrant, id)).await,
        Err(refusal) => Err(refusal),
    };
    match result {
        Ok(view) => axum::Json(view).into_response(),
        Err(refusal) => json_refusal(refusal),
    }
}

async fn api_bot_games(State(service): State<Shared>, headers: HeaderMap, Path(id): Path<i64>) -> Response {
    let result = match api_entrant(&service, &headers).await {
        Ok(entrant) => blocking(&service, move |s| s.bot_games(&entrant, id)).await,
        Err(refusal) => Err(refusal),
    };
    match result {
        Ok(games) => axum::Json(games).into_response(),
        Err(refusal) => json_refusal(refusal),
    }
}

async fn api_latest_game(State(service): State<Shared>) -> Response {
    match blocking(&service, |s| s.latest_replay()).await {
        Ok(replay) => axum::Json(replay).into_response(),
        Err(refusal) => json_refusal(refusal),
    }
}

/// The arena screen for a projector: the newest game move by move on a large board, and the
/// standings, switching to each new game by itself.
async fn page_arena(State(service): State<Shared>, headers: HeaderMap) -> Response {
    let entrant = page_entrant(&service, &headers).await;
    let live = service.shared.live.games();
    match blocking(&service, move |s| s.arena_view(live)).await {
        Ok(view) => Html(pages::arena(&service, entrant.as_ref(), &view).into_string()).into_response(),
        Err(refusal) => page_refusal(&service, entrant.as_ref(), refusal),
    }
}

async fn api_game(State(service): State<Shared>, Path(id): Path<i64>) -> Response {
    match blocking(&service, move |s| s.replay(id)).await {
        Ok(replay) => axum::Json(replay).into_response(),
        Err(refusal) => json_refusal(refusal),
    }
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

fn page_refusal(service: &Service, entrant: Option<&Entrant>, refusal: Refusal) -> Response {
    let status = StatusCode::from_u16(refusal.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, Html(pages::message(service, entrant, "Not possible", &refusal.message).into_string())).into_response()
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
) -> Response {
    let result = blocking(&service, move |s| {
        let entries: Vec<i64> = match query.entry {
            Some(entry) => vec![entry],
            None => s.current_bots()?.iter().map(|row| row.entry).collect(),
        };
        let entrants = s.entrants_by_entry()?;
        Ok(s.history()?.plot(&entries, &entrants))
    })
    .await;
    match result {
        Ok(svg) => {
            let svg = if svg.starts_with("<svg") {
                svg
            } else {
                // No history yet: an empty plot that says so, still an image.
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"960\" height=\"60\"><text x=\"10\" y=\"30\" \
                 font-family=\"system-ui, sans-serif\" font-size=\"14\">No rating history yet.</text></svg>"
                    .to_owned()
            };
            ([(header::CONTENT_TYPE, "image/svg+xml; charset=utf-8"), (header::CACHE_CONTROL, "no-cache")], svg)
                .into_response()
        }
        Err(refusal) => json_refusal(refusal),
    }
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

async fn page_starter(State(service): State<Shared>, headers: HeaderMap) -> Response {
    let entrant = page_entrant(&service, &headers).await;
    Html(pages::starter(&service, entrant.as_ref()).into_string()).into_response()
}

/// A 404 page of the site's own (JSON under `/api/`).
async fn page_not_found(State(service): State<Shared>, headers: HeaderMap, uri: axum::http::Uri) -> Response {
    if uri.path().starts_with("/api/") {
        return (StatusCode::NOT_FOUND, axum::Json(serde_json::json!({ "error": format!("no route {}", uri.path()) })))
            .into_response();
    }
    let entrant = page_entrant(&service, &headers).await;
    (StatusCode::NOT_FOUND, Html(pages::not_found(&service, entrant.as_ref(), uri.path()).into_string()))
        .into_response()
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

async fn page_leaderboard(State(service): State<Shared>, headers: HeaderMap) -> Response {
    let entrant = page_entrant(&service, &headers).await;
    if entrant.is_none() {
        let page =
            blocking(&service, |s| s.public_leaderboard_page(|rows| pages::leaderboard(s, None, rows).into_string()));
        return match page.await {
            Ok(page) => Html(page.as_ref().clone()).into_response(),
            Err(refusal) => page_refusal(&service, None, refusal),
        };
    }
    match blocking(&service, |s| s.leaderboard()).await {
        Ok(rows) => Html(pages::leaderboard(&service, entrant.as_ref(), &rows).into_string()).into_response(),
        Err(refusal) => page_refusal(&service, entrant.as_ref(), refusal),
    }
}

async fn page_login(State(service): State<Shared>, headers: HeaderMap) -> Response {
    let entrant = page_entrant(&service, &headers).await;
    Html(pages::login(&service, entrant.as_ref(), None).into_string()).into_response()
}

#[derive(serde::Deserialize)]
struct LoginForm {
    token: String,
}

async fn login(
    State(service): State<Shared>,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<LoginForm>,
) -> Response {
    if let Err(refusal) = same_origin(&headers) {
        return page_refusal(&service, None, refusal);
    }
    let token = form.token.trim().to_owned();
    match authenticated(&service, peer, entrant_of(&service, Some(token))).await {
        Ok(entrant) => {
            // A new session at every login; the one this browser had before ends.
            let old = session_id(&headers);
            let kind = crate::store::sessions::Kind::Entrant;
            let started = blocking(&service, move |s| s.start_session(kind, entrant.id, old.as_deref())).await;
            let id = match started {
                Ok(id) => id,
                Err(refusal) => return page_refusal(&service, None, refusal),
            };
            let mut response = Redirect::to("/me").into_response();
            if let Some(value) = set_cookie(&headers, SESSION_COOKIE, &id, kind.lifetime()) {
                response.headers_mut().insert(header::SET_COOKIE, value);
            }
            response
        }
        Err(refusal) => {
            let status = StatusCode::from_u16(refusal.status).unwrap_or(StatusCode::UNAUTHORIZED);
            (status, Html(pages::login(&service, None, Some(&refusal.message)).into_string())).into_response()
        }
    }
}

async fn logout(State(service): State<Shared>, headers: HeaderMap) -> Response {
    if let Err(refusal) = same_origin(&headers) {
        return page_refusal(&service, None, refusal);
    }
    if let Some(id) = session_id(&headers)
        && let Err(refusal) = blocking(&service, move |s| s.end_session(&id)).await
    {
        return page_refusal(&service, None, refusal);
    }
    let mut response = Redirect::to("/").into_response();
    if let Some(value) = set_cookie(&headers, SESSION_COOKIE, "", std::time::Duration::ZERO) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

async fn page_me(State(service): State<Shared>, headers: HeaderMap) -> Response {
    let Some(entrant) = page_entrant(&service, &headers).await else {
        return Redirect::to("/login").into_response();
    };
    let who = entrant.clone();
    match blocking(&service, move |s| s.bots_of(&who)).await {
        Ok(bots) => Html(pages::me(&service, &entrant, &bots, None).into_string()).into_response(),
        Err(refusal) => page_refusal(&service, Some(&entrant), refusal),
    }
}

async fn page_upload(State(service): State<Shared>, headers: HeaderMap, multipart: Multipart) -> Response {
    if let Err(refusal) = same_origin(&headers) {
        drain(multipart).await;
        return page_refusal(&service, None, refusal);
    }
    let Some(entrant) = page_entrant(&service, &headers).await else {
        drain(multipart).await;
        return Redirect::to("/login").into_response();
    };
    match upload(&service, &headers, entrant.clone(), multipart).await {
        // The same file again opens its earlier upload, saying so (and offering to make it current).
        Ok(accepted) if accepted.duplicate => Redirect::to(&format!("/bots/{}?again=1", accepted.id)).into_response(),
        Ok(accepted) => Redirect::to(&format!("/bots/{}", accepted.id)).into_response(),
        Err(refusal) => {
            let status = StatusCode::from_u16(refusal.status).unwrap_or(StatusCode::BAD_REQUEST);
            let who = entrant.clone();
            let bots = blocking(&service, move |s| s.bots_of(&who)).await.unwrap_or_default();
            (status, Html(pages::me(&service, &entrant, &bots, Some(&refusal.message)).into_string())).into_response()
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
    headers: HeaderMap,
    Path(id): Path<i64>,
    axum::extract::Query(query): axum::extract::Query<BotPageQuery>,
) -> Response {
    let Some(entrant) = page_entrant(&service, &headers).await else {
        return Redirect::to("/login").into_response();
    };
    let who = entrant.clone();
    let (page, again) = (query.page(), query.again.is_some());
    let result = blocking(&service, move |s| {
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
    .await;
    match result {
        Ok((bot, games, test_games, tests, again)) => {
            Html(pages::bot(&service, &entrant, &bot, &games, &test_games, &tests, again.as_ref()).into_string())
                .into_response()
        }
        Err(refusal) => page_refusal(&service, Some(&entrant), refusal),
    }
}

/// A bot of the leaderboard as anyone sees it (linked from its name there).
async fn page_public_bot(
    State(service): State<Shared>,
    headers: HeaderMap,
    Path(entry): Path<i64>,
    axum::extract::Query(query): axum::extract::Query<BotPageQuery>,
) -> Response {
    let entrant = page_entrant(&service, &headers).await;
    let page = query.page();
    let result = blocking(&service, move |s| Ok((s.public_bot(entry, page)?, s.is_module_entry(entry)?))).await;
    match result {
        Ok((bot, module)) => {
            Html(pages::public_bot(&service, entrant.as_ref(), &bot, module).into_string()).into_response()
        }
        Err(refusal) => page_refusal(&service, entrant.as_ref(), refusal),
    }
}

async fn api_public_bot(
    State(service): State<Shared>,
    Path(entry): Path<i64>,
    axum::extract::Query(query): axum::extract::Query<BotPageQuery>,
) -> Response {
    let page = query.page();
    match blocking(&service, move |s| s.public_bot(entry, page)).await {
        Ok(bot) => axum::Json(bot).into_response(),
        Err(refusal) => json_refusal(refusal),
    }
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
    headers: HeaderMap,
    Path(id): Path<i64>,
    axum::extract::Query(query): axum::extract::Query<PlyQuery>,
) -> Response {
    let entrant = page_entrant(&service, &headers).await;
    match blocking(&service, move |s| s.replay(id)).await {
        Ok(replay) => wasm_page(pages::game(&service, entrant.as_ref(), &replay, query.ply())),
        Err(refusal) => page_refusal(&service, entrant.as_ref(), refusal),
    }
}

/// The metered copy of a WebAssembly bot on the leaderboard, what the pages run (see
/// [`othello_wasm::metering`]).
async fn metered_module(State(service): State<Shared>, Path(entry): Path<String>) -> Response {
    let Ok(entry) = entry.parse::<i64>() else {
        return (StatusCode::NOT_FOUND, "no such bot").into_response();
    };
    match blocking(&service, move |s| s.metered_module(entry)).await {
        Ok(bytes) => (
            [(header::CONTENT_TYPE, "application/wasm"), (header::CACHE_CONTROL, "public, max-age=3600")],
            bytes.as_ref().clone(),
        )
            .into_response(),
        Err(refusal) => json_refusal(refusal),
    }
}

/// A game against a WebAssembly bot, played in the visitor's browser.
async fn page_play(State(service): State<Shared>, headers: HeaderMap, Path(entry): Path<i64>) -> Response {
    let entrant = page_entrant(&service, &headers).await;
    match blocking(&service, move |s| s.play_setup(entry)).await {
        Ok(setup) => wasm_page(pages::play(&service, entrant.as_ref(), &setup)),
        Err(refusal) => page_refusal(&service, entrant.as_ref(), refusal),
    }
}
