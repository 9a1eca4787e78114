use std::time::Instant;

use super::*;
use crate::id::{IdempotencyKey, Token};

fn room(opponent: Opponent) -> Room {
    Room::new(
        GameId::from_trusted("g1"),
        GameId::from_trusted("w1"),
        Rules::default(),
        opponent,
        Player::X,
        Token::from_trusted("tx").hash(),
    )
}

/// An invite that admits anyone: the rooms stored before invites.
const ANYONE: &Admission = &Admission::Invite(None);

fn seated() -> Room {
    room(Opponent::Human)
        .join(Token::from_trusted("to").hash(), ANYONE)
        .unwrap()
}

/// The refusal of `mover`'s move when `to_move` is to move, on 3×3.
fn turn(mover: Player, to_move: Player) -> RoomError {
    let refusal = RoomError::Move {
        error: MoveError::NotYourTurn { mover, to_move },
        size: BoardSize { rows: 3, cols: 3 },
    };
    assert_eq!(refusal.to_string(), format!("it is {to_move}'s turn"));
    refusal
}

#[test]
fn seat_o_of_an_invited_room_takes_its_invite_or_its_lobby_entry() {
    let r = room(Opponent::Human).invited(Token::from_trusted("secret").hash());
    fn join(r: &Room, admission: &Admission) -> Result<Room, RoomError> {
        r.join(Token::from_trusted("to").hash(), admission)
    }
    let invite = |text: &str| Admission::Invite(Some(text.to_owned()));
    for refused in [
        Admission::Invite(None),
        invite(""),
        invite("secreT"),
        invite("g1"),
        // Not listed: no lobby entry admits anyone.
        Admission::Lobby,
    ] {
        assert_eq!(
            join(&r, &refused).unwrap_err(),
            RoomError::NoInvite,
            "{refused:?}"
        );
    }
    let joined = join(&r, &invite("secret")).unwrap();
    assert_eq!(joined.seat_of("to"), Some(Player::O));
    assert_eq!(
        join(&joined, &invite("secret")).unwrap_err(),
        RoomError::SeatTaken(Player::O)
    );
    let listed = r.listed(GameId::from_trusted("e1"));
    assert_eq!(
        join(&listed, &Admission::Lobby).unwrap().seat_of("to"),
        Some(Player::O)
    );
}

#[test]
fn a_human_room_waits_for_its_second_player() {
    let r = room(Opponent::Human);
    assert_eq!(r.view(Viewer::Player).status, RoundStatus::Waiting);
    assert_eq!(r.view(Viewer::Player).next, None);
    assert_eq!(
        r.play(Player::X, Coords::new(0, 0), None).unwrap_err(),
        RoomError::Waiting
    );
    let r = r.join(Token::from_trusted("to").hash(), ANYONE).unwrap();
    assert_eq!(r.version(), 2);
    assert_eq!(r.view(Viewer::Player).status, RoundStatus::Playing);
    assert_eq!(r.seat_of("to"), Some(Player::O));
    assert_eq!(r.seat_of("tx"), Some(Player::X));
    assert_eq!(r.seat_of("t"), None);
    assert_eq!(
        r.join(Token::from_trusted("t3").hash(), ANYONE)
            .unwrap_err(),
        RoomError::SeatTaken(Player::O)
    );
}

#[test]
fn the_computer_holds_seat_o_from_the_start() {
    let r = room(Opponent::Computer(StrategyKind::Perfect));
    assert_eq!(r.view(Viewer::Player).status, RoundStatus::Playing);
    assert!(r.view(Viewer::Player).seats.o);
    assert!(r.join(Token::from_trusted("t").hash(), ANYONE).is_err());
    assert_eq!(r.computer_to_move(), None);
    let (r, _) = r.play(Player::X, Coords::new(1, 1), Some(1)).unwrap();
    assert_eq!(r.computer_to_move(), Some(StrategyKind::Perfect));
}

#[test]
fn refusals_are_checked_in_order_and_change_nothing() {
    let r = seated();
    assert_eq!(
        r.play(Player::O, Coords::new(9, 9), Some(1)).unwrap_err(),
        turn(Player::O, Player::X)
    );
    assert_eq!(
        r.play(Player::X, Coords::new(9, 9), Some(1)).unwrap_err(),
        RoomError::Stale {
            sent: 1,
            current: 2
        }
    );
    let off = r.play(Player::X, Coords::new(-1, 0), Some(2)).unwrap_err();
    assert_eq!(
        off,
        RoomError::Move {
            error: MoveError::OffBoard { row: -1, col: 0 },
            size: BoardSize { rows: 3, cols: 3 }
        }
    );
    assert_eq!(off.to_string(), "row -1, column 0 is off the 3x3 board");
    let (r2, outcome) = r.play(Player::X, Coords::new(0, 0), Some(2)).unwrap();
    assert_eq!(outcome, None);
    assert_eq!(r.version(), 2, "the old room is untouched");
    assert_eq!(r2.version(), 3);
    assert_eq!(r2.view(Viewer::Player).board, "X../.../...");
    assert_eq!(r2.view(Viewer::Player).last, Some([0, 0]));
    let taken = r2.play(Player::O, Coords::new(0, 0), None).unwrap_err();
    assert!(matches!(
        taken,
        RoomError::Move {
            error: MoveError::Occupied { cell, by: Player::X },
            ..
        } if cell == Cell::new(0, 0)
    ));
    assert_eq!(taken.to_string(), "row 0, column 0 is already taken");
}

#[test]
fn a_won_round_scores_and_a_rematch_alternates_the_starter() {
    let mut r = seated();
    for (seat, row, col) in [
        (Player::X, 0, 0),
        (Player::O, 1, 0),
        (Player::X, 0, 1),
        (Player::O, 1, 1),
    ] {
        r = r.play(seat, Coords::new(row, col), None).unwrap().0;
    }
    assert_eq!(
        r.rematch(Player::X, None).unwrap_err(),
        RoomError::StillPlaying
    );
    let (r, outcome) = r.play(Player::X, Coords::new(0, 2), None).unwrap();
    assert_eq!(outcome, Some(Outcome::Win(Player::X)));
    let view = r.view(Viewer::Player);
    assert_eq!(view.status, RoundStatus::Won);
    assert_eq!(view.winner, Some(Player::X));
    assert_eq!(view.line, Some(vec![[0, 0], [0, 1], [0, 2]]));
    assert_eq!(
        view.score,
        Score {
            x: 1,
            o: 0,
            draws: 0
        }
    );
    assert_eq!(
        r.play(Player::O, Coords::new(2, 2), None)
            .unwrap_err()
            .to_string(),
        "the game is over"
    );

    assert!(matches!(
        r.rematch(Player::O, Some(r.version() - 1)).unwrap_err(),
        RoomError::Stale { .. }
    ));
    // Between two people, a rematch is an offer the other accepts.
    let offered = r.rematch(Player::O, Some(r.version())).unwrap();
    assert_eq!(offered.version(), r.version() + 1);
    let view = offered.view(Viewer::Player);
    assert_eq!((view.rematch, view.round), (Some(Player::O), 1));
    assert_eq!(
        offered.rematch(Player::O, None).unwrap_err(),
        RoomError::OfferPending(Player::X)
    );
    // Withdrawn (or declined): no offer, and either may offer again.
    assert!(matches!(
        offered.decline_rematch(Some(r.version())).unwrap_err(),
        RoomError::Stale { .. }
    ));
    let withdrawn = offered.decline_rematch(Some(offered.version())).unwrap();
    assert_eq!(
        (withdrawn.view(Viewer::Player).rematch, withdrawn.version()),
        (None, offered.version() + 1)
    );
    assert_eq!(
        withdrawn.decline_rematch(None).unwrap_err(),
        RoomError::NoRematch
    );
    assert_eq!(
        withdrawn
            .rematch(Player::X, None)
            .unwrap()
            .view(Viewer::Player)
            .rematch,
        Some(Player::X)
    );
    assert_eq!(
        seated().decline_rematch(None).unwrap_err(),
        RoomError::StillPlaying
    );
    let r = offered.rematch(Player::X, Some(offered.version())).unwrap();
    let view = r.view(Viewer::Player);
    assert_eq!(view.rematch, None);
    assert_eq!(
        (view.round, view.first, view.next),
        (2, Player::O, Some(Player::O))
    );
    assert_eq!(view.board, ".../.../...");
    assert_eq!(view.score.x, 1);
    assert_eq!(
        r.play(Player::X, Coords::new(0, 0), None).unwrap_err(),
        turn(Player::X, Player::O)
    );
}

