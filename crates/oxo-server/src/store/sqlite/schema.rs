//! The SQLite schema: the steps in `migrations/`, and the two that SQL
//! alone cannot finish (SQLite has no SHA-256, and a digest is computed the
//! way the store computes it).

use std::collections::BTreeSet;

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
    "0012_position_versions.sql",
    "0013_offers_made.sql",
    "0014_open_games_not_cancelled.sql",
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

/// Why the database on `conn` is not oxo's, if it is not: it has tables
/// the steps up to its schema version do not make (Litestream's aside), or
/// lacks some they do (a new database has no tables and version 0).
/// Nothing is written, so another program's file is left as it was.
///
/// # Errors
/// The file cannot be read: for a file that is not a SQLite database at
/// all, SQLite's `NotADatabase`.
pub(super) fn not_oxo(conn: &Connection) -> rusqlite::Result<Option<String>> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    let found = tables(conn)?;
    let known = i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX);
    let Ok(steps) = usize::try_from(version.min(known)) else {
        return Ok(Some(format!(
            "its schema version is {version}, which oxo never writes"
        )));
    };
    let expected = tables_after(steps)?;
    let listed = |names: Vec<&String>| {
        names
            .into_iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    };
    if version > known {
        // A newer oxo's schema is not known here: it is oxo's if it has
        // any of the tables this one makes ([`StoreError::TooNew`] then).
        return Ok(found
            .is_disjoint(&expected)
            .then(|| format!("its schema version is {version}, and it has none of oxo's tables")));
    }
    // Tables oxo did not make: another program's, but for those of
    // Litestream, a replication tool that keeps its own in the file it
    // copies (`_litestream_seq`, `_litestream_lock`).
    let extra: Vec<_> = found
        .difference(&expected)
        .filter(|name| !name.starts_with("_litestream_"))
        .collect();
    if !extra.is_empty() {
        return Ok(Some(format!(
            "it has tables oxo did not make: {}",
            listed(extra)
        )));
    }
    let missing: Vec<_> = expected.difference(&found).collect();
    Ok(if missing.is_empty() {
        None
    } else if found.is_disjoint(&expected) {
        Some(format!(
            "its schema version is {version}, but it has none of oxo's tables"
        ))
    } else {
        Some(format!(
            "its schema version is {version}, but it lacks oxo's table{} {}",
            if missing.len() == 1 { "" } else { "s" },
            listed(missing)
        ))
    })
}

/// The tables of a database, less SQLite's own.
fn tables(conn: &Connection) -> rusqlite::Result<BTreeSet<String>> {
    conn.prepare(
        r"SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'",
    )?
    .query_map([], |row| row.get(0))?
    .collect()
}

/// The tables the first `steps` steps make, found by applying them to an
/// empty database in memory (their SQL alone: the steps done in code only
/// fill in values).
fn tables_after(steps: usize) -> rusqlite::Result<BTreeSet<String>> {
    let conn = Connection::open_in_memory()?;
    for step in &MIGRATIONS[..steps] {
        conn.execute_batch(step.sql)?;
    }
    tables(&conn)
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
