//! Names and the lobby in the browser: the name a player chooses shown to
//! the opponent and to spectators (as text, never as HTML), an open game
//! that leaves the lobby when its creator does, a player whose opponent has
//! gone shown the way back, and the page for an address with nothing behind
//! it. Screenshots at 1280×800 and on a 390×844 phone.

use super::*;

/// A name with markup in it: it must show as these very characters.
const ADA: &str = "<b>Ada</b> & co";

/// Choose `name` in the start page's name field (the start page is open).
async fn choose(c: &Client, name: &str) {
    let input = find(c, "#name-input").await;
    input.clear().await.expect("the name field cleared");
    input.send_keys(name).await.expect("the name typed");
    find(c, "#name-save")
        .await
        .click()
        .await
        .expect("Save clicked");
    let deadline = Instant::now() + WAIT;
    loop {
        let kept = c
            .execute("return localStorage.getItem('oxo.name');", vec![])
            .await
            .expect("the storage read");
        if kept == json!(name.trim()) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the name {name:?} never kept: {kept}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// Try to save `name` until the name field's note says `says` (the rule
/// comes from `/api/info`, which may still be on its way), and check that
/// nothing was kept.
async fn refused(c: &Client, name: &str, says: &str) {
    let deadline = Instant::now() + WAIT;
    loop {
        let input = find(c, "#name-input").await;
        input.clear().await.expect("the name field cleared");
        input.send_keys(name).await.expect("the name typed");
        find(c, "#name-save").await.click().await.expect("Save");
        let seen = shown_text(c, "name-note").await;
        if seen == says {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{name:?}: the note says {seen:?}, not {says:?}"
        );
        tokio::time::sleep(POLL).await;
    }
    let kept = c
        .execute("return localStorage.getItem('oxo.name');", vec![])
        .await
        .expect("the storage read");
    assert_eq!(kept, json!(null), "{name:?} refused yet kept");
}

/// A browser the size of a 390×844 phone.
async fn phone(h: &Harness, label: &str) -> Client {
    let c = h.session(label, 390, 844).await;
    c.set_window_size(390, 844).await.expect("the window sized");
    c
}

/// What the names by the score show (`""` when hidden), and whether either
/// holds an element (markup taken as HTML).
async fn names_shown(c: &Client) -> (String, String, bool) {
    let v = c
        .execute(
            "const t = (id) => { const e = document.getElementById(id); return e.hidden ? '' : e.textContent; }; \
             return [t('name-x'), t('name-o'), \
                     !!document.querySelector('#name-x *, #name-o *, #open-list b, #live-list b')];",
            vec![],
        )
        .await
        .expect("the names read");
    (
        v[0].as_str().unwrap_or_default().to_owned(),
        v[1].as_str().unwrap_or_default().to_owned(),
        v[2].as_bool().unwrap_or(true),
    )
}

/// Poll until the names by the score are `x` and `o`, as text.
async fn wait_names(c: &Client, what: &str, x: &str, o: &str) {
    let deadline = Instant::now() + WAIT;
    loop {
        let seen = names_shown(c).await;
        if seen == (x.to_owned(), o.to_owned(), false) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: the names show {seen:?}, not {x:?} and {o:?}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// Open the start page and wait for `count` open games in its lobby.
async fn lobby_lists(h: &Harness, c: &Client, count: usize) {
    if !c
        .current_url()
        .await
        .is_ok_and(|u| u.path() == "/" && u.port() == Some(h.addr.port()))
    {
        open_start_page(h, c).await;
    }
    let deadline = Instant::now() + WAIT;
    loop {
        let seen = c
            .execute(
                "return document.getElementById('lobby-open').hidden \
                   ? 0 : document.querySelectorAll('#open-list a[data-entry]').length;",
                vec![],
            )
            .await
            .expect("the lobby read");
        if seen == json!(count) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the lobby lists {seen} open games, not {count}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// Click "Open game" on the start page; the game's page once it is live.
async fn open_a_game(c: &Client) -> Page {
    find(c, "#quick button[data-listed=\"true\"]")
        .await
        .click()
        .await
        .expect("Open game clicked");
    wait_page(c, "the open game, live", |p| {
        p.path.starts_with("/g/") && p.connection == "live"
    })
    .await
}

/// Click the lobby's first open game; returns once seated as O, live.
async fn join_first_open(c: &Client) {
    find(c, "#open-list a[data-entry]")
        .await
        .click()
        .await
        .expect("the open game clicked");
    wait_page(c, "seated as O", |p| {
        p.role == "You are O" && p.connection == "live"
    })
    .await;
}

/// The lobby's refresh every 5 s keeps a keyboard user's place: with focus
/// on an open game's Join link, a second game opening (so the list is
/// rebuilt) leaves focus on the same game's link, not on the page.
#[test]
fn the_lobby_refresh_keeps_keyboard_focus_on_its_link() {
    run("lobby-focus", |h| async move {
        let a = h.session("a", 1280, 800).await;
        let b = h.session("b", 1280, 800).await;
        let c = h.session("c", 1280, 800).await;
        open_start_page(&h, &a).await;
        open_a_game(&a).await;
        lobby_lists(&h, &b, 1).await;
        // Tab to the Join link, as a keyboard user does.
        let on_link = "const f = document.activeElement; \
                       return f && f.matches('#open-list a[data-entry]') ? f.dataset.entry : '';";
        let mut entry = Value::from("");
        for _ in 0..80 {
            press(&b, &[Key::Tab]).await;
            entry = b.execute(on_link, vec![]).await.expect("the focus read");
            if entry != "" {
                break;
            }
        }
        assert_ne!(entry, "", "Tab never reached the Join link");
        open_start_page(&h, &c).await;
        open_a_game(&c).await;
        lobby_lists(&h, &b, 2).await;
        let now = b
            .execute(
                "const f = document.activeElement; \
                 return f && f.dataset ? (f.dataset.entry || f.tagName) : '';",
                vec![],
            )
            .await
            .expect("the focus read");
        assert_eq!(now, entry, "focus moved off the link");
    });
}

#[test]
fn names_are_shown_to_the_opponent_and_to_spectators() {
    run("lobby-names", |h| async move {
        let a = h.session("a", 1280, 800).await;
        let b = phone(&h, "b").await;
        let c = h.session("c", 1280, 800).await;

        // The first visit asks for a name; a bad one is refused in words.
        open_start_page(&h, &a).await;
        wait_script(
            &a,
            "the name asked for",
            "return document.getElementById('name-form').classList.contains('prompt');",
        )
        .await;
        h.screenshot(&a, "lobby-name-prompt-desktop").await;
        let input = find(&a, "#name-input").await;
        input.send_keys(&"x".repeat(21)).await.expect("typed");
        find(&a, "#name-save").await.click().await.expect("Save");
        wait_text(
            &a,
            "a long name refused",
            "name-note",
            "A name is at most 20 characters; this one has 21.",
        )
        .await;
        // The server's rule, served in /api/info: nothing invisible, and
        // not the computer's name.
        refused(
            &a,
            "\u{200B}",
            "A name cannot hold U+200B, an invisible formatting character \
             (such as a zero-width space, a direction mark or override, or a line separator).",
        )
        .await;
        // Also with a blank character before it, which shows nothing.
        for name in ["Computer (strong)", "\u{034F}Computer (strong)"] {
            refused(
                &a,
                name,
                "Names starting with \"Computer\" are kept for the computer player.",
            )
            .await;
        }
        choose(&a, &format!("  {ADA} ")).await;
        open_a_game(&a).await;
        wait_names(&a, "A sees their own name", ADA, "").await;

        // B, on a phone, names themselves and finds A's game by A's name.
        open_start_page(&h, &b).await;
        choose(&b, "Grace").await;
        lobby_lists(&h, &b, 1).await;
        let title = shown_text(&b, "open-list").await;
        assert!(title.contains(&format!("Join {ADA}: 3×3")), "{title}");
        h.screenshot(&b, "lobby-names-open-phone").await;
        join_first_open(&b).await;
        wait_names(&b, "B sees both", ADA, "Grace").await;
        wait_names(&a, "A sees Grace", ADA, "Grace").await;
        wait_page(&b, "B waits for A by name", |p| {
            p.status == format!("Waiting for {ADA} (X)…")
        })
        .await;

        // C watches from the lobby: both names, as text.
        open_start_page(&h, &c).await;
        wait_script(
            &c,
            "the game in C's lobby",
            "return document.querySelectorAll('#live-list a[data-game]').length === 1;",
        )
        .await;
        let live = shown_text(&c, "live-list").await;
        assert!(live.contains(&format!("{ADA} vs Grace")), "{live}");
        find(&c, "#live-list a[data-game]")
            .await
            .click()
            .await
            .expect("the live game clicked");
        wait_page(&c, "C watching", |p| {
            p.role == "Watching" && p.connection == "live"
        })
        .await;
        wait_names(&c, "C sees both", ADA, "Grace").await;
        wait_page(&c, "C told whose move it is", |p| {
            p.status == format!("{ADA} (X) to move")
        })
        .await;
        h.screenshot(&a, "lobby-names-desktop").await;
        h.screenshot(&b, "lobby-names-phone").await;
        h.screenshot(&c, "lobby-names-spectator").await;
    });
}

#[test]
fn a_seek_whose_creator_left_leaves_the_lobby_and_no_joiner_is_stranded() {
    run("lobby-dead-seek", |h| async move {
        let a = h.session("a", 1280, 800).await;
        let b = phone(&h, "b").await;

        // A opens a game and leaves it: it leaves B's lobby at once (A came
        // and went, so the grace for a new game does not hold it there).
        open_start_page(&h, &a).await;
        choose(&a, "Ada").await;
        let open = open_a_game(&a).await;
        lobby_lists(&h, &b, 1).await;
        // Gone from oxo (the start page would keep the game listed).
        a.goto("about:blank").await.expect("A leaves");
        lobby_lists(&h, &b, 0).await;
        h.screenshot(&b, "lobby-dead-seek-gone-phone").await;

        // A comes back: listed again, and B joins.
        a.goto(&h.url(&open.path)).await.expect("A back");
        lobby_lists(&h, &b, 1).await;
        join_first_open(&b).await;
        wait_text(&b, "B sees A", "presence", "Opponent connected").await;
        assert_eq!(shown_text(&b, "left-note").await, "");

        // A goes before the first move: B is told, with the way back.
        a.goto(&h.url("/")).await.expect("A leaves again");
        wait_text(
            &b,
            "B told A left",
            "left-note",
            "Ada (X) left before the first move. Wait here in case they come back, or Back to the lobby",
        )
        .await;
        h.screenshot(&b, "lobby-opponent-left-phone").await;
        find(&b, "#left-lobby")
            .await
            .click()
            .await
            .expect("Back to the lobby clicked");
        wait_page(&b, "B back in the lobby", |p| p.start_view && p.path == "/").await;
    });
}

/// Leaving the site from the start page lets the creator's open game go,
/// though the browser keeps the page (its sockets open) to come back to;
/// back, it is listed again. It stayed listed, a dead seek a joiner was
/// told was "connected".
#[test]
fn a_seek_left_from_the_start_page_leaves_the_lobby_until_its_creator_is_back() {
    run("lobby-start-page-left", |h| async move {
        let a = h.session("a", 1280, 800).await;
        let b = phone(&h, "b").await;
        open_start_page(&h, &a).await;
        choose(&a, "Ada").await;
        open_a_game(&a).await;
        find(&a, "#new-game-link")
            .await
            .click()
            .await
            .expect("New game clicked");
        wait_page(&a, "A on the start page", |p| p.start_view && p.path == "/").await;
        lobby_lists(&h, &b, 1).await;
        // The page is marked, to tell a page kept by the browser from one
        // loaded afresh.
        a.execute("window.oxoKept = true; return null;", vec![])
            .await
            .expect("the page marked");
        a.goto(&h.url("/healthz")).await.expect("A leaves the site");
        lobby_lists(&h, &b, 0).await;
        a.back().await.expect("A comes back");
        wait_script(
            &a,
            "A's own game listed again",
            "return !document.getElementById('lobby-open').hidden \
               && !!document.querySelector('#open-list button[data-cancel]');",
        )
        .await;
        lobby_lists(&h, &b, 1).await;
        // Whether the browser kept the page or loaded it again, the game
        // came back; kept is the case this test is about.
        let kept = a
            .execute("return window.oxoKept === true;", vec![])
            .await
            .expect("the mark read");
        assert_eq!(kept, json!(true), "the browser did not keep the page");
    });
}

/// What this browser keeps of its seat in game `id` (`null`: none).
async fn seat_kept(c: &Client, id: &str) -> Value {
    let kept = c
        .execute(
            "return localStorage.getItem('oxo.seat.' + arguments[0]);",
            vec![json!(id)],
        )
        .await
        .expect("the storage read");
    kept.as_str().map_or(Value::Null, |text| {
        serde_json::from_str(text).expect("JSON")
    })
}

/// Click the lobby's first game to join until seated as O: a click in the
/// moment its creator's page changes (one socket closed, the next not yet
/// open) is refused as "no longer open", and the lobby lists the game again
/// once the creator's socket is there.
async fn join_first_open_when_listed(h: &Harness, c: &Client) {
    let deadline = Instant::now() + WAIT;
    loop {
        lobby_lists(h, c, 1).await;
        join_first_open_or_refused(c).await;
        let now = page(c).await;
        if now.role == "You are O" {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "never seated from the lobby: {now:#?}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// Click the lobby's first open game; returns once seated or refused.
async fn join_first_open_or_refused(c: &Client) {
    find(c, "#open-list a[data-entry]")
        .await
        .click()
        .await
        .expect("the open game clicked");
    wait_page(c, "seated as O, or refused", |p| {
        (p.role == "You are O" && p.connection == "live")
            || p.message.starts_with("That game is no longer open")
    })
    .await;
}

#[test]
fn ones_own_open_game_is_not_joined_and_stays_listed_while_browsing_the_lobby() {
    run("lobby-own-game", |h| async move {
        let a = h.session("a", 1280, 800).await;
        let b = phone(&h, "b").await;

        // A opens a game; the first tab stays on it.
        open_start_page(&h, &a).await;
        choose(&a, "Ada").await;
        let open = open_a_game(&a).await;
        let id = open.path.trim_start_matches("/g/").to_owned();
        let held = seat_kept(&a, &id).await;
        assert_eq!(held["seat"], "x", "{held}");
        assert!(held["invite"].is_string(), "{held}");
        let first = a.window().await.expect("the first tab");

        // A second tab of the same browser: the lobby shows the game as
        // A's own, with Cancel, and nothing to join.
        let second = a.new_window(true).await.expect("a second tab").handle;
        a.switch_to_window(second).await.expect("to the second tab");
        a.goto(&h.url("/")).await.expect("the start page");
        wait_script(
            &a,
            "A's own game in A's lobby",
            &format!(
                "const open = document.querySelectorAll('#open-list a'); \
                 return !document.getElementById('lobby-open').hidden && open.length === 1 \
                   && open[0].dataset.game === '{id}' \
                   && !!document.querySelector('#open-list button[data-cancel=\"{id}\"]');"
            ),
        )
        .await;
        let own = shown_text(&a, "open-list").await;
        assert!(own.starts_with("Your game: 3×3"), "{own}");
        assert_eq!(
            a.find_all(Locator::Css("#open-list a[data-entry]"))
                .await
                .expect("the lobby read")
                .len(),
            0,
            "A is offered a join of A's own game"
        );
        h.screenshot(&a, "lobby-own-game-desktop").await;
        // Someone else is offered it to join.
        lobby_lists(&h, &b, 1).await;
        // Clicking A's own entry opens it as X: the seat is A's as it was.
        find(&a, "#open-list a[data-game]")
            .await
            .click()
            .await
            .expect("A's own game clicked");
        wait_page(&a, "A's game as X", |p| {
            p.path == open.path && p.role == "You are X" && p.connection == "live"
        })
        .await;
        assert_eq!(seat_kept(&a, &id).await, held);
        a.close_window().await.expect("the second tab closed");
        a.switch_to_window(first)
            .await
            .expect("back to the first tab");

        // A goes back to the lobby: the game stays listed, B joins it, and
        // A's start page opens it.
        find(&a, "#new-game-link")
            .await
            .click()
            .await
            .expect("New game clicked");
        wait_page(&a, "A on the start page", |p| p.start_view && p.path == "/").await;
        join_first_open_when_listed(&h, &b).await;
        wait_page(&a, "A taken to the joined game", |p| {
            p.path == open.path && p.role == "You are X" && p.connection == "live"
        })
        .await;
        wait_text(&a, "A sees B", "presence", "Opponent connected").await;
        assert_eq!(seat_kept(&a, &id).await, held);
    });
}

#[test]
fn a_waiting_game_is_cancelled_from_its_page_or_the_lobby() {
    run("lobby-cancel", |h| async move {
        let a = h.session("a", 1280, 800).await;
        let b = phone(&h, "b").await;

        // From its page: the game ends, the lobby and the invite link
        // join nobody.
        open_start_page(&h, &a).await;
        open_a_game(&a).await;
        wait_text(
            &a,
            "the note says it is listed",
            "seek-note",
            "In the lobby while this page or the start page is open here.",
        )
        .await;
        let invite = invite_link(&a).await;
        lobby_lists(&h, &b, 1).await;
        find(&a, "#cancel-seek")
            .await
            .click()
            .await
            .expect("Cancel game clicked");
        wait_page(&a, "A's game cancelled", |p| {
            p.status == "Game cancelled before anyone joined" && !p.invite
        })
        .await;
        lobby_lists(&h, &b, 0).await;
        b.goto(&invite).await.expect("the invite link");
        wait_page(&b, "B told it was cancelled", |p| {
            p.role == "Watching"
                && p.message
                    == "the player who opened this game has cancelled it; nobody can join it now — watching"
        })
        .await;
        h.screenshot(&b, "lobby-cancelled-invite-phone").await;

        // From the lobby: A's second game, cancelled beside it there.
        open_start_page(&h, &a).await;
        let second = open_a_game(&a).await;
        find(&a, "#new-game-link")
            .await
            .click()
            .await
            .expect("New game clicked");
        lobby_lists(&h, &b, 1).await;
        let id = second.path.trim_start_matches("/g/");
        let cancel = format!("#open-list button[data-cancel=\"{id}\"]");
        wait_script(
            &a,
            "A's game in A's lobby, with Cancel",
            &format!("return !!document.querySelector('{cancel}');"),
        )
        .await;
        find(&a, &cancel)
            .await
            .click()
            .await
            .expect("Cancel clicked");
        wait_script(
            &a,
            "A's lobby without it, A's games saying it ended",
            "return document.getElementById('lobby-open').hidden \
               && [...document.querySelectorAll('#recent-list a')] \
                    .filter((l) => l.textContent.includes('aborted')).length === 2;",
        )
        .await;
        lobby_lists(&h, &b, 0).await;
        h.screenshot(&a, "lobby-cancelled-desktop").await;
    });
}

#[test]
fn an_unknown_address_shows_a_page_that_leads_home() {
    run("lobby-not-found", |h| async move {
        for (label, width, height) in [("desktop", 1280, 800), ("phone", 390, 844)] {
            let c = h.session(label, width, height).await;
            c.set_window_size(width, height).await.expect("sized");
            c.goto(&h.url("/no/such/page")).await.expect("the address");
            wait_script(
                &c,
                "the not-found page",
                "return document.title === 'Page not found · oxo' \
                   && getComputedStyle(document.querySelector('.panel')).borderRadius === '12px';",
            )
            .await;
            h.screenshot(&c, &format!("lobby-not-found-{label}")).await;
            find(&c, "a.primary")
                .await
                .click()
                .await
                .expect("home clicked");
            wait_page(&c, "the start page", |p| p.start_view && p.path == "/").await;
        }
    });
}
