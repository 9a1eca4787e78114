//! Ending a round early in the page: abort, takeback, draw by agreement,
//! resignation (asked twice), and the claim when the opponent has left, on
//! the players' and a spectator's screens, at desktop and phone sizes.

use super::*;

/// A game between two people made through the API, seated in `x` and `o`
/// (their tokens put where the page keeps them), both pages open and live.
async fn seated_pages(h: &Harness, x: &Client, o: &Client) -> (String, String) {
    seated_pages_with(h, x, o, &json!({})).await
}

/// [`seated_pages`] for a game created with `body` (a clock, say).
async fn seated_pages_with(h: &Harness, x: &Client, o: &Client, body: &Value) -> (String, String) {
    let seated = oxo_test_support::seated_game(&h.api, body)
        .await
        .expect("a seated game");
    for (client, seat, token) in [(x, "x", &seated.x), (o, "o", &seated.o)] {
        open_seat(h, client, &seated.id, seat, token).await;
        wait_page(client, &format!("{seat}'s page, live"), |p| {
            p.connection == "live" && p.cells == 9
        })
        .await;
    }
    let watch = seated.game["watch"]
        .as_str()
        .expect("a watch id")
        .to_owned();
    (seated.id, watch)
}

/// The action buttons shown under the board, and the note above them.
async fn actions(client: &Client) -> (Vec<String>, String) {
    let seen = client
        .execute(
            "const shown = !document.getElementById('actions').hidden; \
             const note = document.getElementById('offer-note'); \
             return [shown ? [...document.querySelectorAll('#actions button')] \
                 .filter((b) => !b.hidden).map((b) => b.textContent + (b.disabled ? ' (off)' : '')) : [], \
               shown && !note.hidden ? note.textContent : ''];",
            vec![],
        )
        .await
        .expect("the actions read");
    serde_json::from_value(seen).expect("buttons and a note")
}

/// Wait until the buttons under the board are `buttons` (in page order).
async fn wait_actions(client: &Client, what: &str, buttons: &[&str]) -> String {
    let deadline = Instant::now() + WAIT;
    loop {
        let (seen, note) = actions(client).await;
        if seen == buttons {
            return note;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: the buttons are {seen:?} ({note:?}), not {buttons:?} within {WAIT:?}"
        );
        tokio::time::sleep(POLL).await;
    }
}

async fn click(client: &Client, id: &str) {
    find(client, &format!("#{id}"))
        .await
        .click()
        .await
        .unwrap_or_else(|e| panic!("#{id} could not be clicked: {e}"));
}

/// Wait until `client`'s status line reads `status`.
/// O (on `o`'s page) offers a draw, and X's page (`x`) shows the offer's
/// buttons: the offer's note, as X reads it.
async fn offer_draw(o: &Client, x: &Client) -> String {
    click(o, "act-draw").await;
    wait_actions(
        x,
        "X is offered a draw",
        &["Accept draw", "Decline draw", "Takeback", "Resign"],
    )
    .await
}

async fn wait_status(client: &Client, what: &str, status: &str) -> Page {
    wait_page(client, what, |p| p.status == status).await
}

/// `mover` plays at (`row`, `col`) and `other` sees it.
async fn play(mover: &Client, other: &Client, row: u32, col: u32) {
    wait_page(mover, "its turn", |p| p.playable).await;
    click_cell(mover, row, col).await;
    let mark = page(mover).await.role.chars().last().unwrap_or('?');
    wait_page(other, &format!("{mark} at {row},{col}"), |p| {
        p.mark(row, col) == mark
    })
    .await;
}

/// `first` offers the next round and `second` accepts it.
async fn rematch(first: &Client, second: &Client) {
    click(first, "rematch").await;
    wait_script(
        second,
        "the rematch offered",
        "return document.getElementById('rematch').textContent === 'Accept rematch';",
    )
    .await;
    click(second, "rematch").await;
}

/// The rematch button's label, and whether it is shown and on.
async fn rematch_button(client: &Client) -> (String, bool, bool) {
    let seen = client
        .execute(
            "const b = document.getElementById('rematch'); \
             return [b.textContent, !b.hidden, !b.disabled];",
            vec![],
        )
        .await
        .expect("the button read");
    serde_json::from_value(seen).expect("label, shown, on")
}

