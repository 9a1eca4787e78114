//! The SQLite schema: the steps in `migrations/`, and the two that SQL
//! alone cannot finish (SQLite has no SHA-256, and a digest is computed the
//! way the store computes it).

use futures_util::FutureExt as _;
use rusqlite::{Connection, Transaction, params};

use super::rows::{Layout, read_as_of};
use crate::id::{GameId, Token, TokenHash};
use crate::store::StoreError;
use crate::store::migrate::{self, Migration, migrations};
use crate::store::record::digest;

/// The steps, in order; `PRAGMA user_version` counts those applied.
pub(super) const MIGRATIONS: &[Migration] = &migrations!(
    "0001_rooms_and_moves.sql",
    "0002_watch_ids.sql",
    "0003_hashed_tokens.sql",
    "0004_digests.sql",
    "0005_offers_and_lobby.sql",
    "0006_invites.sql",
    "0007_moves_by_room_number.sql",
    "0008_player_names.sql",
    "0009_endings_offers_keys.sql",
    "0010_clocks.sql",
    "0011_open_games.sql",
);

/// A SQLite database being migrated: each step in a transaction of its own.
struct Sqlite<'c>(&'c mut Connection);

impl migrate::Schema for Sqlite<'_> {
    async fn version(&mut self) -> Result<i64, StoreError> {
        Ok(self
            .0
            .pragma_query_value(None, "user_version", |row| row.get(0))?)
    }

    async fn apply(&mut self, step: &Migration) -> Result<(), StoreError> {
        let tx = self.0.transaction()?;
        tx.execute_batch(step.sql)?;
        match step.version {
            3 => hash_stored_tokens(&tx)?,
            4 => add_digests(&tx)?,
            _ => {}
        }
        tx.pragma_update(None, "user_version", step.version)?;
        tx.commit()?;
        Ok(())
    }
}

/// Apply the steps the database lacks, each in its own transaction.
pub(super) fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    // Nothing here waits: the runner's future is done on its first poll.
    migrate::migrate(&mut Sqlite(conn), MIGRATIONS)
        .now_or_never()
        .expect("SQLite's migration steps never wait")
}

/// Step 4: the digest of every room already stored.
fn add_digests(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let ids: Vec<String> = tx
        .prepare("SELECT id FROM rooms")?
        .query_map([], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    let mut update = tx.prepare("UPDATE rooms SET digest = ?2 WHERE id = ?1")?;
    for id in ids {
        if let Some((record, _)) = read_as_of(tx, &GameId::from_trusted(&id), Layout::V4)? {
            update.execute(params![id, digest(&record)])?;
        }
    }
    Ok(())
}

/// Step 3: every seat token stored in the clear, hashed.
fn hash_stored_tokens(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let plain: Vec<(String, String, Option<String>)> = tx
        .prepare("SELECT id, x_token, o_token FROM rooms")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<Result<_, _>>()?;
    let hashed = |token: &str| {
        if TokenHash::is_hash(token) {
            token.to_owned()
        } else {
            Token::from_trusted(token).hash().as_str().to_owned()
        }
    };
    let mut update = tx.prepare("UPDATE rooms SET x_token = ?2, o_token = ?3 WHERE id = ?1")?;
    for (id, x, o) in plain {
        update.execute(params![id, hashed(&x), o.as_deref().map(hashed)])?;
    }
    Ok(())
}
