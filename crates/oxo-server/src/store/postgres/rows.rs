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
        offer, entry, invite, x_name, o_name, end_reason, end_winner, draw_offer, takeback_offer,
        request_keys, clock, position_version, offers_made
    FROM rooms r";

/// Listed rooms: the open ones however old (at most `$3`, found by the
/// partial index `rooms_open`; not those cancelled, which have an ending), then those being played changed within
/// `$1` seconds (at most `$2`); each part the latest first. A room written
/// by a node still running a build from before migration 8 has no
/// `listed_at`; its age is then read from `updated_at` rather than failing
/// the whole lobby.
pub(super) const LOBBY: &str = "(SELECT entry, watch, rows, cols, k, opponent, first, round,
        x_wins, o_wins, draws, false,
        extract(epoch FROM now() - coalesce(listed_at, updated_at))::bigint, id, x_name, o_name, clock
    FROM rooms WHERE entry IS NOT NULL AND o_token IS NULL AND opponent = 'human'
        AND end_reason IS NULL
    ORDER BY listed_at DESC LIMIT $3)
    UNION ALL
    (SELECT entry, watch, rows, cols, k, opponent, first, round,
        x_wins, o_wins, draws, true,
        extract(epoch FROM now() - coalesce(listed_at, updated_at))::bigint, id, x_name, o_name, clock
    FROM rooms WHERE entry IS NOT NULL AND (o_token IS NOT NULL OR opponent <> 'human')
        AND listed_at > now() - make_interval(secs => $1)
    ORDER BY listed_at DESC LIMIT $2)
    UNION ALL
    (SELECT entry, watch, rows, cols, k, opponent, first, round,
        x_wins, o_wins, draws, o_token IS NOT NULL OR opponent <> 'human',
        extract(epoch FROM now() - coalesce(listed_at, updated_at))::bigint, id, x_name, o_name, clock
    FROM rooms WHERE entry IS NOT NULL AND id = ANY($4)
        AND (o_token IS NOT NULL OR opponent <> 'human' OR end_reason IS NULL)
    ORDER BY listed_at DESC LIMIT $5)";

/// Open game `$1`'s creator was here now (see `Store::seen`): its listing
/// counts from now; nothing else changes, its version included, so no
/// other server need hear of it (the lobby is read from here).
pub(super) const SEEN: &str = "UPDATE rooms SET updated_at = now(), listed_at = now()
    WHERE id = $1 AND entry IS NOT NULL AND o_token IS NULL AND opponent = 'human'
        AND end_reason IS NULL";

/// The next `$3` rooms by id after `$1`, each with whether it is never
/// played (`store::never_played`, in SQL) and last changed more than `$2`
/// seconds ago by the database's clock: a page of the table, so that each
/// statement of a pruning reads a bounded part of it.
pub(super) const UNPLAYED: &str =
    "WITH page AS (SELECT id FROM rooms WHERE id > $1 ORDER BY id LIMIT $3)
    SELECT r.id, r.updated_at < now() - make_interval(secs => $2::bigint) AND r.round = 1
        AND r.x_wins = 0 AND r.o_wins = 0 AND r.draws = 0 AND NOT r.computer_turn
        AND r.deadline IS NULL AND NOT EXISTS (SELECT 1 FROM moves m WHERE m.room = r.id)
    FROM page JOIN rooms r USING (id) ORDER BY r.id";

/// Delete the rooms `$1` of [`UNPLAYED`] (and their endings) that are so
/// still: another server may have changed one meanwhile, and the row's
/// lock makes the check and the delete one step. How many went.
pub(super) const PRUNE: &str = "WITH gone AS (
        DELETE FROM rooms r
        WHERE id = ANY($1) AND updated_at < now() - make_interval(secs => $2::bigint) AND round = 1
          AND x_wins = 0 AND o_wins = 0 AND draws = 0 AND NOT computer_turn
          AND deadline IS NULL AND NOT EXISTS (SELECT 1 FROM moves m WHERE m.room = r.id)
        RETURNING id
    ), endings_gone AS (
        DELETE FROM endings WHERE room IN (SELECT id FROM gone)
    )
    SELECT count(*) FROM gone";

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

/// Timed rooms whose deadline is at or before `$1`.
pub(super) const DUE: &str = "SELECT id FROM rooms WHERE deadline <= $1";

pub(super) fn small(n: u32) -> Result<i32, StoreError> {
    i32::try_from(n).map_err(|_| StoreError::Corrupt(format!("{n} is too large to store")))
}

pub(super) fn unsigned(n: i32) -> Result<u32, StoreError> {
    u32::try_from(n).map_err(|_| StoreError::Corrupt(format!("negative number {n}")))
}

/// The room in `row` (as [`LOAD`] reads it), checked against its digest.
pub(super) fn decode(row: &tokio_postgres::Row) -> Result<RoomRecord, StoreError> {
    let id = GameId::from_trusted(&column::<String>(row, 0)?);
    let plies: Vec<i32> = column(row, 15)?;
    let rows: Vec<i32> = column(row, 16)?;
    let cols: Vec<i32> = column(row, 17)?;
    let moves = plies
        .into_iter()
        .zip(rows)
        .zip(cols)
        .map(|((ply, r), c)| Ok((i64::from(ply), unsigned(r)?, unsigned(c)?)))
        .collect::<Result<Vec<_>, StoreError>>()?;
    let stored = Stored {
        rows: unsigned(column(row, 1)?)?,
        cols: unsigned(column(row, 2)?)?,
        k: unsigned(column(row, 3)?)?,
        opponent: column(row, 4)?,
        x_token: column(row, 5)?,
        o_token: column(row, 6)?,
        round: unsigned(column(row, 7)?)?,
        first: column(row, 8)?,
        score: (column(row, 9)?, column(row, 10)?, column(row, 11)?),
        version: column(row, 12)?,
        watch: column(row, 13)?,
        digest: column(row, 14)?,
        offer: column(row, 18)?,
        entry: column(row, 19)?,
        invite: column(row, 20)?,
        names: [column(row, 21)?, column(row, 22)?],
        end_reason: column(row, 23)?,
        end_winner: column(row, 24)?,
        draw_offer: column(row, 25)?,
        takeback_offer: column(row, 26)?,
        request_keys: column(row, 27)?,
        clock: column(row, 28)?,
        position_version: column(row, 29)?,
        offers_made: column(row, 30)?,
    };
    checked(stored.decode(&id, moves)?)
}

/// Column `idx` of `row` as a `T`: a stored value that cannot be read as
/// what its column should hold is damage ([`StoreError::Corrupt`]), not the
/// database being unavailable.
pub(super) fn column<'a, T: tokio_postgres::types::FromSql<'a>>(
    row: &'a tokio_postgres::Row,
    idx: usize,
) -> Result<T, StoreError> {
    row.try_get(idx).map_err(|e| {
        use std::error::Error as _;
        StoreError::Corrupt(match e.source() {
            Some(source) => format!("a stored value cannot be read: {e}: {source}"),
            None => format!("a stored value cannot be read: {e}"),
        })
    })
}