/// Wait until `client`'s rematch button is `(label, shown, on)`.
async fn wait_rematch(client: &Client, what: &str, want: (&str, bool, bool)) {
    let deadline = Instant::now() + WAIT;
    loop {
        let seen = rematch_button(client).await;
        if (seen.0.as_str(), seen.1, seen.2) == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: the rematch button is {seen:?}, not {want:?} within {WAIT:?}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// A rematch offered by a player who then left waits for them: it is not
/// accepted while they are away (the next round would start against
/// nobody), and can be once they are back.
#[test]
fn a_rematch_offer_waits_while_its_maker_is_away() {
    run("life-rematch-away", |h| async move {
        let a = h.session("a", 1280, 800).await;
        let b = h.session("b", 390, 844).await;
        let (id, _) = seated_pages(&h, &a, &b).await;
        for (mover, other, row, col) in [(&a, &b, 0, 0), (&b, &a, 1, 0), (&a, &b, 0, 1)] {
            play(mover, other, row, col).await;
        }
        play(&b, &a, 1, 1).await;
        play(&a, &b, 0, 2).await;
        wait_page(&b, "X won", |p| p.status.starts_with("X wins")).await;
        click(&a, "rematch").await;
        wait_rematch(&b, "O is offered", ("Accept rematch", true, true)).await;
        a.goto("about:blank").await.expect("X leaves");
        wait_rematch(&b, "X away", ("Accept rematch", true, false)).await;
        a.goto(&h.url(&format!("/g/{id}")))
            .await
            .expect("X is back");
        wait_rematch(&b, "X back", ("Accept rematch", true, true)).await;
        click(&b, "rematch").await;
        // Round 2: O starts.
        wait_page(&b, "round 2, O to start", |p| p.playable).await;
        assert_eq!(h.api_game(&id).await["round"], 2);

        // By correspondence, players are away between moves as a rule: the
        // offer of one who left can be accepted.
        let (id, _) = seated_pages_with(&h, &a, &b, &json!({"days": 3})).await;
        for (mover, other, row, col) in [
            (&a, &b, 0, 0),
            (&b, &a, 1, 0),
            (&a, &b, 0, 1),
            (&b, &a, 1, 1),
            (&a, &b, 0, 2),
        ] {
            play(mover, other, row, col).await;
        }
        wait_page(&b, "X won by correspondence", |p| {
            p.status.starts_with("X wins")
        })
        .await;
        click(&a, "rematch").await;
        wait_rematch(&b, "O is offered", ("Accept rematch", true, true)).await;
        a.goto("about:blank").await.expect("X leaves");
        wait_text(&b, "O sees X leave", "presence", "Opponent left").await;
        assert_eq!(
            rematch_button(&b).await,
            ("Accept rematch".to_owned(), true, true)
        );
        click(&b, "rematch").await;
        wait_page(&b, "round 2 by correspondence", |p| p.playable).await;
        assert_eq!(h.api_game(&id).await["round"], 2);
    });
}

/// The id (or, without one, the tag) of the element with keyboard focus,
/// or "" when focus is on the page itself.
async fn focused(client: &Client) -> String {
    let seen = client
        .execute(
            "const f = document.activeElement; \
             return !f || f === document.body ? '' : (f.id || f.tagName.toLowerCase() + \
               (f.classList.contains('cell') ? '.cell' : ''));",
            vec![],
        )
        .await
        .expect("the focus read");
    seen.as_str().unwrap_or_default().to_owned()
}

/// A keyboard player keeps a place to be: Abort pressed with Enter ends the
/// round and hides the buttons, and focus goes to Rematch rather than to
/// the page itself (where a screen reader starts again from the top).
#[test]
fn keyboard_focus_survives_the_buttons_it_was_on() {
    run("life-focus", |h| async move {
        let a = h.session("a", 1280, 800).await;
        let b = h.session("b", 1280, 800).await;
        seated_pages(&h, &a, &b).await;
        wait_actions(&a, "X before any move", &["Abort"]).await;
        // Tab to Abort, as a keyboard player does.
        for _ in 0..80 {
            if focused(&a).await == "act-abort" {
                break;
            }
            press(&a, &[Key::Tab]).await;
        }
        assert_eq!(focused(&a).await, "act-abort");
        press(&a, &[Key::Enter]).await;
        wait_status(&a, "X sees the abort", "Round aborted").await;
        let deadline = Instant::now() + WAIT;
        loop {
            let now = focused(&a).await;
            if now == "rematch" {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "focus on {now:?}, not on Rematch"
            );
            tokio::time::sleep(POLL).await;
        }

        // Focus a mouse gave is left alone: O clicks Offer draw, X accepts,
        // the buttons go, and O's focus is not moved.
        rematch(&a, &b).await;
        play(&b, &a, 1, 1).await;
        play(&a, &b, 0, 0).await;
        wait_actions(
            &b,
            "O may offer a draw",
            &["Offer draw", "Takeback", "Resign"],
        )
        .await;
        offer_draw(&b, &a).await;
        click(&a, "act-draw").await;
        wait_status(&b, "O sees the agreement", "Draw by agreement").await;
        let now = focused(&b).await;
        assert!(
            now != "rematch" && now != "status",
            "O's focus moved to {now:?}"
        );
    });
}

#[test]
fn two_people_abort_take_back_agree_a_draw_and_resign() {
    run("life-endings", |h| async move {
        let a = h.session("a", 1280, 800).await;
        let b = h.session("b", 390, 844).await;
        b.set_window_size(390, 844).await.expect("the phone's size");
        let (id, watch) = seated_pages(&h, &a, &b).await;
        let c = h.session("c", 1280, 800).await;
        c.goto(&h.url(&format!("/g/{watch}")))
            .await
            .expect("the watch link");
        wait_page(&c, "the spectator's page, live", |p| p.connection == "live").await;
        assert_eq!(
            actions(&c).await,
            (vec![], String::new()),
            "nothing to press"
        );

        // Round 1: called off before anyone moved; counts for nobody.
        // Until both sides have moved, Abort is the only way out: no draw
        // offer, no resignation.
        wait_actions(&a, "X before any move", &["Abort"]).await;
        wait_actions(&b, "O before any move", &["Abort"]).await;
        click(&a, "act-abort").await;
        for (client, who) in [(&a, "X"), (&b, "O"), (&c, "the spectator")] {
            let shown =
                wait_status(client, &format!("{who} sees the abort"), "Round aborted").await;
            assert_eq!(
                (shown.score_x.as_str(), shown.score_draws.as_str()),
                ("0", "0")
            );
        }
        wait_actions(&a, "no actions once over", &[]).await;
        h.screenshot(&b, "life-aborted-phone").await;
        rematch(&a, &b).await;

        // Round 2 (O starts): X asks to take back its move and O's reply.
        play(&b, &a, 1, 1).await;
        play(&a, &b, 0, 0).await;
        play(&b, &a, 2, 2).await;
        wait_actions(
            &a,
            "X may resign or ask",
            &["Offer draw", "Takeback", "Resign"],
        )
        .await;
        click(&a, "act-takeback").await;
        let note = wait_actions(
            &b,
            "O is asked",
            &[
                "Offer draw",
                "Accept takeback",
                "Decline takeback",
                "Resign",
            ],
        )
        .await;
        assert_eq!(note, "X asks to take back a move");
        assert_eq!(
            wait_actions(
                &a,
                "X waits",
                &["Offer draw", "Withdraw takeback offer", "Resign"]
            )
            .await,
            "You asked to take back a move"
        );
        h.screenshot(&b, "life-takeback-asked-phone").await;
        click(&b, "act-takeback").await;
        for client in [&a, &b, &c] {
            wait_page(client, "X's move and O's reply taken back", |p| {
                p.board == ".../.O./..."
            })
            .await;
        }
        wait_page(&a, "X to move again", |p| p.playable).await;
        // One move left in the round: Abort again, and no draw yet.
        wait_actions(&b, "O after the takeback", &["Takeback", "Abort"]).await;
        play(&a, &b, 0, 2).await;

        // O offers a draw and X declines it: O may offer again only after
        // its next move.
        offer_draw(&b, &a).await;
        click(&a, "act-draw-decline").await;
        wait_actions(
            &b,
            "O's offer declined",
            &["Offer draw (off)", "Takeback", "Resign"],
        )
        .await;
        play(&b, &a, 2, 0).await;
        wait_actions(
            &b,
            "O has moved since",
            &["Offer draw", "Takeback", "Resign"],
        )
        .await;
        play(&a, &b, 0, 0).await;

        // O offers a draw again; X accepts it.
        let note = offer_draw(&b, &a).await;
        assert_eq!(note, "O offers a draw");
        h.screenshot(&a, "life-draw-offered-desktop").await;
        click(&a, "act-draw").await;
        for (client, who) in [(&a, "X"), (&b, "O"), (&c, "the spectator")] {
            let shown = wait_status(
                client,
                &format!("{who} sees the agreement"),
                "Draw by agreement",
            )
            .await;
            assert_eq!(shown.score_draws, "1");
        }
        h.screenshot(&c, "life-agreement-spectator").await;
        rematch(&b, &a).await;

        // Round 3 (X starts): O resigns, asked twice. An armed Resign has
        // no timer: it stands down when O does something else (Escape, a
        // press elsewhere), and is armed again.
        wait_page(&a, "round 3", |p| p.playable).await;
        play(&a, &b, 1, 1).await;
        play(&b, &a, 0, 0).await;
        let calm = ["Offer draw", "Takeback", "Resign"];
        let armed = ["Offer draw", "Takeback", "Confirm: resign"];
        click(&b, "act-resign").await;
        wait_actions(&b, "Resign armed", &armed).await;
        // Still armed after the 5 s it once had (a late timer could only
        // make this pass wrongly, never fail).
        tokio::time::sleep(Duration::from_secs(6)).await;
        assert_eq!(actions(&b).await.0, armed, "Resign stays armed");
        // The page answers a key or a press at once, before the driver
        // returns: read once, no waiting.
        press(&b, &[Key::Escape]).await;
        assert_eq!(actions(&b).await.0, calm, "Escape stands Resign down");
        click(&b, "act-resign").await;
        wait_actions(&b, "Resign armed again", &armed).await;
        click(&b, "status").await;
        assert_eq!(
            actions(&b).await.0,
            calm,
            "a press elsewhere stands it down"
        );
        // The focus moved on (Tab), as a keyboard user leaves it.
        click(&b, "act-resign").await;
        wait_actions(&b, "Resign armed once more", &armed).await;
        press(&b, &[Key::Tab]).await;
        assert_eq!(
            actions(&b).await.0,
            calm,
            "the focus leaving stands it down"
        );
        click(&b, "act-resign").await;
        wait_actions(
            &b,
            "O is asked again",
            &["Offer draw", "Takeback", "Confirm: resign"],
        )
        .await;
        h.screenshot(&b, "life-resign-confirm-phone").await;
        assert!(!page(&a).await.status.contains("wins"), "nothing sent yet");
        click(&b, "act-resign").await;
        wait_status(&a, "X sees O resign", "X wins — O resigned — you win!").await;
        wait_status(
            &b,
            "O sees its resignation",
            "X wins — O resigned — you lose",
        )
        .await;
        let shown = wait_status(&c, "the spectator sees it", "X wins — O resigned").await;
        assert_eq!(
            (shown.score_x.as_str(), shown.score_draws.as_str()),
            ("1", "1")
        );
        h.screenshot(&a, "life-resigned-desktop").await;
        h.screenshot(&b, "life-resigned-phone").await;
        let game = h.api_game(&id).await;
        assert_eq!(
            (&game["reason"], &game["winner"]),
            (&json!("resign"), &json!("x"))
        );
        // The move list's export names every round's reason.
        let record = h.api(&format!("/api/games/{id}/record")).await;
        let reasons: Vec<_> = record["rounds"]
            .as_array()
            .expect("rounds")
            .iter()
            .map(|r| r["reason"].clone())
            .collect();
        assert_eq!(
            reasons,
            [json!("aborted"), json!("agreement"), json!("resign")]
        );
    });
}

#[test]
fn against_the_computer_a_takeback_is_granted_at_once() {
    run("life-computer", |h| async move {
        let a = h.session("a", 1280, 800).await;
        let id = start_game(&h, &a, "perfect", "3x3k3", "x").await;
        click_cell(&a, 1, 1).await;
        wait_page(&a, "the computer's reply", |p| {
            p.count('O') == 1 && p.playable
        })
        .await;
        click(&a, "act-takeback").await;
        wait_page(&a, "both moves taken back", |p| {
            p.board == ".../.../..." && p.playable
        })
        .await;
        // On 3×3 perfect play is a draw: once both sides have moved, the
        // computer accepts one.
        click_cell(&a, 1, 1).await;
        wait_page(&a, "the computer's reply again", |p| {
            p.count('O') == 1 && p.playable
        })
        .await;
        click(&a, "act-draw").await;
        wait_status(&a, "the computer agrees", "Draw by agreement").await;
        assert_eq!(h.api_game(&id).await["reason"], "agreement");
    });
}

#[test]
fn a_player_whose_opponent_left_claims_the_win_after_the_countdown() {
    run_on(
        "life-claim",
        Setup::SqliteClaimAfter(Duration::from_secs(4)),
        |h| async move {
            let a = h.session("a", 390, 844).await;
            a.set_window_size(390, 844).await.expect("the phone's size");
            let b = h.session("b", 1280, 800).await;
            let (id, _) = seated_pages(&h, &a, &b).await;
            play(&a, &b, 1, 1).await;
            play(&b, &a, 0, 0).await;
            play(&a, &b, 2, 2).await;
            // Nothing to claim while O is here.
            wait_actions(&a, "O is here", &["Offer draw", "Takeback", "Resign"]).await;
            // O's browser leaves the page: its live socket closes.
            b.goto("about:blank").await.expect("O leaves");
            wait_text(&a, "X sees O leave", "presence", "Opponent left").await;
            // The countdown, while it runs (a busy machine may first look
            // once it has run out: then there is nothing left to see of it).
            let deadline = Instant::now() + WAIT;
            loop {
                let (buttons, note) = actions(&a).await;
                let claim = buttons.first().map_or("", String::as_str);
                if claim.starts_with("Claim victory (") {
                    assert!(claim.ends_with(" s) (off)"), "{buttons:?}");
                    // The seconds tick on screen only: what the live region
                    // reads out is said once.
                    assert!(
                        note.starts_with("Your opponent left: you can claim the win soon (in ")
                            && note.ends_with(" s)"),
                        "{note}"
                    );
                    let read = a
                        .execute(
                            "const note = document.getElementById('offer-note'); \
                             return [...note.childNodes] \
                                 .filter((n) => !(n.getAttribute && n.getAttribute('aria-hidden'))) \
                                 .map((n) => n.textContent).join('');",
                            vec![],
                        )
                        .await
                        .expect("the note read");
                    assert_eq!(
                        read.as_str(),
                        Some("Your opponent left: you can claim the win soon"),
                        "{read}"
                    );
                    h.screenshot(&a, "life-claim-countdown-phone").await;
                    break;
                }
                if claim == "Claim victory" {
                    break;
                }
                assert!(Instant::now() < deadline, "no claim offered: {buttons:?}");
                tokio::time::sleep(POLL).await;
            }
            // The countdown runs out (the server's wait is 4 s), then X claims.
            wait_actions(
                &a,
                "the claim offered",
                &["Claim victory", "Offer draw", "Takeback", "Resign"],
            )
            .await;
            click(&a, "act-claim").await;
            wait_status(&a, "X has the round", "X wins — O left the game — you win!").await;
            h.screenshot(&a, "life-claimed-phone").await;
            assert_eq!(h.api_game(&id).await["reason"], "abandoned");
        },
    );
}

/// The seconds a "Claim victory (N s)" button counts down, once it shows.
async fn claim_countdown(client: &Client, what: &str) -> u64 {
    let deadline = Instant::now() + WAIT;
    loop {
        let (buttons, _) = actions(client).await;
        let seconds = buttons.first().and_then(|b| {
            b.strip_prefix("Claim victory (")?
                .strip_suffix(" s) (off)")?
                .parse()
                .ok()
        });
        if let Some(seconds) = seconds {
            return seconds;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: no countdown in {buttons:?}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// A reload goes on with the claim's countdown where it was (it started
/// again from the whole wait); and a correspondence game, whose players may
/// be away for days between moves, offers no claim at all.
#[test]
fn the_claim_countdown_survives_a_reload_and_correspondence_has_none() {
    run_on(
        "life-claim-reload",
        Setup::SqliteClaimAfter(Duration::from_secs(60)),
        |h| async move {
            let a = h.session("a", 1280, 800).await;
            let b = h.session("b", 1280, 800).await;
            seated_pages(&h, &a, &b).await;
            play(&a, &b, 1, 1).await;
            play(&b, &a, 0, 0).await;
            play(&a, &b, 2, 2).await;
            b.goto("about:blank").await.expect("O leaves");
            // Once the countdown has run a few seconds, X reloads.
            let deadline = Instant::now() + WAIT;
            let before = loop {
                let seconds = claim_countdown(&a, "before the reload").await;
                if seconds <= 56 {
                    break seconds;
                }
                assert!(
                    Instant::now() < deadline,
                    "the countdown stands at {seconds} s"
                );
                tokio::time::sleep(POLL).await;
            };
            a.refresh().await.expect("a reload");
            let after = claim_countdown(&a, "after the reload").await;
            assert!(
                after <= before,
                "{before} s left before the reload, {after} s after"
            );

            // Correspondence: O gone on its move, and no claim.
            seated_pages_with(&h, &a, &b, &json!({"days": 3})).await;
            play(&a, &b, 1, 1).await;
            play(&b, &a, 0, 0).await;
            play(&a, &b, 2, 2).await;
            b.goto("about:blank").await.expect("O leaves");
            wait_text(&a, "X sees O leave", "presence", "Opponent left").await;
            let (buttons, note) = actions(&a).await;
            assert_eq!(
                (buttons, note.as_str()),
                (
                    vec!["Offer draw".to_owned(), "Takeback".into(), "Resign".into()],
                    ""
                ),
                "no claim in correspondence"
            );
        },
    );
}
