//! Analysis on every board in the page: the engine's estimate on 15×15
//! (best moves marked, a gauge, the best line, a lasting note), the
//! variation tree kept through a reload and carried by the shared link, a
//! finished round reviewed at once, and hints against the computer that
//! look like the analysis board and stay on after a reload; at desktop and
//! phone sizes.

use super::*;

/// The sizes every screen here is looked at in.
const SIZES: [(&str, u32, u32); 2] = [("desktop", 1280, 800), ("phone", 390, 844)];

/// Cells marked by the engine's estimate: (best, others).
const EST_MARKS: &str = "return [document.querySelectorAll('#board .cell.est-best').length, \
     document.querySelectorAll('#board .cell.est').length];";

async fn shown(client: &Client, id: &str) -> bool {
    client
        .execute(
            "const e = document.getElementById(arguments[0]); \
             return !!e && !e.hidden && e.getClientRects().length > 0;",
            vec![json!(id)],
        )
        .await
        .ok()
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

/// Bring the element `id` into view, for a screenshot of it.
async fn scroll_to(client: &Client, id: &str) {
    client
        .execute(
            "document.getElementById(arguments[0]).scrollIntoView({ block: 'center' }); return true;",
            vec![json!(id)],
        )
        .await
        .expect("scrolled");
}

async fn text_of(client: &Client, id: &str) -> String {
    client
        .execute(
            "return document.getElementById(arguments[0]).textContent;",
            vec![json!(id)],
        )
        .await
        .expect("an element's text")
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_gomoku_position_gets_the_engines_estimate_on_the_board() {
    run("analysis-estimate", |h| async move {
        for (size, width, height) in SIZES {
            let c = h.session(size, width, height).await;
            open_analysis(&h, &c, "size=15x15&k=5&moves=7,7;7,8;8,8").await;
            wait_page(&c, "O to move on 15x15", |p| {
                p.cells == 225 && p.status == "O to move — play either side"
            })
            .await;
            wait_script(
                &c,
                "one best move and four more marked",
                &format!("const [b, o] = (() => {{ {EST_MARKS} }})(); return b === 1 && o === 4;"),
            )
            .await;
            assert!(shown(&c, "estimate").await, "{size}: the estimate panel");
            assert!(shown(&c, "legend-estimate").await, "{size}: its legend");
            assert!(!shown(&c, "legend").await, "{size}: no exact legend");
            let gauge = text_of(&c, "gauge-text").await;
            assert!(gauge.starts_with("Estimate: "), "{size}: {gauge}");
            assert!(text_of(&c, "best-line").await.starts_with("Best line: "));
            assert!(
                text_of(&c, "best-moves")
                    .await
                    .starts_with("Best moves: 1. ")
            );
            // The reason is a note that stays, not a passing message.
            let note = text_of(&c, "analysis-note").await;
            assert!(
                shown(&c, "analysis-note").await
                    && note.contains("25 cells")
                    && note.contains("estimate"),
                "{size}: {note}"
            );
            // The best move's cell says so to a screen reader.
            let label = c
                .execute(
                    "return document.querySelector('#board .cell.est-best').getAttribute('aria-label');",
                    vec![],
                )
                .await
                .expect("a label");
            assert!(
                label
                    .as_str()
                    .unwrap_or_default()
                    .contains("engine's choice 1"),
                "{label}"
            );
            h.screenshot(&c, &format!("estimate-{size}")).await;
            // Playing the best move: the estimate follows, X to move.
            find(&c, "#board .cell.est-best")
                .await
                .click()
                .await
                .expect("the best move");
            wait_page(&c, "X to move", |p| {
                p.status == "X to move — play either side"
            })
            .await;
            wait_script(
                &c,
                "the estimate for X's move",
                &format!("const [b, o] = (() => {{ {EST_MARKS} }})(); return b === 1 && o === 4;"),
            )
            .await;
        }
    });
}

/// A 7×7 k=5 position whose hardest moves need more search than a hint
/// may take (after four moves, beyond the opening table): the moves valued
/// in time show their exact values, the others the engine's estimate, and
/// the note says which is which.
#[test]
fn a_position_over_the_budget_shows_the_values_found_and_the_estimate() {
    run("analysis-some-values", |h| async move {
        for (size, width, height) in SIZES {
            let c = h.session(size, width, height).await;
            open_analysis(&h, &c, "size=7x7&k=5&moves=1,2;0,3;4,3;6,6").await;
            wait_page(&c, "X to move on 7x7", |p| {
                p.cells == 49 && p.status == "X to move — play either side"
            })
            .await;
            wait_script(
                &c,
                "exact values beside the estimate",
                "return document.querySelectorAll('#board .cell.value-draw').length > 0 \
                   && !document.getElementById('estimate').hidden;",
            )
            .await;
            let exact = c
                .execute(
                    "return document.querySelectorAll('#board .cell.value-draw, \
                       #board .cell.value-win, #board .cell.value-loss').length;",
                    vec![],
                )
                .await
                .expect("the valued cells")
                .as_u64()
                .unwrap_or_default();
            assert!(exact > 0 && exact < 45, "{size}: {exact} cells valued");
            assert!(shown(&c, "legend").await, "{size}: the exact legend");
            assert!(shown(&c, "legend-estimate").await, "{size}: the estimate's");
            let note = text_of(&c, "analysis-note").await;
            assert!(
                note.starts_with("W, D and L are exact")
                    && note.contains(&format!("exact values for {exact} of the 45 moves"))
                    && note.contains("estimate"),
                "{size}: {note}"
            );
            assert!(
                shown(&c, "longer-row").await,
                "{size}: a longer look offered"
            );
            h.screenshot(&c, &format!("some-values-{size}")).await;
        }
    });
}

/// What the status under "Look further" says while a look runs...
const LOOKING: &str = "Looking further: this can take up to half a minute…";
/// ...and once it has valued every move.
const EVERY: &str = "Looked further: every move has its exact value now.";

/// Click "Look further" and read the status at once, in the same script:
/// the page says it is looking before it asks the server.
async fn click_look_further(c: &Client) -> String {
    c.execute(
        "document.getElementById('look-longer').click(); \
         return document.getElementById('longer-note').textContent;",
        vec![],
    )
    .await
    .expect("Look further clicked")
    .as_str()
    .unwrap_or_default()
    .to_owned()
}

/// A game's hints offer the same longer look: a round between two people,
/// resigned at the position of the test above (hints are for finished
/// rounds there), seen by X with hints on: the values found in time and
/// "Look further", then every move's value, which stays on a reload.
#[test]
fn look_further_in_a_games_hints() {
    run("hints-look-further", |h| async move {
        let seated = oxo_test_support::seated_game(&h.api, &json!({"size": "7x7", "k": 5}))
            .await
            .expect("a seated game");
        let (id, x, o) = (&seated.id, &seated.x, &seated.o);
        for (version, token, row, col) in [(2, x, 1, 2), (3, o, 0, 3), (4, x, 4, 3), (5, o, 6, 6)] {
            let (status, played) = h
                .api
                .call(
                    "POST",
                    &format!("/api/games/{id}/moves"),
                    Some(token.as_str()),
                    &json!({"row": row, "col": col, "version": version}),
                )
                .await;
            assert_eq!(status, 200, "{played}");
        }
        let (status, resigned) = h
            .api
            .call(
                "POST",
                &format!("/api/games/{id}/resign"),
                Some(o.as_str()),
                &json!({}),
            )
            .await;
        assert_eq!(status, 200, "{resigned}");

        let c = h.session("desktop", 1280, 800).await;
        open_seat(&h, &c, id, "x", x).await;
        find(&c, "#hints").await.click().await.expect("hints on");
        wait_script(
            &c,
            "the values found in time and the offer of a longer look",
            "return document.querySelectorAll('#board .cell.value-draw').length > 0 \
               && !document.getElementById('longer-row').hidden \
               && document.getElementById('look-longer').getAttribute('aria-disabled') === 'false';",
        )
        .await;
        assert_eq!(click_look_further(&c).await, LOOKING);
        let every = "return document.querySelectorAll('#board .cell.value-draw').length === 44 \
               && document.querySelectorAll('#board .cell.value-win').length === 1 \
               && document.getElementById('longer-row').hidden;";
        wait_script_within(&c, "every move valued", every, Duration::from_secs(75)).await;
        assert_eq!(text_of(&c, "longer-note").await, EVERY);
        h.screenshot(&c, "hints-look-further").await;
        c.refresh().await.expect("a reload");
        wait_script(&c, "every move valued after a reload", every).await;
    });
}

/// Where the hints' budget left moves without a value, "Look further" asks
/// the server for a longer search: it says it is looking, then every move
/// has its value (X's win among them), the estimate and the offer go, and
/// stepping away and back shows the values kept.
#[test]
fn look_further_values_the_moves_left() {
    run("analysis-look-further", |h| async move {
        let c = h.session("desktop", 1280, 800).await;
        open_analysis(&h, &c, "size=7x7&k=5&moves=1,2;0,3;4,3;6,6").await;
        wait_script(
            &c,
            "the offer of a longer look",
            "return !document.getElementById('longer-row').hidden \
               && document.getElementById('look-longer').getAttribute('aria-disabled') === 'false';",
        )
        .await;
        c.execute(
            "document.getElementById('longer-row').scrollIntoView({ block: 'center' }); return true;",
            vec![],
        )
        .await
        .expect("the offer scrolled into view");
        h.screenshot(&c, "look-further-offer").await;
        assert_eq!(click_look_further(&c).await, LOOKING);
        // A search of seconds on a quiet machine: waited for by what the
        // page shows (the server's own limit for a request is 30 s).
        wait_script_within(
            &c,
            "every move valued",
            &format!(
                "return document.querySelectorAll('#board .cell.value-draw').length === 44 \
                   && document.querySelectorAll('#board .cell.value-win').length === 1 \
                   && document.getElementById('longer-row').hidden \
                   && document.getElementById('estimate').hidden \
                   && document.getElementById('longer-note').textContent === '{EVERY}';"
            ),
            Duration::from_secs(75),
        )
        .await;
        let win = cell(&c, 2, 3)
            .await
            .attr("aria-label")
            .await
            .expect("a label");
        assert_eq!(win.as_deref(), Some("row 3, column 4, empty, hint: win"));
        h.screenshot(&c, "look-further-desktop").await;
        // Back a move and on again: the longer look's values are kept.
        find(&c, "#step-back").await.click().await.expect("back");
        wait_page(&c, "O to move", |p| {
            p.status == "O to move — play either side"
        })
        .await;
        find(&c, "#step-forward")
            .await
            .click()
            .await
            .expect("forward");
        wait_script(
            &c,
            "the values kept",
            "return document.querySelectorAll('#board .cell.value-draw').length === 44 \
               && document.getElementById('longer-row').hidden;",
        )
        .await;
    });
}

/// The move list's variations, as their text.
async fn variations(client: &Client) -> Vec<String> {
    let value = client
        .execute(
            "return [...document.querySelectorAll('#move-list .variation')].map((v) => v.textContent);",
            vec![],
        )
        .await
        .expect("the variations");
    serde_json::from_value(value).expect("a list of texts")
}

#[test]
fn a_variation_stays_through_a_reload_and_goes_with_the_link() {
    run("analysis-tree", |h| async move {
        let c = h.session("tree", 1280, 800).await;
        open_analysis(&h, &c, "size=3x3&k=3").await;
        wait_page(&c, "the empty board", |p| p.cells == 9 && p.playable).await;
        // The main line: X centre, O corner, X opposite corner.
        for (n, (row, col)) in [(1, 1), (0, 0), (2, 2)].into_iter().enumerate() {
            click_cell(&c, row, col).await;
            let version = (n + 1).to_string();
            wait_page(&c, "the move made", |p| p.version == version && p.playable).await;
        }
        // Back two moves, and another reply for O: a branch.
        for _ in 0..2 {
            find(&c, "#step-back").await.click().await.expect("back");
        }
        wait_page(&c, "after X's first move", |p| p.board == ".../.X./...").await;
        click_cell(&c, 0, 1).await;
        wait_page(&c, "the branch", |p| p.board == ".O./.X./...").await;
        assert_eq!(variations(&c).await, ["2. O 1,2"]);
        let main: Vec<String> = move_list(&c).await.0;
        assert_eq!(
            main,
            ["1. X 2,2", "2. O 1,1", "2. O 1,2", "3. X 3,3"].map(String::from)
        );
        assert!(shown(&c, "to-main").await, "a way back to the main line");
        let url = c.current_url().await.expect("the url").to_string();
        assert!(url.contains("tree="), "{url}");
        scroll_to(&c, "record").await;
        h.screenshot(&c, "tree-desktop").await;

        // A reload keeps it, and the position.
        c.refresh().await.expect("a reload");
        wait_page(&c, "the branch again", |p| p.board == ".O./.X./...").await;
        wait_script(
            &c,
            "the variation",
            "return document.querySelectorAll('#move-list .variation').length === 1;",
        )
        .await;
        // Back to the main line, where it was.
        find(&c, "#to-main")
            .await
            .click()
            .await
            .expect("the main line");
        wait_page(&c, "the main line at move 2", |p| p.board == "O../.X./...").await;
        find(&c, "#step-last").await.click().await.expect("its end");
        wait_page(&c, "the main line's end", |p| p.board == "O../.X./..X").await;
        let export = c
            .execute(
                "return document.getElementById('record-text').value;",
                vec![],
            )
            .await
            .expect("the export");
        assert!(
            export.as_str().unwrap_or_default().contains(
                "variations (rows and columns from 0, branches in parentheses): 1,1 0,0 (0,1) 2,2"
            ),
            "{export}"
        );

        // The link, in a browser that never saw it (a profile of its own).
        let url = c.current_url().await.expect("the url").to_string();
        let phone = h.session("tree-phone", 390, 844).await;
        phone.goto(&url).await.expect("the shared link");
        wait_page(&phone, "the main line's end", |p| p.board == "O../.X./..X").await;
        wait_script(
            &phone,
            "the variation",
            "return document.querySelectorAll('#move-list .variation').length === 1;",
        )
        .await;
        scroll_to(&phone, "record").await;
        h.screenshot(&phone, "tree-phone").await;
        // This browser keeps the tree for the board: the moves alone bring
        // its variations back.
        c.goto(&h.url("/analysis?size=3x3&k=3&first=x&moves=1,1"))
            .await
            .expect("the moves alone");
        wait_page(&c, "after X's first move", |p| p.board == ".../.X./...").await;
        wait_script(
            &c,
            "the variation",
            "return document.querySelectorAll('#move-list .variation').length === 1;",
        )
        .await;
        // A hand-made link with a branch the rules refuse: the board stays
        // where it was and says why.
        c.goto(&h.url("/analysis?size=3x3&k=3&moves=1,1&tree=1,1%200,0%20(1,1)"))
            .await
            .expect("a link with a bad branch");
        wait_page(&c, "after X's first move", |p| p.board == ".../.X./...").await;
        find(&c, "#move-list .variation button")
            .await
            .click()
            .await
            .expect("the bad branch");
        wait_page(&c, "the refusal, the board unchanged", |p| {
            p.message.contains("already taken") && p.board == ".../.X./..."
        })
        .await;
        let url = c.current_url().await.expect("the url").to_string();
        assert!(url.contains("moves=1%2C1&"), "{url}");
        // A move that is not ROW,COL is reported as the link gives it.
        c.goto(&h.url("/analysis?size=3x3&k=3&moves=1,1;garbage"))
            .await
            .expect("a link with a bad move");
        wait_page(&c, "the bad move reported as written", |p| {
            p.message == "move 2: \"garbage\" is not ROW,COL (from 0)" && p.start_view
        })
        .await;
        // Half a move is no move (read as numbers, `1,` would be 1,0).
        c.goto(&h.url("/analysis?size=3x3&k=3&moves=1,"))
            .await
            .expect("a link with half a move");
        wait_page(&c, "half a move reported as written", |p| {
            p.message == "move 1: \"1,\" is not ROW,COL (from 0)" && p.start_view
        })
        .await;
    });
}

#[test]
fn a_finished_round_is_reviewed_at_once() {
    run("analysis-review", |h| async move {
        for (size, width, height) in SIZES {
            let c = h.session(size, width, height).await;
            // Tic-tac-toe: O's second-move mistake is exact.
            c.goto(&h.url("/analysis?size=3x3&k=3&moves=0,0;1,0;0,1;1,1;0,2"))
                .await
                .expect("a finished round");
            wait_page(&c, "X won", |p| p.status == "X wins").await;
            wait_script(
                &c,
                "every move coloured, O's mistake marked",
                "const b = [...document.querySelectorAll('#move-list button[data-ply]')]; \
                 return b.length === 5 && b.every((x) => /v-(win|draw|loss)/.test(x.className)) \
                   && b[1].classList.contains('mistake') && b[1].classList.contains('v-loss') \
                   && b.filter((x) => x.classList.contains('mistake')).length === 1;",
            )
            .await;
            let summary = text_of(&c, "review-summary").await;
            assert!(
                summary.contains("exact") && summary.contains("2. O 2,1 gave away a draw"),
                "{summary}"
            );
            // Not by colour alone: each move has its value's letter, and
            // the value in words for a screen reader.
            let tags = c
                .execute(
                    "const b = [...document.querySelectorAll('#move-list button[data-ply]')]; \
                     return [b.map((x) => x.querySelector('.v-tag').textContent), \
                       b[1].querySelector('.sr-only').textContent];",
                    vec![],
                )
                .await
                .expect("the review's tags");
            assert_eq!(
                tags,
                json!([["D", "L", "W", "L", "W"], " (loss, exact)"]),
                "{size}"
            );
            scroll_to(&c, "record").await;
            h.screenshot(&c, &format!("review-exact-{size}")).await;

            // A round that ended other than on the board (a resignation,
            // say): its link asks for the review, which comes at once
            // though the last position goes on; without that, none.
            for (asked, reviewed) in [("&review=1", true), ("", false)] {
                c.goto(&h.url(&format!(
                    "/analysis?size=3x3&k=3&first=x&moves=1,1;0,1;0,0{asked}"
                )))
                .await
                .expect("a resigned round");
                wait_page(&c, "the position after three moves", |p| {
                    p.board == "XO./.X./..." && p.status.contains("O to move")
                })
                .await;
                if reviewed {
                    wait_script(
                        &c,
                        "the three moves coloured, O's mistake marked",
                        "const b = [...document.querySelectorAll('#move-list button[data-ply]')]; \
                         return b.length === 3 && b.every((x) => /v-(win|draw|loss)/.test(x.className)) \
                           && b[1].classList.contains('mistake');",
                    )
                    .await;
                    let summary = text_of(&c, "review-summary").await;
                    assert!(summary.contains("2. O 1,2 gave away a draw"), "{summary}");
                } else {
                    let summary = text_of(&c, "review-summary").await;
                    assert!(summary.is_empty(), "reviewed unasked: {summary}");
                }
            }

            // Gomoku: X lets its open four go and O wins; the engine's
            // review marks it, labelled an estimate.
            c.goto(
                &h.url("/analysis?size=15x15&k=5&moves=7,5;3,5;7,6;3,6;7,7;3,7;7,8;3,8;10,10;3,9"),
            )
            .await
            .expect("a finished gomoku round");
            wait_page(&c, "O won", |p| p.status == "O wins").await;
            wait_script(
                &c,
                "every move coloured, X's missed win marked",
                "const b = [...document.querySelectorAll('#move-list button[data-ply]')]; \
                 return b.length === 10 && b.every((x) => /e-(good|even|bad)/.test(x.className)) \
                   && b[8].classList.contains('mistake') && b[8].querySelector('.flag').textContent === '??';",
            )
            .await;
            let tag = c
                .execute(
                    "const b = document.querySelectorAll('#move-list button[data-ply]')[8]; \
                     return [b.querySelector('.v-tag').textContent, \
                       b.querySelector('.sr-only').textContent];",
                    vec![],
                )
                .await
                .expect("the missed win's tag");
            assert_eq!(tag, json!(["−", " (bad for X, estimated)"]), "{size}");
            let summary = text_of(&c, "review-summary").await;
            assert!(
                summary.contains("estimate")
                    && summary.contains("9. X 11,11 gave away a win (estimate)"),
                "{summary}"
            );
            scroll_to(&c, "record").await;
            h.screenshot(&c, &format!("review-estimate-{size}")).await;
        }
    });
}

#[test]
fn hints_against_the_computer_look_like_the_analysis_board_and_stay_on() {
    run("analysis-hints", |h| async move {
        for (size, width, height, board, marked) in [
            ("desktop", 1280, 800, "15x15", EST_MARKS),
            ("phone", 390, 844, "3x3", ""),
        ] {
            let (status, created) = h
                .api
                .call(
                    "POST",
                    "/api/games",
                    None,
                    &json!({"size": board, "opponent": "alphabeta"}),
                )
                .await;
            assert_eq!(status, 201, "{created}");
            let id = created["game"]["id"].as_str().expect("an id").to_owned();
            let token = created["token"].as_str().expect("a token").to_owned();
            let c = h.session(size, width, height).await;
            open_seat(&h, &c, &id, "x", &token).await;
            wait_page(&c, "X to move", |p| p.playable).await;
            find(&c, "#hints").await.click().await.expect("hints on");
            let ready = if marked.is_empty() {
                "return document.querySelectorAll('#board .cell.value-draw').length === 9 \
                   && !document.getElementById('legend').hidden;"
                    .to_owned()
            } else {
                format!(
                    "const [b, o] = (() => {{ {marked} }})(); return b === 1 && o === 4 \
                       && !document.getElementById('estimate').hidden \
                       && !document.getElementById('analysis-note').hidden;"
                )
            };
            wait_script(&c, "the hints, as on the analysis board", &ready).await;
            h.screenshot(&c, &format!("hints-{size}")).await;
            c.refresh().await.expect("a reload");
            wait_page(&c, "X to move again", |p| p.playable).await;
            wait_script(&c, "hints still on after the reload", &ready).await;
        }
    });
}
