//! The committer: one per node, taking the changes that wait and committing
//! them together in one transaction (group commit), each change one
//! statement under the version guard that also announces it.
//!
//! A change's answer is always its true outcome. When the database answers
//! (rows written, or an error of its own) the outcome is certain. When the
//! connection fails after a change was sent, the database may have
//! committed it or not, so the committer finds out ([`PgStore::settle`]):
//! on a new connection it first ends the old connection's server process
//! (so a transaction still in flight there can no longer commit), then
//! reads the room's stored version. At the change's version with its
//! digest, it was committed: success. Below it, it certainly was not: the
//! usual failure. Another state at it: a conflict, which the hub answers
//! with the room as it stands. Above it: unknown (the change may be among
//! those stored; see [`settled`]). Not reachable within
//! [`SETTLE_WITHIN`] (or as [`PgStore::settle_within`] sets): [`StoreError::Unknown`], which the API answers with a
//! 503 that says the outcome is unknown.

use std::sync::Weak;
use std::sync::atomic::Ordering;
use std::time::Duration;

use oxo_core::Player;
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::Statement;
use tokio_postgres::types::Type;

use super::pool::{Backend, Conn, connect};
use super::rows::small;
use super::{Inner, PgStore};
use crate::store::record::{
    clock_text, digest, int, keyed_text, keys_text, offers_made_text, position_text, reason_text,
    winner_text,
};
use crate::store::{Change, ChangeKind, StoreError, postgres_detail};

/// The start of every change's statement: the room's row upserted under the
/// version guard, answering its id and version, or nothing when the guard
/// refused the write (`listed_at` only for a room with an entry, see the
/// migration that made it). The parameters are `Row::params`; every statement
/// declares all of them ([`PARAMS`]), whichever it uses.
macro_rules! upsert {
    () => {
        "WITH room AS (
        INSERT INTO rooms (id, rows, cols, k, opponent, x_token, o_token, round, first,
                           x_wins, o_wins, draws, version, computer_turn, watch, digest,
                           offer, entry, invite, x_name, o_name, end_reason, end_winner,
                           draw_offer, takeback_offer, request_keys, clock, deadline,
                           position_version, offers_made, listed_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $21, $22,
                $23, $24, $25, $26, $27, $28, $29, $30, $33, $34, $35, $36,
                CASE WHEN $22 IS NOT NULL THEN now() END)
        ON CONFLICT (id) DO UPDATE SET
            o_token = excluded.o_token, round = excluded.round, first = excluded.first,
            x_wins = excluded.x_wins, o_wins = excluded.o_wins, draws = excluded.draws,
            version = excluded.version, computer_turn = excluded.computer_turn,
            digest = excluded.digest, offer = excluded.offer, o_name = excluded.o_name,
            end_reason = excluded.end_reason, end_winner = excluded.end_winner,
            draw_offer = excluded.draw_offer, takeback_offer = excluded.takeback_offer,
            request_keys = excluded.request_keys,
            clock = excluded.clock, deadline = excluded.deadline,
            position_version = excluded.position_version,
            offers_made = excluded.offers_made,
            claimed_by = NULL, claimed_until = NULL,
            updated_at = now(),
            listed_at = CASE WHEN rooms.entry IS NOT NULL THEN now() END
        WHERE rooms.version < excluded.version
        RETURNING id, version
    )"
    };
}

/// The end of a change's statement that is not a move: the change
/// announced as `ID VERSION NODE`.
macro_rules! notice {
    () => {
        "SELECT pg_notify('oxo_rooms', id || ' ' || version || ' ' || $20::text) FROM room"
    };
}

/// What a change writes besides the room's row, each kind its own
/// statement ([`Commit::SQL`]) with no part it does not need. A statement
/// starts every one of its parts each time it runs, even one a parameter
/// turns off, and a delete turned off by a parameter makes PostgreSQL's
/// planner price the shared plan above one made for the call's values, so
/// that it may plan the statement anew on every call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Commit {
    /// The room only (a new room, a seat taken, a rematch, an offer).
    Room,
    /// The room and its newest move, announced with its cell and the
    /// room's newest idempotency key (`ID VERSION NODE ROW COL [SEAT:KEY]`).
    Move,
    /// The room and the round's ending, in the record of rounds.
    End,
    /// The room, without the current round's moves past the ones it keeps.
    Takeback,
}

