//! The one error of the HTTP side: a refusal with its status, answered as `{"error": "…"}` on
//! the JSON routes (their public contract) or as a page of the site on the HTML ones.

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use crate::service::Refusal;

/// What every handler's `Err` is. Its body is JSON unless a page was put in it
/// ([`ApiError::page`]).
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// The HTML page that answers it instead of JSON.
    page: Option<String>,
}

impl ApiError {
    pub fn new(status: u16, message: impl Into<String>) -> ApiError {
        // A status out of range is the server's own fault, not the caller's.
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        ApiError { status, message: message.into(), page: None }
    }

    /// The same refusal answered with the page `render` makes of its message.
    pub fn page(mut self, render: impl FnOnce(&str) -> maud::Markup) -> ApiError {
        self.page = Some(render(&self.message).into_string());
        self
    }
}

impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> ApiError {
        ApiError::new(refusal.status, refusal.message)
    }
}

impl From<ApiError> for Refusal {
    fn from(error: ApiError) -> Refusal {
        Refusal::new(error.status.as_u16(), error.message)
    }
}

/// A store's error is the server's own: 500, with what went wrong.
impl From<crate::store::Error> for ApiError {
    fn from(error: crate::store::Error) -> ApiError {
        ApiError::new(500, error.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match self.page {
            Some(page) => (self.status, Html(page)).into_response(),
            None => (self.status, axum::Json(serde_json::json!({ "error": self.message }))).into_response(),
        }
    }
}