#[test]
fn against_the_computer_a_rematch_begins_at_once() {
    let mut r = room(Opponent::Computer(StrategyKind::Random));
    for (seat, row, col) in [
        (Player::X, 0, 0),
        (Player::O, 1, 0),
        (Player::X, 0, 1),
        (Player::O, 1, 1),
        (Player::X, 0, 2),
    ] {
        r = r.play(seat, Coords::new(row, col), None).unwrap().0;
    }
    let next = r.rematch(Player::X, None).unwrap();
    assert_eq!((next.round(), next.view(Viewer::Player).rematch), (2, None));
}

#[test]
fn a_record_restores_the_same_room() {
    let mut r = seated();
    for (seat, row, col) in [(Player::X, 1, 1), (Player::O, 0, 0), (Player::X, 2, 2)] {
        r = r.play(seat, Coords::new(row, col), None).unwrap().0;
    }
    let back = Room::restore(r.record()).unwrap();
    assert_eq!(back.view(Viewer::Player), r.view(Viewer::Player));
    assert_eq!(back.record(), r.record());

    let mut bad = r.record();
    bad.moves.push(Cell::new(1, 1));
    assert!(
        Room::restore(bad)
            .unwrap_err()
            .contains("stored move 4 refused")
    );
}

/// A seated room on 3×3 under 1+2 (a minute each, two seconds a move).
fn timed() -> Room {
    room(Opponent::Human)
        .timed(TimeControl::fischer(60_000, 2_000))
        .join(Token::from_trusted("to").hash(), ANYONE)
        .unwrap()
}

/// `room` after `seat` plays (`row`, `col`) at `now`, its clock kept.
fn play_at(room: &Room, seat: Player, row: i64, col: i64, now: u64) -> Room {
    room.play(seat, Coords::new(row, col), None)
        .unwrap()
        .0
        .clocked(room, now)
        .unwrap()
}

/// A change without a move (an offer) sends the clocks as of the change:
/// the page counts down from when the GAME came, so the time left at the
/// last move would have put back the time since (a draw offer showed the
/// thinking seat its whole minute again).
#[test]
fn a_change_without_a_move_shows_the_clock_as_of_the_change() {
    let r = play_at(
        &play_at(&timed(), Player::X, 0, 0, 1_000),
        Player::O,
        1,
        0,
        5_000,
    );
    let offered = r
        .propose(Player::O, Proposal::Draw, None, false)
        .unwrap()
        .clocked(&r, 25_000)
        .unwrap();
    let clock = offered.view(Viewer::Player).clock.unwrap();
    assert_eq!(
        (clock.x_ms, clock.at, clock.deadline),
        (40_000, Some(25_000), Some(65_000))
    );
}

#[test]
fn a_seat_gives_the_other_time_on_a_clock_of_minutes_only() {
    let r = play_at(
        &play_at(&timed(), Player::X, 0, 0, 1_000),
        Player::O,
        1,
        0,
        5_000,
    );
    assert_eq!(r.deadline(), Some(65_000), "X's minute runs");
    // O gives X time: X's deadline moves; a repeat gives more.
    let given = r.give_time(Player::O, Some(r.version())).unwrap();
    assert_eq!(given.version(), r.version() + 1);
    assert_eq!(given.deadline(), Some(65_000 + GIFT_MS));
    // The clock as stored keeps it, and the next change keeps it too.
    let back = Room::restore(given.record()).unwrap();
    assert_eq!(back.deadline(), given.deadline());
    let moved = play_at(&given, Player::X, 0, 1, 15_000);
    assert_eq!(
        moved.clock().unwrap().left(Player::X, 15_000),
        60_000 + GIFT_MS - 10_000 + 2_000
    );
    assert!(matches!(
        refused(&given, |g| g.give_time(Player::O, Some(r.version()))),
        RoomError::Stale { .. }
    ));
    // No clock of minutes, nothing to give; nor once the round is over.
    assert_eq!(
        refused(&seated(), |r| r.give_time(Player::X, None)),
        RoomError::NoTimeToGive
    );
    let days = room(Opponent::Human)
        .timed(TimeControl::days(3))
        .join(Token::from_trusted("to").hash(), ANYONE)
        .unwrap();
    assert_eq!(
        refused(&days, |r| r.give_time(Player::X, None)),
        RoomError::NoTimeToGive
    );
    // Given past the deadline (a change the flag's ruling did not come
    // before): too late, as a move would be; the flag is not revived.
    assert_eq!(
        r.give_time(Player::O, None)
            .unwrap()
            .clocked(&r, 65_000)
            .unwrap_err(),
        RoomError::OutOfTime(Player::X)
    );
    let resigned = given.resign(Player::X, None).unwrap();
    assert_eq!(
        refused(&resigned, |r| r.give_time(Player::O, None)),
        RoomError::RoundOver
    );
}