impl Commit {
    /// The statements' text, in the order of the variants (`Commit as
    /// usize` indexes it).
    pub(super) const SQL: [&str; 4] = [
        concat!(upsert!(), " ", notice!()),
        concat!(
            upsert!(),
            ", played AS (
        INSERT INTO moves (room, round, ply, row, col)
        SELECT id, $8, $17, $18, $19 FROM room
    )
    SELECT pg_notify('oxo_rooms', id || ' ' || version || ' ' || $20::text
        || ' ' || $18::text || ' ' || $19::text || coalesce(' ' || $32::text, ''))
    FROM room"
        ),
        concat!(
            upsert!(),
            ", ended AS (
        INSERT INTO endings (room, round, reason, winner)
        SELECT id, $8, $26, $27 FROM room
    ) ",
            notice!()
        ),
        concat!(
            upsert!(),
            ", taken AS (
        DELETE FROM moves
        WHERE room = (SELECT id FROM room) AND round = $8 AND ply > $31
    ) ",
            notice!()
        ),
    ];

    /// The statement that writes `change`.
    fn of(change: &Change) -> Commit {
        match change.kind {
            ChangeKind::Move => Commit::Move,
            ChangeKind::End if change.room.ending.is_some() => Commit::End,
            ChangeKind::Takeback => Commit::Takeback,
            _ => Commit::Room,
        }
    }
}

/// The types of [`Row::params`], declared by every statement of
/// [`Commit::SQL`] (each leaves some unused).
pub(super) const PARAMS: [Type; 36] = [
    Type::TEXT, // id
    Type::INT4, // rows
    Type::INT4, // cols
    Type::INT4, // k
    Type::TEXT, // opponent
    Type::TEXT, // x_token
    Type::TEXT, // o_token
    Type::INT4, // round
    Type::TEXT, // first
    Type::INT8, // x_wins
    Type::INT8, // o_wins
    Type::INT8, // draws
    Type::INT8, // version
    Type::BOOL, // computer_turn
    Type::TEXT, // watch
    Type::TEXT, // digest
    Type::INT4, // ply
    Type::INT4, // row
    Type::INT4, // col
    Type::TEXT, // node
    Type::TEXT, // offer
    Type::TEXT, // entry
    Type::TEXT, // invite
    Type::TEXT, // x_name
    Type::TEXT, // o_name
    Type::TEXT, // end_reason
    Type::TEXT, // end_winner
    Type::TEXT, // draw_offer
    Type::TEXT, // takeback_offer
    Type::TEXT, // request_keys
    Type::INT4, // keep
    Type::TEXT, // newest_key
    Type::TEXT, // clock
    Type::INT8, // deadline
    Type::INT8, // position_version
    Type::TEXT, // offers_made
];

/// A change waiting for the committer, and where its outcome goes.
pub(super) type Pending = (Change, oneshot::Sender<Result<(), StoreError>>);

/// Changes committed in one transaction, at most.
const BATCH: usize = 64;

/// How long the committer tries to reach the database to learn the outcome
/// of changes whose connection failed after they were sent, unless
/// [`PgStore::settle_within`] says otherwise.
pub(super) const SETTLE_WITHIN: Duration = Duration::from_secs(5);

/// A failure a test asks the committer to suffer, once, on the next change
/// it commits alone (see [`PgStore::inject`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitFault {
    /// The change commits, and its answer is lost with the connection.
    AnswerLost,
    /// The change is sent inside a transaction, and the connection is lost
    /// before the transaction commits.
    LostBeforeCommit,
    /// The change commits, its answer is lost with the connection, and
    /// every attempt to learn its outcome fails as if the database were
    /// down, for as long as the committer tries to learn it (5 s).
    Unreachable,
}

/// What came of a statement sent to the database.
enum Sent {
    /// The database answered: rows written, or its own error. Certain.
    Answered(Result<u64, tokio_postgres::Error>),
    /// No answer came (the connection failed): the outcome is to be found.
    Lost(String),
}

