//! Rooms read back from SQLite rows: each query, and the mapping of its
//! columns to a checked [`RoomRecord`] or listing.

use std::collections::HashSet;

use oxo_core::Cell;
use rusqlite::{Connection, OptionalExtension, params};

use crate::id::GameId;
use crate::room::{Ending, RoomRecord};
use crate::store::record::{Stored, StoredListing, checked, decode_endings, group_rounds, int};
use crate::store::{LOBBY_HORIZON, LOBBY_ROWS, LobbyRows, OPEN_ROWS, PRESENT_ROWS, StoreError};

/// The room `id` as stored, checked against its digest: a room whose row
/// or moves were damaged is [`StoreError::Corrupt`], never served.
pub(super) fn load(conn: &Connection, id: &GameId) -> Result<Option<RoomRecord>, StoreError> {
    read(conn, id)?.map(checked).transpose()
}

/// The room `id` as stored, and the digest stored with it (unchecked).
fn read(
    conn: &Connection,
    id: &GameId,
) -> Result<Option<(RoomRecord, Option<String>)>, StoreError> {
    read_as_of(conn, id, Layout::Current)
}

/// Which columns a room's row has: a migration reads rooms as the schema
/// stood when it was written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Layout {
    /// Before migration 5 (no rematch offer, no lobby entry, no invite;
    /// moves kept under the room's id).
    V4,
    Current,
}

pub(super) fn read_as_of(
    conn: &Connection,
    id: &GameId,
    layout: Layout,
) -> Result<Option<(RoomRecord, Option<String>)>, StoreError> {
    let sql = match layout {
        Layout::V4 => {
            "SELECT rows, cols, k, opponent, x_token, o_token, round, first,
                    x_wins, o_wins, draws, version, watch, digest, NULL, NULL, NULL,
                    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
             FROM rooms WHERE id = ?1"
        }
        Layout::Current => {
            "SELECT rows, cols, k, opponent, x_token, o_token, round, first,
                    x_wins, o_wins, draws, version, watch, digest, offer, entry, invite,
                    x_name, o_name, end_reason, end_winner, draw_offer, takeback_offer,
                    request_keys, clock, position_version, offers_made
             FROM rooms WHERE id = ?1"
        }
    };
    let stored = conn
        .query_row(sql, [id.as_str()], |row| {
            Ok(Stored {
                rows: row.get(0)?,
                cols: row.get(1)?,
                k: row.get(2)?,
                opponent: row.get(3)?,
                x_token: row.get(4)?,
                o_token: row.get(5)?,
                round: row.get(6)?,
                first: row.get(7)?,
                score: (row.get(8)?, row.get(9)?, row.get(10)?),
                version: row.get(11)?,
                watch: row.get(12)?,
                digest: row.get(13)?,
                offer: row.get(14)?,
                entry: row.get(15)?,
                invite: row.get(16)?,
                names: [row.get(17)?, row.get(18)?],
                end_reason: row.get(19)?,
                end_winner: row.get(20)?,
                draw_offer: row.get(21)?,
                takeback_offer: row.get(22)?,
                request_keys: row.get(23)?,
                clock: row.get(24)?,
                position_version: row.get(25)?,
                offers_made: row.get(26)?,
            })
        })
        .optional()?;
    let Some(stored) = stored else {
        return Ok(None);
    };
    // Moves were kept under the room's id until migration 7.
    let mut stmt = conn.prepare_cached(match layout {
        Layout::V4 => "SELECT ply, row, col FROM moves WHERE room = ?1 AND round = ?2 ORDER BY ply",
        Layout::Current => {
            "SELECT ply, row, col FROM moves
             WHERE room = (SELECT key FROM rooms WHERE id = ?1) AND round = ?2 ORDER BY ply"
        }
    })?;
    let moves = stmt
        .query_map(params![id.as_str(), stored.round], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    stored.decode(id, moves).map(Some)
}

pub(super) fn load_watch(
    conn: &Connection,
    watch: &GameId,
) -> Result<Option<RoomRecord>, StoreError> {
    let id: Option<String> = conn
        .query_row(
            "SELECT id FROM rooms WHERE watch = ?1",
            [watch.as_str()],
            |row| row.get(0),
        )
        .optional()?;
    let Some(id) = id else {
        return Ok(None);
    };
    let id = GameId::from_trusted(&id);
    // Found by its watch id, the room must be there by its id too: a miss
    // is a damaged id index, never an absent game.
    load(conn, &id)?
        .map(Some)
        .ok_or_else(|| missing(&id, "watch"))
}

/// The damage of a room found through one index and missing by its id.
fn missing(id: &GameId, through: &str) -> StoreError {
    StoreError::Corrupt(format!(
        "game {} is found by its {through} id but not by its id: the id index is damaged",
        id.for_log()
    ))
}

pub(super) fn rounds(conn: &Connection, id: &GameId) -> Result<Vec<Vec<Cell>>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT round, ply, row, col FROM moves
         WHERE room = (SELECT key FROM rooms WHERE id = ?1) ORDER BY round, ply",
    )?;
    let moves = stmt
        .query_map([id.as_str()], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })?
        .collect::<Result<Vec<(u32, i64, u32, u32)>, _>>()?;
    group_rounds(id, moves)
}

