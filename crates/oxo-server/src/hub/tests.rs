//! The hub's own checks: what a request does before and around the room's
//! rules.

use std::sync::Arc;
use std::time::Duration;

use oxo_core::{Player, Rules};

use super::{Action, Hub, HubConfig, HubError};
use crate::room::{Opponent, Proposal, RoomError};
use crate::store::{MemoryStore, Store};

fn hub() -> (Hub, Arc<MemoryStore>) {
    let store = Arc::new(MemoryStore::new());
    let shared: Arc<dyn Store> = store.clone();
    (Hub::new(shared, &HubConfig::default()), store)
}

#[tokio::test]
async fn a_draw_offer_without_a_seat_starts_no_search() {
    let (hub, _) = hub();
    let (id, _) = open(&hub, Opponent::Computer(oxo_ai::StrategyKind::Perfect)).await;
    // No search slot to be had: a request that starts a search fails with
    // that, one that starts none is refused for what it is.
    hub.shared.searches.close();
    let refused = hub
        .act(
            &id,
            Some("bogus"),
            Action::Propose(Proposal::Draw),
            None,
            None,
        )
        .await;
    assert!(
        matches!(
            refused,
            Err(HubError::Refused {
                error: RoomError::NotASeat,
                ..
            })
        ),
        "{refused:?}"
    );
}

/// The computer's answer to a draw offer is searched once a position: an
/// offer made again there is answered as before, with no search.
#[tokio::test]
async fn a_draw_offer_made_again_at_a_position_is_answered_without_a_search() {
    let (hub, _) = hub();
    let (id, x) = open(&hub, Opponent::Computer(oxo_ai::StrategyKind::Perfect)).await;
    hub.play(&id, Some(&x), oxo_core::Coords::new(0, 0), None, None)
        .await
        .unwrap();
    let handle = hub.room(&id).await.unwrap();
    let mut games = handle.subscribe(super::Viewer::Player);
    tokio::time::timeout(
        Duration::from_secs(60),
        games.wait_for(|game| game.value().moves.len() == 2),
    )
    .await
    .expect("the computer's answer")
    .unwrap();
    let first = hub.computer_accepts_draw(&handle).await.unwrap();
    assert!(matches!(first, Some((_, true))), "a draw: {first:?}");
    // No search slot to be had now: the answer comes from the first.
    hub.shared.searches.close();
    hub.shared.deep_searches.close();
    let again = hub.computer_accepts_draw(&handle).await.unwrap();
    assert_eq!(again, first);
    // At another position it must search again, and cannot.
    *handle
        .draw_verdict
        .lock()
        .unwrap()
        .as_mut()
        .map(|(game, _)| game)
        .unwrap() = oxo_core::Game::new(Rules::default());
    assert!(hub.computer_accepts_draw(&handle).await.is_err());
}

#[tokio::test]
async fn a_room_loaded_takes_the_presence_other_servers_announced() {
    let (hub, _) = hub();
    let (id, _) = open(&hub, Opponent::Human).await;
    assert_eq!(hub.evict_idle(Duration::ZERO), 1);
    // Seat X is connected on another server.
    hub.remote_presence(id.clone(), "other".into(), [true, false]);
    let handle = hub.room(&id).await.unwrap();
    let absence = handle.absence();
    assert_eq!(absence[0], None, "X is there, on the other server");
    assert!(absence[1].is_some(), "O is not");
    assert_eq!(*handle.presence().borrow(), [true, false]);
}

/// A 3×3 room against `opponent`, X first, untimed.
fn setup(opponent: Opponent) -> crate::room::RoomSetup {
    let catalog = oxo_ai::Catalog::default();
    crate::room::RoomSetup::new(Rules::default(), opponent, Player::X, None, &catalog).unwrap()
}

/// A new room against `opponent`: its id and seat X's token.
async fn open(hub: &Hub, opponent: Opponent) -> (crate::id::GameId, String) {
    let seated = hub.create(setup(opponent), false, None).await.unwrap();
    let id = crate::id::GameId::parse(&seated.game.value().id).unwrap();
    (id, seated.token.expose().to_owned())
}