impl Sent {
    fn of(result: Result<u64, tokio_postgres::Error>) -> Sent {
        match result {
            Err(e) if connection_lost(&e) => Sent::Lost(postgres_detail(&e)),
            answered => Sent::Answered(answered),
        }
    }
}

/// Whether `err` says the connection ended rather than that the statement
/// failed: no answer at all, or the server process's last words as it was
/// stopped (class 57, such as `57P01` "terminating connection due to
/// immediate shutdown command", sent even after its commit reached the
/// WAL) or a connection failure (class 08). Either way the statement's
/// outcome is unknown until asked.
fn connection_lost(err: &tokio_postgres::Error) -> bool {
    err.as_db_error().is_none_or(|db| {
        let code = db.code().code();
        code.starts_with("57") || code.starts_with("08")
    })
}

/// The committer: takes whatever changes are waiting (at most [`BATCH`]),
/// commits them together, answers each, and again.
pub(super) async fn commit_loop(inner: Weak<Inner>, mut pending: mpsc::UnboundedReceiver<Pending>) {
    let mut batch = Vec::with_capacity(BATCH);
    while pending.recv_many(&mut batch, BATCH).await > 0 {
        let Some(inner) = inner.upgrade() else {
            return;
        };
        PgStore { inner }.commit_batch(&mut batch).await;
        batch.clear();
    }
}

/// The values of a change's statement's parameters, owned.
struct Row {
    id: String,
    rows: i32,
    cols: i32,
    k: i32,
    opponent: &'static str,
    x_token: String,
    o_token: Option<String>,
    round: i32,
    first: &'static str,
    score: [i64; 3],
    version: i64,
    computer_turn: bool,
    watch: String,
    digest: String,
    ply: i32,
    row: i32,
    col: i32,
    offer: Option<&'static str>,
    entry: Option<String>,
    invite: Option<String>,
    names: [Option<String>; 2],
    end_reason: Option<&'static str>,
    end_winner: Option<&'static str>,
    draw_offer: Option<&'static str>,
    takeback_offer: Option<&'static str>,
    request_keys: Option<String>,
    /// Which statement writes it.
    commit: Commit,
    /// After a takeback, the moves the round keeps; -1 otherwise.
    keep: i32,
    /// After a move, the room's newest idempotency key (`SEAT:KEY`), for
    /// the notice.
    newest_key: Option<String>,
    clock: Option<String>,
    deadline: Option<i64>,
    position_version: Option<i64>,
    offers_made: Option<String>,
}

impl Row {
    fn new(change: &Change) -> Result<Row, StoreError> {
        let r = &change.room;
        let (ply, cell) = match change.kind {
            ChangeKind::Move => {
                let cell = r.moves.last().ok_or_else(|| {
                    StoreError::Corrupt(format!("game {}: a move with no moves", r.id.for_log()))
                })?;
                (
                    small(u32::try_from(r.moves.len()).unwrap_or(u32::MAX))?,
                    *cell,
                )
            }
            _ => (0, oxo_core::Cell::new(0, 0)),
        };
        Ok(Row {
            id: r.id.as_str().to_owned(),
            rows: small(r.rules.rows())?,
            cols: small(r.rules.cols())?,
            k: small(r.rules.k())?,
            opponent: r.opponent.name(),
            x_token: r.x_token.as_str().to_owned(),
            o_token: r.o_token.as_ref().map(|t| t.as_str().to_owned()),
            round: small(r.round)?,
            first: r.first.name(),
            score: [
                int(r.score.wins(Player::X)),
                int(r.score.wins(Player::O)),
                int(r.score.draws()),
            ],
            version: int(r.version),
            computer_turn: change.computer_turn,
            watch: r.watch.as_str().to_owned(),
            digest: digest(r),
            ply,
            row: small(cell.row)?,
            col: small(cell.col)?,
            offer: r.offer.map(Player::name),
            entry: r.entry.as_ref().map(|e| e.as_str().to_owned()),
            invite: r.invite.as_ref().map(|i| i.as_str().to_owned()),
            names: r.names.clone().map(|n| n.map(|n| n.as_str().to_owned())),
            end_reason: reason_text(r.ending),
            end_winner: winner_text(r.ending),
            draw_offer: r.draw.map(Player::name),
            takeback_offer: r.takeback.map(Player::name),
            request_keys: (!r.keys.is_empty()).then(|| keys_text(&r.keys)),
            commit: Commit::of(change),
            keep: if change.kind == ChangeKind::Takeback {
                small(u32::try_from(r.moves.len()).unwrap_or(u32::MAX))?
            } else {
                -1
            },
            newest_key: r
                .keys
                .last()
                .filter(|_| change.kind == ChangeKind::Move)
                .map(keyed_text),
            clock: r.clock.as_ref().map(clock_text),
            deadline: change.deadline.map(int),
            position_version: position_text(r),
            offers_made: offers_made_text(&r.offers_made),
        })
    }

