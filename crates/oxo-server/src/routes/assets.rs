//! The browser UI, compiled into the binary: it works offline, from one
//! file, with no CDN or external font.
//! Also the server's own documents: what it offers (`/api/info`) and its
//! health checks (`/healthz`, `/readyz`).

use std::sync::OnceLock;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use oxo_ai::StrategyKind;
use sha2::{Digest, Sha256};

use super::json_response;
use crate::error::ApiError;
use crate::room::SERVER_MAX_SIDE;
use crate::state::AppState;
use oxo_ai::solver::{QUICK_MAX_CELLS, QUICK_MAX_EMPTY};

const INDEX: &str = include_str!("../../assets/index.html");

/// The page a browser is shown for an address with nothing behind it.
const NOT_FOUND: &str = include_str!("../../assets/404.html");

/// A file of `assets/`, compiled in, with its content type.
macro_rules! asset {
    ($name:literal, $content_type:expr) => {
        (
            $name,
            $content_type,
            include_str!(concat!("../../assets/", $name)),
        )
    };
}

/// The content type of the page's scripts: native ES modules, which a
/// browser runs only when served with a JavaScript type.
const JS: &str = "text/javascript; charset=utf-8";

/// Every file under `/assets/`, with its content type: the page's script
/// is one ES module per feature, `main.js` the entry, each loaded by the
/// browser as it is (no bundler or build step).
const FILES: &[(&str, &str, &str)] = &[
    asset!("main.js", JS),
    asset!("dom.js", JS),
    asset!("state.js", JS),
    asset!("net.js", JS),
    asset!("route.js", JS),
    asset!("start.js", JS),
    asset!("lobby.js", JS),
    asset!("seeks.js", JS),
    asset!("name.js", JS),
    asset!("game.js", JS),
    asset!("play.js", JS),
    asset!("status.js", JS),
    asset!("board.js", JS),
    asset!("record.js", JS),
    asset!("analysis.js", JS),
    asset!("tree.js", JS),
    asset!("estimate.js", JS),
    asset!("review.js", JS),
    asset!("words.js", JS),
    asset!("endings.js", JS),
    asset!("invite.js", JS),
    asset!("qr.js", JS),
    asset!("clock.js", JS),
    asset!("style.css", "text/css; charset=utf-8"),
    asset!("icon.svg", "image/svg+xml"),
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
        .ok_or(ApiError::NoRoute(format!(
            "/assets/{}",
            crate::error::clipped(&name)
        )))
}

/// The answer to a path no route serves: under `/api/` always the JSON
/// 404 every API client expects; elsewhere, to a browser (a `GET` or
/// `HEAD` whose `Accept` names `text/html`, as every browser's navigation
/// does) a small page in the site's style with a link home, and to
/// anything else (`curl`, scripts) the same JSON 404.
pub(super) async fn not_found(method: Method, uri: Uri, headers: HeaderMap) -> Response {
    let path = uri.path();
    let api = path == "/api" || path.starts_with("/api/");
    let browser = matches!(method, Method::GET | Method::HEAD)
        && headers
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .any(|value| value.contains("text/html"));
    if api || !browser {
        return ApiError::NoRoute(crate::error::clipped(path)).into_response();
    }
    (
        StatusCode::NOT_FOUND,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::REFERRER_POLICY, "no-referrer"),
        ],
        NOT_FOUND,
    )
        .into_response()
}

/// How long `/readyz` waits for the store.
pub const READY_TIMEOUT: Duration = Duration::from_secs(2);

/// Readiness for load balancers: 200 when the store answers within
/// [`READY_TIMEOUT`] and the server is not shutting down, else 503 with
/// the reason. (`/healthz` is liveness: it answers whenever the process
/// does.)
///
/// Whether the store's change feed is up is not part of it. A server whose
/// feed is down still answers every request correctly (it rereads each
/// request's room) and only refuses claims it cannot judge; and it counts
/// as back only once it has reread every room it holds, one after
/// another, each waiting its turn at the room. A database failover takes
/// every server's feed at once: readiness tied to the feed would have the
/// balancer refuse everyone while the servers answer correctly, and a
/// slow probe would make it flap. The outage is logged instead.
pub(super) async fn ready(State(state): State<AppState>) -> Result<&'static str, ApiError> {
    if state.is_closing() {
        return Err(ApiError::NotReady("the server is shutting down".into()));
    }
    match tokio::time::timeout(READY_TIMEOUT, state.hub().ping()).await {
        Ok(Ok(())) => Ok("ready"),
        Ok(Err(e)) => Err(ApiError::NotReady(e.to_string())),
        Err(_) => Err(ApiError::NotReady(format!(
            "the database did not answer within {} s",
            READY_TIMEOUT.as_secs()
        ))),
    }
}

