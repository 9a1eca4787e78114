//! What seats ask of their rooms: a new room, seat O, a move, the other
//! actions (resign, abort, offers, claims, rematches), and a room's record.

use std::sync::{Arc, PoisonError};
use std::time::Instant;

use oxo_ai::hints::{NoHints, hints_allowed};
use oxo_core::{Coords, Player};

use super::change::{Step, recalled, remembered};
use super::{Hub, HubError, RoomHandle, Seated, Snapshot};
use crate::id::{GameId, IdempotencyKey, Token};
use crate::name::PlayerName;
use crate::room::{
    Admission, Opponent, PlayedRound, Proposal, RecordView, Request, Room, RoomError, RoomSetup,
    Viewer,
};
use crate::store::{Change, ChangeKind};

impl Hub {
    /// Open a new room as `setup` says; its creator holds seat X, named
    /// `name`. With a clock, its rounds are played under that time control.
    ///
    /// # Errors
    /// No randomness for the id or token; a store failure.
    pub async fn create(
        &self,
        setup: RoomSetup,
        listed: bool,
        name: Option<PlayerName>,
    ) -> Result<Seated, HubError> {
        let (rules, opponent, first) = (setup.rules(), setup.opponent(), setup.first());
        let random = |id: Result<GameId, getrandom::Error>| {
            id.map_err(|e| HubError::Internal(e.to_string()))
        };
        let token = Token::random().map_err(|e| HubError::Internal(e.to_string()))?;
        let id = random(GameId::random())?;
        let watch = random(GameId::random_watch())?;
        let mut room = Room::new(id.clone(), watch, rules, opponent, first, token.hash())
            .named(Player::X, name);
        let invite = match opponent {
            Opponent::Human => {
                let invite = Token::random().map_err(|e| HubError::Internal(e.to_string()))?;
                room = room.invited(invite.hash());
                Some(invite)
            }
            Opponent::Computer(_) => None,
        };
        if listed {
            room = room.listed(random(GameId::random())?);
        }
        if let Some(control) = setup.clock() {
            room = room.timed(control);
        }
        let hub = self.clone();
        // In a task of its own, like every change: once saved, the room is
        // set up even if the client has gone.
        let handle = tokio::spawn(async move {
            hub.shared
                .store
                .commit(Change::new(&room, ChangeKind::Create))
                .await?;
            Ok::<_, HubError>(hub.install(room))
        })
        .await
        .map_err(|e| HubError::Internal(format!("create failed: {e}")))??;
        Ok(Seated {
            game: handle.current(Viewer::Player),
            seat: Player::X,
            token,
            invite,
        })
    }

    /// `action` by the holder of `token`, sent as `key` when given: a key
    /// this seat sent lately is answered with the game as it stands and
    /// changes nothing. Against the computer, a draw offer is answered by
    /// the solver: accepted when the computer cannot win from the position
    /// with best play, declined when it can or when the board is too big
    /// to tell.
    ///
    /// # Errors
    /// Unknown room, missing or foreign token, an action the room refuses
    /// now (409s carry the current game), a store failure.
    pub async fn act(
        &self,
        id: &GameId,
        token: Option<&str>,
        action: Action,
        version: Option<u64>,
        key: Option<IdempotencyKey>,
    ) -> Result<Snapshot, HubError> {
        let token = token.ok_or(HubError::NoToken)?.to_owned();
        let handle = self.room(id).await?;
        // The seat first: a request without one starts no search.
        let verdict = match action {
            Action::Propose(Proposal::Draw) if self.seat_in(&handle, &token).await.is_some() => {
                self.computer_accepts_draw(&handle).await?
            }
            _ => None,
        };
        let wait = self.shared.claim_after;
        let presence = handle.clone();
        let hub = self.clone();
        self.change(id, ChangeKind::Offer, move |room| {
            let seat = room.seat_of(&token).ok_or(RoomError::NotASeat)?;
            let request = Request::named(action.word());
            if let Some(step) = recalled(room, seat, key.as_ref(), &request)? {
                return Ok(step);
            }
            let next = match action {
                Action::Resign => room.resign(seat, version)?,
                Action::Abort => room.abort(version)?,
                Action::Claim => {
                    let absent = room.claimable(seat, version)?;
                    let (gone, counts_from) = hub.claim_absence(&presence, absent)?;
                    room.claim(seat, version, gone, counts_from, Instant::now(), wait)?
                }
                Action::Propose(what) => {
                    // The computer's verdict holds for the state it was
                    // given; a room that moved on meanwhile is stale.
                    let accepts = match verdict {
                        Some((at, _)) if at != room.version() => {
                            return Err(RoomError::Stale {
                                sent: at,
                                current: room.version(),
                            });
                        }
                        Some((_, accepts)) => accepts,
                        None => false,
                    };
                    room.propose(seat, what, version, accepts)?
                }
                Action::Decline(what) => room.decline(what, version)?,
                Action::Rematch => room.rematch(seat, version)?,
                Action::NoRematch => room.decline_rematch(version)?,
                Action::GiveTime => room.give_time(seat, version)?,
            };
            let kind = match action {
                Action::Rematch => ChangeKind::Rematch,
                _ if next.moves().len() < room.moves().len() => ChangeKind::Takeback,
                _ if next.round_over() && !room.round_over() => ChangeKind::End,
                _ => ChangeKind::Offer,
            };
            Ok(Step::Commit(
                Box::new(remembered(next, seat, key.clone(), request)),
                kind,
            ))
        })
        .await
    }

