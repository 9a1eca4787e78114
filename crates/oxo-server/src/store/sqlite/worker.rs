//! The thread that owns the SQLite connection: it answers reads in the
//! order they come and commits the writes waiting in its queue together
//! (group commit), each inside a savepoint so that one bad write cannot
//! spoil the others, answering each writer only once the commit is synced.

use std::collections::HashSet;
use std::sync::{Arc, mpsc};
use std::time::Duration;

use oxo_core::{Cell, Player};
use rusqlite::{Connection, OptionalExtension, params};
use tokio::sync::oneshot;

use super::rows;
use crate::id::{GameId, TokenHash};
use crate::name::PlayerName;
use crate::room::{Ending, RoomRecord};
use crate::store::record::{
    clock_text, digest, int, keys_text, offers_made_text, position_text, reason_text, winner_text,
};
use crate::store::{Change, ChangeKind, LobbyRows, StoreError};

/// The most writes committed in one transaction.
const MAX_BATCH: usize = 512;

pub(super) enum Request {
    Commit(Box<Change>, oneshot::Sender<Result<(), StoreError>>),
    Load(
        GameId,
        oneshot::Sender<Result<Option<RoomRecord>, StoreError>>,
    ),
    LoadWatch(
        GameId,
        oneshot::Sender<Result<Option<RoomRecord>, StoreError>>,
    ),
    ComputerTurns(oneshot::Sender<Result<Vec<GameId>, StoreError>>),
    Due(u64, oneshot::Sender<Result<Vec<GameId>, StoreError>>),
    Lobby(Vec<GameId>, oneshot::Sender<Result<LobbyRows, StoreError>>),
    LoadEntry(GameId, oneshot::Sender<Result<Option<GameId>, StoreError>>),
    Seen(GameId, oneshot::Sender<Result<(), StoreError>>),
    Rounds(GameId, oneshot::Sender<Result<Vec<Vec<Cell>>, StoreError>>),
    Endings(
        GameId,
        oneshot::Sender<Result<Vec<(u32, Ending)>, StoreError>>,
    ),
    /// One span of a pruning: the room number to go on from (`None`: the
    /// first), the age in seconds, the rooms to keep.
    Prune(
        Option<i64>,
        u64,
        Arc<HashSet<GameId>>,
        oneshot::Sender<Result<(usize, Option<i64>), StoreError>>,
    ),
    Ping(oneshot::Sender<Result<(), StoreError>>),
    /// Work on the connection itself, for tests that damage what it sees.
    #[cfg(test)]
    With(Box<dyn FnOnce(&mut Connection) + Send>),
}

pub(super) fn worker(conn: &mut Connection, queue: &mpsc::Receiver<Request>) {
    let mut writes = Vec::new();
    let mut health = Writes::Working;
    // `recv` fails once every sender is gone: the store has been dropped.
    while let Ok(first) = queue.recv() {
        let mut next = Some(first);
        while let Some(request) = next.take() {
            match request {
                Request::Commit(change, reply) => writes.push((change, reply)),
                Request::Load(id, reply) => {
                    let _ = reply.send(rows::load(conn, &id));
                }
                Request::LoadWatch(watch, reply) => {
                    let _ = reply.send(rows::load_watch(conn, &watch));
                }
                Request::ComputerTurns(reply) => {
                    let _ = reply.send(rows::computer_turns(conn));
                }
                Request::Due(now, reply) => {
                    let _ = reply.send(rows::due(conn, now));
                }
                Request::Lobby(present, reply) => {
                    let _ = reply.send(rows::lobby(conn, &present));
                }
                Request::LoadEntry(entry, reply) => {
                    let _ = reply.send(rows::load_entry(conn, &entry));
                }
                Request::Seen(id, reply) => {
                    let _ = reply.send(rows::seen(conn, &id));
                }
                Request::Rounds(id, reply) => {
                    let _ = reply.send(rows::rounds(conn, &id));
                }
                Request::Endings(id, reply) => {
                    let _ = reply.send(rows::endings(conn, &id));
                }
                Request::Prune(after, older_than, keep, reply) => {
                    let _ = reply.send(rows::prune(conn, after, older_than, &keep));
                }
                // A ping no one waits for any more (readiness gives up after
                // 2 s) is not answered: while writes fail, each is a write
                // that may wait the busy timeout, in front of every read.
                Request::Ping(reply) if reply.is_closed() => {}
                Request::Ping(reply) => {
                    let _ = reply.send(ping(conn, &mut health));
                }
                #[cfg(test)]
                Request::With(work) => work(conn),
            }
            if writes.len() < MAX_BATCH {
                next = queue.try_recv().ok();
            }
        }
        if !writes.is_empty() {
            health = commit_batch(conn, &mut writes);
        }
    }
}