/// The display name's rule (`name.rs`), for the page to check a name as
/// the server will: code points as numbers, ranges inclusive.
fn name_rules() -> serde_json::Value {
    use crate::name::{BLANK, INVISIBLE, NAME_MAX_CHARS, RESERVED_PREFIX};
    let ranges = |ranges: &[(char, char)]| -> Vec<[u32; 2]> {
        ranges
            .iter()
            .map(|&(low, high)| [u32::from(low), u32::from(high)])
            .collect()
    };
    serde_json::json!({
        "max_chars": NAME_MAX_CHARS,
        "invisible": ranges(INVISIBLE),
        "blank": ranges(BLANK),
        "reserved_prefix": RESERVED_PREFIX,
    })
}

pub(super) async fn info(State(state): State<AppState>) -> Response {
    let strategies: Vec<_> = StrategyKind::ALL
        .into_iter()
        .map(|kind| {
            serde_json::json!({
                "name": kind.name(),
                "description": match kind {
                    StrategyKind::Random => "random — any legal move",
                    StrategyKind::Rules => "rules — wins, blocks, forks",
                    StrategyKind::AlphaBeta => "alphabeta — searches ahead; strong on big boards",
                    StrategyKind::Perfect => "perfect — cannot lose (boards up to 6×6)",
                    StrategyKind::Learned => "learned — taught itself by self-play",
                },
                // Where it can play, when not everywhere: a longest side,
                // or a list of boards.
                "max_side": (kind == StrategyKind::Perfect).then_some(oxo_ai::PERFECT_MAX_SIDE),
                "boards": match kind {
                    StrategyKind::Learned => Some(
                        state.hub().catalog().learned_boards().into_iter()
                            .map(|rules| serde_json::json!({"size": rules.size().to_string(), "k": rules.k()}))
                            .collect::<Vec<_>>(),
                    ),
                    _ => None,
                },
            })
        })
        .collect();
    let body = serde_json::json!({
        // oxo's version, as `oxo --version` gives it: what a client can
        // read the API's changes against (CHANGELOG.md).
        "version": env!("CARGO_PKG_VERSION"),
        "strategies": StrategyKind::NAMES,
        "opponents": strategies,
        "presets": [
            {"size": "3x3", "k": 3},
            {"size": "4x4", "k": 4},
            {"size": "7x7", "k": 5},
            {"size": "15x15", "k": 5},
        ],
        "max_side": SERVER_MAX_SIDE,
        "hint_max_cells": QUICK_MAX_CELLS,
        "hint_max_empty": QUICK_MAX_EMPTY,
        "hint_boards": oxo_ai::exact::every_stage_boards()
            .iter()
            .map(|rules| serde_json::json!({"size": rules.size().to_string(), "k": rules.k()}))
            .collect::<Vec<_>>(),
        "name": name_rules(),
    });
    json_response(StatusCode::OK, body.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The relative imports of a module (`from './x.js'`, `import('./x.js')`),
    /// as file names under `/assets/`.
    fn imports(body: &str) -> Vec<&str> {
        ["from './", "import('./"]
            .iter()
            .flat_map(|start| {
                body.match_indices(start)
                    .map(move |(at, _)| at + start.len())
            })
            .map(|at| &body[at..at + body[at..].find('\'').expect("a closing quote")])
            .collect()
    }

    /// A file in `assets/` but not in [`FILES`] would break the page only
    /// in a browser (a module that fails to load stops them all).
    #[test]
    fn every_asset_is_served() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .filter(|name| name != "index.html" && name != "404.html")
            .collect();
        on_disk.sort();
        let mut served: Vec<&str> = FILES.iter().map(|(name, _, _)| *name).collect();
        served.sort_unstable();
        assert_eq!(on_disk, served);
    }

    /// The page loads `main.js` as a module; every module it reaches is
    /// served as JavaScript, and every module is reached.
    #[test]
    fn every_module_is_served_and_reached() {
        assert!(INDEX.contains(r#"<script type="module" src="/assets/main.js"></script>"#));
        let content_type = |name: &str| {
            FILES
                .iter()
                .find(|(file, _, _)| *file == name)
                .map(|(_, content_type, _)| *content_type)
        };
        let mut reached = vec!["main.js"];
        let mut next = 0;
        while let Some(name) = reached.get(next).copied() {
            next += 1;
            let body = FILES.iter().find(|(file, _, _)| *file == name).unwrap().2;
            for target in imports(body) {
                assert_eq!(content_type(target), Some(JS), "{name} imports {target}");
                if !reached.contains(&target) {
                    reached.push(target);
                }
            }
        }
        for (name, content_type, _) in FILES {
            assert_eq!(
                *content_type == JS,
                reached.contains(name),
                "{name}: a module the page never loads, or a script not served as one"
            );
        }
    }
}