#[test]
fn a_timed_room_starts_its_clock_on_the_second_move_and_stops_it_at_the_end() {
    let r = timed();
    assert_eq!((r.deadline(), r.flagged(u64::MAX)), (None, None));
    let r = play_at(&r, Player::X, 0, 0, 1_000);
    assert_eq!(
        (r.deadline(), r.clock().unwrap().running()),
        (Some(1_000 + oxo_core::FIRST_MOVE_MS), None),
        "the first moves are untimed: only O's first move is awaited"
    );
    let r = play_at(&r, Player::O, 1, 0, 5_000);
    assert_eq!(r.deadline(), Some(65_000), "X's minute runs");
    let r = play_at(&r, Player::X, 0, 1, 15_000);
    assert_eq!(r.clock().unwrap().left(Player::X, 15_000), 52_000);
    assert_eq!(r.deadline(), Some(75_000), "O's minute runs");
    assert_eq!(r.flagged(74_999), None);
    assert_eq!(r.flagged(75_000), Some(Player::O));
    // Too late: the room refuses the change and is left as it was.
    let late = r.play(Player::O, Coords::new(1, 1), None).unwrap().0;
    assert_eq!(
        late.clocked(&r, 75_000).unwrap_err(),
        RoomError::OutOfTime(Player::O)
    );
    assert_eq!(
        RoomError::OutOfTime(Player::O).to_string(),
        "o has run out of time"
    );
    // O plays, X completes the top row: the clock stops, no deadline.
    let r = play_at(&r, Player::O, 1, 1, 20_000);
    let won = play_at(&r, Player::X, 0, 2, 30_000);
    assert_eq!(won.view(Viewer::Player).status, RoundStatus::Won);
    assert_eq!(won.deadline(), None);
    let clock = won.clock().unwrap();
    assert_eq!(clock.running(), None);
    assert_eq!(clock.left(Player::X, u64::MAX), 52_000 - 10_000 + 2_000);
    // The next round starts with fresh clocks, not running: only the
    // first move of its first mover (O) is awaited, from the rematch.
    let offered = won.rematch(Player::O, None).unwrap().clocked(&won, 31_000);
    let offered = offered.unwrap();
    let next = offered
        .rematch(Player::X, None)
        .unwrap()
        .clocked(&offered, 32_000)
        .unwrap();
    assert_eq!(next.round(), 2);
    assert_eq!(
        next.clock(),
        Some(
            &Clock::new(TimeControl::fischer(60_000, 2_000)).awaiting_first_move(Player::O, 32_000)
        )
    );
}

#[test]
fn a_flag_loses_the_round_on_time_or_draws_it_when_the_other_could_not_win() {
    // X and O make their untimed first moves; X's minute runs from 5 s.
    let r = play_at(
        &play_at(&timed(), Player::X, 0, 0, 1_000),
        Player::O,
        1,
        1,
        5_000,
    );
    assert!(r.rule_flag(64_999).is_none(), "not yet");
    let ruled = r.rule_flag(65_000).unwrap();
    assert_eq!(ruled.version(), r.version() + 1);
    let view = ruled.view(Viewer::Player);
    assert_eq!(
        (view.status, view.winner, view.reason),
        (RoundStatus::Won, Some(Player::O), Some(Reason::Time))
    );
    assert_eq!(view.score.o, 1);
    let clock = view.clock.unwrap();
    assert_eq!((clock.x_ms, clock.running, clock.deadline), (0, None, None));
    assert_eq!((ruled.deadline(), ruled.flagged(u64::MAX)), (None, None));
    assert!(ruled.rule_flag(u64::MAX).is_none(), "ruled once");
    assert_eq!(
        ruled.play(Player::X, Coords::new(2, 2), None).unwrap_err(),
        RoomError::Move {
            error: MoveError::GameOver,
            size: BoardSize { rows: 3, cols: 3 }
        }
    );
    // On 1×4 with k=3, X's first mark blocks both of O's windows: O
    // could not have won, so X's flag draws the round.
    let narrow = Room::new(
        GameId::from_trusted("g2"),
        GameId::from_trusted("w2"),
        Rules::new(1, 4, 3).unwrap(),
        Opponent::Human,
        Player::X,
        Token::from_trusted("tx").hash(),
    )
    .timed(TimeControl::fischer(60_000, 0))
    .join(Token::from_trusted("to").hash(), ANYONE)
    .unwrap();
    let narrow = play_at(&play_at(&narrow, Player::X, 0, 1, 0), Player::O, 0, 0, 0);
    let drawn = narrow.rule_flag(60_000).unwrap().view(Viewer::Player);
    assert_eq!(
        (drawn.status, drawn.winner, drawn.reason),
        (RoundStatus::Draw, None, Some(Reason::Time))
    );
    assert_eq!(drawn.score.draws, 1);
}

#[test]
fn a_takeback_restarts_the_clock_of_the_seat_to_move() {
    let r = play_at(&play_at(&timed(), Player::X, 0, 0, 0), Player::O, 1, 1, 0);
    // X moves at 10 s (50 s left, +2); O's clock runs.
    let r = play_at(&r, Player::X, 2, 2, 10_000);
    let asked = r
        .propose(Player::X, Proposal::Takeback, None, false)
        .unwrap();
    let asked = asked.clocked(&r, 11_000).unwrap();
    assert_eq!(asked.deadline(), Some(70_000), "an offer changes no clock");
    // O accepts at 15 s: O is charged 5 s, X's clock runs again.
    let taken = asked
        .propose(Player::O, Proposal::Takeback, None, false)
        .unwrap()
        .clocked(&asked, 15_000)
        .unwrap();
    assert_eq!(taken.moves().len(), 2);
    let clock = taken.clock().unwrap();
    assert_eq!(clock.running(), Some(Player::X));
    assert_eq!(
        (clock.left(Player::X, 15_000), clock.left(Player::O, 15_000)),
        (52_000, 55_000)
    );
    assert_eq!(taken.deadline(), Some(15_000 + 52_000));
}

