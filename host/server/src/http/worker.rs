//! The worker API (`/api/worker/…`, the worker's token in `Authorization: Bearer`) and the list
//! of workers (`/api/workers`, `/workers`). The leases themselves are [`crate::jobs::remote`]'s.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use super::error::ApiError;
use super::extractors::Worker;
use crate::jobs::remote::Remote;
use crate::pages;
use crate::plan::Hello;
use crate::service::{Refusal, Service};

/// Most bytes of one submitted result (two games' moves, times and failures).
const MAX_RESULT_BYTES: usize = 4 << 20;

type RemoteState = Arc<Remote>;

/// The worker API's routes, on a [`Remote`] of their own.
pub fn routes<S>(service: Arc<Service>) -> Router<S> {
    let remote = Arc::new(Remote::new(service));
    Router::new()
        .route("/api/worker/claim", post(api_claim))
        .route("/api/worker/leases/{lease}/heartbeat", post(api_heartbeat))
        .route("/api/worker/leases/{lease}/release", post(api_release))
        .route("/api/worker/leases/{lease}/result", post(api_submit))
        .route("/api/worker/libraries/{sha256}", get(api_library))
        .route("/api/workers", get(api_workers))
        .route("/workers", get(page_workers))
        .layer(DefaultBodyLimit::max(MAX_RESULT_BYTES))
        .with_state(remote)
}

/// Runs blocking work (the database, the ladder's fit) off the async threads.
async fn blocking<T: Send + 'static>(
    remote: &RemoteState,
    work: impl FnOnce(&Remote) -> Result<T, Refusal> + Send + 'static,
) -> Result<T, ApiError> {
    let remote = remote.clone();
    Ok(tokio::task::spawn_blocking(move || work(&remote))
        .await
        .unwrap_or_else(|e| Err(Refusal::new(500, format!("internal error: {e}"))))?)
}

async fn api_claim(
    State(remote): State<RemoteState>,
    headers: axum::http::HeaderMap,
    Worker(caller): Worker,
    body: Bytes,
) -> Result<Response, ApiError> {
    let hello: Hello = serde_json::from_slice(&body).unwrap_or_default();
    let seen = remote.service.shared.work_generation();
    let first = {
        let (hello, caller) = (hello.clone(), caller.clone());
        blocking(&remote, move |remote| remote.claim(&caller, &hello)).await?
    };
    let claimed = match first {
        // Nothing waits: wait a little for work (long polling), then look once more (as the
        // worker again: its token may have been revoked meanwhile).
        None => {
            let waiting = remote.clone();
            let _ = tokio::task::spawn_blocking(move || waiting.service.shared.wait_for_work(seen)).await;
            let token = super::extractors::bearer(&headers);
            blocking(&remote, move |remote| remote.claim(&remote.caller(token)?, &hello)).await?
        }
        claimed => claimed,
    };
    Ok(match claimed {
        Some(claimed) => axum::Json(claimed).into_response(),
        None => StatusCode::NO_CONTENT.into_response(),
    })
}

async fn api_heartbeat(
    State(remote): State<RemoteState>,
    Path(lease): Path<String>,
    Worker(caller): Worker,
) -> Result<Response, ApiError> {
    let lease_ms = blocking(&remote, move |remote| remote.heartbeat(&caller, &lease)).await?;
    Ok(axum::Json(serde_json::json!({ "lease_ms": lease_ms })).into_response())
}

async fn api_release(
    State(remote): State<RemoteState>,
    Path(lease): Path<String>,
    Worker(caller): Worker,
) -> Result<Response, ApiError> {
    blocking(&remote, move |remote| remote.release(&caller, &lease)).await?;
    Ok(axum::Json(serde_json::json!({ "released": true })).into_response())
}

async fn api_submit(
    State(remote): State<RemoteState>,
    Path(lease): Path<String>,
    Worker(caller): Worker,
    body: Bytes,
) -> Result<Response, ApiError> {
    let accepted = blocking(&remote, move |remote| remote.submit(&caller, &lease, &body)).await?;
    Ok(axum::Json(accepted).into_response())
}

async fn api_library(
    State(remote): State<RemoteState>,
    Path(sha256): Path<String>,
    Worker(caller): Worker,
) -> Result<Response, ApiError> {
    let bytes = blocking(&remote, move |remote| remote.library(&caller, &sha256)).await?;
    Ok(([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response())
}

async fn api_workers(State(remote): State<RemoteState>) -> Result<Response, ApiError> {
    Ok(axum::Json(blocking(&remote, |remote| remote.workers()).await?).into_response())
}

async fn page_workers(State(remote): State<RemoteState>) -> Result<Response, ApiError> {
    let workers = blocking(&remote, |remote| remote.workers()).await?;
    let service = &remote.service;
    let page = pages::workers::list(&super::frame(service, None), service.config.workers, &workers);
    Ok(super::html(page))
}