    /// The parameters of [`Commit::SQL`] (typed as [`PARAMS`]), `node`
    /// announcing the change.
    fn params<'a>(
        &'a self,
        node: &'a String,
    ) -> [&'a (dyn tokio_postgres::types::ToSql + Sync); 36] {
        [
            &self.id,
            &self.rows,
            &self.cols,
            &self.k,
            &self.opponent,
            &self.x_token,
            &self.o_token,
            &self.round,
            &self.first,
            &self.score[0],
            &self.score[1],
            &self.score[2],
            &self.version,
            &self.computer_turn,
            &self.watch,
            &self.digest,
            &self.ply,
            &self.row,
            &self.col,
            node,
            &self.offer,
            &self.entry,
            &self.invite,
            &self.names[0],
            &self.names[1],
            &self.end_reason,
            &self.end_winner,
            &self.draw_offer,
            &self.takeback_offer,
            &self.request_keys,
            &self.keep,
            &self.newest_key,
            &self.clock,
            &self.deadline,
            &self.position_version,
            &self.offers_made,
        ]
    }
}

/// What one change's statement wrote: its row, or a conflict.
fn written(change: &Change, rows: u64) -> Result<(), StoreError> {
    if rows == 1 {
        Ok(())
    } else {
        Err(StoreError::Conflict(format!(
            "game {} is already stored at version {} or later",
            change.room.id.for_log(),
            change.room.version
        )))
    }
}

/// The outcome of `change`, whose answer was lost with `message`, from
/// the room's `stored` version and digest.
///
/// At the change's version with its digest, it was committed. Another
/// state at that very version was committed instead of it (one version,
/// one state): a conflict, which the hub answers with the room as it
/// stands. A later version may stand on this change or on another made
/// in its place, which the stored room cannot tell apart: unknown, so
/// that the hub never decides the request a second time (a retry with
/// the same idempotency key finds out). Not there, or older: certainly
/// not committed.
fn settled(
    change: &Change,
    stored: Option<(i64, String)>,
    message: &str,
) -> Result<(), StoreError> {
    let room = &change.room;
    let ours = int(room.version);
    match stored {
        // Only this change makes a room with this (random) id.
        Some(_) if change.kind == ChangeKind::Create => Ok(()),
        Some((version, stored)) if version == ours && stored == digest(room) => Ok(()),
        Some((version, _)) if version == ours => written(change, 0),
        Some((version, _)) if version > ours => Err(StoreError::Unknown(format!(
            "{message}, and the game has moved on since (version {version}), so whether this \
             change was saved cannot be told"
        ))),
        _ => Err(StoreError::Postgres(format!(
            "{message}; the change was not saved"
        ))),
    }
}

/// `e` again, for each change of a batch that could not get a connection
/// (a store error is not `Clone`); said as it was, never wrapped in a
/// second "PostgreSQL:".
fn again(e: &StoreError) -> StoreError {
    match e {
        StoreError::Postgres(message) => StoreError::Postgres(message.clone()),
        StoreError::NoAnswer { at, within } => StoreError::NoAnswer {
            at: at.clone(),
            within: *within,
        },
        other => StoreError::Postgres(other.to_string()),
    }
}