type Pending = (Box<Change>, oneshot::Sender<Result<(), StoreError>>);

/// Whether writes can be made: a failing disk (full, an I/O error, turned
/// read-only), or the file held locked by another program beyond the busy
/// timeout, fails every write until it is fixed, and readiness must say so
/// while it lasts, since moves cannot be saved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Writes {
    /// The last writes were saved (or none has failed yet).
    Working,
    /// The last writes failed for the storage's sake.
    Failing,
}

/// Whether `err` says the storage cannot take writes, rather than that one
/// write was refused. A busy file is one: no other store writes to it (the
/// lock file sees to that), so another program (`sqlite3` with a
/// transaction open, say) has held it for the whole busy timeout.
fn storage_failed(err: &rusqlite::Error) -> bool {
    use rusqlite::ErrorCode as C;
    matches!(
        err.sqlite_error_code(),
        Some(C::DiskFull | C::SystemIoFailure | C::ReadOnly | C::CannotOpen | C::DatabaseBusy)
    )
}

/// The readiness answer: a cheap query while writes work; while they fail,
/// a write that needs new space in the file (a table with a page-sized
/// value, dropped in the same transaction), so that readiness comes back
/// as soon as writes can. The write waits [`PROBE_BUSY_TIMEOUT`] at most
/// for a file another program holds, not the busy timeout of writes: the
/// reads queued behind it wait too.
fn ping(conn: &Connection, writes: &mut Writes) -> Result<(), StoreError> {
    if *writes == Writes::Working {
        return Ok(conn.query_row("SELECT 1", [], |_| Ok(()))?);
    }
    conn.busy_timeout(PROBE_BUSY_TIMEOUT)?;
    let probe = conn
        .execute_batch(
            "BEGIN IMMEDIATE;
             CREATE TABLE oxo_write_check(x);
             INSERT INTO oxo_write_check VALUES (zeroblob(8192));
             DROP TABLE oxo_write_check;
             COMMIT;",
        )
        .inspect_err(|_| {
            let _ = conn.execute_batch("ROLLBACK");
        });
    conn.busy_timeout(super::BUSY_TIMEOUT)?;
    probe?;
    *writes = Writes::Working;
    Ok(())
}

/// How long the readiness probe waits for a file another program holds.
const PROBE_BUSY_TIMEOUT: Duration = Duration::from_millis(50);

