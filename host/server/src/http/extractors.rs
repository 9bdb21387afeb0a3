//! Who is asking, as axum extractors: the handlers name the caller they need and never look it
//! up by hand. Each answers as today's routes did when the caller is not who they need: 401/403
//! as JSON on the API, a page or a redirect to `/login` on the site.

use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use axum::response::Redirect;

use super::error::ApiError;
use super::{ADMIN_COOKIE, SESSION_COOKIE, Shared, blocking};
use crate::jobs::remote::{Caller, Remote};
use crate::pages;
use crate::service::{Refusal, Service};
use crate::store::Entrant;

/// The token of `Authorization: Bearer TOKEN`.
pub fn bearer(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_owned())
}

/// The value of the cookie `name`.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get_all(header::COOKIE).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(';')).find_map(|pair| {
        let (key, value) = pair.trim().split_once('=')?;
        (key == name && !value.is_empty()).then(|| value.to_owned())
    })
}

/// The session id of the session cookie.
pub fn session_id(headers: &HeaderMap) -> Option<String> {
    cookie(headers, SESSION_COOKIE)
}

/// The entrant of the session cookie, if it is a live session.
async fn session_entrant(service: &Shared, headers: &HeaderMap) -> Option<Entrant> {
    let id = session_id(headers)?;
    blocking(service, move |s| s.session_entrant(&id)).await.ok().flatten()
}

/// The entrant of `token`, or 401.
pub async fn entrant_of(service: &Shared, token: Option<String>) -> Result<Entrant, Refusal> {
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

/// Who `who` authenticates. A failure is noted against `peer`'s address, and past the address's
/// limit it is answered 429 (a valid token always passes: a class behind one address is not
/// locked out by one mistyped token).
pub async fn authenticated<T>(
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

/// Refuses a form sent from another site: its `Origin` (or, without one, its `Sec-Fetch-Site`)
/// must be this server. The session cookie is `SameSite=Strict` besides.
pub fn same_origin(headers: &HeaderMap) -> Result<(), Refusal> {
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

/// A refusal as the site's page, the visitor `entrant` in its header.
pub fn page_error(service: &Service, entrant: Option<&Entrant>) -> impl FnOnce(Refusal) -> ApiError {
    move |refusal| {
        ApiError::from(refusal).page(|message| pages::message(&super::frame(service, entrant), "Not possible", message))
    }
}

/// A page's visitor: the entrant of the session cookie, if logged in.
pub struct Visitor(pub Option<Entrant>);

impl FromRequestParts<Shared> for Visitor {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, service: &Shared) -> Result<Visitor, Infallible> {
        Ok(Visitor(session_entrant(service, &parts.headers).await))
    }
}

/// A logged-in entrant on the site's pages; anyone else is sent to `/login`.
pub struct CurrentEntrant(pub Entrant);

impl FromRequestParts<Shared> for CurrentEntrant {
    type Rejection = Redirect;

    async fn from_request_parts(parts: &mut Parts, service: &Shared) -> Result<CurrentEntrant, Redirect> {
        session_entrant(service, &parts.headers).await.map(CurrentEntrant).ok_or_else(|| Redirect::to("/login"))
    }
}

/// An API caller: the bearer token, or the session cookie for the pages' own reads; 401 else.
pub struct ApiEntrant(pub Entrant);

impl FromRequestParts<Shared> for ApiEntrant {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, service: &Shared) -> Result<ApiEntrant, ApiError> {
        Ok(ApiEntrant(api_entrant(service, &parts.headers).await?))
    }
}

/// An API caller that changes something: the bearer token only (a cookie would let another
/// site's page act in the entrant's name); 401 else.
pub struct BearerEntrant(pub Entrant);

impl FromRequestParts<Shared> for BearerEntrant {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, service: &Shared) -> Result<BearerEntrant, ApiError> {
        Ok(BearerEntrant(entrant_of(service, bearer(&parts.headers)).await?))
    }
}

/// [`BearerEntrant`] whose failures count against the caller's address (the uploads: past the
/// address's limit, 429).
pub struct CountedBearerEntrant(pub Entrant);

impl FromRequestParts<Shared> for CountedBearerEntrant {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, service: &Shared) -> Result<CountedBearerEntrant, ApiError> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<std::net::SocketAddr>>()
            .map(|ConnectInfo(peer)| *peer)
            .ok_or_else(|| ApiError::new(500, "internal error: the caller's address is unknown"))?;
        let who = entrant_of(service, bearer(&parts.headers));
        Ok(CountedBearerEntrant(authenticated(service, peer, who).await?))
    }
}

/// A form sent from this site (see [`same_origin`]); another site's is refused with a page.
pub struct SameOrigin;

impl FromRequestParts<Shared> for SameOrigin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, service: &Shared) -> Result<SameOrigin, ApiError> {
        same_origin(&parts.headers).map_err(page_error(service, None))?;
        Ok(SameOrigin)
    }
}

/// The organiser: the organiser's bearer token or session; 401 without either, 403 with another
/// token (an entrant's included) or a session that ended. Refused with a page.
pub struct Admin;

/// Whether the request comes from the organiser.
async fn organiser(service: &Shared, headers: &HeaderMap) -> Result<(), Refusal> {
    let token = bearer(headers);
    let session = cookie(headers, ADMIN_COOKIE);
    if token.is_none() && session.is_none() {
        return Err(Refusal::new(
            401,
            "this page is the organiser's: log in at /admin/login with the organiser's token",
        ));
    }
    let valid = blocking(service, move |s| s.is_organiser(token.as_deref(), session.as_deref())).await?;
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

impl FromRequestParts<Shared> for Admin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, service: &Shared) -> Result<Admin, ApiError> {
        organiser(service, &parts.headers).await.map_err(page_error(service, None))?;
        Ok(Admin)
    }
}

/// A remote worker with a valid token (its `last_seen` noted): 401 for an unknown or revoked
/// one, 403 for an entrant's.
pub struct Worker(pub Caller);

impl FromRequestParts<Arc<Remote>> for Worker {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, remote: &Arc<Remote>) -> Result<Worker, ApiError> {
        let token = bearer(&parts.headers);
        let remote = remote.clone();
        let caller = tokio::task::spawn_blocking(move || remote.caller(token))
            .await
            .unwrap_or_else(|e| Err(Refusal::new(500, format!("internal error: {e}"))))?;
        Ok(Worker(caller))
    }
}
