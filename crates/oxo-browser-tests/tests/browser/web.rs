//! The page on a phone and a desktop: every board size laid out, the
//! larger-cells zoom that follows the last move, difficulty in words, and
//! the invite as a QR code or a share sheet.

use super::*;

/// A game against `opponent` on a `rows`×`cols` board made through the
/// API, with this browser holding seat X (as if it had made it), and its
/// page open.
async fn open_seated(h: &Harness, c: &Client, [rows, cols]: [u32; 2], opponent: &str) -> String {
    let k = rows.max(cols).min(5);
    let (status, body) = h
        .api
        .call(
            "POST",
            "/api/games",
            None,
            &json!({ "size": format!("{rows}x{cols}"), "k": k, "opponent": opponent, "first": "x" }),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let id = body["game"]["id"].as_str().expect("an id").to_owned();
    let token = body["token"].as_str().expect("a token").to_owned();
    open_seat(h, c, &id, "x", &token).await;
    wait_page(
        c,
        &format!("the {rows}x{cols} game, live, X to move"),
        |p| p.cells == (rows * cols) as usize && p.connection == "live" && p.playable,
    )
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

/// Every square board from 3×3 to 32×32 on a 390×844 phone, and a few
/// long thin ones: nothing clipped, and cells of at least 32 px, zoomed
/// where fitting the width would make them smaller. Screenshots:
/// `web-phone-RxC.png`.
#[test]
fn every_board_fits_a_phone() {
    run("web-phone-boards", |h| async move {
        let c = phone(&h).await;
        let thin = [[3, 32], [32, 3], [5, 20], [20, 5]];
        for [rows, cols] in (3..=32).map(|n| [n, n]).chain(thin) {
            open_seated(&h, &c, [rows, cols], "random").await;
            let fit = fit(&c).await;
            let what = format!("{rows}x{cols} at 390x844");
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
            h.screenshot(&c, &format!("web-phone-{rows}x{cols}")).await;
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

/// Whether the cell `arguments[0]` selects (the last move, the focused
/// cell) is wholly in what the board's box shows, clear of the coordinates
/// pinned along its top and left edges.
const IN_VIEW: &str = r"
const wrap = document.getElementById('board-wrap');
const cell = document.querySelector(arguments[0]);
if (!cell) return null;
const b = wrap.getBoundingClientRect();
const band = document.querySelector('#board .coord.corner').getBoundingClientRect();
const c = cell.getBoundingClientRect();
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
        let id = open_seated(&h, &c, [15, 15], "random").await;
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
            let in_view = c
                .execute(IN_VIEW, vec![json!("#board .cell.last")])
                .await
                .expect("the check");
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
                open_seated(&h, &c, [n, n], "random").await;
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

/// A QR code as the page's encoder makes it: the modules (`#` dark), the
/// version and mask chosen, and the modules holding the codewords' bits in
/// the order they were placed.
#[derive(Debug, Deserialize)]
struct Symbol {
    modules: Vec<String>,
    version: usize,
    mask: u16,
    order: Vec<[usize; 2]>,
}

const SYMBOLS_SCRIPT: &str = r"
const texts = arguments[0];
const done = arguments[arguments.length - 1];
import('/assets/qr.js').then((qr) => done(texts.map((t) => {
  const s = qr.symbol(t);
  return s && { modules: s.modules.map((row) => row.map((d) => (d ? '#' : '.')).join('')),
                version: s.version, mask: s.mask, order: s.order };
})));
";

/// Text of `bytes` UTF-8 bytes, varied (letters, digits, URL punctuation
/// and a two-byte character).
fn sample(bytes: usize) -> String {
    let mut text = String::new();
    let alphabet = "http://oxo.example:8080/g/7cphw5cxfzcr#join=é-_~.ABCxyz0123456789";
    for (i, c) in alphabet.chars().cycle().enumerate() {
        if text.len() + c.len_utf8() > bytes {
            break;
        }
        text.push(if i % 7 == 3 { 'Z' } else { c });
    }
    while text.len() < bytes {
        text.push('.');
    }
    text
}

/// The page's QR encoder against an independent decoder (rqrr), on every
/// version it makes (1 to 10, at their largest and smallest lengths): the
/// text comes back whole at level M with the version and mask the page
/// chose, and the decoder reads the data modules in exactly the order the
/// page placed them (so nothing is left for its error correction to mend).
/// Too long a text gets no code.
#[test]
fn the_qr_encoder_reads_back_on_every_version() {
    run("web-qr-versions", |h| async move {
        let c = h.session("qr", 800, 600).await;
        c.goto(&h.url("/")).await.expect("the start page");
        let lengths = [
            1, 14, 15, 26, 27, 42, 43, 62, 63, 84, 106, 122, 152, 180, 213,
        ];
        let texts: Vec<String> = lengths.iter().map(|&n| sample(n)).collect();
        let value = c
            .execute_async(SYMBOLS_SCRIPT, vec![json!(texts)])
            .await
            .expect("the symbols");
        let symbols: Vec<Symbol> = serde_json::from_value(value).expect("symbols");
        let mut versions = Vec::new();
        for (text, symbol) in texts.iter().zip(&symbols) {
            let size = symbol.modules.len();
            assert_eq!(size, 17 + 4 * symbol.version, "{text:?}");
            let dark = |x: usize, y: usize| symbol.modules[y].as_bytes()[x] == b'#';
            let grid = rqrr::Grid::new(rqrr::SimpleGrid::from_func(size, dark));
            let (meta, decoded) = grid
                .decode()
                .unwrap_or_else(|e| panic!("version {}: {e:?} for {text:?}", symbol.version));
            assert_eq!(&decoded, text);
            assert_eq!(meta.version.0, symbol.version, "{text:?}");
            assert_eq!(meta.ecc_level, 0, "level M is 00 in the format bits");
            assert_eq!(meta.mask, symbol.mask, "{text:?}");
            let (_, raw) = grid.get_raw_data().expect("the raw modules");
            assert_eq!(raw.len, symbol.order.len(), "{text:?}");
            for (i, &[row, col]) in symbol.order.iter().enumerate() {
                let read = raw.data[i / 8] & (0x80 >> (i % 8)) != 0;
                assert_eq!(
                    read,
                    dark(col, row),
                    "version {}: data bit {i} at ({row},{col}) is not where the decoder reads it",
                    symbol.version
                );
            }
            versions.push(symbol.version);
        }
        versions.dedup();
        assert_eq!(versions, (1..=10).collect::<Vec<_>>());
        let too_long = c
            .execute_async(SYMBOLS_SCRIPT, vec![json!([sample(214)])])
            .await
            .expect("no symbol");
        assert_eq!(too_long, json!([null]));
    });
}

/// A PNG screenshot as grey levels, and its width and height.
fn grey(png_bytes: &[u8]) -> (Vec<u8>, usize, usize) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a PNG's size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let channels = info.color_type.samples();
    let pixels = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|p| {
            let [r, g, b] = if channels >= 3 {
                [p[0], p[1], p[2]]
            } else {
                [p[0]; 3]
            };
            // Luma from 8-bit RGB, integer weights summing to 256.
            ((u32::from(r) * 77 + u32::from(g) * 150 + u32::from(b) * 29) >> 8) as u8
        })
        .collect();
    (pixels, info.width as usize, info.height as usize)
}

/// What a camera pointed at the screen reads: the QR codes in a
/// screenshot of the window, with `css` scrolled into view.
async fn scan(h: &Harness, c: &Client, css: &str) -> Vec<String> {
    c.execute(
        "document.querySelector(arguments[0]).scrollIntoView({ block: 'center' }); return true;",
        vec![json!(css)],
    )
    .await
    .expect("the code in view");
    let png_bytes = c.screenshot().await.expect("a screenshot");
    std::fs::write(
        artifacts_dir().join(format!("{}-scanned.png", h.name)),
        &png_bytes,
    )
    .expect("the scanned image kept");
    let (pixels, width, height) = grey(&png_bytes);
    let mut image =
        rqrr::PreparedImage::prepare_from_greyscale(width, height, |x, y| pixels[y * width + x]);
    image
        .detect_grids()
        .iter()
        .filter_map(|grid| grid.decode().ok().map(|(_, text)| text))
        .collect()
}

/// On a desktop the invite shows as a QR code beside the link; a
/// screenshot of it scans to the link, secret and all, and no request
/// carried the secret. On a phone there is no code: a Share button opens
/// the share sheet with the link (where the browser has one), and Copy
/// stays.
#[test]
fn the_invite_is_a_qr_code_on_a_desktop_and_a_share_on_a_phone() {
    run("web-invite", |h| async move {
        let c = h.session("desktop", 1280, 800).await;
        c.set_window_size(1280, 800)
            .await
            .expect("the window sized");
        start_game(&h, &c, "human", "3x3k3", "x").await;
        let link = invite_link(&c).await;
        let secret = link
            .split_once("#join=")
            .expect("an invite after #")
            .1
            .to_owned();
        assert!(!secret.is_empty(), "{link}");
        wait_script(
            &c,
            "the invite's QR code",
            "return !document.getElementById('invite-qr').hidden;",
        )
        .await;
        let label = c
            .execute(
                "const s = document.querySelector('#invite-qr svg'); \
                 return [s.getAttribute('role'), s.getAttribute('aria-label'), \
                         document.getElementById('share').hidden];",
                vec![],
            )
            .await
            .expect("the code's label");
        assert_eq!(label, json!(["img", "QR code of the invite link", true]));
        assert_eq!(scan(&h, &c, "#invite-qr svg").await, vec![link.clone()]);
        h.screenshot(&c, "web-invite-desktop").await;
        let leaked = c
            .execute(
                "return performance.getEntriesByType('resource').map((e) => e.name) \
                   .filter((n) => n.includes(arguments[0]));",
                vec![json!(secret)],
            )
            .await
            .expect("the requests");
        assert_eq!(leaked, json!([]), "a request carried the invite's secret");

        let p = phone(&h).await;
        start_game(&h, &p, "human", "3x3k3", "x").await;
        let shown = async || {
            p.execute(
                "const shown = (id) => !document.getElementById(id).hidden; \
                 return [shown('invite-qr'), shown('share'), shown('copy')];",
                vec![],
            )
            .await
            .expect("the invite's parts")
        };
        // Headless Chromium on Linux has no share sheet: Copy alone.
        assert_eq!(shown().await, json!([false, false, true]));
        // A phone's browser with one (stood in for here).
        p.execute(
            "navigator.share = async (data) => { window.__shared = data; }; \
             window.dispatchEvent(new Event('resize')); return true;",
            vec![],
        )
        .await
        .expect("a share sheet");
        assert_eq!(shown().await, json!([false, true, true]));
        h.screenshot(&p, "web-invite-phone").await;
        find(&p, "#share").await.click().await.expect("Share");
        wait_script(&p, "the link shared", "return !!window.__shared;").await;
        let phone_link = invite_link(&p).await;
        let shared = p
            .execute("return window.__shared.url;", vec![])
            .await
            .expect("what was shared");
        assert_eq!(shared, json!(phone_link));
        // The buttons are reached by keyboard, in order, and named.
        let names = p
            .execute(
                "return ['invite-link', 'share', 'copy'].map((id) => { \
                   const e = document.getElementById(id); \
                   return [e.tabIndex, e.labels && e.labels.length ? e.labels[0].textContent : e.textContent]; });",
                vec![],
            )
            .await
            .expect("the names");
        assert_eq!(
            names,
            json!([
                [0, "Invite a friend — send them this link:"],
                [0, "Share…"],
                [0, "Copy"]
            ])
        );
    });
}

/// The zoom by keyboard: the switch is named, Space turns it off and on,
/// and arrow keys walking a zoomed board keep the focused cell in view
/// (not under the pinned coordinates), to every edge.
#[test]
fn the_zoomed_board_works_by_keyboard() {
    run("web-keyboard", |h| async move {
        let c = phone(&h).await;
        open_seated(&h, &c, [15, 15], "random").await;
        let zoom = find(&c, "#zoom").await;
        let name = c
            .execute(
                "return document.getElementById('zoom').labels[0].textContent.trim();",
                vec![],
            )
            .await
            .expect("the switch's name");
        assert_eq!(name, json!("Larger cells (the board scrolls)"));
        c.execute(
            "document.getElementById('zoom').focus(); return true;",
            vec![],
        )
        .await
        .expect("the switch focused");
        let checked = async || zoom.prop("checked").await.expect("the switch");
        press(&c, &[Key::Space]).await;
        assert_eq!(checked().await.as_deref(), Some("false"));
        assert!(!fit(&c).await.zoomed);
        press(&c, &[Key::Space]).await;
        assert_eq!(checked().await.as_deref(), Some("true"));
        assert!(fit(&c).await.zoomed);

        cell(&c, 7, 7).await.click().await.expect("a move");
        wait_page(&c, "X to move again", |p| p.playable && p.count('O') == 1).await;
        c.execute(
            "document.querySelector('#board .cell[data-row=\"7\"][data-col=\"6\"]').focus(); return true;",
            vec![],
        )
        .await
        .expect("a cell focused");
        for (key, steps) in [
            (Key::Right, 8),
            (Key::Down, 8),
            (Key::Left, 14),
            (Key::Up, 14),
        ] {
            for _ in 0..steps {
                press(&c, &[key]).await;
                let seen = c
                    .execute(IN_VIEW, vec![json!("#board .cell:focus")])
                    .await
                    .expect("the check");
                let at = page(&c).await.active;
                assert_eq!(
                    seen,
                    Value::Bool(true),
                    "{key:?}: the focused cell {at:?} is out of view"
                );
            }
        }
        assert_eq!(page(&c).await.active, Some([0, 0]));
        h.screenshot(&c, "web-keyboard-top-left").await;
    });
}

/// A message (the toast) under the mouse stays while the mouse rests on
/// it, past the time it would have shown, and goes once the mouse leaves.
/// Nothing here hangs on the machine's speed: a toast gone before the
/// mouse got to it is shown again, and the leaving is waited for.
#[test]
fn a_message_under_the_mouse_stays_until_the_mouse_leaves() {
    use fantoccini::actions::{InputSource, MouseActions, PointerAction};
    run("toast-hold", |h| async move {
        let c = h.session("toast", 1280, 800).await;
        let shown = async |c: &Client| -> bool {
            c.execute("return !document.getElementById('message').hidden;", vec![])
                .await
                .expect("the message read")
                .as_bool()
                .unwrap_or(false)
        };
        let mut held = false;
        for _ in 0..5 {
            // A link whose move is not ROW,COL: the page says so (an
            // error, shown 6 s).
            open_analysis(&h, &c, "size=3x3&moves=a").await;
            wait_said(
                &c,
                "the bad move said",
                "move 1: \"a\" is not ROW,COL (from 0)",
            )
            .await;
            let toast = find(&c, "#message").await;
            c.perform_actions(MouseActions::new("mouse".to_owned()).then(
                PointerAction::MoveToElement {
                    element: toast,
                    duration: None,
                    x: 0.0,
                    y: 0.0,
                },
            ))
            .await
            .expect("the mouse over the message");
            if shown(&c).await {
                held = true;
                break;
            }
        }
        assert!(
            held,
            "the message went before the mouse got to it, five times"
        );
        // Past its 6 s, and still there.
        tokio::time::sleep(Duration::from_secs(7)).await;
        assert!(shown(&c).await, "the message under the mouse went");
        // The mouse leaves: the message goes (3 s later at least).
        c.perform_actions(
            MouseActions::new("mouse".to_owned()).then(PointerAction::MoveTo {
                duration: None,
                x: 1.0,
                y: 1.0,
            }),
        )
        .await
        .expect("the mouse moved away");
        let deadline = Instant::now() + WAIT;
        while shown(&c).await {
            assert!(
                Instant::now() < deadline,
                "the message stayed after the mouse left"
            );
            tokio::time::sleep(POLL).await;
        }
    });
}
