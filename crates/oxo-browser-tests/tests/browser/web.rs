//! The page on a phone and a desktop: every board size laid out, the
//! larger-cells zoom that follows the last move, difficulty in words, and
//! the invite as a QR code or a share sheet.

use super::*;

/// A game against `opponent` on an `n`×`n` board made through the API, with
/// this browser holding seat X (as if it had made it), and its page open.
async fn open_seated(h: &Harness, c: &Client, n: u32, opponent: &str) -> String {
    let k = n.min(5);
    let (status, body) = h
        .api
        .call(
            "POST",
            "/api/games",
            None,
            &json!({ "size": format!("{n}x{n}"), "k": k, "opponent": opponent, "first": "x" }),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let id = body["game"]["id"].as_str().expect("an id").to_owned();
    let token = body["token"].as_str().expect("a token").to_owned();
    c.goto(&h.url("/")).await.expect("the start page");
    c.execute(
        "localStorage.setItem('oxo.seat.' + arguments[0], JSON.stringify({ seat: 'x', token: arguments[1] })); \
         return true;",
        vec![json!(id), json!(token)],
    )
    .await
    .expect("the seat kept");
    c.goto(&h.url(&format!("/g/{id}"))).await.expect("the game");
    wait_page(c, &format!("the {n}x{n} game, live, X to move"), |p| {
        p.cells == (n * n) as usize && p.connection == "live" && p.playable
    })
    .await;
    id
}

/// A browser the size of a 390×844 phone (the window is sized again once
/// open: headless Chromium starts no narrower than 500 px).
async fn phone(h: &Harness) -> Client {
    let c = h.session("phone", 390, 844).await;
    c.set_window_size(390, 844).await.expect("the window sized");
    c
}

/// The board as laid out: the page's and the board box's sizes, whether the
/// board is zoomed, and every cell's box.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Fit {
    inner_width: f64,
    inner_height: f64,
    scroll_width: f64,
    zoomed: bool,
    zoom_offered: bool,
    /// The board box (`#board-wrap`): `[left, top, right, bottom]` of what
    /// it shows, and how far its content reaches.
    wrap: [f64; 4],
    wrap_scroll: [f64; 2],
    /// `[left, top, right, bottom]` of every cell.
    cells: Vec<[f64; 4]>,
}

const FIT_SCRIPT: &str = r"
const wrap = document.getElementById('board-wrap');
const w = wrap.getBoundingClientRect();
const box = (r) => [r.left, r.top, r.right, r.bottom];
return {
  innerWidth: window.innerWidth,
  innerHeight: window.innerHeight,
  scrollWidth: document.documentElement.scrollWidth,
  zoomed: document.getElementById('board').classList.contains('zoomed'),
  zoomOffered: !document.getElementById('zoom-toggle').hidden,
  wrap: [w.left + wrap.clientLeft, w.top + wrap.clientTop,
         w.left + wrap.clientLeft + wrap.clientWidth, w.top + wrap.clientTop + wrap.clientHeight],
  wrapScroll: [wrap.scrollWidth, wrap.scrollHeight],
  cells: [...document.querySelectorAll('#board .cell')].map((c) => box(c.getBoundingClientRect())),
};
";

async fn fit(c: &Client) -> Fit {
    let value = c.execute(FIT_SCRIPT, vec![]).await.expect("the layout");
    serde_json::from_value(value).expect("a layout")
}

impl Fit {
    fn cell_px(&self) -> f64 {
        self.cells[0][2] - self.cells[0][0]
    }

    /// Nothing clipped: the page never scrolls sideways, and an unzoomed
    /// board lies whole inside its box (a zoomed one scrolls in it).
    fn assert_unclipped(&self, what: &str) {
        assert!(
            self.scroll_width <= self.inner_width,
            "{what}: the page scrolls sideways ({} > {})",
            self.scroll_width,
            self.inner_width
        );
        let [left, _, right, _] = self.wrap;
        if !self.zoomed {
            for (i, cell) in self.cells.iter().enumerate() {
                assert!(
                    cell[0] >= left - 0.01 && cell[2] <= right + 0.01,
                    "{what}: cell {i} ({:.2}..{:.2}) is clipped by the board's box ({left:.2}..{right:.2})",
                    cell[0],
                    cell[2]
                );
            }
        }
        assert!(
            right <= self.inner_width + 0.01,
            "{what}: the box is clipped"
        );
    }
}