/// lichess's rule: a round whose seat to move lets the time for its first
/// move pass is called off (it counts for nobody), each seat's wait
/// starting with its turn; the computer keeps nobody waiting.
#[test]
fn a_first_move_not_made_in_time_calls_the_round_off() {
    use oxo_core::FIRST_MOVE_MS;
    // O takes its seat at 1 s: X's first move is awaited from then.
    let open = room(Opponent::Human).timed(TimeControl::fischer(60_000, 2_000));
    let r = open
        .join(Token::from_trusted("to").hash(), ANYONE)
        .unwrap()
        .clocked(&open, 1_000)
        .unwrap();
    let x_by = 1_000 + FIRST_MOVE_MS;
    assert_eq!(r.deadline(), Some(x_by));
    let view = r.view(Viewer::Player).clock.unwrap();
    assert_eq!(
        (view.at, view.first_move_ms, view.first_move_deadline),
        (Some(1_000), Some(FIRST_MOVE_MS), Some(x_by))
    );
    let later = view.as_of(11_000).unwrap();
    assert_eq!(
        (later.at, later.first_move_ms, later.first_move_deadline),
        (Some(11_000), Some(FIRST_MOVE_MS - 10_000), Some(x_by))
    );
    assert_eq!(
        (later.x_ms, later.o_ms, later.running),
        (60_000, 60_000, None)
    );
    // A change meanwhile does not restart the wait, nor does time given
    // extend it (it is not on the clock).
    let given = r
        .give_time(Player::O, None)
        .unwrap()
        .clocked(&r, 20_000)
        .unwrap();
    assert_eq!(given.deadline(), Some(x_by));
    assert_eq!(given.missed_first_move(x_by), Some(Player::X));
    let view = given.view(Viewer::Player).clock.unwrap();
    assert_eq!(
        (view.at, view.first_move_ms),
        (Some(20_000), Some(x_by - 20_000)),
        "measured as of the change"
    );
    assert_eq!(
        (r.missed_first_move(x_by - 1), r.overdue(x_by - 1)),
        (None, false)
    );
    assert_eq!(
        (r.missed_first_move(x_by), r.overdue(x_by)),
        (Some(Player::X), true)
    );
    // A move at the limit is too late.
    let late = r.play(Player::X, Coords::new(1, 1), None).unwrap().0;
    assert_eq!(
        late.clocked(&r, x_by).unwrap_err(),
        RoomError::OutOfTime(Player::X)
    );
    // Ruled: called off, nobody scores, nothing more to rule.
    let off = r.rule_flag(x_by).unwrap();
    let view = off.view(Viewer::Player);
    assert_eq!(off.reason(), Some(Reason::NoStart));
    assert_eq!(view.winner, None);
    assert_eq!(serde_json::to_value(&view).unwrap()["reason"], "nostart");
    assert_eq!(
        off.record().series(),
        r.record().series(),
        "it counts for nobody"
    );
    assert_eq!((off.deadline(), off.overdue(u64::MAX)), (None, false));
    assert_eq!(view.clock.unwrap().first_move_deadline, None);
    // Made in time, X's move starts O's wait, from the move.
    let moved = play_at(&r, Player::X, 1, 1, 20_000);
    assert_eq!(moved.deadline(), Some(20_000 + FIRST_MOVE_MS));
    assert_eq!(moved.missed_first_move(50_000), Some(Player::O));
    assert_eq!(
        moved.rule_flag(50_000).unwrap().reason(),
        Some(Reason::NoStart)
    );
    // X asks to take its move back and O declines: O's wait goes on.
    let asked = moved
        .propose(Player::X, Proposal::Takeback, None, false)
        .unwrap()
        .clocked(&moved, 25_000)
        .unwrap();
    let declined = asked
        .decline(Proposal::Takeback, None)
        .unwrap()
        .clocked(&asked, 26_000)
        .unwrap();
    assert_eq!(declined.deadline(), Some(20_000 + FIRST_MOVE_MS));
    // O's first move ends the waits: X's clock runs.
    let started = play_at(&moved, Player::O, 0, 0, 49_999);
    assert_eq!(started.deadline(), Some(49_999 + 60_000));
    assert_eq!(started.clock().unwrap().first_move_awaited(), None);
    // Restored from its record, a room awaits the same first move.
    let back = Room::restore(moved.record()).unwrap();
    assert_eq!(back.deadline(), moved.deadline());
}

#[test]
fn a_timed_room_shows_its_clocks_and_restores_them_exactly() {
    let r = play_at(
        &play_at(&timed(), Player::X, 1, 1, 1_000),
        Player::O,
        0,
        0,
        2_000,
    );
    let r = play_at(&r, Player::X, 2, 2, 12_000);
    let json = serde_json::to_value(r.view(Viewer::Player)).unwrap();
    assert_eq!(
        json["clock"],
        serde_json::json!({
            "initial_ms": 60_000, "increment_ms": 2_000, "days": null,
            "x_ms": 52_000, "o_ms": 60_000, "running": "o",
            "at": 12_000, "deadline": 72_000, "first_move_ms": null,
            "first_move_deadline": null
        })
    );
    let back = Room::restore(r.record()).unwrap();
    assert_eq!(back.record(), r.record());
    assert_eq!(back.deadline(), Some(72_000));
    // Measured later, the running side has less.
    let view = r.view(Viewer::Player).clock.unwrap();
    let later = view.as_of(20_000).unwrap();
    assert_eq!(
        (later.x_ms, later.o_ms, later.at, later.deadline),
        (52_000, 52_000, Some(20_000), Some(72_000))
    );
    assert_eq!(view.as_of(12_000), None);
    assert_eq!(later.as_of(99_999).unwrap().o_ms, 0);
    // Correspondence shows its days.
    let days = room(Opponent::Human).timed(TimeControl::days(3));
    let view = days.view(Viewer::Player).clock.unwrap();
    assert_eq!(
        (view.days, view.initial_ms, view.running, view.deadline),
        (Some(3), 3 * oxo_core::DAY_MS, None, None)
    );
}

#[test]
fn spectators_see_the_watch_id_only() {
    let view = seated().view(Viewer::Spectator);
    assert_eq!((view.id.as_str(), view.watch.as_str()), ("w1", "w1"));
    assert_eq!(view.board, seated().view(Viewer::Player).board);
}

#[test]
fn the_view_serialises_as_the_api_says() {
    let json = serde_json::to_value(seated().view(Viewer::Player)).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "id": "g1", "watch": "w1", "size": "3x3", "rows": 3, "cols": 3, "k": 3,
            "board": ".../.../...", "next": "x", "status": "playing", "reason": null,
            "winner": null, "line": null, "last": null, "moves": [], "version": 2,
            "round": 1, "first": "x", "opponent": "human",
            "seats": {"x": true, "o": true},
            "score": {"x": 0, "o": 0, "draws": 0}, "rematch": null,
            "players": {"x": null, "o": null},
            "offers": {"draw": null, "takeback": null, "made": {"draw": [], "takeback": []}},
            "clock": null, "listed": false
        })
    );
}

/// `r` after `moves` (row, col), each by the seat to move.
fn after(mut r: Room, moves: &[(i64, i64)]) -> Room {
    for &(row, col) in moves {
        let seat = r.to_move().expect("the round is on");
        r = r.play(seat, Coords::new(row, col), None).unwrap().0;
    }
    r
}

/// The refusal of `attempt` on `r`. (Every method takes the room by
/// reference and returns a new one, so a refusal cannot change `r`;
/// that a refused request changes nothing stored, and leaves its
/// idempotency key free, is checked through the hub, in
/// `hub/tests.rs`.)
fn refused(r: &Room, attempt: impl FnOnce(&Room) -> Result<Room, RoomError>) -> RoomError {
    attempt(r).unwrap_err()
}

fn score(r: &Room) -> (u64, u64, u64) {
    let s = r.view(Viewer::Player).score;
    (s.x, s.o, s.draws)
}

#[test]
fn a_resignation_ends_the_round_for_the_other_seat_and_the_next_round_follows() {
    let r = after(seated(), &[(1, 1), (2, 2)]);
    let v = r.version();
    assert!(matches!(
        refused(&r, |r| r.resign(Player::O, Some(v - 1))),
        RoomError::Stale { .. }
    ));
    let resigned = r.resign(Player::O, Some(v)).unwrap();
    let view = resigned.view(Viewer::Player);
    assert_eq!(
        (view.status, view.reason, view.winner, view.next, view.line),
        (
            RoundStatus::Won,
            Some(Reason::Resign),
            Some(Player::X),
            None,
            None
        )
    );
    assert_eq!(score(&resigned), (1, 0, 0));
    assert_eq!(resigned.version(), v + 1);
    // Over: no more moves, resignations, aborts, offers or claims.
    assert_eq!(
        refused(&resigned, |r| r
            .play(Player::O, Coords::new(0, 0), None)
            .map(|p| p.0)),
        RoomError::of_move(MoveError::GameOver, Rules::default())
    );
    assert_eq!(
        refused(&resigned, |r| r.resign(Player::X, None)),
        RoomError::RoundOver
    );
    assert_eq!(refused(&resigned, |r| r.abort(None)), RoomError::RoundOver);
    assert_eq!(
        refused(&resigned, |r| r.propose(
            Player::X,
            Proposal::Draw,
            None,
            false
        )),
        RoomError::RoundOver
    );
    // The next round works as after a line.
    let next = resigned.rematch(Player::O, None).unwrap();
    let next = next.rematch(Player::X, None).unwrap();
    let view = next.view(Viewer::Player);
    assert_eq!(
        (view.round, view.status, view.reason),
        (2, RoundStatus::Playing, None)
    );
    assert_eq!(view.next, Some(Player::O));
    assert_eq!(score(&next), (1, 0, 0));
    // A restored room is the same ended room.
    let back = Room::restore(resigned.record()).unwrap();
    assert_eq!(back.view(Viewer::Player), resigned.view(Viewer::Player));
}

