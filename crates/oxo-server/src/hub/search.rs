//! The computer's moves and the hints: searches run on blocking threads,
//! in queues by cost, with warm strategies and solvers kept in pools.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use oxo_ai::exact::SomeValues;
use oxo_ai::hints::{HINT_BUDGET, LONGER_BUDGET, NoHints, hint_valuer, hints_allowed, with_look};
use oxo_ai::{Solver, StrategyKind};
use oxo_core::{Coords, Game, Player, Rules};
use serde::Serialize;
use tokio::sync::OwnedSemaphorePermit;

use super::nodes::{LEASE, RENEW_EVERY};
use super::{Hints, Hub, HubError, RoomHandle, Shared};
use crate::id::GameId;
use crate::store::ChangeKind;

/// Searches kept warm for reuse (strategies and hint solvers), in all.
pub(super) const POOL_SIZE: usize = 4;

/// Pooled searches unused for this long are dropped.
const POOL_IDLE: Duration = Duration::from_secs(60);

/// The value of one empty cell, for hints.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Hint {
    /// The cell's row.
    pub row: u32,
    /// The cell's column.
    pub col: u32,
    /// What playing there leads to for the side to move.
    pub value: &'static str,
    /// Plies to the end under perfect play, this move included, where
    /// known (left out of the JSON where the values come from the prover,
    /// which proves values but not distances of wins and losses).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plies: Option<u32>,
}

/// Perfect-play values of a position's empty cells: of every one, or of
/// those the hints' budget reached.
#[derive(Clone, Debug)]
pub struct Exact {
    /// The cells valued, best first.
    pub hints: Hints,
    /// Why some cells have no value ([`NoHints::OverBudget`],
    /// [`NoHints::OverLongerBudget`]; `None`: every empty cell has its
    /// value).
    pub missing: Option<NoHints>,
}

/// What a position's hints are: exact values of every empty cell; or the
/// engine's estimate (none once a round is over) beside the exact values
/// of the cells the hints' budget reached, if any, and why not all.
#[derive(Clone, Debug)]
pub struct Advice {
    /// Perfect-play values: of every empty cell where `reason` is `None`.
    pub exact: Hints,
    /// Why not every empty cell has its exact value.
    pub reason: Option<NoHints>,
    /// The engine's evaluation, where not every cell has its exact value.
    pub estimate: Option<Arc<super::EstimateView>>,
}

/// Searches kept for reuse, keyed by what they were built for. A perfect
/// player or hint solver holds a table of up to 64 MiB, so the pool is small
/// and lets go of what has not been used for a while.
pub(super) struct Pool<T> {
    idle: Mutex<Vec<Pooled<T>>>,
}

/// A pooled search: what it was built for (a strategy, or `None` for a
/// hint solver), since when it is idle, and the search itself.
type Pooled<T> = (Option<StrategyKind>, Rules, Instant, T);

