//! A fuzz target for the JSON bodies of the API, run by `cargo test` for a
//! bounded number of cases, calling the router in process.
//!
//! Bodies are random bytes, random JSON values, and valid bodies edited:
//! fields of the wrong type, numbers past every integer type, fields
//! dropped, repeated or unknown, deep nesting, cut short, trailing bytes,
//! over the size limit, and other content types. Whatever is sent to
//! `POST /api/games`, `/seats/o`, `/moves` or `/rematch`:
//!
//! * the answer is never a 5xx;
//! * a 4xx is `application/json` with an `"error"` string;
//! * a refused request changes nothing: the game reads the same before and
//!   after (and a refused create makes no room); an accepted one leaves the
//!   game as its answer shows it.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use oxo_server::{AppState, BODY_LIMIT, Hub, HubConfig, MemoryStore, app};
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Map, Number, Value};
use tower::ServiceExt;

// ---------------------------------------------------------------------------
// Calling the app
// ---------------------------------------------------------------------------

/// A fresh app on an empty store, and its state (to count rooms).
fn fresh() -> (Router, AppState) {
    let state = AppState::new(Hub::new(
        Arc::new(MemoryStore::new()),
        &HubConfig::default(),
    ));
    (app(state.clone()), state)
}

/// A runtime for one case: the router's tasks run on it.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// A request body and the `Content-Type` it is sent with.
#[derive(Clone)]
struct Sent {
    content_type: Option<&'static str>,
    body: Vec<u8>,
}

/// The body as text (cut short), so a failing case can be read.
impl std::fmt::Debug for Sent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = String::from_utf8_lossy(&self.body);
        let shown: String = text.chars().take(300).collect();
        f.debug_struct("Sent")
            .field("content_type", &self.content_type)
            .field("body", &shown)
            .field("len", &self.body.len())
            .finish()
    }
}

/// POST `sent` to `path`; the status and the body as JSON, checked: never
/// a 5xx, and a 4xx has a JSON `"error"`.
async fn post(
    router: &Router,
    path: &str,
    token: Option<&str>,
    sent: &Sent,
) -> Result<(StatusCode, Value), TestCaseError> {
    let mut request = Request::builder().method("POST").uri(path);
    if let Some(content_type) = sent.content_type {
        request = request.header(header::CONTENT_TYPE, content_type);
    }
    if let Some(token) = token {
        request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    let request = request
        .body(Body::from(sent.body.clone()))
        .expect("a request");
    let response = router.clone().oneshot(request).await.expect("infallible");
    let status = response.status();
    let json_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("a body");
    let text = String::from_utf8_lossy(&bytes);
    prop_assert!(
        !status.is_server_error(),
        "{} {}: {} for {:?}",
        path,
        status,
        text,
        sent
    );
    prop_assert!(json_type, "{} {}: not JSON: {}", path, status, text);
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|e| TestCaseError::fail(format!("{path} {status}: {e}: {text}")))?;
    if status.is_client_error() {
        prop_assert!(
            value["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{} {}: no error in {}",
            path,
            status,
            value
        );
    } else {
        prop_assert!(status.is_success(), "{} {}: {}", path, status, value);
    }
    Ok((status, value))
}

/// The game as `GET /api/games/{id}` shows it.
async fn show(router: &Router, id: &str) -> Value {
    let request = Request::builder()
        .uri(format!("/api/games/{id}"))
        .body(Body::empty())
        .expect("a request");
    let response = router.clone().oneshot(request).await.expect("infallible");
    assert_eq!(response.status(), StatusCode::OK);
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .expect("a body");
    serde_json::from_slice(&bytes).expect("JSON")
}

/// An empty body, as JSON: every field at its default.
fn empty() -> Sent {
    Sent {
        content_type: Some("application/json"),
        body: Vec::new(),
    }
}

/// A well-formed POST with a JSON body.
fn json(body: &Value) -> Sent {
    Sent {
        content_type: Some("application/json"),
        body: body.to_string().into_bytes(),
    }
}

/// `bytes` with every `from` in it replaced by `to`.
fn replaced(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        if rest.starts_with(from) {
            out.extend_from_slice(to);
            rest = &rest[from.len()..];
        } else {
            out.push(rest[0]);
            rest = &rest[1..];
        }
    }
    out
}