/// Every square board from 3×3 to 32×32 on a 390×844 phone: nothing
/// clipped, and cells of at least 32 px, zoomed where fitting the width
/// would make them smaller. Screenshots: `web-phone-NxN.png`.
#[test]
fn every_board_fits_a_phone() {
    run("web-phone-boards", |h| async move {
        let c = phone(&h).await;
        for n in 3..=32 {
            open_seated(&h, &c, n, "random").await;
            let fit = fit(&c).await;
            let what = format!("{n}x{n} at 390x844");
            eprintln!(
                "{what}: viewport {}x{}, cells {:.1} px, zoomed {}, box {:?}, content {:?}",
                fit.inner_width,
                fit.inner_height,
                fit.cell_px(),
                fit.zoomed,
                fit.wrap,
                fit.wrap_scroll
            );
            c.execute(
                "document.getElementById('board-wrap').scrollIntoView({ block: 'nearest' }); return true;",
                vec![],
            )
            .await
            .expect("the board in view");
            h.screenshot(&c, &format!("web-phone-{n}x{n}")).await;
            fit.assert_unclipped(&what);
            assert!(
                fit.cell_px() >= 32.0,
                "{what}: cells of {:.1} px",
                fit.cell_px()
            );
            assert_eq!(fit.zoomed, fit.zoom_offered, "{what}: zoomed where offered");
        }
    });
}

/// Whether the last move's cell is wholly in what the board's box shows,
/// clear of the coordinates pinned along its top and left edges.
const LAST_IN_VIEW: &str = r"
const wrap = document.getElementById('board-wrap');
const last = document.querySelector('#board .cell.last');
if (!last) return null;
const b = wrap.getBoundingClientRect();
const band = document.querySelector('#board .coord.corner').getBoundingClientRect();
const c = last.getBoundingClientRect();
const left = b.left + wrap.clientLeft + band.width, top = b.top + wrap.clientTop + band.height;
return c.left >= left - 0.5 && c.top >= top - 0.5
  && c.right <= b.left + wrap.clientLeft + wrap.clientWidth + 0.5
  && c.bottom <= b.top + wrap.clientTop + wrap.clientHeight + 0.5;
";

/// On a phone, 15×15 starts zoomed; each reply of the computer is brought
/// into the board's box wherever it falls, the page never scrolls
/// sideways, and the switch beside the board turns the zoom off (and that
/// choice is kept for the next game).
#[test]
fn a_zoomed_board_follows_the_last_move() {
    run("web-phone-follow", |h| async move {
        let c = phone(&h).await;
        let id = open_seated(&h, &c, 15, "random").await;
        let zoom = find(&c, "#zoom").await;
        assert_eq!(
            zoom.prop("checked").await.expect("the switch").as_deref(),
            Some("true"),
            "larger cells are on at first on a phone"
        );
        for played in 1..=4u32 {
            let now = wait_page(&c, "X to move", |p| p.playable).await;
            // The corner farthest from the last move, so that the reply
            // often lands out of view.
            let [row, col] = *now
                .enabled
                .iter()
                .max_by_key(|[r, c]| (r + c) * (played % 2) + (28 - r - c) * (1 - played % 2))
                .expect("a free cell");
            click_cell(&c, row, col).await;
            let seen = wait_page(&c, "the computer's reply", |p| {
                p.count('O') == played as usize && p.playable
            })
            .await;
            let in_view = c.execute(LAST_IN_VIEW, vec![]).await.expect("the check");
            let fit = fit(&c).await;
            assert_eq!(
                in_view,
                Value::Bool(true),
                "move {played}: the reply is out of view: {:?}, box {:?}",
                seen.board,
                fit.wrap
            );
            fit.assert_unclipped(&format!("move {played}"));
            assert!(fit.zoomed && fit.cell_px() >= 32.0, "{fit:?}");
        }
        h.screenshot(&c, "web-phone-15x15-follow").await;
        // The whole board at once, on request; the choice is kept.
        zoom.click().await.expect("Larger cells off");
        let whole = fit(&c).await;
        assert!(!whole.zoomed, "{whole:?}");
        whole.assert_unclipped("15x15 unzoomed");
        h.screenshot(&c, "web-phone-15x15-whole").await;
        c.refresh().await.expect("the page again");
        wait_page(&c, "the game again", |p| p.connection == "live").await;
        let again = fit(&c).await;
        assert!(!again.zoomed && again.zoom_offered, "{again:?}");
        let _ = id;
    });
}

