//! The entrant's extra routes: unrated test games (asked for by form or over the API) and their
//! replays.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};

use super::{
    Shared, api_entrant, api_entrant_bearer, blocking, json_refusal, page_entrant, page_refusal, pages, same_origin,
};
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
    headers: HeaderMap,
    Path(id): Path<i64>,
    form: Result<axum::Form<TestGamesForm>, axum::extract::rejection::FormRejection>,
) -> Response {
    if let Err(refusal) = same_origin(&headers) {
        return page_refusal(&service, None, refusal);
    }
    let Some(entrant) = page_entrant(&service, &headers).await else {
        return Redirect::to("/login").into_response();
    };
    let Ok(axum::Form(form)) = form else {
        let refusal = Refusal::new(400, "choose an opponent for the test games");
        return page_refusal(&service, Some(&entrant), refusal);
    };
    let who = entrant.clone();
    match blocking(&service, move |s| s.request_test_games(&who, id, form.opponent)).await {
        Ok(_) => Redirect::to(&format!("/bots/{id}#test-games")).into_response(),
        Err(refusal) => page_refusal(&service, Some(&entrant), refusal),
    }
}

/// `POST /api/bots/{id}/test-games` with `{"opponent": ENTRY}` (a ladder entry's id, or a
/// current bot's name): the bearer token only, as for uploads, so no other site's page can send
/// it with the entrant's cookie.
async fn api_test_games(
    State(service): State<Shared>,
    headers: HeaderMap,
    Path(id): Path<i64>,
    body: axum::body::Bytes,
) -> Response {
    let entrant = match api_entrant_bearer(&service, &headers).await {
        Ok(entrant) => entrant,
        Err(refusal) => return json_refusal(refusal),
    };
    let opponent = match serde_json::from_slice::<serde_json::Value>(&body) {
        Ok(request) => request.get("opponent").cloned(),
        Err(_) => None,
    };
    let result = blocking(&service, move |s| {
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
    .await;
    match result {
        Ok(requested) => (StatusCode::ACCEPTED, axum::Json(requested)).into_response(),
        Err(refusal) => json_refusal(refusal),
    }
}

async fn page_test_game(
    State(service): State<Shared>,
    headers: HeaderMap,
    Path(id): Path<i64>,
    axum::extract::Query(query): axum::extract::Query<super::PlyQuery>,
) -> Response {
    let Some(entrant) = page_entrant(&service, &headers).await else {
        return Redirect::to("/login").into_response();
    };
    let who = entrant.clone();
    match blocking(&service, move |s| s.test_replay(&who, id)).await {
        Ok(replay) => {
            Html(pages::game_page(&service, Some(&entrant), &replay, true, query.ply()).into_string()).into_response()
        }
        Err(refusal) => page_refusal(&service, Some(&entrant), refusal),
    }
}

async fn api_test_game(State(service): State<Shared>, headers: HeaderMap, Path(id): Path<i64>) -> Response {
    let result = match api_entrant(&service, &headers).await {
        Ok(entrant) => blocking(&service, move |s| s.test_replay(&entrant, id)).await,
        Err(refusal) => Err(refusal),
    };
    match result {
        Ok(replay) => axum::Json(replay).into_response(),
        Err(refusal) => json_refusal(refusal),
    }
}

/// The form of `/me`: makes a version the one that counts, then back to `/me`.
async fn form_current(State(service): State<Shared>, headers: HeaderMap, Path(id): Path<i64>) -> Response {
    if let Err(refusal) = same_origin(&headers) {
        return page_refusal(&service, None, refusal);
    }
    let Some(entrant) = page_entrant(&service, &headers).await else {
        return Redirect::to("/login").into_response();
    };
    let who = entrant.clone();
    match blocking(&service, move |s| s.choose_version(&who, id)).await {
        Ok(_) => Redirect::to("/me").into_response(),
        Err(refusal) => page_refusal(&service, Some(&entrant), refusal),
    }
}

/// `POST /api/bots/{id}/current`: 200 `{"current": ID}` (the bearer token only).
async fn api_current(State(service): State<Shared>, headers: HeaderMap, Path(id): Path<i64>) -> Response {
    let entrant = match api_entrant_bearer(&service, &headers).await {
        Ok(entrant) => entrant,
        Err(refusal) => return json_refusal(refusal),
    };
    match blocking(&service, move |s| s.choose_version(&entrant, id)).await {
        Ok(current) => axum::Json(serde_json::json!({ "current": current })).into_response(),
        Err(refusal) => json_refusal(refusal),
    }
}
