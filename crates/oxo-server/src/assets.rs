//! The browser UI, compiled into the binary: it works offline, from one
//! file, with no CDN or external font.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

const INDEX: &str = include_str!("../assets/index.html");

/// Every file under `/assets/`, with its content type.
const FILES: &[(&str, &str, &str)] = &[
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/app.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../assets/style.css"),
    ),
    (
        "icon.svg",
        "image/svg+xml",
        include_str!("../assets/icon.svg"),
    ),
];

fn page(content_type: &'static str, body: &'static str) -> Response {
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, content_type),
            // Small files: revalidate every time so a new build shows at once.
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
        ],
        body,
    )
        .into_response()
}

/// The single page, for `/` and `/g/{id}` alike: the script reads the path.
pub async fn index() -> Response {
    page("text/html; charset=utf-8", INDEX)
}

/// A file of the UI.
pub async fn file(Path(name): Path<String>) -> Result<Response, ApiError> {
    FILES
        .iter()
        .find(|(file, _, _)| *file == name)
        .map(|(_, content_type, body)| page(content_type, body))
        .ok_or(ApiError::NoRoute(format!("/assets/{name}")))
}