#[tokio::test]
async fn after_an_unknown_outcome_memory_catches_up_and_the_computer_answers() {
    let (hub, store) = hub();
    let (id, x) = open(&hub, Opponent::Computer(oxo_ai::StrategyKind::Rules)).await;
    let key = crate::id::IdempotencyKey::parse("k1").unwrap();
    store.lose_answers(1);
    let lost = hub
        .play(&id, Some(&x), oxo_core::Coords::new(1, 1), None, Some(key))
        .await;
    assert!(
        matches!(
            lost,
            Err(HubError::Store(crate::store::StoreError::Unknown(_)))
        ),
        "{lost:?}"
    );
    // The move was saved: the next look at the room shows it, and the
    // computer, whose turn it now is, answers.
    let handle = hub.room(&id).await.unwrap();
    let mut games = handle.subscribe(super::Viewer::Player);
    let game = tokio::time::timeout(
        Duration::from_secs(60),
        games.wait_for(|game| game.value().moves.len() == 2),
    )
    .await
    .expect("the computer's answer")
    .unwrap()
    .clone();
    assert_eq!(game.value().moves[0], [1, 1]);
}

/// A room between two people with both seats taken: its id, X's token
/// and O's.
async fn seated(hub: &Hub) -> (crate::id::GameId, String, String) {
    let created = hub
        .create(setup(Opponent::Human), false, None)
        .await
        .unwrap();
    let id = crate::id::GameId::parse(&created.game.value().id).unwrap();
    let invite = created.invite.unwrap();
    let o = hub
        .join(&id, Some(invite.expose()), None, None)
        .await
        .unwrap();
    let tokens = (
        created.token.expose().to_owned(),
        o.token.expose().to_owned(),
    );
    (id, tokens.0, tokens.1)
}

#[tokio::test]
async fn a_claim_counts_from_when_it_became_the_absent_seats_move() {
    let (hub, _) = hub();
    let (id, x, _) = seated(&hub).await;
    let handle = hub.room(&id).await.unwrap();
    // O lost its connection long ago (during X's long think)...
    let long_ago = std::time::Instant::now()
        .checked_sub(Duration::from_secs(3600))
        .unwrap();
    handle.lost.lock().unwrap()[Player::O.index()] = Some(long_ago);
    // ...X moves, and claims at once: O has had no time on its move.
    hub.play(&id, Some(&x), oxo_core::Coords::new(1, 1), None, None)
        .await
        .unwrap();
    let claimed = hub.act(&id, Some(&x), Action::Claim, None, None).await;
    assert!(
        matches!(
            claimed,
            Err(HubError::Refused {
                error: RoomError::TooSoon { .. },
                ..
            })
        ),
        "{claimed:?}"
    );
    assert!(handle.absence()[Player::O.index()].unwrap() < Duration::from_secs(3600));
}

#[tokio::test]
async fn a_refused_request_changes_nothing_stored_and_leaves_its_key_free() {
    let (hub, store) = hub();
    let (id, x, o) = seated(&hub).await;
    let key = || Some(crate::id::IdempotencyKey::parse("o-1").unwrap());
    let before = store.get(&id).unwrap();
    // O out of turn, keyed: refused, and the store holds what it held.
    let refused = hub
        .play(&id, Some(&o), oxo_core::Coords::new(0, 0), None, key())
        .await;
    assert!(
        matches!(refused, Err(HubError::Refused { .. })),
        "{refused:?}"
    );
    let refused = hub
        .act(&id, Some(&o), Action::Decline(Proposal::Draw), None, key())
        .await;
    assert!(
        matches!(refused, Err(HubError::Refused { .. })),
        "{refused:?}"
    );
    assert_eq!(store.get(&id).unwrap(), before);
    // The key is free: once it is O's move, the same key plays.
    hub.play(&id, Some(&x), oxo_core::Coords::new(1, 1), None, None)
        .await
        .unwrap();
    let played = hub
        .play(&id, Some(&o), oxo_core::Coords::new(0, 0), None, key())
        .await
        .unwrap();
    assert_eq!(played.value().moves, [[1, 1], [0, 0]]);
}

#[test]
fn a_stamp_from_the_future_counts_as_old() {
    let minute = Duration::from_secs(60);
    assert!(super::within(100, 100, minute));
    assert!(super::within(159, 100, minute));
    assert!(!super::within(160, 100, minute));
    // The clock was set back: a stamp ahead of now is not trusted.
    assert!(!super::within(99, 100, minute));
}