    /// Against the computer, whether it accepts a draw in the room as it
    /// stands, with the version that verdict is for: it does when perfect
    /// play from the position gives it no win. `None` between people.
    pub(super) async fn computer_accepts_draw(
        &self,
        handle: &Arc<RoomHandle>,
    ) -> Result<Option<(u64, bool)>, HubError> {
        let (game, version) = {
            let room = handle.room.lock().await;
            // No search for an offer the room refuses (before both sides
            // have moved there is no draw to offer).
            if room.opponent() == Opponent::Human || room.to_move().is_none() || !room.both_moved()
            {
                return Ok(None);
            }
            (room.game().clone(), room.version())
        };
        let said = handle
            .draw_verdict
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .filter(|(at, _)| *at == game)
            .map(|&(_, accepts)| accepts);
        if let Some(accepts) = said {
            return Ok(Some((version, accepts)));
        }
        let to_move = game.to_move();
        let accepts = match self.every_value(game.clone()).await? {
            Some(values) => {
                let best = |value: &str| values.iter().any(|hint| hint.value == value);
                // The side to move's best value, seen from the computer.
                let computer_wins = if to_move == Player::O {
                    best("win")
                } else {
                    !best("win") && !best("draw")
                };
                !computer_wins
            }
            // Too big to solve, or not every move valued in time: it cannot
            // tell, so it plays on.
            None => false,
        };
        *handle
            .draw_verdict
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some((game, accepts));
        Ok(Some((version, accepts)))
    }

    /// Every round of the room behind `id` (its id or watch id).
    ///
    /// # Errors
    /// Unknown room; a store failure; stored rounds that make no sense.
    pub async fn record(&self, id: &GameId) -> Result<RecordView, HubError> {
        let (handle, viewer) = self.room_to_read(id).await?;
        let room = handle.room.lock().await;
        let mut rounds = self.shared.store.rounds(room.id()).await?;
        let endings = self.shared.store.endings(room.id()).await?;
        // The store's current round is the room's (memory and store agree
        // under the lock); a round with no move yet may have no rows.
        let current = usize::try_from(room.round()).unwrap_or(usize::MAX);
        rounds.resize(current, Vec::new());
        room.record_view(&rounds, &endings, viewer)
            .map_err(HubError::Corrupt)
    }

    /// Round `number` of room `id` (from 1; the current one when `None`),
    /// its moves replayed, for its review: refused, as hints are, while
    /// two people play it.
    ///
    /// # Errors
    /// Unknown room; [`HubError::NoSuchRound`]; [`HubError::ReviewWithheld`];
    /// a store failure; a damaged stored round.
    pub async fn round_to_review(
        &self,
        id: &GameId,
        number: Option<u32>,
    ) -> Result<PlayedRound, HubError> {
        let (handle, _) = self.room_to_read(id).await?;
        let room = handle.room.lock().await;
        let rounds = room.round();
        let asked = number.unwrap_or(rounds);
        if asked == 0 || asked > rounds {
            return Err(HubError::NoSuchRound { asked, rounds });
        }
        let moves = self.shared.store.rounds(room.id()).await?;
        let endings = self.shared.store.endings(room.id()).await?;
        // A round with no move yet may have no rows.
        let played = (usize::try_from(asked - 1).ok())
            .and_then(|n| moves.get(n))
            .map_or(&[][..], Vec::as_slice);
        let round = room
            .played_round(asked, played, &endings)
            .map_err(HubError::Corrupt)?;
        let between_people = room.opponent() == Opponent::Human && round.result().is_none();
        if hints_allowed(&round.game, between_people) == Err(NoHints::BetweenPeople) {
            return Err(HubError::ReviewWithheld);
        }
        Ok(round)
    }