#[test]
fn a_game_waiting_for_seat_o_is_cancelled_by_abort_and_joins_nobody_after() {
    let waiting = room(Opponent::Human)
        .invited(Token::from_trusted("secret").hash())
        .listed(GameId::from_trusted("e1"));
    assert!(!waiting.cancelled());
    assert_eq!(
        refused(&waiting, |r| r.abort(Some(7))),
        RoomError::Stale {
            sent: 7,
            current: 1
        }
    );
    let cancelled = waiting.abort(Some(1)).unwrap();
    assert!(cancelled.cancelled());
    let view = cancelled.view(Viewer::Player);
    assert_eq!(
        (view.status, view.reason, view.winner, view.version),
        (RoundStatus::Aborted, Some(Reason::Aborted), None, 2)
    );
    assert_eq!(score(&cancelled), (0, 0, 0));
    // Neither its invite nor its lobby entry seats anyone now.
    let invite = Admission::Invite(Some("secret".to_owned()));
    for admission in [invite, Admission::Lobby] {
        assert_eq!(
            cancelled
                .join(Token::from_trusted("to").hash(), &admission)
                .unwrap_err(),
            RoomError::Cancelled,
            "{admission:?}"
        );
    }
    // Cancelled, not waiting: nothing else to do in it, a rematch
    // included (it had no round to play again).
    assert_eq!(
        refused(&cancelled, |r| r.abort(None)),
        RoomError::CancelledUnjoined
    );
    assert_eq!(
        refused(&cancelled, |r| r.resign(Player::X, None)),
        RoomError::CancelledUnjoined
    );
    assert_eq!(
        refused(&cancelled, |r| r.rematch(Player::X, None)),
        RoomError::CancelledUnjoined
    );
    assert_eq!(
        refused(&cancelled, |r| r.decline_rematch(None)),
        RoomError::CancelledUnjoined
    );
    assert_eq!(
        cancelled
            .play(Player::X, Coords::new(0, 0), None)
            .unwrap_err(),
        RoomError::CancelledUnjoined
    );
    // A waiting game not cancelled still says it waits.
    assert_eq!(
        refused(&waiting, |r| r.resign(Player::X, None)),
        RoomError::Waiting
    );
    // The record keeps it cancelled across a restart.
    let back = Room::restore(cancelled.record()).unwrap();
    assert!(back.cancelled());
}

#[test]
fn a_round_is_aborted_only_until_both_sides_have_moved_and_counts_for_nobody() {
    let r = seated();
    let aborted = r.abort(None).unwrap();
    let view = aborted.view(Viewer::Player);
    assert_eq!(
        (view.status, view.reason, view.winner),
        (RoundStatus::Aborted, Some(Reason::Aborted), None)
    );
    assert_eq!(score(&aborted), (0, 0, 0));
    // After one move either side may still abort; after two, neither.
    let one = after(seated(), &[(0, 0)]);
    assert_eq!(one.abort(None).unwrap().reason(), Some(Reason::Aborted));
    let two = after(one, &[(1, 1)]);
    assert_eq!(refused(&two, |r| r.abort(None)), RoomError::TooLateToAbort);
    let next = aborted
        .rematch(Player::X, None)
        .unwrap()
        .rematch(Player::O, None)
        .unwrap();
    assert_eq!((next.round(), next.reason()), (2, None));
    assert_eq!(score(&next), (0, 0, 0));
}

#[test]
fn until_both_sides_have_moved_a_round_is_neither_resigned_nor_drawn() {
    // Lichess's rule: a game is scored only once each side has played in
    // it; before that, leaving it is an abort.
    for young in [seated(), after(seated(), &[(0, 0)])] {
        for seat in [Player::X, Player::O] {
            assert_eq!(
                refused(&young, |r| r.resign(seat, None)),
                RoomError::AbortOnly
            );
            assert_eq!(
                refused(&young, |r| r.propose(seat, Proposal::Draw, None, true)),
                RoomError::AbortOnly
            );
        }
    }
    // A takeback is still asked for by the seat that has moved.
    let one = after(seated(), &[(0, 0)]);
    assert!(
        one.propose(Player::X, Proposal::Takeback, None, false)
            .is_ok()
    );
    // From the second move on, both are as before.
    let two = after(one, &[(1, 1)]);
    assert_eq!(
        two.resign(Player::O, None).unwrap().reason(),
        Some(Reason::Resign)
    );
    let offered = two.propose(Player::O, Proposal::Draw, None, false).unwrap();
    assert_eq!(offered.proposal(Proposal::Draw), Some(Player::O));
    // A takeback to before the second move leaves no draw to accept.
    let back = offered
        .propose(Player::O, Proposal::Takeback, None, false)
        .unwrap()
        .propose(Player::X, Proposal::Takeback, None, false)
        .unwrap();
    assert_eq!(back.proposal(Proposal::Draw), None);
    assert_eq!(
        refused(&back, |r| r.propose(Player::X, Proposal::Draw, None, false)),
        RoomError::AbortOnly
    );
}

#[test]
fn a_draw_offer_is_accepted_by_the_other_side_and_declined_by_its_move() {
    let r = after(seated(), &[(1, 1), (0, 1), (2, 1)]);
    let offered = r.propose(Player::O, Proposal::Draw, None, false).unwrap();
    assert_eq!(
        offered.view(Viewer::Player).offers,
        Offers {
            draw: Some(Player::O),
            takeback: None,
            made: Made {
                draw: vec![Player::O],
                takeback: vec![]
            }
        }
    );
    assert_eq!(
        refused(&offered, |r| r.propose(
            Player::O,
            Proposal::Draw,
            None,
            false
        )),
        RoomError::Proposed(Proposal::Draw, Player::X)
    );
    // The offerer's own move keeps it; the other side's declines it.
    let moved = after(offered.clone(), &[(0, 0)]);
    assert_eq!(moved.proposal(Proposal::Draw), Some(Player::O));
    let moved = after(moved, &[(2, 2)]);
    assert_eq!(moved.proposal(Proposal::Draw), None, "X's move declined it");
    // ...the other side accepts it.
    let drawn = offered
        .propose(Player::X, Proposal::Draw, None, false)
        .unwrap();
    let view = drawn.view(Viewer::Player);
    assert_eq!(
        (view.status, view.reason, view.winner),
        (RoundStatus::Draw, Some(Reason::Agreement), None)
    );
    assert_eq!(score(&drawn), (0, 0, 1));
    assert_eq!(view.offers.draw, None);
    // Withdrawn by the offerer, or declined by the other (the same
    // change: the offer goes).
    let withdrawn = offered
        .decline(Proposal::Draw, Some(offered.version()))
        .unwrap();
    assert_eq!(withdrawn.proposal(Proposal::Draw), None);
    assert_eq!(withdrawn.version(), offered.version() + 1);
    assert_eq!(withdrawn.to_move(), Some(Player::O));
    assert_eq!(
        refused(&r, |r| r.decline(Proposal::Draw, None)),
        RoomError::NoProposal(Proposal::Draw)
    );
}

