//! The browser UI, compiled into the binary: it works offline, from one
//! file, with no CDN or external font.

use std::sync::OnceLock;

use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

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

/// A file's entity tag: the start of its SHA-256, quoted. The files are
/// fixed for the life of the binary, so the tag is too.
fn tag(body: &str) -> String {
    let digest = Sha256::digest(body.as_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

/// The tags of the page and of each file of [`FILES`], in that order.
fn tags() -> &'static [String] {
    static TAGS: OnceLock<Vec<String>> = OnceLock::new();
    TAGS.get_or_init(|| {
        std::iter::once(INDEX)
            .chain(FILES.iter().map(|(_, _, body)| *body))
            .map(tag)
            .collect()
    })
}

/// Whether the browser's copy (`If-None-Match`) is the one tagged `tag`.
fn fresh(headers: &HeaderMap, tag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|candidate| candidate.trim().trim_start_matches("W/"))
        .any(|candidate| candidate == tag || candidate == "*")
}

fn page(
    headers: &HeaderMap,
    content_type: &'static str,
    body: &'static str,
    tag: &str,
) -> Response {
    let common = [
        // Revalidate every time, so a new build shows at once; an
        // unchanged file then costs a 304 with no body.
        (header::CACHE_CONTROL, "no-cache".to_owned()),
        (header::ETAG, tag.to_owned()),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
        (header::REFERRER_POLICY, "no-referrer".to_owned()),
    ];
    if fresh(headers, tag) {
        return (StatusCode::NOT_MODIFIED, common).into_response();
    }
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, content_type.to_owned())],
        common,
        body,
    )
        .into_response()
}

/// The single page, for `/` and `/g/{id}` alike: the script reads the path.
pub async fn index(headers: HeaderMap) -> Response {
    page(&headers, "text/html; charset=utf-8", INDEX, &tags()[0])
}

/// A file of the UI.
pub async fn file(headers: HeaderMap, Path(name): Path<String>) -> Result<Response, ApiError> {
    FILES
        .iter()
        .zip(&tags()[1..])
        .find(|((file, _, _), _)| *file == name)
        .map(|((_, content_type, body), tag)| page(&headers, content_type, body, tag))
        .ok_or(ApiError::NoRoute(format!("/assets/{name}")))
}