    /// Seat O for a second person, named `name`, who shows the room's
    /// `invite`, with the token it `chose` if any ([`Token::chosen`]): the
    /// same join sent again with that token, its answer lost, is answered
    /// as the first was.
    ///
    /// # Errors
    /// Unknown room; [`RoomError::SeatTaken`]; [`RoomError::OwnToken`];
    /// [`RoomError::NoInvite`]; a store failure.
    pub async fn join(
        &self,
        id: &GameId,
        invite: Option<&str>,
        name: Option<PlayerName>,
        chose: Option<Token>,
    ) -> Result<Seated, HubError> {
        self.seat_o(
            id,
            Admission::Invite(invite.map(str::to_owned)),
            name,
            chose,
        )
        .await
    }

    pub(super) async fn seat_o(
        &self,
        id: &GameId,
        admission: Admission,
        name: Option<PlayerName>,
        chose: Option<Token>,
    ) -> Result<Seated, HubError> {
        let repeat = chose.clone();
        let token = match chose {
            Some(token) => token,
            None => Token::random().map_err(|e| HubError::Internal(e.to_string()))?,
        };
        let hash = token.hash();
        let game = self
            .change(id, ChangeKind::Join, move |room| {
                if let Some(token) = &repeat {
                    match room.seat_of(token.expose()) {
                        // This join again, whose answer was lost.
                        Some(Player::O) => return Ok(Step::Repeat),
                        // X's own token: one token never holds both seats.
                        Some(Player::X) => return Err(RoomError::OwnToken),
                        None => {}
                    }
                }
                room.join(hash.clone(), &admission)
                    .map(|joined| joined.named(Player::O, name.clone()))
                    .map(|next| Step::Commit(Box::new(next), ChangeKind::Join))
            })
            .await?;
        Ok(Seated {
            game,
            seat: Player::O,
            token,
            invite: None,
        })
    }

    /// The holder of `token` plays at (`row`, `col`), sent as `key` when
    /// given: a key this seat sent lately is answered with the game as it
    /// stands and plays nothing.
    ///
    /// # Errors
    /// Unknown room, missing or foreign token, a move the room refuses
    /// (409s carry the current game), a store failure.
    pub async fn play(
        &self,
        id: &GameId,
        token: Option<&str>,
        at: Coords,
        version: Option<u64>,
        key: Option<IdempotencyKey>,
    ) -> Result<Snapshot, HubError> {
        let token = token.ok_or(HubError::NoToken)?.to_owned();
        self.change(id, ChangeKind::Move, move |room| {
            let seat = room.seat_of(&token).ok_or(RoomError::NotASeat)?;
            let request = Request::of_move(at);
            if let Some(step) = recalled(room, seat, key.as_ref(), &request)? {
                return Ok(step);
            }
            let (next, _) = room.play(seat, at, version)?;
            Ok(Step::Commit(
                Box::new(remembered(next, seat, key.clone(), request)),
                ChangeKind::Move,
            ))
        })
        .await
    }

    /// The next round in the room, for either seat.
    ///
    /// # Errors
    /// Unknown room, missing or foreign token, the round not over, a store
    /// failure.
    pub async fn rematch(
        &self,
        id: &GameId,
        token: Option<&str>,
        version: Option<u64>,
    ) -> Result<Snapshot, HubError> {
        self.act(id, token, Action::Rematch, version, None).await
    }
}

/// What a seat asks of its room, besides moves and joining.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Resign the round.
    Resign,
    /// Call the round off before both sides have moved.
    Abort,
    /// Offer a draw or a takeback, or accept the other seat's.
    Propose(Proposal),
    /// Withdraw one's own offer, or decline the other seat's.
    Decline(Proposal),
    /// Claim the round: the other seat has left on its move.
    Claim,
    /// Ask for (or accept) the next round.
    Rematch,
    /// Withdraw one's own offer of the next round, or decline the other's.
    NoRematch,
    /// Give the other seat more time.
    GiveTime,
}

impl Action {
    /// The action's name, kept with its idempotency key.
    const fn word(self) -> &'static str {
        match self {
            Action::Resign => "resign",
            Action::Abort => "abort",
            Action::Propose(Proposal::Draw) => "draw",
            Action::Propose(Proposal::Takeback) => "takeback",
            Action::Decline(Proposal::Draw) => "no-draw",
            Action::Decline(Proposal::Takeback) => "no-takeback",
            Action::Claim => "claim",
            Action::Rematch => "rematch",
            Action::NoRematch => "no-rematch",
            Action::GiveTime => "moretime",
        }
    }
}