impl PgStore {
    /// Commit `batch` (see the module docs) and answer each change.
    async fn commit_batch(&self, batch: &mut Vec<Pending>) {
        let node = &self.inner.node;
        // A change that cannot even be written down is refused alone.
        let mut rows = Vec::with_capacity(batch.len());
        let mut ready = Vec::with_capacity(batch.len());
        for (change, reply) in batch.drain(..) {
            match Row::new(&change) {
                Ok(row) => {
                    rows.push(row);
                    ready.push((change, reply));
                }
                Err(e) => drop(reply.send(Err(e))),
            }
        }
        if ready.is_empty() {
            return;
        }
        let conn = match self.conn().await {
            Ok(conn) => conn,
            Err(e) => {
                for (_, reply) in ready {
                    let _ = reply.send(Err(again(&e)));
                }
                return;
            }
        };
        if ready.len() > 1 {
            // Sent at once, in this order, on one connection: one round
            // trip and one commit for them all.
            let client = &conn.client;
            let params: Vec<_> = rows.iter().map(|row| row.params(node)).collect();
            let statements = rows
                .iter()
                .zip(&params)
                .map(|(row, params)| client.execute(conn.commit(row.commit), params));
            let (begun, done, committed) = tokio::join!(
                client.batch_execute("BEGIN"),
                futures_util::future::join_all(statements),
                client.batch_execute("COMMIT"),
            );
            if begun.is_ok() && committed.is_ok() && done.iter().all(Result::is_ok) {
                self.inner.writes_failing.store(false, Ordering::Relaxed);
                for ((change, reply), rows) in ready.into_iter().zip(done) {
                    let _ = reply.send(
                        rows.map_err(StoreError::from)
                            .and_then(|n| written(&change, n)),
                    );
                }
                return;
            }
            fn lost<T>(r: &Result<T, tokio_postgres::Error>) -> bool {
                r.as_ref().err().is_some_and(connection_lost)
            }
            if client.is_closed() || lost(&begun) || lost(&committed) || done.iter().any(lost) {
                // The batch may or may not have committed: find out.
                let message = committed.err().map_or_else(
                    || "the connection closed".to_owned(),
                    |e| postgres_detail(&e),
                );
                for (change, reply) in ready {
                    let _ = reply.send(self.settle(&change, conn.backend, &message).await);
                }
                return;
            }
            // A statement failed and the batch was rolled back: each alone.
        }
        let (mut saved, mut refused_by_storage) = (false, false);
        for ((change, reply), row) in ready.into_iter().zip(&rows) {
            let statement = conn.commit(row.commit);
            let result = match self.send(&conn, statement, &row.params(node)).await {
                Sent::Answered(result) => {
                    match &result {
                        Ok(_) => saved = true,
                        Err(e) => refused_by_storage |= storage_failed(e),
                    }
                    result
                        .map_err(StoreError::from)
                        .and_then(|n| written(&change, n))
                }
                Sent::Lost(message) => self.settle(&change, conn.backend, &message).await,
            };
            let _ = reply.send(result);
        }
        if refused_by_storage || saved {
            self.inner
                .writes_failing
                .store(refused_by_storage, Ordering::Relaxed);
        }
    }
}