#[tokio::test]
async fn an_outage_of_the_feed_neither_revives_nor_prolongs_other_servers_word() {
    use std::sync::atomic::Ordering;
    use std::time::Instant;

    let (hub, _) = hub();
    let (id, _) = open(&hub, Opponent::Human).await;
    let secs = Duration::from_secs;
    // Ahead of the real now, so that going back from it cannot pass the
    // clock's start on a machine just booted; the functions take `now`.
    let t0 = Instant::now() + secs(60);
    let earlier = |d| t0.checked_sub(d).unwrap();
    // What two other servers said of X: one 20 s before the outage (5 s of
    // its word left), one 30 s before (stale, not yet swept).
    hub.shared.remote.lock().unwrap().insert(
        id.clone(),
        [
            ("alive".to_owned(), ([true, false], earlier(secs(20)))),
            ("dead".to_owned(), ([false, true], earlier(secs(30)))),
        ]
        .into_iter()
        .collect(),
    );
    assert_eq!(hub.remote_seats_at(&id, t0), [true, false]);
    hub.presence_lost(t0);
    hub.shared.fresh.store(false, Ordering::SeqCst);
    // Out of touch, words are judged as they stood when the outage began,
    // however long it lasts: the stale one stays stale.
    for later in [t0, t0 + secs(10), t0 + secs(600)] {
        assert_eq!(hub.remote_seats_at(&id, later), [true, false]);
        assert!(hub.present_rooms().contains(&id));
    }
    // The sweep, judging the same way, lets the stale word go meanwhile,
    // and keeps the other.
    hub.forget_stale_presence(t0 + secs(600));
    let nodes = || {
        let mut nodes: Vec<String> = hub.shared.remote.lock().unwrap()[&id]
            .keys()
            .cloned()
            .collect();
        nodes.sort();
        nodes
    };
    assert_eq!(nodes(), ["alive"]);
    // A word heard as the feed comes back is new.
    hub.shared
        .remote
        .lock()
        .unwrap()
        .get_mut(&id)
        .unwrap()
        .insert("new".to_owned(), ([false, false], t0 + secs(55)));
    // Back after 60 s: the outage did not age the words; what was left of
    // each then is left now.
    let back = t0 + secs(60);
    hub.presence_regained(back);
    hub.shared.fresh.store(true, Ordering::SeqCst);
    let ats: std::collections::HashMap<String, Instant> = hub.shared.remote.lock().unwrap()[&id]
        .iter()
        .map(|(node, (_, at))| (node.clone(), *at))
        .collect();
    assert_eq!(ats["alive"], back - secs(20));
    assert_eq!(ats["new"], t0 + secs(55));
    assert_eq!(ats.len(), 2);
    assert_eq!(hub.remote_seats_at(&id, back), [true, false]);
    assert_eq!(hub.remote_seats_at(&id, back + secs(4)), [true, false]);
    assert_eq!(hub.remote_seats_at(&id, back + secs(5)), [false, false]);
    // A flapping feed: out again 1 s later, for long; back; the word goes
    // on aging only while the feed is up.
    hub.presence_lost(back + secs(1));
    hub.shared.fresh.store(false, Ordering::SeqCst);
    assert_eq!(hub.remote_seats_at(&id, back + secs(100)), [true, false]);
    hub.presence_regained(back + secs(101));
    hub.shared.fresh.store(true, Ordering::SeqCst);
    assert_eq!(hub.remote_seats_at(&id, back + secs(104)), [true, false]);
    assert_eq!(hub.remote_seats_at(&id, back + secs(105)), [false, false]);
    hub.forget_stale_presence(back + secs(105));
    assert_eq!(nodes(), ["new"]);
}

#[tokio::test]
async fn after_an_outage_a_claim_names_the_true_absence_and_wait() {
    use std::time::Instant;

    let (hub, _) = hub();
    let (id, x, _) = seated(&hub).await;
    hub.play(&id, Some(&x), oxo_core::Coords::new(1, 1), None, None)
        .await
        .unwrap();
    // O has been gone since its turn began; the feed went down and came
    // back just now: O's absence counts from a heartbeat later.
    let now = Instant::now();
    hub.presence_lost(now);
    hub.presence_regained(now);
    let claimed = hub.act(&id, Some(&x), Action::Claim, None, None).await;
    let Err(HubError::Refused {
        error: RoomError::TooSoon { gone, left, .. },
        ..
    }) = claimed
    else {
        panic!("{claimed:?}");
    };
    // However long the steps above took: without the heartbeat's delay the
    // wait left would be at most the claim's own.
    let claim_after = HubConfig::default().claim_after;
    let heartbeat = super::presence::HEARTBEAT;
    assert!(gone < heartbeat, "{gone:?}");
    assert!(
        left > claim_after && left <= claim_after + heartbeat,
        "{left:?}"
    );
}