/// Commit `writes` in one transaction, answer each, and say whether the
/// storage took them.
///
/// Each answer is the write's true outcome. The connection is this
/// process's own and every call returns, so nothing is ever lost on the
/// way; and a transaction whose `COMMIT` fails is rolled back, so its
/// writes are not saved: certain, with one exception. In WAL mode a commit
/// appends its pages to the WAL file, the last marked as a commit, then
/// syncs the file; when that fails with an I/O error (`SQLITE_IOERR`, such
/// as a failed `fsync`), the marked pages may be whole in the file, and
/// the recovery of the next open would replay them. So an I/O error from
/// the `COMMIT` itself is [`StoreError::Unknown`]; any other failure
/// (including a full disk, where the commit mark is never written whole)
/// certainly saved nothing.
pub(super) fn commit_batch(conn: &mut Connection, writes: &mut Vec<Pending>) -> Writes {
    let mut results: Vec<Result<(), StoreError>> = Vec::with_capacity(writes.len());
    let mut at_commit = false;
    let outcome = (|| -> Result<(), rusqlite::Error> {
        let mut tx = conn.transaction()?;
        // Once the storage has failed one write (a full disk, a file held
        // busy past the busy timeout), the others are failed without being
        // tried: each would meet the same, a busy file after waiting the
        // whole timeout again.
        let mut storage_failure: Option<String> = None;
        for (change, _) in writes.iter() {
            if let Some(failure) = &storage_failure {
                results.push(Err(StoreError::CommitFailed(failure.clone())));
                continue;
            }
            let sp = tx.savepoint()?;
            match apply(&sp, change) {
                Ok(()) => {
                    sp.commit()?;
                    results.push(Ok(()));
                }
                Err(e) => {
                    drop(sp); // rolls the savepoint back
                    if let StoreError::Database(db) = &e
                        && storage_failed(db)
                    {
                        storage_failure = Some(db.to_string());
                    }
                    results.push(Err(e));
                }
            }
        }
        at_commit = true;
        tx.commit()
    })();
    let failed = match &outcome {
        // Nothing of it was saved.
        Err(_) => true,
        Ok(()) => results
            .iter()
            .any(|r| matches!(r, Err(StoreError::Database(e)) if storage_failed(e))),
    };
    for (i, (_, reply)) in writes.drain(..).enumerate() {
        let result = match &outcome {
            Err(e)
                if at_commit
                    && e.sqlite_error_code() == Some(rusqlite::ErrorCode::SystemIoFailure) =>
            {
                Err(StoreError::Unknown(format!("SQLite could not commit: {e}")))
            }
            // The transaction failed as a whole: nothing of it is durable.
            Err(e) => Err(StoreError::CommitFailed(e.to_string())),
            Ok(()) => results
                .get_mut(i)
                .map_or(Err(StoreError::Closed), |r| std::mem::replace(r, Ok(()))),
        };
        let _ = reply.send(result);
    }
    if failed {
        Writes::Failing
    } else {
        Writes::Working
    }
}