/// A new game with a human opponent: its id, X's token and the invite.
async fn create(router: &Router) -> (String, String, String) {
    let (status, created) = post(router, "/api/games", None, &empty())
        .await
        .expect("created");
    assert_eq!(status, StatusCode::CREATED);
    let text = |field: &Value| field.as_str().expect("a string").to_owned();
    (
        text(&created["game"]["id"]),
        text(&created["token"]),
        text(&created["invite"]),
    )
}

/// A game with a human opponent: its id and X's token, and O's token once
/// joined; then `moves` played in turn.
async fn game(router: &Router, join: bool, moves: &[(i64, i64)]) -> (String, String, String) {
    let (id, x, invite) = create(router).await;
    if !join {
        return (id, x, String::new());
    }
    let body = serde_json::json!({ "invite": invite });
    let (status, joined) = post(
        router,
        &format!("/api/games/{id}/seats/o"),
        None,
        &json(&body),
    )
    .await
    .expect("joined");
    assert_eq!(status, StatusCode::OK);
    let o = joined["token"].as_str().expect("a token").to_owned();
    for (n, &(row, col)) in moves.iter().enumerate() {
        let token = if n.is_multiple_of(2) { &x } else { &o };
        let body = serde_json::json!({"row": row, "col": col});
        let (status, answer) = post(
            router,
            &format!("/api/games/{id}/moves"),
            Some(token),
            &json(&body),
        )
        .await
        .expect("played");
        assert_eq!(status, StatusCode::OK, "{answer}");
    }
    (id, x, o)
}

/// Five moves that win for nobody.
const QUIET: [(i64, i64); 5] = [(0, 0), (1, 1), (0, 1), (0, 2), (2, 0)];
/// Five moves that win for X.
const X_WINS: [(i64, i64); 5] = [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)];

// ---------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------

/// Values that are wrong, or nearly right, in any field: other types,
/// numbers beyond every integer type, fractions, odd strings.
const ODD_VALUES: &[&str] = &[
    "null",
    "true",
    "\"a\"",
    "\"\"",
    "[]",
    "{}",
    "[1,2]",
    "{\"row\":1}",
    "-1",
    "0",
    "-0",
    "1.5",
    "1e2",
    "1e400",
    "-1e400",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999999",
    "\"3x3\"",
    "\"0x3\"",
    "\"33x33\"",
    "\"4294967296x1\"",
    "\"3x3x3\"",
    "\"x\"",
    "\"o\"",
    "\"X\"",
    "\"human\"",
    "\"random\"",
    "\"perfect\"",
    "\"learned\"",
    "\"grandmaster\"",
    "\"\\u0000\"",
    "\"\\ud800\"",
    "\"\u{1F600}\"",
];

/// A raw JSON value for a field.
fn odd_value() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(ODD_VALUES).prop_map(str::to_owned),
        1 => any::<i64>().prop_map(|n| n.to_string()),
        1 => any::<u64>().prop_map(|n| n.to_string()),
        1 => any::<String>().prop_map(|s| Value::String(s).to_string()),
        1 => (1usize..2 * BODY_LIMIT).prop_map(|len| Value::String("é".repeat(len / 2)).to_string()),
    ]
}

/// Field names the API knows, and others.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec!["row", "col", "version", "size", "k", "opponent", "first", "seat"])
            .prop_map(str::to_owned),
        1 => "[a-zA-Z_]{0,8}",
        1 => any::<String>(),
    ]
}

/// One edit of a body's fields.
#[derive(Clone, Debug)]
enum FieldEdit {
    Set(Index, String),
    Remove(Index),
    Repeat(Index),
    Rename(Index, String),
    Extra(String, String),
}