/// At 1280×800 and 1920×1080 boards fit the window without zooming, as
/// before; 32×32 is offered larger cells but starts whole.
#[test]
fn desktop_boards_fit_unzoomed() {
    run("web-desktop", |h| async move {
        let c = h.session("desktop", 1280, 800).await;
        for (width, height) in [(1280, 800), (1920, 1080)] {
            c.set_window_size(width, height)
                .await
                .expect("the window sized");
            for n in [3, 7, 15, 20, 32] {
                open_seated(&h, &c, n, "random").await;
                let fit = fit(&c).await;
                let what = format!("{n}x{n} at {width}x{height}");
                eprintln!(
                    "{what}: cells {:.1} px, zoom offered {}",
                    fit.cell_px(),
                    fit.zoom_offered
                );
                fit.assert_unclipped(&what);
                assert!(!fit.zoomed, "{what}: zoomed");
                let bottom = fit.cells.last().expect("cells")[3];
                assert!(
                    bottom <= fit.inner_height,
                    "{what}: the board ends at {bottom:.0} px, below the window"
                );
                h.screenshot(&c, &format!("web-desktop-{width}x{height}-{n}x{n}"))
                    .await;
            }
        }
    });
}

/// The computer's strength in plain words: on the quick games (level,
/// words, the algorithm in small print, all in the button's label), in the
/// form for the board chosen, and under a game's board.
#[test]
fn difficulty_is_told_in_plain_words() {
    run("web-words", |h| async move {
        let c = phone(&h).await;
        open_start_page(&h, &c).await;
        let quick = c
            .execute(
                "const b = (size, who) => document.querySelector( \
                   `.quick-computer button[data-size='${size}'][data-opponent='${who}']`); \
                 return [b('3x3', 'perfect'), b('15x15', 'alphabeta'), b('15x15', 'rules')].map((x) => \
                   [x.firstChild.textContent, x.querySelector('.words').textContent, \
                    x.querySelector('small').textContent, x.getAttribute('aria-label')]);",
                vec![],
            )
            .await
            .expect("the quick buttons");
        assert_eq!(
            quick,
            json!([
                [
                    "Strong",
                    "never loses",
                    "perfect",
                    "Tic-tac-toe, strong, never loses (perfect)"
                ],
                [
                    "Strong",
                    "looks ahead",
                    "alphabeta",
                    "Gomoku, strong, looks ahead (alphabeta)"
                ],
                [
                    "Easy",
                    "wins and blocks",
                    "rules",
                    "Gomoku, easy, wins and blocks (rules)"
                ],
            ])
        );
        let start = fit_page(&c).await;
        assert!(
            start.0 <= start.1,
            "the start page scrolls sideways: {start:?}"
        );
        c.execute(
            "document.querySelector('.quick-computer').scrollIntoView(); return true;",
            vec![],
        )
        .await
        .expect("the quick games in view");
        h.screenshot(&c, "web-words-quick").await;

        let option = async |preset: &str, who: &str| {
            find(&c, "select#preset")
                .await
                .select_by_value(preset)
                .await
                .expect("a board chosen");
            c.execute(
                "return [...document.getElementById('opponent').options] \
                   .find((o) => o.value === arguments[0]).text;",
                vec![json!(who)],
            )
            .await
            .expect("the option")
        };
        assert_eq!(
            option("3x3k3", "perfect").await,
            json!("computer: Strong — never loses (perfect)")
        );
        assert_eq!(
            option("3x3k3", "rules").await,
            json!("computer: Medium — wins and blocks (rules)")
        );
        assert_eq!(
            option("15x15k5", "rules").await,
            json!("computer: Easy — wins and blocks (rules)")
        );
        assert_eq!(
            option("15x15k5", "perfect").await,
            json!("computer: Strong — plays perfectly (perfect) (not on this board)")
        );

        start_game(&h, &c, "perfect", "3x3k3", "x").await;
        let details = c
            .execute(
                "return document.getElementById('details').textContent;",
                vec![],
            )
            .await
            .expect("the details");
        assert_eq!(
            details,
            json!(
                "3×3, 3 in a row · O is the computer: Strong — never loses (perfect) · X started"
            )
        );
    });
}

/// `[scrollWidth, innerWidth]` of the page.
async fn fit_page(c: &Client) -> (f64, f64) {
    let value = c
        .execute(
            "return [document.documentElement.scrollWidth, window.innerWidth];",
            vec![],
        )
        .await
        .expect("the widths");
    serde_json::from_value(value).expect("two numbers")
}