impl<T> Pool<T> {
    pub(super) fn new() -> Pool<T> {
        Pool {
            idle: Mutex::new(Vec::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Pooled<T>>> {
        self.idle.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn take(&self, kind: Option<StrategyKind>, rules: Rules) -> Option<T> {
        let mut idle = self.lock();
        let at = idle
            .iter()
            .position(|(k, r, _, _)| *k == kind && *r == rules)?;
        Some(idle.swap_remove(at).3)
    }

    pub(super) fn give(&self, kind: Option<StrategyKind>, rules: Rules, value: T) {
        let mut idle = self.lock();
        if idle.len() >= POOL_SIZE {
            idle.remove(0);
        }
        idle.push((kind, rules, Instant::now(), value));
    }

    /// Drop what has sat unused for `age`.
    fn expire(&self, age: Duration) {
        // Dropping a table can take a moment: do it outside the lock.
        let old: Vec<_> = {
            let mut idle = self.lock();
            let (old, keep) = idle
                .drain(..)
                .partition(|(_, _, since, _)| since.elapsed() >= age);
            *idle = keep;
            old
        };
        drop(old);
    }
}

impl Hub {
    /// Let the computer move in this room if it is its turn, in the
    /// background: the search runs on a blocking thread (at most
    /// `search_threads` at once) so it never stalls other rooms.
    pub(super) fn schedule_computer(&self, handle: &Arc<RoomHandle>) {
        if handle.thinking.swap(true, Ordering::SeqCst) {
            return; // already on it
        }
        let hub = self.clone();
        let handle = handle.clone();
        tokio::spawn(async move {
            let mut retry = Duration::from_millis(100);
            loop {
                match hub.computer_move(&handle).await {
                    Ok(Turn::Moved) => {}
                    Ok(Turn::HumanToMove) => break,
                    Ok(Turn::ClaimedElsewhere) => {
                        // Another server is on it; its commit will be
                        // announced, and if it dies the sweep finds the
                        // turn again.
                        handle.thinking.store(false, Ordering::SeqCst);
                        return;
                    }
                    Err(e) => {
                        // Most likely the store is failing: try again, ever
                        // more slowly, so the game goes on once it recovers.
                        tracing::error!(error = %e, retry_ms = retry.as_millis(), "computer move failed");
                        tokio::time::sleep(retry).await;
                        retry = (retry * 2).min(Duration::from_secs(30));
                    }
                }
            }
            handle.thinking.store(false, Ordering::SeqCst);
            // A change that arrived while the flag was still set would
            // otherwise go unanswered.
            if handle.room.lock().await.computer_to_move().is_some()
                && !handle.thinking.load(Ordering::SeqCst)
            {
                hub.schedule_computer(&handle);
            }
        });
    }

    /// Run `work` on a blocking thread, so that searches never hold up the
    /// async runtime. Searches wait for a slot of their cost, so that at
    /// most `search_threads` of them compete for the cores: quick ones
    /// (alphabeta, learned, hints, perfect play on boards of up to
    /// [`QUICK_PERFECT_CELLS`] cells) and deep ones (perfect play on bigger
    /// boards, which can take seconds) in separate queues, so a long solve
    /// never delays a quick reply (a longer look at a position's values
    /// runs in a slot of its own, [`Hub::take_longer_slot`]). Random and
    /// rule-based moves take microseconds and need no slot. A request that
    /// goes while its search waits for a slot takes it out of the queue.
    pub(super) async fn search<T: Send + 'static>(
        &self,
        cost: Cost,
        hold: Hold,
        work: impl FnOnce(&Shared) -> Result<T, HubError> + Send + 'static,
    ) -> Result<T, HubError> {
        let closed = |_| HubError::Internal("search pool closed".into());
        let queue = match cost {
            Cost::Instant => return self.run(None, hold, work).await,
            Cost::Quick => &self.shared.searches,
            Cost::Deep => &self.shared.deep_searches,
        };
        let permit = Arc::clone(queue).acquire_owned().await.map_err(closed)?;
        self.run(Some(permit), hold, work).await
    }

    /// Run `work` on a blocking thread holding `slot` (its place in a
    /// queue, or the longer look's slot) and `hold` (the asking client's
    /// place for a search, if any) until it ends, even if the request that
    /// asked for it has gone.
    pub(super) async fn run<T: Send + 'static>(
        &self,
        slot: Option<OwnedSemaphorePermit>,
        hold: Hold,
        work: impl FnOnce(&Shared) -> Result<T, HubError> + Send + 'static,
    ) -> Result<T, HubError> {
        let shared = self.shared.clone();
        tokio::task::spawn_blocking(move || {
            let _held = (slot, hold);
            work(&shared)
        })
        .await
        .map_err(|e| HubError::Internal(format!("search failed: {e}")))?
    }

    /// Take the server's one slot for a longer look
    /// ([`Hub::values_longer`]), to give to the look: taken before a
    /// client's look is counted against its rate, so that a look refused
    /// for the slot costs the client nothing.
    ///
    /// # Errors
    /// [`HubError::Busy`] at once, never queued, while another longer look
    /// has it.
    pub fn take_longer_slot(&self) -> Result<LongerSlot, HubError> {
        match Arc::clone(&self.shared.longer_searches).try_acquire_owned() {
            Ok(permit) => Ok(LongerSlot(permit)),
            Err(tokio::sync::TryAcquireError::NoPermits) => Err(HubError::Busy(LONGER_RETRY)),
            Err(tokio::sync::TryAcquireError::Closed) => {
                Err(HubError::Internal("search pool closed".into()))
            }
        }
    }

    /// Let idle pooled searches go, freeing their tables.
    pub fn expire_pools(&self) {
        self.shared.strategies.expire(POOL_IDLE);
        self.shared.solvers.expire(POOL_IDLE);
        self.shared.valuers.expire(POOL_IDLE);
    }

    /// One computer move, if it is the computer's turn and (with a shared
    /// store) this server holds the claim on it, renewed while it searches.
    async fn computer_move(&self, handle: &Arc<RoomHandle>) -> Result<Turn, HubError> {
        let (kind, game, version, id) = {
            let mut room = handle.room.lock().await;
            self.catch_up_locked(handle, &mut room).await?;
            match room.computer_to_move() {
                Some(kind) => (kind, room.game().clone(), room.version(), room.id().clone()),
                None => return Ok(Turn::HumanToMove),
            }
        };
        let store = self.shared.store.clone();
        if self.shared.shared_store && !store.claim(&id, version, LEASE).await? {
            return Ok(Turn::ClaimedElsewhere);
        }
        let rules = game.rules();
        let search = self.search(Cost::of(kind, rules), Hold::default(), move |shared| {
            let mut strategy = match shared.strategies.take(Some(kind), rules) {
                Some(strategy) => strategy,
                None => {
                    let seed = u64::from_le_bytes(random_bytes());
                    shared
                        .catalog
                        .build(kind, rules, seed)
                        .map_err(|e| HubError::Internal(e.to_string()))?
                }
            };
            let cell = strategy.choose(&game);
            shared.strategies.give(Some(kind), rules, strategy);
            Ok(cell)
        });
        let cell = if self.shared.shared_store {
            // Renew the claim for as long as the search runs, in a task of
            // its own so that a slow renewal never holds up the move; a
            // failed renewal only risks a second server searching too, and
            // the store's version guard still lets one move in.
            let renewer = tokio::spawn(async move {
                let mut renew = tokio::time::interval_at(
                    tokio::time::Instant::now() + RENEW_EVERY,
                    RENEW_EVERY,
                );
                loop {
                    renew.tick().await;
                    if let Err(e) = store.claim(&id, version, LEASE).await {
                        tracing::warn!(game = %id.for_log(), error = %e, "cannot renew the claim on a computer turn");
                    }
                }
            });
            let cell = search.await;
            renewer.abort();
            cell?
        } else {
            search.await?
        };
        let cell = cell.ok_or_else(|| HubError::Internal(format!("{kind} found no move")))?;
        let mut room = handle.room.lock().await;
        if room.version() != version {
            // Changed while thinking (another server moved first): look
            // again.
            return Ok(Turn::Moved);
        }
        let (next, _) = room
            .play(Player::O, Coords::from(cell), Some(version))
            .map_err(|e| HubError::Internal(format!("{kind} chose an illegal move: {e}")))?;
        // Rooms against the computer are untimed today; kept like any
        // other change should one ever be timed.
        let next = next
            .clocked(&room, self.now_ms())
            .map_err(|error| HubError::Refused { error, game: None })?;
        match self.commit(handle, &mut room, next, ChangeKind::Move).await {
            // Another server's move got in first; memory now holds it.
            Ok(_) | Err(HubError::Changed(_)) => Ok(Turn::Moved),
            Err(e) => Err(e),
        }
    }

    /// What a player may be told of the room's position: perfect-play
    /// values of every empty cell where they come at once ([`Hub::values`]);
    /// elsewhere the engine's estimate, beside the values of the cells the
    /// hints' budget reached on 7×7 k=5; nothing but those values once a
    /// round too big to solve is over. Kept for the room's latest version
    /// (see `keep`). Withheld while two people play a round (they are for
    /// games against the computer and finished rounds). With `longer`,
    /// where the hints left moves without a value, a longer look
    /// ([`Hub::values_longer`]) values them again, and its answer is kept
    /// instead, in the slot `longer` holds (given back unused where the room
    /// has moved on since the caller's last hints, or no longer look would
    /// help). `hold` is the asking client's place for a search.
    ///
    /// # Errors
    /// Unknown room; [`HubError::HintsWithheld`].
    pub async fn hints(
        &self,
        id: &GameId,
        mut longer: Option<LongerSlot>,
        hold: Hold,
    ) -> Result<(u64, Advice), HubError> {
        let (handle, _) = self.room_to_read(id).await?;
        let game: Game;
        let version;
        let round_over;
        {
            let room = handle.room.lock().await;
            // Fair play: no help for anyone while two people play a round
            // (one ended by a resignation or an agreement is over too).
            let between_people =
                room.opponent() == crate::room::Opponent::Human && !room.round_over();
            if hints_allowed(room.game(), between_people) == Err(NoHints::BetweenPeople) {
                return Err(HubError::HintsWithheld);
            }
            version = room.version();
            game = room.game().clone();
            // Over on the board, or by a resignation, an agreement, time.
            round_over = room.round_over();
        }
        let cached = match &*handle.hints.lock().unwrap_or_else(PoisonError::into_inner) {
            Some((v, advice)) if *v == version => Some(advice.clone()),
            _ => None,
        };
        let advice = match cached {
            Some(advice) => advice,
            None => {
                // A position its caller has not seen the hints of (the room
                // moved on since): its hints, and no longer look, whose
                // slot goes back before they are searched.
                drop(longer.take());
                keep(
                    &handle,
                    version,
                    self.advice(&game, round_over, None, hold.clone()).await?,
                )
            }
        };
        if let Some(slot) = longer
            && advice.reason.is_some_and(NoHints::longer_look_helps)
        {
            let longer = self.advice(&game, round_over, Some(slot), hold).await?;
            return Ok((version, keep(&handle, version, longer)));
        }
        Ok((version, advice))
    }

    /// [`Hub::hints`] of `game` (its round over when `round_over`), with a
    /// longer look in the slot `longer` holds, if given.
    async fn advice(
        &self,
        game: &Game,
        round_over: bool,
        longer: Option<LongerSlot>,
        hold: Hold,
    ) -> Result<Advice, HubError> {
        let values = match longer {
            Some(slot) => self.values_longer(game.clone(), slot).await?,
            None => self.values(game.clone(), hold.clone()).await?,
        };
        let (exact, reason) = match values {
            Some(Exact { hints, missing }) => (hints, missing),
            None => (Hints::default(), Some(NoHints::TooSlow)),
        };
        let estimate = match reason {
            Some(_) if !round_over => self.estimate(game.clone(), hold).await?,
            _ => None,
        };
        Ok(Advice {
            exact,
            reason,
            estimate,
        })
    }

    /// Perfect-play values of the empty cells of `game` (a list of
    /// [`Hint`]s), where [`Valuer`](oxo_ai::exact::Valuer) answers
    /// quickly: of every cell, or where the position needs a search over
    /// [`HINT_BUDGET`], of those a second pass
    /// of that budget reaches
    /// ([`Valuer::some_values`](oxo_ai::exact::Valuer::some_values); a
    /// pooled valuer keeps what earlier calls proved, so it may reach more
    /// than a fresh one); `None` where it does not answer quickly. For
    /// hints and the analysis board. Positions the solver answers at once
    /// wait in the quick queue; those the prover values (7×7 k=5 before its
    /// last 16 empty cells), which can take a second, in the deep one.
    ///
    /// # Errors
    /// The search failed.
    pub async fn values(&self, game: Game, hold: Hold) -> Result<Option<Exact>, HubError> {
        self.valued(game, true, hold, None).await
    }

    /// [`Hub::values`] within [`LONGER_BUDGET`] positions a pass, for a
    /// position whose hints left moves without a value
    /// ([`NoHints::longer_look_helps`]): up to half a minute of search, in
    /// the server's one slot for it (`slot`, [`Hub::take_longer_slot`]), so
    /// that it never waits in or takes the queues of the hints and the
    /// computer's moves (it still shares the cores with them).
    ///
    /// # Errors
    /// The search failed.
    pub async fn values_longer(
        &self,
        game: Game,
        slot: LongerSlot,
    ) -> Result<Option<Exact>, HubError> {
        self.valued(game, true, Hold::default(), Some(slot)).await
    }

    /// [`Hub::values`] of every empty cell only: `None` also where the
    /// hints' budget runs out (no second pass), for a verdict that needs
    /// them all.
    ///
    /// # Errors
    /// The search failed.
    pub(super) async fn every_value(&self, game: Game) -> Result<Option<Hints>, HubError> {
        Ok(self
            .valued(game, false, Hold::default(), None)
            .await?
            .map(|exact| exact.hints))
    }

    /// [`Hub::values`] within the hints' budget, or with the longer look's
    /// `slot` within [`LONGER_BUDGET`] (a pass), with its second pass where
    /// the budget runs out when `some`. The search stops as soon as this
    /// future is dropped (its request has gone), giving its slot back
    /// within milliseconds.
    async fn valued(
        &self,
        game: Game,
        some: bool,
        hold: Hold,
        slot: Option<LongerSlot>,
    ) -> Result<Option<Exact>, HubError> {
        if hints_allowed(&game, false).is_err() {
            return Ok(None);
        }
        let longer = slot.is_some();
        let budget = if longer { LONGER_BUDGET } else { HINT_BUDGET };
        let quick = Solver::answers_quickly(&game);
        // No one waits for the values once this future is dropped (the
        // request has gone): the search stops then instead of running to its
        // budget in its slot.
        let stop = StopWhenGone::default();
        let flag = stop.flag();
        let work = move |shared: &Shared| {
            let rules = game.rules();
            let mut valuer = match shared.valuers.take(None, rules) {
                Some(valuer) => valuer,
                None => hint_valuer(rules).map_err(|e| HubError::Internal(e.to_string()))?,
            };
            // Pooled at the hints' own budget, with no flag.
            let values = with_look(&mut valuer, budget, Some(flag), |valuer| {
                if some {
                    valuer.some_values(&game)
                } else {
                    valuer.values(&game).map(SomeValues::from)
                }
            });
            shared.valuers.give(None, rules, valuer);
            let values = match values {
                Ok(values) => values,
                Err(e) if e.is_over_budget() => return Ok(None),
                Err(e) if e.is_stopped() => {
                    return Err(HubError::Internal("the search's request has gone".into()));
                }
                Err(e) => return Err(HubError::Internal(e.to_string())),
            };
            let hints: Hints = values
                .moves
                .iter()
                .map(|&(cell, valued)| Hint {
                    row: cell.row,
                    col: cell.col,
                    value: valued.value.as_str(),
                    plies: valued.plies,
                })
                .collect();
            Ok(Some(Exact {
                hints,
                missing: if longer {
                    NoHints::of_longer(&values)
                } else {
                    NoHints::of(&values)
                },
            }))
        };
        let answer = match (slot, quick) {
            (Some(slot), false) => self.run(Some(slot.0), hold, work).await,
            (slot, _) => {
                // A position the solver answers at once needs no longer
                // look: its slot goes back at once.
                drop(slot);
                let cost = if quick { Cost::Quick } else { Cost::Deep };
                self.search(cost, hold, work).await
            }
        };
        drop(stop);
        answer
    }
}

/// `advice` of the room's position at `version`, kept as its hints unless
/// the hints kept are of a later version (the room has moved on while it
/// was searched), or of this one and value more moves (a longer look's,
/// finished meanwhile): the hints for `version`, either way.
fn keep(handle: &RoomHandle, version: u64, advice: Advice) -> Advice {
    let mut kept = handle.hints.lock().unwrap_or_else(PoisonError::into_inner);
    match &*kept {
        Some((v, _)) if *v > version => return advice,
        Some((v, better)) if *v == version && better.exact.len() > advice.exact.len() => {
            return better.clone();
        }
        _ => {}
    }
    *kept = Some((version, advice.clone()));
    advice
}

/// Raises its flag when dropped: a search given the flag stops once the
/// future that waits for it has gone.
#[derive(Default)]
pub(super) struct StopWhenGone(Arc<AtomicBool>);

impl StopWhenGone {
    /// The flag, for the search.
    pub(super) fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.0)
    }
}