fn field_edit() -> impl Strategy<Value = FieldEdit> {
    prop_oneof![
        4 => (any::<Index>(), odd_value()).prop_map(|(i, v)| FieldEdit::Set(i, v)),
        1 => any::<Index>().prop_map(FieldEdit::Remove),
        1 => any::<Index>().prop_map(FieldEdit::Repeat),
        1 => (any::<Index>(), key()).prop_map(|(i, k)| FieldEdit::Rename(i, k)),
        2 => (key(), odd_value()).prop_map(|(k, v)| FieldEdit::Extra(k, v)),
    ]
}

/// What is done to the body's text once it is written.
#[derive(Clone, Debug)]
enum Wrap {
    None,
    /// Inside this many arrays, or objects.
    Nest(usize, bool),
    /// Cut short.
    Cut(Index),
    /// Bytes after it.
    Trailing(Vec<u8>),
    /// Padded with blanks to this many characters (when shorter): large
    /// bodies, some just under the size limit and some just over.
    Padded(usize),
}

fn wrap() -> impl Strategy<Value = Wrap> {
    prop_oneof![
        8 => Just(Wrap::None),
        1 => (1usize..300, any::<bool>()).prop_map(|(depth, objects)| Wrap::Nest(depth, objects)),
        1 => any::<Index>().prop_map(Wrap::Cut),
        1 => prop::collection::vec(any::<u8>(), 1..8).prop_map(Wrap::Trailing),
        1 => prop_oneof![0..2 * BODY_LIMIT, BODY_LIMIT - 2..BODY_LIMIT + 2].prop_map(Wrap::Padded),
    ]
}

/// `fields` as an object, edited and wrapped.
fn written(mut fields: Vec<(String, String)>, edits: &[FieldEdit], wrap: &Wrap) -> Vec<u8> {
    for edit in edits {
        match edit {
            FieldEdit::Extra(k, v) => fields.push((k.clone(), v.clone())),
            _ if fields.is_empty() => {}
            FieldEdit::Set(i, v) => {
                let i = i.index(fields.len());
                fields[i].1.clone_from(v);
            }
            FieldEdit::Remove(i) => {
                fields.remove(i.index(fields.len()));
            }
            FieldEdit::Repeat(i) => fields.push(fields[i.index(fields.len())].clone()),
            FieldEdit::Rename(i, k) => {
                let i = i.index(fields.len());
                fields[i].0.clone_from(k);
            }
        }
    }
    let pairs: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{}:{v}", Value::String(k.clone())))
        .collect();
    let text = format!("{{{}}}", pairs.join(","));
    match wrap {
        Wrap::None => text.into_bytes(),
        Wrap::Nest(depth, false) => {
            format!("{}{text}{}", "[".repeat(*depth), "]".repeat(*depth)).into_bytes()
        }
        Wrap::Nest(depth, true) => {
            format!("{}{text}{}", "{\"a\":".repeat(*depth), "}".repeat(*depth)).into_bytes()
        }
        Wrap::Cut(at) => text.as_bytes()[..at.index(text.len())].to_vec(),
        Wrap::Trailing(bytes) => {
            let mut out = text.into_bytes();
            out.extend_from_slice(bytes);
            out
        }
        Wrap::Padded(len) => format!("{text:<len$}").into_bytes(),
    }
}

/// Any JSON value, small.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Content types: mostly JSON (in any spelling), sometimes not.
fn content_type() -> impl Strategy<Value = Option<&'static str>> {
    prop_oneof![
        12 => Just(Some("application/json")),
        1 => prop::sample::select(vec![
            Some("application/json; charset=utf-8"),
            Some("APPLICATION/JSON"),
            Some("text/plain"),
            Some("application/jsonx"),
            Some(""),
            None,
        ]),
    ]
}

