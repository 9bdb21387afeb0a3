//! The entrant's extra routes: unrated test games (asked for by form or over the API) and their
//! replays.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};

use super::error::ApiError;
use super::extractors::{ApiEntrant, BearerEntrant, CurrentEntrant, SameOrigin, page_error};
use super::{Shared, blocking, frame, html};
use crate::pages;
use crate::service::Refusal;

pub fn routes() -> Router<Shared> {
    Router::new()
        .route("/bots/{id}/test-games", post(form_test_games))
        .route("/api/bots/{id}/test-games", post(api_test_games))
        .route("/test-games/{id}", get(page_test_game))
        .route("/api/test-games/{id}", get(api_test_game))
        .route("/bots/{id}/current", post(form_current))
        .route("/api/bots/{id}/current", post(api_current))
}

#[derive(serde::Deserialize)]
struct TestGamesForm {
    /// The opponent's ladder entry.
    opponent: i64,
}

async fn form_test_games(
    State(service): State<Shared>,
    Path(id): Path<i64>,
    _: SameOrigin,
    CurrentEntrant(entrant): CurrentEntrant,
    form: Result<axum::Form<TestGamesForm>, axum::extract::rejection::FormRejection>,
) -> Result<Response, ApiError> {
    let Ok(axum::Form(form)) = form else {
        let refusal = Refusal::new(400, "choose an opponent for the test games");
        return Err(page_error(&service, Some(&entrant))(refusal));
    };
    let who = entrant.clone();
    blocking(&service, move |s| s.request_test_games(&who, id, form.opponent))
        .await
        .map_err(page_error(&service, Some(&entrant)))?;
    Ok(Redirect::to(&format!("/bots/{id}#test-games")).into_response())
}

/// `POST /api/bots/{id}/test-games` with `{"opponent": ENTRY}` (a ladder entry's id, or a
/// current bot's name): the bearer token only, as for uploads, so no other site's page can send
/// it with the entrant's cookie.
async fn api_test_games(
    State(service): State<Shared>,
    Path(id): Path<i64>,
    BearerEntrant(entrant): BearerEntrant,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let opponent = match serde_json::from_slice::<serde_json::Value>(&body) {
        Ok(request) => request.get("opponent").cloned(),
        Err(_) => None,
    };
    let requested = blocking(&service, move |s| {
        let opponent = match opponent {
            Some(serde_json::Value::Number(n)) if n.as_i64().is_some() => n.as_i64().unwrap_or_default(),
            Some(serde_json::Value::String(name)) => {
                let matching: Vec<i64> =
                    s.current_bots()?.into_iter().filter(|row| row.name == name).map(|row| row.entry).collect();
                match matching[..] {
                    [entry] => entry,
                    [] => {
                        return Err(Refusal::new(422, format!("no current bot of the leaderboard is named `{name}`")));
                    }
                    _ => {
                        return Err(Refusal::new(
                            422,
                            format!("several current bots are named `{name}`: give the opponent's ladder entry id"),
                        ));
                    }
                }
            }
            _ => {
                return Err(Refusal::new(
                    400,
                    "send JSON {\"opponent\": ENTRY}: the ladder entry id (or the name) of a current bot",
                ));
            }
        };
        s.request_test_games(&entrant, id, opponent)
    })
    .await?;
    Ok((StatusCode::ACCEPTED, axum::Json(requested)).into_response())
}

async fn page_test_game(
    State(service): State<Shared>,
    Path(id): Path<i64>,
    axum::extract::Query(query): axum::extract::Query<super::PlyQuery>,
    CurrentEntrant(entrant): CurrentEntrant,
) -> Result<Response, ApiError> {
    let who = entrant.clone();
    let replay =
        blocking(&service, move |s| s.test_replay(&who, id)).await.map_err(page_error(&service, Some(&entrant)))?;
    Ok(html(pages::game_page(&frame(&service, Some(&entrant)), &replay, true, query.ply())))
}

async fn api_test_game(
    State(service): State<Shared>,
    Path(id): Path<i64>,
    ApiEntrant(entrant): ApiEntrant,
) -> Result<Response, ApiError> {
    Ok(axum::Json(blocking(&service, move |s| s.test_replay(&entrant, id)).await?).into_response())
}

/// The form of `/me`: makes a version the one that counts, then back to `/me`.
async fn form_current(
    State(service): State<Shared>,
    Path(id): Path<i64>,
    _: SameOrigin,
    CurrentEntrant(entrant): CurrentEntrant,
) -> Result<Response, ApiError> {
    let who = entrant.clone();
    blocking(&service, move |s| s.choose_version(&who, id)).await.map_err(page_error(&service, Some(&entrant)))?;
    Ok(Redirect::to("/me").into_response())
}

/// `POST /api/bots/{id}/current`: 200 `{"current": ID}` (the bearer token only).
async fn api_current(
    State(service): State<Shared>,
    Path(id): Path<i64>,
    BearerEntrant(entrant): BearerEntrant,
) -> Result<Response, ApiError> {
    let current = blocking(&service, move |s| s.choose_version(&entrant, id)).await?;
    Ok(axum::Json(serde_json::json!({ "current": current })).into_response())
}