impl Drop for StopWhenGone {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// What a search holds until it ends besides its slot: the asking client's
/// place for a search (the edge's count of a client's searches in flight),
/// shared by the searches one request runs; none for the server's own.
#[derive(Clone, Default)]
pub struct Hold(Option<Arc<dyn Send + Sync>>);

impl Hold {
    /// Hold `place` until every search given this (or a clone) has ended.
    pub fn new(place: impl Send + Sync + 'static) -> Hold {
        Hold(Some(Arc::new(place)))
    }
}

impl std::fmt::Debug for Hold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Hold(place)"
        } else {
            "Hold(none)"
        })
    }
}

/// How long a client refused a longer look ([`HubError::Busy`]) is asked
/// to wait: about what one takes.
pub const LONGER_RETRY: Duration = Duration::from_secs(10);

/// Perfect play on boards of at most this many cells is a quick search: a
/// 4×4 board is solved from any position in milliseconds.
pub const QUICK_PERFECT_CELLS: usize = 16;

/// Which queue a search waits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cost {
    /// Microseconds: no queue.
    Instant,
    /// Up to about a tenth of a second.
    Quick,
    /// Perfect play on a board that can take seconds.
    Deep,
}

/// The server's one slot for a longer look at a position's values (several
/// seconds, one at a time), held until the look it is given to ends.
#[derive(Debug)]
pub struct LongerSlot(pub(super) OwnedSemaphorePermit);

impl Cost {
    fn of(kind: StrategyKind, rules: Rules) -> Cost {
        match kind {
            StrategyKind::Random | StrategyKind::Rules => Cost::Instant,
            // Learned plays 3×3 to 5×5 in milliseconds at most, but
            // searches as alphabeta does on 7×7 and 15×15 (its 100,000
            // positions, up to ~0.1 s).
            StrategyKind::AlphaBeta | StrategyKind::Learned => Cost::Quick,
            StrategyKind::Perfect if rules.cell_count() <= QUICK_PERFECT_CELLS => Cost::Quick,
            StrategyKind::Perfect => Cost::Deep,
        }
    }
}

/// What one look at the computer's turn came to.
enum Turn {
    /// It moved (or the room changed meanwhile): look again.
    Moved,
    /// It is not the computer's turn (a person is to move, or the round is over).
    HumanToMove,
    /// Another server holds the claim on this turn.
    ClaimedElsewhere,
}

fn random_bytes() -> [u8; 8] {
    let mut bytes = [0; 8];
    // Only tie-breaks depend on it: a fixed seed is a fine fallback.
    let _ = getrandom::fill(&mut bytes);
    bytes
}