#[test]
fn an_offer_is_made_again_only_after_the_seats_next_move() {
    let r = after(seated(), &[(1, 1), (0, 1), (2, 1)]);
    let made = |r: &Room, what| {
        let made = r.view(Viewer::Player).offers.made;
        match what {
            Proposal::Draw => made.draw,
            Proposal::Takeback => made.takeback,
        }
    };
    // O offers and withdraws; X declines the second offer after O moved.
    let offered = r.propose(Player::O, Proposal::Draw, None, false).unwrap();
    let withdrawn = offered.decline(Proposal::Draw, None).unwrap();
    assert_eq!(made(&withdrawn, Proposal::Draw), [Player::O]);
    assert_eq!(
        refused(&withdrawn, |r| r.propose(
            Player::O,
            Proposal::Draw,
            None,
            false
        )),
        RoomError::OfferedThisMove(Proposal::Draw)
    );
    // X, who made no offer, may; O accepting it is no offer of O's.
    let by_x = withdrawn
        .propose(Player::X, Proposal::Draw, None, false)
        .unwrap();
    assert_eq!(made(&by_x, Proposal::Draw), [Player::X, Player::O]);
    assert_eq!(
        by_x.propose(Player::O, Proposal::Draw, None, false)
            .unwrap()
            .reason(),
        Some(Reason::Agreement)
    );
    // O's move frees O (and declines X's offer); X has not moved since.
    let moved = after(by_x, &[(0, 0)]);
    assert_eq!(made(&moved, Proposal::Draw), [Player::X]);
    let again = moved
        .propose(Player::O, Proposal::Draw, None, false)
        .unwrap();
    assert_eq!(again.proposal(Proposal::Draw), Some(Player::O));
    assert_eq!(
        refused(&moved, |r| r.propose(
            Player::X,
            Proposal::Draw,
            None,
            false
        )),
        RoomError::OfferedThisMove(Proposal::Draw)
    );
    // A takeback asked and declined waits for the asker's move the same
    // way, apart from draws.
    let asked = moved
        .propose(Player::O, Proposal::Takeback, None, false)
        .unwrap()
        .decline(Proposal::Takeback, None)
        .unwrap();
    assert_eq!(
        refused(&asked, |r| r.propose(
            Player::O,
            Proposal::Takeback,
            None,
            false
        )),
        RoomError::OfferedThisMove(Proposal::Takeback)
    );
    assert_eq!(made(&asked, Proposal::Takeback), [Player::O]);
    let moved = after(asked, &[(0, 2), (2, 0)]);
    assert!(made(&moved, Proposal::Takeback).is_empty());
    assert!(
        moved
            .propose(Player::O, Proposal::Takeback, None, false)
            .is_ok()
    );
    // A takeback granted forgets every offer made: X, back at as many
    // moves as when it offered, may offer again, and after moving again.
    let taken = moved
        .propose(Player::X, Proposal::Draw, None, false)
        .unwrap()
        .decline(Proposal::Draw, None)
        .unwrap()
        .propose(Player::X, Proposal::Takeback, None, false)
        .unwrap()
        .propose(Player::O, Proposal::Takeback, None, false)
        .unwrap();
    assert!(made(&taken, Proposal::Draw).is_empty());
    assert!(made(&taken, Proposal::Takeback).is_empty());
    assert!(
        taken
            .propose(Player::X, Proposal::Draw, None, false)
            .is_ok()
    );
    let replayed = after(taken, &[(0, 2)]);
    for what in [Proposal::Draw, Proposal::Takeback] {
        assert!(replayed.propose(Player::X, what, None, false).is_ok());
    }
    // A new round starts with no offer made.
    let won = after(seated(), &[(0, 0), (1, 0), (0, 1), (1, 1)])
        .propose(Player::O, Proposal::Draw, None, false)
        .unwrap();
    let won = after(won, &[(0, 2)]);
    let next = won
        .rematch(Player::X, None)
        .unwrap()
        .rematch(Player::O, None)
        .unwrap();
    assert_eq!(next.record().offers_made, OffersMade::default());
}

#[test]
fn no_offer_outlives_its_round() {
    // X offers a draw, then wins with its own move.
    let r = after(seated(), &[(0, 0), (1, 0), (0, 1), (1, 1)]);
    let offered = r.propose(Player::X, Proposal::Draw, None, false).unwrap();
    let won = after(offered, &[(0, 2)]);
    assert!(won.round_over());
    assert_eq!(won.proposal(Proposal::Draw), None, "the win ended it");
    assert_eq!(won.view(Viewer::Player).offers.draw, None);
    // Nothing about offers changes once the round is over.
    assert_eq!(
        refused(&won, |r| r.decline(Proposal::Draw, None)),
        RoomError::RoundOver
    );
    assert_eq!(
        refused(&won, |r| r.decline(Proposal::Takeback, None)),
        RoomError::RoundOver
    );
    // A round that ended with an offer standing (as stored before this
    // rule) starts the next one with none: O cannot accept it there.
    let mut stale = won.clone();
    stale.rec.draw = Some(Player::X);
    stale.rec.takeback = Some(Player::X);
    let next = stale
        .rematch(Player::X, None)
        .unwrap()
        .rematch(Player::O, None)
        .unwrap();
    assert_eq!(next.moves().len(), 0);
    assert_eq!(
        (
            next.proposal(Proposal::Draw),
            next.proposal(Proposal::Takeback)
        ),
        (None, None)
    );
    let asked = after(next, &[(0, 0), (1, 1)])
        .propose(Player::O, Proposal::Draw, None, false)
        .unwrap();
    assert!(
        !asked.round_over(),
        "O's word is an offer, not an acceptance"
    );
}

