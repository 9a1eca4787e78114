//! Clocks in the page: chosen on the start page, shown beside the board and
//! counted down, low time marked, and a flag the server rules shown as a
//! win on time. The server's time is the test's ([`Setup::SqliteTimed`]):
//! the test moves it past a deadline instead of waiting.

use super::*;

/// X's move and O's reply in `game`, through the API: both clocks have
/// then started.
async fn two_moves(h: &Harness, game: &oxo_test_support::Seated) {
    for (token, row, col) in [(&game.x, 1, 1), (&game.o, 0, 0)] {
        let (status, _) = h
            .api
            .call(
                "POST",
                &format!("/api/games/{}/moves", game.id),
                Some(token),
                &json!({"row": row, "col": col}),
            )
            .await;
        assert_eq!(status, 200);
    }
}

/// The lines of the round's export on `client`'s page.
async fn export_lines(client: &Client) -> Vec<String> {
    let text = client
        .execute(
            "return document.getElementById('record-text').value;",
            vec![],
        )
        .await
        .expect("the export");
    text.as_str()
        .expect("text")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// What the clocks show: each seat's time and classes, and the control.
async fn clocks(client: &Client) -> Value {
    client
        .execute(
            "const $ = (id) => document.getElementById(id); \
             const seat = (s) => { const e = $('clock-' + s); \
               return { time: e.querySelector('.clock-time').textContent, \
                        note: e.querySelector('.clock-note').textContent, \
                        state: e.querySelector('.clock-state').textContent, \
                        running: e.classList.contains('running'), low: e.classList.contains('low') }; }; \
             return { shown: !$('clocks').hidden, control: $('clock-control').textContent, \
                      x: seat('x'), o: seat('o') };",
            vec![],
        )
        .await
        .expect("the clocks read")
}

/// Poll the clocks until `ready` holds.
async fn wait_clocks(client: &Client, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + WAIT;
    loop {
        let seen = clocks(client).await;
        if ready(&seen) {
            return seen;
        }
        assert!(
            Instant::now() < deadline,
            "not seen within {WAIT:?}: {what}; the clocks show {seen}"
        );
        tokio::time::sleep(POLL).await;
    }
}

#[test]
fn clocks_count_down_and_a_flag_shows_as_a_win_on_time() {
    run_on("clock", Setup::SqliteTimed, |h| async move {
        let time = h.time.clone().expect("a timed harness");
        let x = h.session("x", 1280, 800).await;
        let o = h.session("o", 390, 844).await;

        // X chooses 1+0 on the start page, against a friend.
        open_start_page(&h, &x).await;
        find(&x, "select#time-control")
            .await
            .select_by_value("1+0")
            .await
            .expect("1+0 chosen");
        find(&x, "button#start")
            .await
            .click()
            .await
            .expect("Start clicked");
        let waiting = wait_page(&x, "X's new game, live", |p| {
            p.path.starts_with("/g/") && p.connection == "live" && p.invite
        })
        .await;
        let id = waiting.path.trim_start_matches("/g/").to_owned();
        assert_eq!(h.api_game(&id).await["clock"]["initial_ms"], 60_000);
        let invite = x
            .execute(
                "return document.getElementById('invite-link').value;",
                vec![],
            )
            .await
            .expect("the invite link");
        o.goto(invite.as_str().expect("a link"))
            .await
            .expect("O follows the invite");
        wait_page(&o, "O seated, live", |p| {
            p.role == "You are O" && p.connection == "live"
        })
        .await;

        // Both clocks show a minute, none running before the first moves;
        // X's first move is counted down under its clock (on the page's own
        // time: how much of it has passed depends on the machine).
        let first_move = |note: &Value| {
            note.as_str().is_some_and(|n| {
                n.strip_prefix("first move: ")
                    .and_then(|s| s.strip_suffix(" s"))
                    .and_then(|s| s.parse::<u32>().ok())
                    .is_some_and(|s| (1..=30).contains(&s))
            })
        };
        for client in [&x, &o] {
            let shown = wait_clocks(client, "a minute each, not running", |c| {
                c["shown"] == true && c["x"]["time"] == "1:00" && c["o"]["time"] == "1:00"
            })
            .await;
            assert_eq!(shown["control"], "1+0", "{shown}");
            assert_eq!(
                (&shown["x"]["running"], &shown["o"]["running"]),
                (&json!(false), &json!(false)),
                "{shown}"
            );
            assert!(first_move(&shown["x"]["note"]), "{shown}");
            assert_eq!(shown["o"]["note"], "", "{shown}");
        }
        h.screenshot(&x, "clock-desktop-first-move").await;
        h.screenshot(&o, "clock-phone-first-move").await;
        click_cell(&x, 1, 1).await;
        wait_page(&o, "O to move", |p| p.playable).await;
        // Now O's first move is awaited.
        for client in [&x, &o] {
            wait_clocks(client, "O's first move counted down", |c| {
                first_move(&c["o"]["note"]) && c["x"]["note"] == ""
            })
            .await;
        }
        click_cell(&o, 0, 0).await;
        // O's move starts X's clock, on both screens.
        for client in [&x, &o] {
            wait_clocks(client, "X's clock running", |c| {
                c["x"]["running"] == true && c["o"]["running"] == false
            })
            .await;
        }
        h.screenshot(&x, "clock-desktop-running").await;
        h.screenshot(&o, "clock-phone-running").await;

        // 52 s later X has 8 s: low time, in tenths, once the pages read
        // the game again.
        time.advance(Duration::from_secs(52));
        for client in [&x, &o] {
            client.refresh().await.expect("a reload");
            wait_clocks(client, "X's clock low", |c| {
                c["x"]["low"] == true
                    && c["x"]["time"]
                        .as_str()
                        .is_some_and(|t| t.starts_with("0:0"))
                    && c["o"]["low"] == false
            })
            .await;
        }
        // In words too, for a screen reader: the state beside each time, and
        // a toast (read out) for the player whose own clock turned low.
        for client in [&x, &o] {
            let shown = clocks(client).await;
            // (X's 8 s run on the page in real time: on a machine slow
            // enough to have spent them, the clock shows 0:00 and is out,
            // no longer low; in its last tenths it may be either.)
            let ending = shown["x"]["time"]
                .as_str()
                .is_some_and(|t| t.starts_with("0:00"));
            let state = shown["x"]["state"].as_str().unwrap_or_default();
            assert!(
                state == ", running, low" || (ending && state == ", running"),
                "{shown}"
            );
            assert_eq!(shown["o"]["state"], "", "{shown}");
        }
        let said = |client: &Client| {
            let client = client.clone();
            async move {
                client
                    .execute(
                        "return document.getElementById('message').dataset.said || '';",
                        vec![],
                    )
                    .await
                    .expect("the message read")
            }
        };
        let told = said(&x).await;
        assert!(
            told.as_str()
                .is_some_and(|t| t.starts_with("Your clock is low: 0:0") && t.ends_with(" left")),
            "{told}"
        );
        assert_eq!(said(&o).await, "", "O's clock is not low");
        h.screenshot(&x, "clock-desktop-low").await;
        h.screenshot(&o, "clock-phone-low").await;

        // O gives X 15 s: 23 s, no longer low, on both screens.
        find(&o, "#act-moretime")
            .await
            .click()
            .await
            .expect("+15 s clicked");
        for client in [&x, &o] {
            wait_clocks(client, "X given 15 s", |c| {
                c["x"]["low"] == false
                    && c["x"]["time"]
                        .as_str()
                        .is_some_and(|t| t.starts_with("0:2"))
            })
            .await;
        }
        // X is told who gave it (O, who pressed the button, is not).
        wait_said(
            &x,
            "X told of the time given",
            "Your opponent gave you 15 seconds",
        )
        .await;
        h.screenshot(&x, "clock-desktop-given").await;
        // The server's time stands still: 8 s and the 15 given.
        assert_eq!(h.api_game(&id).await["clock"]["x_ms"], 23_000);

        // X's time runs out with nobody moving: the server rules it, and
        // both pages say so.
        time.advance(Duration::from_secs(23));
        wait_text(&x, "X lost on time", "status", "O wins on time — you lose").await;
        wait_text(&o, "O won on time", "status", "O wins on time — you win!").await;
        let shown = clocks(&o).await;
        assert_eq!(
            (&shown["x"]["time"], &shown["x"]["running"]),
            (&json!("0:00.0"), &json!(false)),
            "{shown}"
        );
        let game = h.api_game(&id).await;
        assert_eq!(
            (&game["reason"], &game["winner"]),
            (&json!("time"), &json!("o"))
        );
        h.screenshot(&x, "clock-desktop-flag").await;
        h.screenshot(&o, "clock-phone-flag").await;
        // The round's export says how it ended, the time control and the
        // game's link for spectators.
        let watch = game["watch"].as_str().expect("a watch id").to_owned();
        let export = export_lines(&x).await;
        assert_eq!(
            export[..3],
            [
                "oxo 3x3 k=3, round 1, X first: O wins (X ran out of time)".to_owned(),
                "time control: 1+0".to_owned(),
                format!("game: {}", h.url(&format!("/g/{watch}"))),
            ],
            "{export:#?}"
        );

        // A draw on time: X runs out where O could never have made a line,
        // which the export says as the status line does, with the names.
        let drawn = oxo_test_support::seated_game(
            &h.api,
            &json!({"clock": {"minutes": 1, "increment": 0}, "name": "Ada"}),
        )
        .await
        .expect("a timed game");
        for (i, (row, col)) in [
            (0, 0),
            (0, 1),
            (2, 1),
            (0, 2),
            (1, 2),
            (1, 0),
            (2, 0),
            (1, 1),
        ]
        .into_iter()
        .enumerate()
        {
            let token = if i % 2 == 0 { &drawn.x } else { &drawn.o };
            let (status, body) = h
                .api
                .call(
                    "POST",
                    &format!("/api/games/{}/moves", drawn.id),
                    Some(token),
                    &json!({"row": row, "col": col}),
                )
                .await;
            assert_eq!(status, 200, "{body}");
        }
        time.advance(Duration::from_secs(61));
        let watch = h.api_game(&drawn.id).await["watch"]
            .as_str()
            .expect("a watch id")
            .to_owned();
        o.goto(&h.url(&format!("/g/{watch}")))
            .await
            .expect("the drawn game, watched");
        wait_text(
            &o,
            "the draw on time",
            "status",
            "Draw — X ran out of time, and O could not have won",
        )
        .await;
        let export = export_lines(&o).await;
        assert_eq!(
            export[..2],
            [
                "oxo 3x3 k=3, round 1, X first: a draw (X ran out of time; O could not have won)",
                "players: X Ada",
            ],
            "{export:#?}"
        );

        // A round whose first move never comes is called off when its 30 s
        // have passed, on the server's time, and every page says who did
        // not move.
        let idle = oxo_test_support::seated_game(&h.api, &json!({"clock": {"minutes": 1}}))
            .await
            .expect("a timed game");
        let watch = h.api_game(&idle.id).await["watch"]
            .as_str()
            .expect("a watch id")
            .to_owned();
        o.goto(&h.url(&format!("/g/{watch}")))
            .await
            .expect("the idle game, watched");
        wait_clocks(&o, "X's first move counted down", |c| {
            first_move(&c["x"]["note"])
        })
        .await;
        time.advance(Duration::from_secs(30));
        wait_text(
            &o,
            "the round called off",
            "status",
            "Round aborted — X did not make a first move in time",
        )
        .await;
        let shown = clocks(&o).await;
        assert_eq!(
            (&shown["x"]["note"], &shown["x"]["running"]),
            (&json!(""), &json!(false)),
            "{shown}"
        );
        let ended = h.api_game(&idle.id).await;
        assert_eq!(
            (&ended["reason"], &ended["score"]["x"]),
            (&json!("nostart"), &json!(0))
        );
        assert_eq!(
            export_lines(&o).await[0],
            "oxo 3x3 k=3, round 1, X first: aborted (X did not make a first move in time)"
        );

        // A correspondence game shows days and the deadline's date.
        let game = oxo_test_support::seated_game(&h.api, &json!({"days": 3}))
            .await
            .expect("a correspondence game");
        two_moves(&h, &game).await;
        o.goto(&h.url(&format!("/g/{}", game.id)))
            .await
            .expect("the game, watched");
        let shown = wait_clocks(&o, "three days a move", |c| {
            c["shown"] == true && c["x"]["running"] == true
        })
        .await;
        assert_eq!(shown["control"], "3 days a move", "{shown}");
        assert_eq!(shown["o"]["time"], "3 days", "{shown}");
        // Never a day too few: the running clock has all but moments of
        // its three days.
        assert!(
            shown["x"]["time"]
                .as_str()
                .is_some_and(|t| t == "2 days 23 h" || t == "3 days"),
            "{shown}"
        );
        assert!(
            shown["x"]["note"]
                .as_str()
                .is_some_and(|t| t.starts_with("until ")),
            "{shown}"
        );
        h.screenshot(&o, "clock-phone-correspondence").await;

        // The longest clocks fit a phone, for the player (whose clock is
        // labelled "O (you)"): nothing clipped, no time split over lines.
        for (label, settings) in [
            (
                "180+60",
                json!({"clock": {"minutes": 180, "increment": 60}}),
            ),
            ("3d", json!({"days": 3})),
            ("14d", json!({"days": 14})),
        ] {
            let game = oxo_test_support::seated_game(&h.api, &settings)
                .await
                .expect("a timed game");
            two_moves(&h, &game).await;
            open_seat(&h, &o, &game.id, "o", &game.o).await;
            wait_clocks(&o, &format!("{label}: X's clock running"), |c| {
                c["shown"] == true && c["x"]["running"] == true
            })
            .await;
            let fit = o
                .execute(
                    "const w = window.innerWidth; \
                     const inside = (r, box) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5; \
                     const page = { left: 0, right: w }; \
                     const clocks = [...document.querySelectorAll('#clocks .clock')].map((c) => { \
                       const t = c.querySelector('.clock-time'); \
                       const range = document.createRange(); range.selectNodeContents(t); \
                       const lines = new Set([...range.getClientRects()].map((q) => Math.round(q.top))).size; \
                       const box = c.getBoundingClientRect(); \
                       return { time: t.textContent, lines, clock: inside(box, page), \
                                text: inside(range.getBoundingClientRect(), box) }; }); \
                     const control = document.getElementById('clock-control').getBoundingClientRect(); \
                     return { scroll: document.documentElement.scrollWidth, width: w, \
                              control: inside(control, page), clocks };",
                    vec![],
                )
                .await
                .expect("the clocks measured");
            h.screenshot(&o, &format!("clock-phone-{label}")).await;
            assert!(
                fit["scroll"].as_u64() <= fit["width"].as_u64(),
                "{label}: the page scrolls sideways on a phone: {fit}"
            );
            assert_eq!(fit["control"], true, "{label}: {fit}");
            for c in fit["clocks"].as_array().expect("two clocks") {
                assert_eq!(
                    (&c["lines"], &c["clock"], &c["text"]),
                    (&json!(1), &json!(true), &json!(true)),
                    "{label}: a clock clipped or split on a phone: {fit}"
                );
            }
        }

        // An open game in the lobby says its time control.
        let (status, _) = h
            .api
            .call(
                "POST",
                "/api/games",
                None,
                &json!({"listed": true, "clock": {"minutes": 3, "increment": 2}}),
            )
            .await;
        assert_eq!(status, 201);
        open_start_page(&h, &x).await;
        wait_script(
            &x,
            "the open game's clock in the lobby",
            "const l = document.getElementById('open-list'); \
             return !!l && l.textContent.includes('3×3, 3 in a row, 3+2');",
        )
        .await;
        x.execute(
            "document.getElementById('lobby-open').scrollIntoView();",
            vec![],
        )
        .await
        .expect("the lobby scrolled to");
        h.screenshot(&x, "clock-desktop-lobby").await;
    });
}
