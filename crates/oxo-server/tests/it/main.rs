//! oxo-server's integration tests, in one binary (one link instead of one
//! per file):
//!
//! - `api`: the API through the router, every rule and error;
//! - `life`: ending a game (resign, abort, draws, takebacks, claims) and
//!   idempotency keys;
//! - `live`: a real server on a loopback port, WebSockets and restarts;
//! - `limits`: every limit against a misbehaving client;
//! - `nodes`: several nodes on one throwaway PostgreSQL;
//! - `fuzz_bodies`: the JSON bodies fuzzed;
//! - `lobby_life`: the lobby shows only the games someone is at, names, pages;
//! - `lobby_presence`: the lobby lists by presence, not by age, time passed in;
//! - `lost_commits`: PostgreSQL connections lost mid-commit;
//! - `clock`: clocks and correspondence, with the time passed in.

mod analysis;
mod api;
mod clock;
mod common;
mod fuzz_bodies;
mod hints7;
mod life;
mod limits;
mod live;
mod lobby_life;
mod lobby_presence;
mod lost_commits;
mod nodes;