/// A body for a route whose valid bodies `base` makes.
fn sent(base: impl Strategy<Value = Vec<(String, String)>>) -> impl Strategy<Value = Sent> {
    let body = prop_oneof![
        2 => prop::collection::vec(any::<u8>(), 0..120),
        2 => json_value().prop_map(|v| v.to_string().into_bytes()),
        1 => prop::sample::select(vec!["", " ", "\n\t ", "null", "{}", "[]", "0", "\"\""])
            .prop_map(|s| s.as_bytes().to_vec()),
        // Valid bodies, and more often edited ones.
        7 => (
            base,
            prop::option::weighted(0.6, (prop::collection::vec(field_edit(), 1..4), wrap())),
        )
            .prop_map(|(fields, edit)| match edit {
                None => written(fields, &[], &Wrap::None),
                Some((edits, wrap)) => written(fields, &edits, &wrap),
            }),
    ];
    (content_type(), body).prop_map(|(content_type, body)| Sent { content_type, body })
}

/// Some of `fields`, each present with its probability and one of its
/// values.
fn some_of(
    fields: Vec<(&'static str, f64, Vec<&'static str>)>,
) -> impl Strategy<Value = Vec<(String, String)>> {
    let each: Vec<_> = fields
        .into_iter()
        .map(|(name, present, values)| {
            prop::option::weighted(present, prop::sample::select(values))
                .prop_map(move |v| v.map(|v| (name.to_owned(), v.to_owned())))
        })
        .collect();
    each.prop_map(|chosen| chosen.into_iter().flatten().collect())
}

fn create_fields() -> impl Strategy<Value = Vec<(String, String)>> {
    some_of(vec![
        (
            "size",
            0.7,
            vec!["\"3x3\"", "\"4x4\"", "\"2x5\"", "\"7x7\""],
        ),
        ("k", 0.5, vec!["2", "3", "4", "5"]),
        (
            "opponent",
            0.5,
            vec!["\"human\"", "\"random\"", "\"rules\""],
        ),
        ("first", 0.5, vec!["\"x\"", "\"o\""]),
    ])
}

fn move_fields() -> impl Strategy<Value = Vec<(String, String)>> {
    some_of(vec![
        ("row", 0.9, vec!["0", "1", "2", "2", "3", "-1"]),
        ("col", 0.9, vec!["0", "1", "2", "2", "3", "-1"]),
        ("version", 0.5, vec!["2", "3", "4", "5", "6", "7"]),
    ])
}

fn version_field() -> impl Strategy<Value = Vec<(String, String)>> {
    some_of(vec![("version", 0.7, vec!["2", "5", "6", "7", "8"])])
}

/// Who sends a seat's request.
#[derive(Clone, Copy, Debug)]
enum Sender {
    /// The seat whose turn it is by the moves played (X moved first).
    ToMove,
    /// The other seat.
    Waiting,
    /// No token.
    Nobody,
    /// A token of no seat.
    Stranger,
}

fn sender() -> impl Strategy<Value = Sender> {
    prop_oneof![
        4 => Just(Sender::ToMove),
        1 => Just(Sender::Waiting),
        1 => Just(Sender::Nobody),
        1 => Just(Sender::Stranger),
    ]
}

impl Sender {
    /// The token sent after `played` moves, X first.
    fn token<'a>(self, played: usize, x: &'a str, o: &'a str) -> Option<&'a str> {
        let (to_move, waiting) = if played.is_multiple_of(2) {
            (x, o)
        } else {
            (o, x)
        };
        match self {
            Sender::ToMove => Some(to_move),
            Sender::Waiting => Some(waiting),
            Sender::Nobody => None,
            Sender::Stranger => Some("0123456789abcdef0123456789abcdef"),
        }
    }
}