impl PgStore {
    /// Send one change's statement on `conn`, suffering the fault a test
    /// injected, if any.
    async fn send(
        &self,
        conn: &Conn,
        statement: &Statement,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Sent {
        let fault = self
            .inner
            .fault
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        let client = &conn.client;
        match fault {
            None => Sent::of(client.execute(statement, params).await),
            Some(fault @ (CommitFault::AnswerLost | CommitFault::Unreachable)) => {
                match client.execute(statement, params).await {
                    Ok(_) => {
                        let down = fault == CommitFault::Unreachable;
                        self.inner.unreachable.store(down, Ordering::SeqCst);
                        Sent::Lost("the connection was lost (a test's fault)".into())
                    }
                    failed => Sent::of(failed),
                }
            }
            Some(CommitFault::LostBeforeCommit) => {
                if let Err(e) = client.batch_execute("BEGIN").await {
                    return Sent::of(Err(e));
                }
                match client.execute(statement, params).await {
                    // Left open: finding out ends it, uncommitted.
                    Ok(_) => Sent::Lost("the connection was lost (a test's fault)".into()),
                    failed => Sent::of(failed),
                }
            }
        }
    }

    /// The true outcome of `change`, sent on the connection served by
    /// `backend`, which failed with `message` before it answered: see the
    /// module docs.
    async fn settle(
        &self,
        change: &Change,
        backend: Backend,
        message: &str,
    ) -> Result<(), StoreError> {
        let within = Duration::from_millis(self.inner.settle_within.load(Ordering::SeqCst));
        let asked = tokio::time::timeout(within, async {
            loop {
                match self.stored(change, backend).await {
                    Ok(stored) => return stored,
                    Err(e) => {
                        tracing::debug!(error = %e, "cannot learn a lost change's outcome yet");
                        tokio::time::sleep(Duration::from_millis(250)).await;
                    }
                }
            }
        })
        .await;
        self.inner.unreachable.store(false, Ordering::SeqCst);
        let room = &change.room;
        let Ok(stored) = asked else {
            tracing::warn!(game = %room.id.for_log(), version = room.version, "a change's outcome is unknown");
            return Err(StoreError::Unknown(format!(
                "{message}, and the database could not be reached within {} ms to learn whether the change was saved",
                within.as_millis()
            )));
        };
        settled(change, stored, message)
    }

    /// On a new connection: end the server process behind `backend` (and
    /// wait until it has ended), then read the room's stored version and
    /// digest.
    async fn stored(
        &self,
        change: &Change,
        backend: Backend,
    ) -> Result<Option<(i64, String)>, StoreError> {
        if self.inner.unreachable.load(Ordering::SeqCst) {
            return Err(StoreError::Postgres("unreachable (a test's fault)".into()));
        }
        let client = connect(self.inner.pool.config()).await?;
        // A transaction that process still holds can then never commit.
        let ended = client
            .query_opt(
                "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity
                 WHERE pid = $1 AND extract(epoch FROM backend_start)::float8 = $2",
                &[&backend.pid, &backend.started],
            )
            .await?;
        if ended.is_some_and(|row| !row.get::<_, bool>(0)) {
            return Err(StoreError::Postgres(format!(
                "server process {} has not ended yet",
                backend.pid
            )));
        }
        let row = client
            .query_opt(
                "SELECT version, digest FROM rooms WHERE id = $1",
                &[&change.room.id.as_str()],
            )
            .await?;
        Ok(row.map(|row| (row.get(0), row.get(1))))
    }
}

/// Whether `err` says the database cannot take writes at all (out of disk
/// or memory, an I/O error, or a read-only server such as a standby),
/// rather than that one write was refused.
pub(super) fn storage_failed(err: &tokio_postgres::Error) -> bool {
    err.as_db_error().is_some_and(|db| {
        let code = db.code().code();
        code.starts_with("53") || code.starts_with("58") || code == "25006"
    })
}

#[cfg(test)]
mod tests {
    use oxo_core::{Player, Rules};

    use super::*;
    use crate::id::{GameId, Token};
    use crate::room::{Opponent, Room};

    #[test]
    fn a_lost_answer_is_settled_only_when_the_stored_room_tells() {
        let created = Room::new(
            GameId::from_trusted("settle"),
            GameId::from_trusted("watch-settle"),
            Rules::default(),
            Opponent::Human,
            Player::X,
            Token::from_trusted("tx").hash(),
        );
        let change = Change::new(&created, ChangeKind::Offer);
        let v = int(change.room.version);
        let ours = digest(&change.room);
        let settle = |stored| settled(&change, stored, "lost");
        assert!(settle(Some((v, ours.clone()))).is_ok(), "saved");
        assert!(matches!(
            settle(Some((v, "another".into()))),
            Err(StoreError::Conflict(_))
        ));
        // Moved on: ours may be underneath, so the request must not be
        // decided again.
        assert!(matches!(
            settle(Some((v + 1, "later".into()))),
            Err(StoreError::Unknown(_))
        ));
        assert!(matches!(
            settle(Some((v - 1, "older".into()))),
            Err(StoreError::Postgres(_))
        ));
        assert!(matches!(settle(None), Err(StoreError::Postgres(_))));
    }
}
