//! The oxo web game: rooms of two seats playing m,n,k-games in the browser,
//! against each other or the computer, with spectators and a running score.
//!
//! - [`room`]: one room as a pure state machine (join, play, rematch).
//! - [`hub`]: the live rooms, a lock per room, computer moves off the
//!   async runtime, hints from the solver.
//! - [`logbuf`]: the request log's writer, a thread of its own, so a
//!   request costs no write.
//! - [`store`]: where rooms are kept ([`SqliteStore`] by default), behind
//!   the [`Store`] trait; a move is acknowledged only once it is durable.
//! - the HTTP and WebSocket routes by resource ([`app`]), the edge policy
//!   every request and live move goes through, and the server's life
//!   ([`run`]: sweepers, shutdown).
//!
//! ```no_run
//! use std::sync::Arc;
//! use oxo_server::{AppState, Hub, HubConfig, SqliteStore};
//!
//! # async fn serve() -> Result<(), Box<dyn std::error::Error>> {
//! let store = SqliteStore::open("oxo.db")?;
//! let hub = Hub::new(Arc::new(store), &HubConfig::default());
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! oxo_server::run(listener, AppState::new(hub), async {
//!     let _ = tokio::signal::ctrl_c().await;
//! })
//! .await?;
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

mod edge;
pub mod error;
pub mod hub;
pub mod id;
pub mod listen;
pub mod logbuf;
pub mod name;
mod rate;
pub mod room;
mod routes;
mod server;
mod state;
pub mod store;
mod time;
mod wire;

pub use edge::HINTS_IN_FLIGHT;
pub use error::ApiError;
pub use hub::{Hub, HubConfig, HubError, PERFECT_BUDGET};
pub use listen::{Limits, Rate, connections_possible};
pub use routes::{BODY_LIMIT, app};
pub use server::run;
pub use state::AppState;
pub use store::{CommitFault, MemoryStore, PgStore, SqliteStore, Store, StoreError, StoreEvent};
pub use time::{ManualTime, TimeSource};
