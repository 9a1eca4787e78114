//! Exact values on the 7×7 k=5 analysis board from the first move: after
//! X's centre move (whose values come from the opening table) and after
//! O's reply (from the prover's search of the real game), every empty cell
//! is valued, with the exact legend and no estimate, on a desktop and on
//! a phone; in a won position the wins come without their length, and the
//! legend says so.

use super::*;

/// Whether every one of `n` empty cells shows a draw, the exact legend is
/// up (its note on lengths as where every length is known: a draw's is)
/// and the engine's estimate is not.
fn all_draws(n: usize) -> String {
    format!(
        "return document.querySelectorAll('#board .cell.value-draw').length === {n} \
           && !document.getElementById('legend').hidden \
           && document.getElementById('legend-note').textContent === \
              'for the side to move, perfect play; W3: a win in 3 plies (moves by either side)' \
           && document.getElementById('estimate').hidden;"
    )
}

#[test]
fn the_seven_by_seven_k5_analysis_board_is_exact_from_the_first_move() {
    run("hints7", |h| async move {
        let c = h.session("desktop", 1280, 800).await;
        open_analysis(&h, &c, "size=7x7&k=5&moves=3,3").await;
        wait_page(&c, "O to move on 7x7", |p| {
            p.cells == 49 && p.status == "O to move — play either side"
        })
        .await;
        wait_script(&c, "48 draws after X's centre move", &all_draws(48)).await;
        let shot = h.screenshot(&c, "hints7-centre").await;
        eprintln!("screenshot: {}", shot.display());
        open_analysis(&h, &c, "size=7x7&k=5&moves=3,3;5,3").await;
        wait_page(&c, "X to move on 7x7", |p| {
            p.cells == 49 && p.status == "X to move — play either side"
        })
        .await;
        wait_script(&c, "47 draws after O's reply", &all_draws(47)).await;
        let shot = h.screenshot(&c, "hints7-reply").await;
        eprintln!("screenshot: {}", shot.display());

        // A won position (X has four in a row, both ends open), valued by
        // the prover: every move wins, shown without its length, and the
        // legend says the lengths are unknown instead of reading "W3".
        open_analysis(&h, &c, "size=7x7&k=5&moves=3,1;5,0;3,2;5,2;3,3;5,4;3,4;5,6").await;
        wait_script(
            &c,
            "41 wins without their length",
            "const wins = [...document.querySelectorAll('#board .cell.value-win')]; \
             return wins.length === 41 && wins.every((b) => b.textContent.trim() === 'W') \
               && !document.getElementById('legend').hidden \
               && document.getElementById('legend-note').textContent === \
                  'for the side to move, perfect play; W, L: length unknown';",
        )
        .await;
        let shot = h.screenshot(&c, "hints7-won").await;
        eprintln!("screenshot: {}", shot.display());

        // The same board on a phone, the board and its legend in view.
        let phone = h.session("phone", 360, 640).await;
        open_analysis(&h, &phone, "size=7x7&k=5&moves=3,3").await;
        wait_script(&phone, "48 draws on a phone", &all_draws(48)).await;
        phone
            .execute(
                "document.getElementById('legend').scrollIntoView({ block: 'end' }); return true;",
                vec![],
            )
            .await
            .expect("the legend scrolled into view");
        let shot = h.screenshot(&phone, "hints7-phone").await;
        eprintln!("screenshot: {}", shot.display());
    });
}