#[tokio::test]
async fn games_never_played_go_once_long_unchanged_unless_held() {
    let time = crate::ManualTime::at_system_now();
    let store = Arc::new(MemoryStore::with_time(time.source()));
    let shared: Arc<dyn Store> = store.clone();
    let config = HubConfig {
        time: time.source(),
        ..HubConfig::default()
    };
    let hub = Hub::new(shared, &config);
    let (never_joined, _) = open(&hub, Opponent::Human).await;
    let (joined, _, _) = seated(&hub).await;
    let (played, x, _) = seated(&hub).await;
    hub.play(&played, Some(&x), oxo_core::Coords::new(1, 1), None, None)
        .await
        .unwrap();
    let (computer, _) = open(&hub, Opponent::Computer(oxo_ai::StrategyKind::Rules)).await;
    assert_eq!(hub.evict_idle(Duration::ZERO), 4);
    // Straight into the store: a round over and the next not begun, and a
    // timed round waiting for its first move. Neither was never played.
    let (rematched, _) = open(&hub, Opponent::Human).await;
    let mut change = crate::store::Change::new(
        &crate::room::Room::restore(store.get(&rematched).unwrap()).unwrap(),
        crate::store::ChangeKind::Create,
    );
    // (A round with a move called off leaves the score as it was, and
    // memory holds only the current round's moves: the round alone says
    // this one was played.)
    change.room.round = 2;
    change.room.version += 1;
    store.commit(change.clone()).await.unwrap();
    let scored = crate::id::GameId::from_trusted("scored");
    change.room.id = scored.clone();
    change.room.round = 1;
    change.room.score = oxo_core::Scoreboard::from_counts(0, 1, 0);
    store.commit(change.clone()).await.unwrap();
    let timed = crate::id::GameId::from_trusted("timed");
    change.room.id = timed.clone();
    change.room.score = oxo_core::Scoreboard::default();
    change.deadline = Some(time.now() + 100 * super::PRUNE_AFTER.as_millis() as u64);
    store.commit(change).await.unwrap();
    hub.evict_idle(Duration::ZERO);
    // A second short of the time: nothing goes.
    time.advance(super::PRUNE_AFTER - Duration::from_secs(1));
    assert_eq!(hub.prune_unplayed().await.unwrap(), 0);
    time.advance(Duration::from_secs(2));
    // One is held in memory (someone is looking at it): it stays.
    let held = hub.room(&never_joined).await.unwrap();
    assert_eq!(hub.prune_unplayed().await.unwrap(), 2);
    for (id, kept) in [
        (&never_joined, true),
        (&joined, false),
        (&played, true),
        (&computer, false),
        (&rematched, true),
        (&scored, true),
        (&timed, true),
    ] {
        assert_eq!(store.get(id).is_some(), kept, "{id}");
    }
    drop(held);
    assert_eq!(hub.evict_idle(Duration::ZERO), 1);
    assert_eq!(hub.prune_unplayed().await.unwrap(), 1);
    assert!(matches!(
        hub.room(&never_joined).await,
        Err(HubError::NotFound(_))
    ));
    assert!(hub.room(&played).await.is_ok());
    // Pruning turned off keeps every game.
    let (kept, _) = open(&hub, Opponent::Human).await;
    hub.evict_idle(Duration::ZERO);
    time.advance(super::PRUNE_AFTER * 2);
    let store: Arc<dyn Store> = store.clone();
    let keeping = Hub::new(
        store.clone(),
        &HubConfig {
            prune_after: None,
            ..config
        },
    );
    assert_eq!(keeping.prunes(), None);
    assert_eq!(keeping.prune_unplayed().await.unwrap(), 0);
    assert!(store.load(&kept).await.unwrap().is_some());
}

/// A position after four moves of 7×7 k=5 whose hints' budget leaves
/// three moves without a value, and which a longer look values whole
/// (`hints7 at POS --budget 5000000`).
fn short_of_the_budget() -> oxo_core::Game {
    oxo_core::Game::from_notation("...O.../..X..../......./......./...X.../......./......O", 5)
        .unwrap()
}

/// A longer look borrows a pooled valuer at its own budget and gives it
/// back at the hints' budget: the next hints are the hints' again.
#[tokio::test]
async fn a_longer_look_gives_its_valuer_back_at_the_hints_budget() {
    let (hub, _) = hub();
    let game = short_of_the_budget();
    let slot = hub.take_longer_slot().unwrap();
    let longer = hub
        .values_longer(game.clone(), slot)
        .await
        .unwrap()
        .unwrap();
    assert!(longer.missing.is_none(), "{:?}", longer.missing);
    assert_eq!(longer.hints.len(), 45);
    let valuer = hub.shared.valuers.take(None, game.rules()).unwrap();
    assert_eq!(valuer.budget(), Some(oxo_ai::hints::HINT_BUDGET));
}