// ---------------------------------------------------------------------------
// The targets
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// A refused create makes no room; an accepted one makes the room its
    /// answer shows.
    #[test]
    fn create_bodies(sent in sent(create_fields())) {
        runtime().block_on(async {
            let (router, state) = fresh();
            let (status, answer) = post(&router, "/api/games", None, &sent).await?;
            let rooms = state.hub().rooms_in_memory();
            if status.is_success() {
                prop_assert_eq!(status, StatusCode::CREATED);
                prop_assert_eq!(rooms, 1);
                let id = answer["game"]["id"].as_str().expect("an id");
                let shown = show(&router, id).await;
                prop_assert_eq!(shown["id"].as_str(), Some(id));
            } else {
                prop_assert_eq!(rooms, 0, "a refused create made a room");
            }
            Ok(())
        })?;
    }

    /// Joining: whatever the body, a refusal leaves the game as it was.
    /// Valid bodies carry the game's invite (written `@invite` until the
    /// game exists).
    #[test]
    fn join_bodies(
        mut sent in sent(Just(vec![("invite".to_owned(), "\"@invite\"".to_owned())])),
        joined in any::<bool>(),
        seat in prop::sample::select(vec!["o", "o", "o", "x", "O", "z"]),
    ) {
        runtime().block_on(async {
            let (router, _) = fresh();
            let (id, _, invite) = create(&router).await;
            if joined {
                let body = serde_json::json!({ "invite": invite });
                let path = format!("/api/games/{id}/seats/o");
                prop_assert_eq!(post(&router, &path, None, &json(&body)).await?.0, StatusCode::OK);
            }
            sent.body = replaced(&sent.body, b"@invite", invite.as_bytes());
            let before = show(&router, &id).await;
            let (status, answer) = post(&router, &format!("/api/games/{id}/seats/{seat}"), None, &sent).await?;
            let after = show(&router, &id).await;
            if status.is_success() {
                prop_assert_eq!(&after, &answer["game"]);
                prop_assert_eq!(&after["seats"]["o"], &Value::Bool(true));
            } else {
                prop_assert_eq!(after, before, "refused with {}: {}", status, answer);
            }
            Ok(())
        })?;
    }

    /// Moves in a game under way: a refusal changes nothing; an accepted
    /// move is the next version.
    #[test]
    fn move_bodies(
        sent in sent(move_fields()),
        played in 0usize..=5,
        who in sender(),
    ) {
        runtime().block_on(async {
            let (router, _) = fresh();
            let (id, x, o) = game(&router, true, &QUIET[..played]).await;
            let before = show(&router, &id).await;
            let (status, answer) =
                post(&router, &format!("/api/games/{id}/moves"), who.token(played, &x, &o), &sent).await?;
            let after = show(&router, &id).await;
            if status.is_success() {
                prop_assert_eq!(&after, &answer["game"]);
                prop_assert_eq!(after["version"].as_u64(), before["version"].as_u64().map(|v| v + 1));
            } else {
                prop_assert_eq!(after, before, "refused with {}: {}", status, answer);
            }
            Ok(())
        })?;
    }

    /// Rematches, in finished games and others: a refusal changes nothing.
    #[test]
    fn rematch_bodies(
        sent in sent(version_field()),
        finished in any::<bool>(),
        who in sender(),
    ) {
        runtime().block_on(async {
            let (router, _) = fresh();
            let moves = if finished { &X_WINS[..] } else { &QUIET[..2] };
            let (id, x, o) = game(&router, true, moves).await;
            let before = show(&router, &id).await;
            let (status, answer) =
                post(&router, &format!("/api/games/{id}/rematch"), who.token(moves.len(), &x, &o), &sent).await?;
            let after = show(&router, &id).await;
            if status.is_success() {
                // Between two people the first rematch is an offer: the
                // round stays, the offer is recorded.
                prop_assert_eq!(&after, &answer["game"]);
                prop_assert_eq!(after["version"].as_u64(), before["version"].as_u64().map(|v| v + 1));
                prop_assert_eq!(&after["round"], &before["round"]);
                prop_assert!(after["rematch"].is_string(), "{}", after);
            } else {
                prop_assert_eq!(after, before, "refused with {}: {}", status, answer);
            }
            Ok(())
        })?;
    }
}