#[test]
fn a_takeback_takes_back_the_proposers_last_move_and_the_reply_after_it() {
    let r = seated();
    assert_eq!(
        refused(&r, |r| r.propose(
            Player::X,
            Proposal::Takeback,
            None,
            false
        )),
        RoomError::NothingToTakeBack
    );
    // X moved last: X's takeback removes one move.
    let r1 = after(seated(), &[(1, 1), (0, 0), (2, 2)]);
    let asked = r1
        .propose(Player::X, Proposal::Takeback, None, false)
        .unwrap();
    assert_eq!(asked.view(Viewer::Player).offers.takeback, Some(Player::X));
    assert_eq!(
        asked.moves().len(),
        3,
        "nothing taken back before it is accepted"
    );
    let taken = asked
        .propose(Player::O, Proposal::Takeback, None, false)
        .unwrap();
    assert_eq!(taken.view(Viewer::Player).board, "O../.X./...");
    assert_eq!(taken.to_move(), Some(Player::X));
    assert_eq!(taken.proposal(Proposal::Takeback), None);
    // O asks on its own move: its last move and X's reply go.
    let asked = r1
        .propose(Player::O, Proposal::Takeback, None, false)
        .unwrap();
    let taken = asked
        .propose(Player::X, Proposal::Takeback, None, false)
        .unwrap();
    assert_eq!(taken.view(Viewer::Player).board, ".../.X./...");
    assert_eq!(taken.to_move(), Some(Player::O));
    // Any move ends a pending request.
    let asked = r1
        .propose(Player::X, Proposal::Takeback, None, false)
        .unwrap();
    let moved = after(asked, &[(0, 2)]);
    assert_eq!(moved.proposal(Proposal::Takeback), None);
    // A restored room has the same moves.
    let back = Room::restore(taken.record()).unwrap();
    assert_eq!(back.view(Viewer::Player), taken.view(Viewer::Player));
}

#[test]
fn against_the_computer_a_takeback_is_granted_and_a_draw_follows_the_verdict() {
    let r = after(
        room(Opponent::Computer(StrategyKind::Perfect)),
        &[(1, 1), (0, 0)],
    );
    let taken = r
        .propose(Player::X, Proposal::Takeback, None, false)
        .unwrap();
    assert_eq!(taken.moves(), &[] as &[Cell]);
    assert_eq!(taken.to_move(), Some(Player::X));
    // Asked while the computer is to move: only the person's move goes.
    let thinking = after(r.clone(), &[(2, 2)]);
    let taken = thinking
        .propose(Player::X, Proposal::Takeback, None, false)
        .unwrap();
    assert_eq!(taken.moves().len(), 2);
    assert_eq!(taken.to_move(), Some(Player::X));
    assert_eq!(
        refused(&r, |r| r.propose(Player::X, Proposal::Draw, None, false)),
        RoomError::DrawDeclined
    );
    let drawn = r.propose(Player::X, Proposal::Draw, None, true).unwrap();
    assert_eq!(drawn.reason(), Some(Reason::Agreement));
    assert_eq!(drawn.computer_to_move(), None);
    assert_eq!(
        refused(&r, |r| r.claim(
            Player::X,
            None,
            Some(Instant::now()),
            None,
            Instant::now(),
            Duration::ZERO
        )),
        RoomError::ClaimAgainstComputer
    );
    let resigned = r.resign(Player::X, None).unwrap();
    assert_eq!(resigned.view(Viewer::Player).winner, Some(Player::O));
    let next = resigned.rematch(Player::X, None).unwrap();
    assert_eq!((next.round(), next.reason()), (2, None));
}

#[test]
fn an_absence_counted_from_later_says_how_long_it_truly_was_and_is_left() {
    let wait = Duration::from_secs(30);
    let t0 = Instant::now();
    let r = after(seated(), &[(1, 1), (0, 0), (2, 2)]);
    // O left at t0; the feed came back at t0 + 5 s, so its absence counts
    // from t0 + 15 s (a heartbeat later).
    let counts_from = Some(t0 + Duration::from_secs(15));
    let claim = |now: Instant| r.claim(Player::X, None, Some(t0), counts_from, now, wait);
    let early = claim(t0 + Duration::from_secs(12)).unwrap_err();
    assert_eq!(
        early.to_string(),
        "o has been gone for 12 s; the round can be claimed in 33 s"
    );
    let almost = claim(t0 + Duration::from_secs(44)).unwrap_err();
    assert_eq!(
        almost.to_string(),
        "o has been gone for 44 s; the round can be claimed in 1 s"
    );
    assert!(claim(t0 + Duration::from_secs(45)).is_ok());
    // Gone since before an earlier outage's count starts: no change.
    let later = r
        .claim(
            Player::X,
            None,
            Some(t0 + Duration::from_secs(20)),
            counts_from,
            t0 + Duration::from_secs(30),
            wait,
        )
        .unwrap_err();
    assert_eq!(
        later.to_string(),
        "o has been gone for 10 s; the round can be claimed in 20 s"
    );
}

#[test]
fn a_win_is_claimed_only_on_the_absent_seats_move_after_the_wait() {
    let wait = Duration::from_secs(30);
    let t0 = Instant::now();
    let r = after(seated(), &[(1, 1), (0, 0), (2, 2)]);
    // O is to move; X claims.
    let claim = |r: &Room, seat, gone: Option<Instant>, now: Instant| {
        r.claim(seat, None, gone, None, now, wait)
    };
    assert_eq!(
        refused(&r, |r| claim(r, Player::X, None, t0)),
        RoomError::StillHere(Player::O, wait)
    );
    let early = refused(&r, |r| {
        claim(r, Player::X, Some(t0), t0 + Duration::from_secs(12))
    });
    assert_eq!(
        early.to_string(),
        "o has been gone for 12 s; the round can be claimed in 18 s"
    );
    assert_eq!(
        refused(&r, |r| claim(r, Player::O, Some(t0), t0 + wait)),
        RoomError::NotTheirMove(Player::X)
    );
    let claimed = claim(&r, Player::X, Some(t0), t0 + wait).unwrap();
    let view = claimed.view(Viewer::Player);
    assert_eq!(
        (view.status, view.reason, view.winner),
        (RoundStatus::Won, Some(Reason::Abandoned), Some(Player::X))
    );
    assert_eq!(score(&claimed), (1, 0, 0));
    // Gone before a move of their own, as X with no move yet or O after
    // X's first: the round is aborted, for nobody.
    for (r, claimant) in [
        (seated(), Player::O),
        (after(seated(), &[(1, 1)]), Player::X),
    ] {
        let claimed = claim(&r, claimant, Some(t0), t0 + wait).unwrap();
        let view = claimed.view(Viewer::Player);
        assert_eq!(
            (view.status, view.reason, view.winner),
            (RoundStatus::Aborted, Some(Reason::Aborted), None)
        );
        assert_eq!(score(&claimed), (0, 0, 0));
    }
}

/// A correspondence player may be away for days between moves: the move's
/// deadline decides, and there is no win to claim, however long gone.
#[test]
fn a_correspondence_round_is_never_claimed() {
    let wait = Duration::from_secs(30);
    let t0 = Instant::now();
    let r = room(Opponent::Human)
        .timed(TimeControl::days(3))
        .join(Token::from_trusted("to").hash(), ANYONE)
        .unwrap();
    let r = after(r, &[(1, 1), (0, 0), (2, 2)]);
    let refusal = refused(&r, |r| {
        r.claim(
            Player::X,
            None,
            Some(t0),
            None,
            t0 + Duration::from_secs(86_400),
            wait,
        )
    });
    assert_eq!(refusal, RoomError::ClaimInCorrespondence(Player::O));
    assert!(refusal.to_string().contains("correspondence"), "{refusal}");
    // Before both sides have moved no clock runs: a claim aborts the round,
    // as in any game.
    let young = after(
        room(Opponent::Human)
            .timed(TimeControl::days(3))
            .join(Token::from_trusted("to").hash(), ANYONE)
            .unwrap(),
        &[(1, 1)],
    );
    let aborted = young
        .claim(Player::X, None, Some(t0), None, t0 + wait, wait)
        .unwrap();
    assert_eq!(aborted.reason(), Some(Reason::Aborted));
}

