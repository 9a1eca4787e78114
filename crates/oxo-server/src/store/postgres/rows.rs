//! Rooms read back from PostgreSQL: the reading statements, and the mapping
//! of their columns to a checked [`RoomRecord`] or listing.

use crate::id::GameId;
use crate::room::RoomRecord;
use crate::store::StoreError;
use crate::store::record::{Stored, checked};

/// A room and the moves of its round, read in one snapshot.
pub(super) const LOAD: &str = "SELECT id, rows, cols, k, opponent, x_token, o_token, round, first,
        x_wins, o_wins, draws, version, watch, digest,
        ARRAY(SELECT ply FROM moves m WHERE m.room = r.id AND m.round = r.round ORDER BY ply),
        ARRAY(SELECT row FROM moves m WHERE m.room = r.id AND m.round = r.round ORDER BY ply),
        ARRAY(SELECT col FROM moves m WHERE m.room = r.id AND m.round = r.round ORDER BY ply),
        offer, entry, invite
    FROM rooms r";

/// Listed rooms changed lately, the latest first.
pub(super) const LOBBY: &str = "SELECT entry, watch, rows, cols, k, opponent, first, round,
        x_wins, o_wins, draws, o_token IS NOT NULL OR opponent <> 'human',
        extract(epoch FROM now() - updated_at)::bigint
    FROM rooms WHERE entry IS NOT NULL AND updated_at > now() - make_interval(secs => $1)
    ORDER BY updated_at DESC LIMIT $2";

/// Take or renew the computer's turn: only at that version, only while it
/// is the computer's turn, and only when nobody else holds a live lease.
pub(super) const CLAIM: &str = "UPDATE rooms
    SET claimed_by = $3, claimed_until = now() + make_interval(secs => $4)
    WHERE id = $1 AND version = $2 AND computer_turn
      AND (claimed_until IS NULL OR claimed_until < now() OR claimed_by = $3)";

/// Computer turns nobody is on: unclaimed or with a lapsed lease, and
/// untouched for a second (so that the node that just made the change has
/// time to claim it first).
pub(super) const ORPHANS: &str = "SELECT id FROM rooms
    WHERE computer_turn AND updated_at < now() - interval '1 second'
      AND (claimed_until IS NULL OR claimed_until < now())";

pub(super) fn small(n: u32) -> Result<i32, StoreError> {
    i32::try_from(n).map_err(|_| StoreError::Corrupt(format!("{n} is too large to store")))
}

pub(super) fn unsigned(n: i32) -> Result<u32, StoreError> {
    u32::try_from(n).map_err(|_| StoreError::Corrupt(format!("negative number {n}")))
}

/// The room in `row` (as [`LOAD`] reads it), checked against its digest.
pub(super) fn decode(row: &tokio_postgres::Row) -> Result<RoomRecord, StoreError> {
    let id = GameId::from_trusted(&row.try_get::<_, String>(0)?);
    let plies: Vec<i32> = row.try_get(15)?;
    let rows: Vec<i32> = row.try_get(16)?;
    let cols: Vec<i32> = row.try_get(17)?;
    let moves = plies
        .into_iter()
        .zip(rows)
        .zip(cols)
        .map(|((ply, r), c)| Ok((i64::from(ply), unsigned(r)?, unsigned(c)?)))
        .collect::<Result<Vec<_>, StoreError>>()?;
    let stored = Stored {
        rows: unsigned(row.try_get(1)?)?,
        cols: unsigned(row.try_get(2)?)?,
        k: unsigned(row.try_get(3)?)?,
        opponent: row.try_get(4)?,
        x_token: row.try_get(5)?,
        o_token: row.try_get(6)?,
        round: unsigned(row.try_get(7)?)?,
        first: row.try_get(8)?,
        score: (row.try_get(9)?, row.try_get(10)?, row.try_get(11)?),
        version: row.try_get(12)?,
        watch: row.try_get(13)?,
        digest: row.try_get(14)?,
        offer: row.try_get(18)?,
        entry: row.try_get(19)?,
        invite: row.try_get(20)?,
    };
    checked(stored.decode(&id, moves)?)
}