pub(super) fn endings(conn: &Connection, id: &GameId) -> Result<Vec<(u32, Ending)>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT round, reason, winner FROM endings
         WHERE room = (SELECT key FROM rooms WHERE id = ?1) ORDER BY round",
    )?;
    let rows = stmt
        .query_map([id.as_str()], |row| {
            Ok((
                row.get::<_, u32>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, Option<String>>(2)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    decode_endings(id, rows)
}

/// Open games (found by the partial index `rooms_open`, which holds no
/// cancelled one), however old; then the games being played lately; then
/// the listed games among those someone is at (by id, given as a JSON
/// array).
pub(super) const LOBBY: &str = "SELECT * FROM (
             SELECT entry, watch, rows, cols, k, opponent, first, round, x_wins, o_wins, draws,
                    0, unixepoch() - updated_at, id, x_name, o_name, clock
             FROM rooms
             WHERE entry IS NOT NULL AND o_token IS NULL AND opponent = 'human'
               AND end_reason IS NULL
             ORDER BY updated_at DESC LIMIT ?3)
         UNION ALL
         SELECT * FROM (
             SELECT entry, watch, rows, cols, k, opponent, first, round, x_wins, o_wins, draws,
                    1, unixepoch() - updated_at, id, x_name, o_name, clock
             FROM rooms
             WHERE entry IS NOT NULL AND (o_token IS NOT NULL OR opponent <> 'human')
               AND updated_at > unixepoch() - ?1
             ORDER BY updated_at DESC LIMIT ?2)
         UNION ALL
         SELECT * FROM (
             SELECT entry, watch, rows, cols, k, opponent, first, round, x_wins, o_wins, draws,
                    o_token IS NOT NULL OR opponent <> 'human', unixepoch() - updated_at, id,
                    x_name, o_name, clock
             FROM rooms
             WHERE entry IS NOT NULL AND id IN (SELECT value FROM json_each(?4))
               AND (o_token IS NOT NULL OR opponent <> 'human' OR end_reason IS NULL)
             ORDER BY updated_at DESC LIMIT ?5)";

pub(super) fn lobby(conn: &Connection, present: &[GameId]) -> Result<LobbyRows, StoreError> {
    let mut stmt = conn.prepare_cached(LOBBY)?;
    let present = serde_json::to_string(&present.iter().map(GameId::as_str).collect::<Vec<_>>())
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
    stmt.query_map(
        params![
            int(LOBBY_HORIZON.as_secs()),
            int(LOBBY_ROWS as u64),
            int(OPEN_ROWS as u64),
            present,
            int(PRESENT_ROWS as u64)
        ],
        |row| {
            // The id first, to name the room if another column is damaged.
            let id = row.get::<_, String>(13).ok();
            let listing = (|| -> rusqlite::Result<StoredListing> {
                Ok(StoredListing {
                    entry: row.get(0)?,
                    watch: row.get(1)?,
                    rows: row.get(2)?,
                    cols: row.get(3)?,
                    k: row.get(4)?,
                    opponent: row.get(5)?,
                    first: row.get(6)?,
                    round: row.get(7)?,
                    score: (row.get(8)?, row.get(9)?, row.get(10)?),
                    seated: row.get(11)?,
                    idle: row.get(12)?,
                    id: row.get(13)?,
                    names: [row.get(14)?, row.get(15)?],
                    clock: row.get(16)?,
                })
            })();
            Ok((id, listing.map_err(StoreError::from)))
        },
    )?
    .map(|row| match row {
        Ok((id, listing)) => StoredListing::decode_row(id.as_deref(), listing),
        Err(e) => StoredListing::decode_row(None, Err(StoreError::from(e))),
    })
    .collect()
}

/// Timed rooms whose deadline is at or before `now`.
pub(super) fn due(conn: &Connection, now: u64) -> Result<Vec<GameId>, StoreError> {
    let mut stmt = conn.prepare_cached("SELECT id FROM rooms WHERE deadline <= ?1")?;
    let ids = stmt
        .query_map([int(now)], |row| row.get::<_, String>(0))?
        .map(|id| id.map(|id| GameId::from_trusted(&id)))
        .collect::<Result<_, _>>()?;
    Ok(ids)
}

pub(super) fn computer_turns(conn: &Connection) -> Result<Vec<GameId>, StoreError> {
    let mut stmt = conn.prepare("SELECT id FROM rooms WHERE computer_turn = 1")?;
    let ids = stmt
        .query_map([], |row| row.get::<_, String>(0))?
        .map(|id| id.map(|id| GameId::from_trusted(&id)))
        .collect::<Result<_, _>>()?;
    Ok(ids)
}

/// Room numbers looked at in one call of [`prune`], so that the requests
/// queued behind a pruning wait for a moment at most.
pub(super) const PRUNE_SPAN: i64 = 1024;

/// Delete the rooms never played (`store::never_played`, in SQL) last
/// changed more than `older_than` seconds ago by SQLite's clock, but for
/// those in `keep`, among the rooms numbered after `after` (`None`: from
/// the first) and up to [`PRUNE_SPAN`] beyond it, in one transaction: how
/// many went, and the number to go on from (`None` once past the last
/// room).
pub(super) fn prune(
    conn: &mut Connection,
    after: Option<i64>,
    older_than: u64,
    keep: &HashSet<GameId>,
) -> Result<(usize, Option<i64>), StoreError> {
    let older_than = int(older_than);
    let tx = conn.transaction()?;
    let after = match after {
        Some(after) => after,
        None => tx.query_row("SELECT coalesce(min(key), 0) - 1 FROM rooms", [], |row| {
            row.get(0)
        })?,
    };
    let until = after.saturating_add(PRUNE_SPAN);
    let found: Vec<(i64, String)> = tx
        .prepare_cached(
            "SELECT key, id FROM rooms
             WHERE key > ?1 AND key <= ?2 AND updated_at < unixepoch() - ?3 AND round = 1
               AND x_wins = 0 AND o_wins = 0 AND draws = 0
               AND computer_turn = 0 AND deadline IS NULL
               AND NOT EXISTS (SELECT 1 FROM moves WHERE moves.room = rooms.key)",
        )?
        .query_map(params![after, until, older_than], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })?
        .collect::<Result<_, _>>()?;
    let mut deleted = 0;
    for (key, id) in &found {
        if keep.contains(&GameId::from_trusted(id)) {
            continue;
        }
        tx.prepare_cached("DELETE FROM endings WHERE room = ?1")?
            .execute([key])?;
        deleted += tx
            .prepare_cached("DELETE FROM rooms WHERE key = ?1")?
            .execute([key])?;
    }
    // On from just before the next room, over any gap in the numbers.
    let next: Option<i64> = tx.query_row(
        "SELECT min(key) - 1 FROM rooms WHERE key > ?1",
        [until],
        |row| row.get(0),
    )?;
    tx.commit()?;
    Ok((deleted, next))
}

/// Open game `id`'s creator was here now (see `Store::seen`): a write of
/// its own, outside the batches of changes, touching no version.
pub(super) fn seen(conn: &Connection, id: &GameId) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE rooms SET updated_at = unixepoch()
         WHERE id = ?1 AND entry IS NOT NULL AND o_token IS NULL AND opponent = 'human'
           AND end_reason IS NULL",
    )?
    .execute([id.as_str()])?;
    Ok(())
}

/// The id of the room listed under lobby id `entry`.
pub(super) fn load_entry(conn: &Connection, entry: &GameId) -> Result<Option<GameId>, StoreError> {
    let id = conn
        .query_row(
            "SELECT id FROM rooms WHERE entry = ?1",
            [entry.as_str()],
            |row| row.get::<_, String>(0),
        )
        .optional()?;
    let Some(id) = id.map(|id| GameId::from_trusted(&id)) else {
        return Ok(None);
    };
    // As for a watch id: listed, it must be there by its id too.
    let found = conn
        .prepare_cached("SELECT 1 FROM rooms WHERE id = ?1")?
        .exists([id.as_str()])?;
    if found {
        Ok(Some(id))
    } else {
        Err(missing(&id, "lobby"))
    }
}