#[test]
fn idempotency_keys_are_remembered_per_seat_with_their_request_and_the_oldest_forgotten() {
    let key = |n: usize| IdempotencyKey::parse(&format!("k{n}")).unwrap();
    let keyed = |seat, n, request: &Request| Keyed {
        seat,
        key: key(n),
        request: Some(request.clone()),
    };
    let resign = Request::named("resign");
    let here = Request::of_move(Coords { row: 1, col: 2 });
    let mut r = seated().remember(keyed(Player::X, 0, &here));
    assert_eq!(r.recall(Player::X, &key(0), &here), Recall::Repeat);
    assert_eq!(
        r.recall(
            Player::X,
            &key(0),
            &Request::of_move(Coords { row: 2, col: 1 })
        ),
        Recall::Reused,
        "a key names one request"
    );
    assert_eq!(r.recall(Player::X, &key(0), &resign), Recall::Reused);
    assert_eq!(
        r.recall(Player::O, &key(0), &here),
        Recall::New,
        "another seat's key is its own"
    );
    // A key stored before requests were kept stands for any request.
    r = r.remember(Keyed {
        seat: Player::O,
        key: key(99),
        request: None,
    });
    assert_eq!(r.recall(Player::O, &key(99), &resign), Recall::Repeat);
    for n in 1..=KEYS_KEPT {
        r = r.remember(keyed(Player::O, n, &resign));
    }
    assert!(!r.knows(Player::X, &key(0)));
    assert!(r.knows(Player::O, &key(1)));
    assert_eq!(Room::restore(r.record()).unwrap().record(), r.record());
}

#[test]
fn endings_make_sense_or_are_refused() {
    assert!(Ending::new(Reason::Resign, None).is_none());
    assert!(Ending::new(Reason::Agreement, Some(Player::X)).is_none());
    assert!(Ending::new(Reason::Line, Some(Player::X)).is_none());
    assert_eq!(
        Ending::new(Reason::Time, Some(Player::O))
            .unwrap()
            .outcome(),
        Some(Outcome::Win(Player::O))
    );
    assert_eq!(Ending::new(Reason::Aborted, None).unwrap().outcome(), None);
    for reason in [
        "line",
        "full",
        "resign",
        "time",
        "abandoned",
        "agreement",
        "aborted",
    ] {
        assert_eq!(Reason::parse(reason).unwrap().as_str(), reason);
    }
}

#[test]
fn the_record_names_each_rounds_reason() {
    let r = after(seated(), &[(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)]);
    let first_round = r.moves().to_vec();
    let r = r
        .rematch(Player::X, None)
        .unwrap()
        .rematch(Player::O, None)
        .unwrap();
    let r = after(r, &[(1, 1), (2, 2)]).resign(Player::X, None).unwrap();
    let ending = r.record().ending.unwrap();
    let record = r
        .record_view(
            &[first_round, r.moves().to_vec()],
            &[(2, ending)],
            Viewer::Player,
        )
        .unwrap();
    let summary: Vec<_> = record
        .rounds
        .iter()
        .map(|round| (round.result, round.reason))
        .collect();
    assert_eq!(
        summary,
        [
            (Some("x"), Some(Reason::Line)),
            (Some("o"), Some(Reason::Resign))
        ]
    );
}

#[test]
fn a_move_is_stale_only_once_the_position_has_changed() {
    let r = after(seated(), &[(0, 0), (1, 1)]);
    let seen = r.version();
    // Offers, answers and withdrawals leave the position as X saw it.
    let changed = r
        .propose(Player::O, Proposal::Draw, None, false)
        .unwrap()
        .decline(Proposal::Draw, None)
        .unwrap()
        .propose(Player::O, Proposal::Takeback, None, false)
        .unwrap();
    assert_eq!(changed.version(), seen + 3);
    let play_at = |r: &Room, seat, version| r.play(seat, Coords::new(2, 2), Some(version));
    let (moved, _) = play_at(&changed, Player::X, seen).unwrap();
    assert_eq!(moved.record().moves.len(), 3);
    // So is a resignation: its meaning is the position's.
    assert_eq!(
        changed.resign(Player::X, Some(seen)).unwrap().reason(),
        Some(Reason::Resign)
    );
    // So is an abort: X asks for a takeback after its first move (a change
    // that leaves the position), and O's abort sent before it still holds.
    let one = after(seated(), &[(0, 0)]);
    let asked = one
        .propose(Player::X, Proposal::Takeback, None, false)
        .unwrap();
    assert_eq!(
        asked.abort(Some(one.version())).unwrap().reason(),
        Some(Reason::Aborted)
    );
    assert!(matches!(
        after(asked.clone(), &[(1, 1)]).abort(Some(one.version())),
        Err(RoomError::Stale { .. })
    ));
    // And a claim's checks: past the version they pass the staleness
    // check (X's turn, so O's absence is not claimable: the next check).
    assert_eq!(
        changed.claimable(Player::X, Some(seen)),
        Err(RoomError::NotTheirMove(Player::O))
    );
    assert!(matches!(
        moved.claimable(Player::X, Some(seen)),
        Err(RoomError::Stale { .. })
    ));
    // An answer to an offer is not: it must answer the offer that stands.
    assert!(matches!(
        changed.decline(Proposal::Takeback, Some(seen)),
        Err(RoomError::Stale { .. })
    ));
    // A version never reached is stale.
    assert!(matches!(
        play_at(&changed, Player::X, seen + 4),
        Err(RoomError::Stale { .. })
    ));
    // O's takeback, granted, changes the position: X's view from before
    // it is stale, and so is O's own view before X's move.
    let taken = changed
        .propose(Player::X, Proposal::Takeback, None, false)
        .unwrap();
    assert_eq!(taken.record().moves.len(), 1);
    assert!(matches!(
        play_at(&taken, Player::O, seen),
        Err(RoomError::Stale { .. })
    ));
    assert!(play_at(&taken, Player::O, taken.version()).is_ok());
    assert!(matches!(
        play_at(&moved, Player::O, seen + 3),
        Err(RoomError::Stale { .. })
    ));
    assert!(matches!(
        moved.resign(Player::O, Some(seen + 3)),
        Err(RoomError::Stale { .. })
    ));
    // A new round is a new position: a version from the last one is stale.
    let over = moved.resign(Player::O, None).unwrap();
    let next = over
        .rematch(Player::X, None)
        .unwrap()
        .rematch(Player::O, None)
        .unwrap();
    let starter = next.to_move().unwrap();
    assert!(matches!(
        next.play(starter, Coords::new(0, 0), Some(over.version())),
        Err(RoomError::Stale { .. })
    ));
    assert!(
        next.play(starter, Coords::new(0, 0), Some(next.version()))
            .is_ok()
    );
}