fn apply(conn: &Connection, change: &Change) -> Result<(), StoreError> {
    let r = &change.room;
    let score = (
        int(r.score.wins(Player::X)),
        int(r.score.wins(Player::O)),
        int(r.score.draws()),
    );
    let version = int(r.version);
    // One statement for every kind of change: a new room is inserted, an
    // existing one updated. The version guard makes a lost, repeated or
    // reordered write (or a new room reusing an id) fail instead of
    // silently overwriting a newer state.
    // The room's number comes back from the write itself, for its move.
    let key: Option<i64> = conn
        .prepare_cached(
            "INSERT INTO rooms (id, rows, cols, k, opponent, x_token, o_token, round, first,
                            x_wins, o_wins, draws, version, computer_turn, watch, digest,
                            offer, entry, invite, key, x_name, o_name, end_reason, end_winner,
                            draw_offer, takeback_offer, request_keys, clock,
                            deadline, position_version, offers_made)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
                 ?19, (SELECT coalesce(max(key), 0) + 1 FROM rooms), ?20, ?21, ?22, ?23, ?24,
                 ?25, ?26, ?27, ?28, ?29, ?30)
         ON CONFLICT (id) DO UPDATE SET
            o_token = excluded.o_token, round = excluded.round, first = excluded.first,
            x_wins = excluded.x_wins, o_wins = excluded.o_wins, draws = excluded.draws,
            version = excluded.version, computer_turn = excluded.computer_turn,
            digest = excluded.digest, offer = excluded.offer, updated_at = unixepoch(),
            o_name = excluded.o_name,
            end_reason = excluded.end_reason, end_winner = excluded.end_winner,
            draw_offer = excluded.draw_offer, takeback_offer = excluded.takeback_offer,
            request_keys = excluded.request_keys, clock = excluded.clock,
            deadline = excluded.deadline, position_version = excluded.position_version,
            offers_made = excluded.offers_made
         WHERE rooms.version < excluded.version
         RETURNING key",
        )?
        .query_row(
            params![
                r.id.as_str(),
                r.rules.rows(),
                r.rules.cols(),
                r.rules.k(),
                r.opponent.name(),
                r.x_token.as_str(),
                r.o_token.as_ref().map(TokenHash::as_str),
                r.round,
                r.first.name(),
                score.0,
                score.1,
                score.2,
                version,
                i64::from(change.computer_turn),
                r.watch.as_str(),
                digest(r),
                r.offer.map(Player::name),
                r.entry.as_ref().map(GameId::as_str),
                r.invite.as_ref().map(TokenHash::as_str),
                r.names[0].as_ref().map(PlayerName::as_str),
                r.names[1].as_ref().map(PlayerName::as_str),
                reason_text(r.ending),
                winner_text(r.ending),
                r.draw.map(Player::name),
                r.takeback.map(Player::name),
                (!r.keys.is_empty()).then(|| keys_text(&r.keys)),
                r.clock.as_ref().map(clock_text),
                change.deadline.map(int),
                position_text(r),
                offers_made_text(&r.offers_made),
            ],
            |row| row.get(0),
        )
        .optional()?;
    let Some(key) = key else {
        return Err(StoreError::Conflict(format!(
            "game {} is already stored at version {} or later",
            r.id.for_log(),
            r.version
        )));
    };
    if change.kind == ChangeKind::Move {
        let cell = r.moves.last().ok_or_else(|| {
            StoreError::Corrupt(format!("game {}: a move with no moves", r.id.for_log()))
        })?;
        conn.prepare_cached(
            "INSERT INTO moves (room, round, ply, row, col) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            key,
            r.round,
            int(r.moves.len() as u64),
            cell.row,
            cell.col
        ])?;
    }
    if change.kind == ChangeKind::Takeback {
        conn.prepare_cached("DELETE FROM moves WHERE room = ?1 AND round = ?2 AND ply > ?3")?
            .execute(params![key, r.round, int(r.moves.len() as u64)])?;
    }
    if change.kind == ChangeKind::End {
        conn.prepare_cached(
            "INSERT INTO endings (room, round, reason, winner) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![
            key,
            r.round,
            reason_text(r.ending),
            winner_text(r.ending)
        ])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use oxo_ai::StrategyKind;

    use super::*;
    use crate::room::Opponent;
    use crate::store::sqlite::tests::{change, room};

    #[test]
    fn a_write_failing_part_way_is_undone_and_spoils_no_other() {
        let mut conn = Connection::open_in_memory().unwrap();
        super::super::schema::migrate(&mut conn).unwrap();
        let send = |conn: &mut Connection, changes: Vec<Change>| {
            let (mut writes, mut answers) = (Vec::new(), Vec::new());
            for change in changes {
                let (tx, rx) = oneshot::channel();
                writes.push((Box::new(change), tx));
                answers.push(rx);
            }
            commit_batch(conn, &mut writes);
            answers
                .into_iter()
                .map(|mut rx| rx.try_recv().expect("every writer answered"))
                .collect::<Vec<_>>()
        };
        let a = room("a", Opponent::Computer(StrategyKind::Random));
        let (played, _) = a
            .play(Player::X, oxo_core::Coords::new(1, 1), None)
            .unwrap();
        let answers = send(
            &mut conn,
            vec![
                change(&a, ChangeKind::Create),
                change(&played, ChangeKind::Move),
            ],
        );
        assert!(answers.iter().all(Result::is_ok), "{answers:?}");
        // A newer version of the room whose move repeats a stored ply: its
        // row is written before its move is refused.
        let mut bad = change(&played, ChangeKind::Move);
        bad.room.version += 1;
        let b = room("b", Opponent::Human);
        let stale = change(&a, ChangeKind::Create);
        let answers = send(&mut conn, vec![stale, bad, change(&b, ChangeKind::Create)]);
        assert!(
            matches!(answers[0], Err(StoreError::Conflict(_))),
            "{answers:?}"
        );
        assert!(answers[1].is_err(), "{answers:?}");
        assert!(answers[2].is_ok(), "{answers:?}");
        // The bad write left nothing behind; the others are as sent.
        assert_eq!(rows::load(&conn, a.id()).unwrap(), Some(played.record()));
        assert_eq!(rows::load(&conn, b.id()).unwrap(), Some(b.record()));
    }
}