/// One longer look at a time: while one holds the slot, another is
/// refused at once, not queued; the slot is free again once it is given
/// back.
#[tokio::test]
async fn a_second_longer_look_is_refused_while_one_runs() {
    let (hub, _) = hub();
    let held = hub.take_longer_slot().unwrap();
    let refused = hub.take_longer_slot();
    assert!(
        matches!(refused, Err(HubError::Busy(wait)) if wait == super::search::LONGER_RETRY),
        "{refused:?}"
    );
    let message = refused.unwrap_err().to_string();
    assert_eq!(
        message,
        "another longer look is running on this server; try again in 10 s"
    );
    drop(held);
    assert_eq!(hub.shared.longer_searches.available_permits(), 1);
}

/// A look at a position's values stops once whoever asked for it has
/// gone, rather than running to its budget in its slot; the pooled valuer
/// then answers the next look whole.
#[tokio::test]
async fn a_look_whose_caller_has_gone_stops() {
    let (hub, _) = hub();
    let game = short_of_the_budget();
    let rules = game.rules();
    // The pooled valuer reports its progress (about every million
    // positions; the whole look takes about 4.9 million) and holds its
    // first report until the caller has gone.
    let mut valuer = oxo_ai::hints::hint_valuer(rules).unwrap();
    let (reported, first_report) = std::sync::mpsc::channel::<u64>();
    let (go, wait) = std::sync::mpsc::channel::<()>();
    valuer.on_progress(move |p| {
        reported.send(p.nodes).ok();
        wait.recv().ok();
    });
    hub.shared.valuers.give(None, rules, valuer);
    let searcher = hub.clone();
    let looking = game.clone();
    let slot = hub.take_longer_slot().unwrap();
    let asked = tokio::spawn(async move { searcher.values_longer(looking, slot).await });
    let first = tokio::task::spawn_blocking(move || {
        let first = first_report.recv().unwrap();
        (first, first_report)
    });
    let (first, first_report) = first.await.unwrap();
    asked.abort();
    assert!(asked.await.unwrap_err().is_cancelled());
    drop(go);
    let slot = tokio::time::timeout(GIVEN_BACK, async {
        loop {
            match hub.take_longer_slot() {
                Ok(slot) => break slot,
                Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
            }
        }
    })
    .await
    .expect("the stopped look gives its slot back");
    let later: Vec<u64> = first_report.try_iter().collect();
    assert!(later.is_empty(), "reported at {first}, then {later:?}");
    let whole = hub.values_longer(game, slot).await.unwrap().unwrap();
    assert!(whole.missing.is_none(), "{:?}", whole.missing);
    assert_eq!(whole.hints.len(), 45);
}

/// A search keeps its slot, and the asking client's place, until it ends,
/// even when whoever asked for it has gone: a dropped request frees nothing
/// that still runs.
#[tokio::test]
async fn a_search_keeps_its_slot_after_its_caller_has_gone() {
    let (hub, _) = hub();
    let (go, wait) = std::sync::mpsc::channel::<()>();
    // Stands for the client's place: counted while a search holds it.
    let place = Arc::new(());
    let hold = super::Hold::new(Arc::clone(&place));
    let searcher = hub.clone();
    let slot = hub.take_longer_slot().unwrap();
    let (began, beginning) = std::sync::mpsc::channel::<()>();
    let asked = tokio::spawn(async move {
        searcher
            .run(Some(slot.0), hold, move |_| {
                began.send(()).ok();
                wait.recv().ok();
                Ok(())
            })
            .await
    });
    tokio::task::spawn_blocking(move || beginning.recv())
        .await
        .unwrap()
        .expect("the search began");
    asked.abort();
    assert!(asked.await.unwrap_err().is_cancelled());
    assert_eq!(hub.shared.longer_searches.available_permits(), 0);
    assert_eq!(
        Arc::strong_count(&place),
        2,
        "the client's place was let go"
    );
    assert!(matches!(hub.take_longer_slot(), Err(HubError::Busy(_))));
    go.send(()).unwrap();
    tokio::time::timeout(GIVEN_BACK, async {
        while hub.shared.longer_searches.available_permits() == 0 || Arc::strong_count(&place) > 1 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the search's end gives its slot and place back");
}

/// Far longer than a search takes to give back what it held once it ends
/// or stops, on any machine: a bound, so that a bug fails the test rather
/// than hanging it.
const GIVEN_BACK: Duration = Duration::from_secs(120);
