//! `oxo play` on a terminal: a full-screen game (ratatui over crossterm).
//!
//! - [`app`]: the state and what each key does, with no terminal: tested
//!   directly.
//! - [`view`]: draws a state; tested by drawing into ratatui's
//!   `TestBackend` and comparing with snapshots.
//! - This module: the event loop ([`run`]), generic over the backend and
//!   the source of events, so whole games can be driven by a list of keys;
//!   and [`terminal`], the real terminal (raw mode, the alternate screen,
//!   the mouse) restored on every way out, panics included.
//!
//! A signal that would end the process (SIGTERM, SIGHUP, SIGINT) ends the
//! loop instead, as `q` does, so the terminal is restored and the score
//! printed; Ctrl-Z hands the terminal back and stops the game until it is
//! continued, then draws it whole again.
//!
//! Computer moves are made on the loop's thread right after the frame
//! that says the computer is thinking is drawn; a key pressed meanwhile
//! waits its turn. Hints are valued by a [`hints::Hinter`] (in the real
//! game, on a thread of its own): while a search runs, the loop looks for
//! its answer every [`HINTS_POLL`] between keys; a computer's move stops
//! it. Between two computers the loop pauses [`COMPUTER_PAUSE`] per move
//! so people can follow, and any key still works; a finished round stays
//! up [`ROUND_PAUSE`] before the next.

use std::io;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::crossterm::event::{
    Event, KeyCode, KeyEventKind, KeyModifiers, MouseButton, MouseEventKind,
};

pub mod app;
pub mod hints;
pub mod terminal;
pub mod view;

pub use app::{Action, App, Direction, Notice, Seat};
pub use view::{Palette, ViewState};

pub use crate::signals::Signal;

/// The pause between two computers' moves.
pub const COMPUTER_PAUSE: Duration = Duration::from_millis(400);

/// Between two computers, how long a finished round stays up before the
/// next starts.
pub const ROUND_PAUSE: Duration = Duration::from_secs(2);

/// While hints are being valued, how often the loop looks for them.
pub const HINTS_POLL: Duration = Duration::from_millis(50);

/// What the loop reads: a key, a click or a resize; or a signal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// From the terminal.
    Event(Event),
    /// From the system.
    Signal(Signal),
    /// The game was stopped by a signal from elsewhere (SIGTSTP, SIGSTOP)
    /// and is continued: the terminal must be taken over again.
    Continued,
}

/// Why the loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The person quit (or the events ran out).
    Quit,
    /// A signal ended the game.
    Signal(Signal),
}

/// Where the loop's events come from: the terminal, or a test's list.
pub trait Events {
    /// The next input, waiting at most `timeout` (`None`: as long as it
    /// takes). `Ok(None)`: nothing came in time, or (with no timeout) no
    /// input will ever come.
    ///
    /// # Errors
    /// Reading the terminal failed.
    fn next(&mut self, timeout: Option<Duration>) -> io::Result<Option<Input>>;

    /// Ctrl-Z: hand the terminal back and stop until continued, then take
    /// it over again (the loop then draws the whole screen).
    ///
    /// # Errors
    /// The terminal could not be taken over again.
    fn suspend(&mut self) -> io::Result<()>;

    /// After [`Input::Continued`]: take the terminal over again (raw mode,
    /// the alternate screen: a stop the game did not ask for left them to
    /// the shell); the loop then draws the whole screen.
    ///
    /// # Errors
    /// The terminal could not be taken over again.
    fn resume(&mut self) -> io::Result<()>;

    /// Take the mouse's clicks, or leave the mouse to the terminal (which
    /// then selects text with it).
    ///
    /// # Errors
    /// The terminal could not be told.
    fn set_mouse(&mut self, on: bool) -> io::Result<()>;

    /// Now, for the pace of two computers' moves (a test's events keep a
    /// time of their own).
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// Play until the person quits, a signal ends the game, or the events
/// run out, with hints valued by `hinter`.
///
/// # Errors
/// Drawing or reading events failed; the hints' thread failed.
pub fn run<B: Backend>(
    app: &mut App,
    terminal: &mut Terminal<B>,
    events: &mut dyn Events,
    hinter: &mut dyn hints::Hinter,
    palette: Palette,
) -> io::Result<End>
where
    B::Error: Send + Sync + 'static,
{
    let mut state = ViewState::default();
    // When what comes by itself is due, and at which point of the game it
    // was set (round, moves): keys, clicks and resizes meanwhile do not put
    // it off, and a new point (a new round by `n`) sets it afresh.
    let mut due: Option<(Instant, (u32, usize))> = None;
    // The hint job the hinter is working on.
    let mut asked = None;
    loop {
        sync_hints(app, hinter, &mut asked)?;
        terminal
            .draw(|frame| view::draw(frame, app, &mut state, palette))
            .map_err(io::Error::other)?;
        if app.quitting() {
            return Ok(End::Quit);
        }
        // What comes by itself, after how long: a computer's move (between
        // two computers, at a pace people can follow), or between two
        // computers the next round.
        let pause = if app.computer_to_move() {
            Some(if app.computers_only() {
                COMPUTER_PAUSE
            } else {
                Duration::ZERO
            })
        } else if app.computers_only() && app.game().is_over() {
            Some(ROUND_PAUSE)
        } else {
            None
        };
        let timeout = match pause {
            None => {
                due = None;
                None
            }
            Some(Duration::ZERO) => Some(Duration::ZERO),
            Some(pause) => {
                let now = events.now();
                let at = (app.round(), app.moves().len());
                if due.is_none_or(|(_, set)| set != at) {
                    due = Some((now + pause, at));
                }
                due.map(|(due, _)| due.saturating_duration_since(now))
            }
        };
        // While hints are searched, a look for them between keys.
        let wait = match (asked, timeout) {
            (None, timeout) => timeout,
            (Some(_), None) => Some(HINTS_POLL),
            (Some(_), Some(timeout)) => Some(timeout.min(HINTS_POLL)),
        };
        match events.next(wait)? {
            Some(Input::Event(event)) => match action_for(&event, &state) {
                Some(Action::Suspend) => {
                    events.suspend()?;
                    // The screen was cleared: a blank frame makes the next
                    // one draw every cell, not just those that changed.
                    terminal.draw(|_| {}).map_err(io::Error::other)?;
                }
                Some(action) => {
                    let mouse = app.mouse_on();
                    let cursor = app.cursor();
                    app.act(action);
                    // A page turns the view with the cursor, as far as the
                    // cursor went (less at the board's edge).
                    if let Action::Stride(direction, _) = action {
                        let (from, to) = (cursor, app.cursor());
                        let moved = from.row.abs_diff(to.row).max(from.col.abs_diff(to.col));
                        state.page(direction, moved);
                    }
                    if app.mouse_on() != mouse {
                        events.set_mouse(app.mouse_on())?;
                    }
                }
                None => {}
            },
            Some(Input::Continued) => {
                events.resume()?;
                terminal.draw(|_| {}).map_err(io::Error::other)?;
            }
            Some(Input::Signal(signal)) => return Ok(End::Signal(signal)),
            // Only the look for hints was due.
            None if wait != timeout => {}
            None if timeout.is_some() && !app.computer_to_move() => {
                app.next_round();
                due = None;
            }
            None if timeout.is_some() => {
                // The position's hints would come after it is gone; the
                // hints' search would share the cores with the computer's.
                hinter.cancel();
                asked = None;
                app.play_computer();
                due = None;
                // A move out of view (a large board, a small window) is
                // brought into view: the cursor goes to it.
                if let Some(&last) = app.moves().last()
                    && !state.shows(last)
                {
                    app.move_cursor(last);
                }
            }
            None => return Ok(End::Quit),
        }
    }
}

/// Hand `app`'s hint job to `hinter` when it changes (stopping the last
/// one's search), and the answers that came to `app`; `asked` is the job
/// the hinter is working on.
///
/// # Errors
/// The hints' thread has gone ([`hints::HintError::Gone`]: it panicked,
/// and the panic hook has given the terminal back), which ends the game,
/// whether or not a job was under way.
fn sync_hints(
    app: &mut App,
    hinter: &mut dyn hints::Hinter,
    asked: &mut Option<hints::Job>,
) -> io::Result<()> {
    loop {
        let wanted = app.hint_job();
        if wanted != *asked {
            match wanted {
                Some(job) => hinter.ask(job, app.game().clone()),
                None => hinter.cancel(),
            }
            *asked = wanted;
        }
        // Looked for with no job too: the thread may have gone meanwhile.
        match hinter.answer() {
            Some(hints::Answer {
                values: Err(hints::HintError::Gone),
                ..
            }) => return Err(io::Error::other(hints::HintError::Gone)),
            Some(answer) => app.hints_came(answer),
            None => return Ok(()),
        }
    }
}

/// What a key or a click asks for, if anything.
#[must_use]
pub fn action_for(event: &Event, state: &ViewState) -> Option<Action> {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => {
            let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
            let alt = key.modifiers.contains(KeyModifiers::ALT);
            let shift = key.modifiers.contains(KeyModifiers::SHIFT);
            // A view's worth of rows or columns, less one so the cells at
            // the view's edge stay in sight.
            let (rows, cols) = state.cells_in_view();
            let page = |cells: u32| cells.saturating_sub(1).max(1);
            Some(match key.code {
                KeyCode::Char('c') if ctrl => Action::Quit,
                KeyCode::Char('z') if ctrl => Action::Suspend,
                // Ctrl-Q (a flow-control habit), Alt-N and the like are not
                // the letters' keys.
                KeyCode::Char(_) if ctrl || alt => Action::Dismiss,
                KeyCode::PageUp => Action::Stride(Direction::Up, page(rows)),
                KeyCode::PageDown => Action::Stride(Direction::Down, page(rows)),
                KeyCode::Up if shift => Action::Stride(Direction::Up, page(rows)),
                KeyCode::Down if shift => Action::Stride(Direction::Down, page(rows)),
                KeyCode::Left if shift => Action::Stride(Direction::Left, page(cols)),
                KeyCode::Right if shift => Action::Stride(Direction::Right, page(cols)),
                KeyCode::Home => Action::Edge(Direction::Left),
                KeyCode::End => Action::Edge(Direction::Right),
                KeyCode::Char('.') => Action::LastMove,
                KeyCode::Char('m') => Action::ToggleMouse,
                KeyCode::Up | KeyCode::Char('k') => Action::Step(Direction::Up),
                KeyCode::Down | KeyCode::Char('j') => Action::Step(Direction::Down),
                KeyCode::Left | KeyCode::Char('h') => Action::Step(Direction::Left),
                KeyCode::Right | KeyCode::Char('l') => Action::Step(Direction::Right),
                KeyCode::Enter | KeyCode::Char(' ') => Action::Play,
                KeyCode::Char('u') => Action::TakeBack,
                KeyCode::Char('H' | 'v') => Action::ToggleHints,
                KeyCode::Char('f') => Action::LookFurther,
                KeyCode::Char('n') => Action::NewRound,
                KeyCode::Char('?') | KeyCode::F(1) => Action::ToggleHelp,
                // Esc closes the help, and never the game: it is pressed out
                // of habit, and quitting ends the session.
                KeyCode::Char('q') => Action::Quit,
                _ => Action::Dismiss,
            })
        }
        Event::Mouse(mouse) if mouse.kind == MouseEventKind::Down(MouseButton::Left) => {
            state.cell_at(mouse.column, mouse.row).map(Action::PlayAt)
        }
        // Pasted text is no key (a `q` in it is not a quit): ignored.
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::rc::Rc;

    use oxo_ai::StrategyKind;
    use oxo_core::{Player, Rules};
    use ratatui::backend::TestBackend;
    use ratatui::crossterm::event::{KeyEvent, MouseEvent};

    use super::hints::Inline;
    use super::*;

    /// [`run`] with hints valued at once.
    fn run_inline<B: Backend>(
        app: &mut App,
        terminal: &mut Terminal<B>,
        events: &mut dyn Events,
        palette: Palette,
    ) -> io::Result<End>
    where
        B::Error: Send + Sync + 'static,
    {
        run(app, terminal, events, &mut Inline::default(), palette)
    }

    fn digits(n: u32) -> usize {
        n.to_string().len()
    }

    /// Inputs from a list; a computer to move always moves before the
    /// next key, as a person is slower than the computer.
    struct Script {
        inputs: VecDeque<Input>,
        /// How many times Ctrl-Z suspended the game.
        suspended: usize,
        /// How many times the game took the terminal back after a stop.
        resumed: usize,
        /// Set by a suspension: the screen is wiped while the game is
        /// stopped (see [`Wiped`]).
        wipe: Rc<std::cell::Cell<bool>>,
        /// What the terminal was told of the mouse, in order.
        mouse: Vec<bool>,
    }

    impl Script {
        fn new(events: Vec<Event>) -> Script {
            Script::inputs(events.into_iter().map(Input::Event).collect())
        }

        fn inputs(inputs: Vec<Input>) -> Script {
            Script {
                inputs: inputs.into(),
                suspended: 0,
                resumed: 0,
                wipe: Rc::default(),
                mouse: Vec::new(),
            }
        }
    }

    impl Events for Script {
        fn next(&mut self, timeout: Option<Duration>) -> io::Result<Option<Input>> {
            Ok(match timeout {
                Some(_) => None,
                None => self.inputs.pop_front(),
            })
        }

        fn suspend(&mut self) -> io::Result<()> {
            self.suspended += 1;
            self.wipe.set(true);
            Ok(())
        }

        fn resume(&mut self) -> io::Result<()> {
            self.resumed += 1;
            // The stop was not the game's: the shell drew over the screen.
            self.wipe.set(true);
            Ok(())
        }

        fn set_mouse(&mut self, on: bool) -> io::Result<()> {
            self.mouse.push(on);
            Ok(())
        }
    }

    /// A test screen that a suspension wipes, as the shell's own output
    /// does while the game is stopped: only a frame that draws every cell
    /// brings the game back, not one that draws what changed.
    struct Wiped {
        screen: TestBackend,
        wipe: Rc<std::cell::Cell<bool>>,
    }

    impl Backend for Wiped {
        type Error = std::convert::Infallible;

        fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
        where
            I: Iterator<Item = (u16, u16, &'a ratatui::buffer::Cell)>,
        {
            if self.wipe.take() {
                self.screen.clear()?;
            }
            self.screen.draw(content)
        }

        fn hide_cursor(&mut self) -> Result<(), Self::Error> {
            self.screen.hide_cursor()
        }

        fn show_cursor(&mut self) -> Result<(), Self::Error> {
            self.screen.show_cursor()
        }

        fn get_cursor_position(&mut self) -> Result<ratatui::layout::Position, Self::Error> {
            self.screen.get_cursor_position()
        }

        fn set_cursor_position<P: Into<ratatui::layout::Position>>(
            &mut self,
            position: P,
        ) -> Result<(), Self::Error> {
            self.screen.set_cursor_position(position)
        }

        fn clear(&mut self) -> Result<(), Self::Error> {
            self.screen.clear()
        }

        fn clear_region(
            &mut self,
            clear_type: ratatui::backend::ClearType,
        ) -> Result<(), Self::Error> {
            self.screen.clear_region(clear_type)
        }

        fn size(&self) -> Result<ratatui::layout::Size, Self::Error> {
            self.screen.size()
        }

        fn window_size(&mut self) -> Result<ratatui::backend::WindowSize, Self::Error> {
            self.screen.window_size()
        }

        fn flush(&mut self) -> Result<(), Self::Error> {
            self.screen.flush()
        }
    }

    fn keys(text: &str) -> Vec<Event> {
        text.chars()
            .map(|c| {
                let code = match c {
                    '\n' => KeyCode::Enter,
                    '<' => KeyCode::Left,
                    '>' => KeyCode::Right,
                    '^' => KeyCode::Up,
                    'V' => KeyCode::Down,
                    c => KeyCode::Char(c),
                };
                Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
            })
            .collect()
    }

    fn click(column: u16, row: u16) -> Event {
        Event::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column,
            row,
            modifiers: KeyModifiers::NONE,
        })
    }

    fn app(rules: Rules, o: Option<StrategyKind>) -> App {
        let o = o.map_or(Seat::Human, |kind| {
            Seat::Computer(kind.build(rules, 3).unwrap())
        });
        App::new(rules, [Seat::Human, o], Player::X)
    }

    /// Play `events` on a `width`×`height` screen; the terminal as left.
    fn play(
        app: &mut App,
        events: Vec<Event>,
        (width, height): (u16, u16),
    ) -> Terminal<TestBackend> {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        run_inline(
            app,
            &mut terminal,
            &mut Script::new(events),
            Palette::COLOUR,
        )
        .unwrap();
        terminal
    }

    /// Keys that come at set times on a clock of the events' own: a wait
    /// that ends before the next key moves the clock to its end.
    struct Timed {
        now: Instant,
        keys: VecDeque<(Duration, Event)>,
        /// Each computer move's time, from the start.
        start: Instant,
        waits: Vec<Option<Duration>>,
    }

    impl Events for Timed {
        fn next(&mut self, timeout: Option<Duration>) -> io::Result<Option<Input>> {
            self.waits.push(timeout);
            let at = self.now - self.start;
            match (self.keys.front(), timeout) {
                (Some(&(key_at, _)), Some(timeout)) if key_at <= at + timeout => {
                    self.now = self.start + key_at.max(at);
                    Ok(self.keys.pop_front().map(|(_, key)| Input::Event(key)))
                }
                (_, Some(timeout)) => {
                    self.now += timeout;
                    Ok(None)
                }
                (key, None) => {
                    let key = key.cloned();
                    self.keys.pop_front();
                    Ok(key.map(|(_, key)| Input::Event(key)))
                }
            }
        }

        fn suspend(&mut self) -> io::Result<()> {
            Ok(())
        }

        fn resume(&mut self) -> io::Result<()> {
            Ok(())
        }

        fn set_mouse(&mut self, _: bool) -> io::Result<()> {
            Ok(())
        }

        fn now(&self) -> Instant {
            self.now
        }
    }

    /// Two computers (`rules`, on 3×3) playing each other while `keys`
    /// come, each a key at its time (milliseconds from the start), until
    /// the events run out: the game, and the waits the loop asked for.
    fn two_computers(keys_at: &[(u64, &str)]) -> (App, Vec<Option<Duration>>) {
        two_computers_with(keys_at, &mut Inline::default())
    }

    /// [`two_computers`] with hints valued by `hinter`.
    fn two_computers_with(
        keys_at: &[(u64, &str)],
        hinter: &mut dyn hints::Hinter,
    ) -> (App, Vec<Option<Duration>>) {
        let rules = Rules::default();
        let computer = || Seat::Computer(StrategyKind::Rules.build(rules, 3).unwrap());
        let mut app = App::new(rules, [computer(), computer()], Player::X);
        let start = Instant::now();
        let mut events = Timed {
            now: start,
            keys: keys_at
                .iter()
                .map(|&(ms, key)| (Duration::from_millis(ms), keys(key).remove(0)))
                .collect(),
            start,
            waits: Vec::new(),
        };
        let mut terminal = Terminal::new(TestBackend::new(72, 20)).unwrap();
        run(
            &mut app,
            &mut terminal,
            &mut events,
            hinter,
            Palette::COLOUR,
        )
        .unwrap();
        (app, events.waits)
    }

    #[test]
    fn keys_between_two_computers_moves_do_not_put_the_next_one_off() {
        // A key every 100 ms for a second (each a cursor step), then `q`.
        let mut keys_at: Vec<(u64, &str)> = (1..=10).map(|i| (100 * i, "l")).collect();
        keys_at.push((1050, "q"));
        let (app, waits) = two_computers(&keys_at);
        // One move every 0.4 s whatever came between: two by 1.05 s.
        assert_eq!(app.moves().len(), 2, "{waits:?}");
    }

    #[test]
    fn a_new_round_between_two_computers_waits_its_own_pause() {
        // The first move at 0.4 s; `n` at 0.5 s; the new round's first move
        // is due at 0.9 s, not at 0.8 s when the old round's second was.
        let (app, waits) = two_computers(&[(500, "n"), (850, "q")]);
        assert_eq!((app.round(), app.moves().len()), (2, 0), "{waits:?}");
    }

    #[test]
    fn two_computers_play_round_after_round() {
        let (app, waits) = two_computers(&[(10_000, "q")]);
        // A round is nine moves at most, 3.6 s, then 2 s before the next:
        // by 10 s the second round has started.
        assert!(app.round() >= 2, "{waits:?}");
        assert!(waits.contains(&Some(ROUND_PAUSE)), "{waits:?}");
    }

    /// Between two computers, hints slower than the pause put no move off:
    /// the loop looks for them between keys, and each computer move stops
    /// the search for the position it leaves.
    #[test]
    fn slow_hints_between_two_computers_put_no_move_off() {
        let mut late = Late {
            inline: Inline::default(),
            looks: u32::MAX,
            running: false,
            asked: 0,
            cancelled: 0,
        };
        let (app, waits) = two_computers_with(&[(0, "v"), (1050, "q")], &mut late);
        // Moves at 0.4 s and 0.8 s, as without hints.
        assert_eq!(app.moves().len(), 2, "{waits:?}");
        assert!(
            waits[1..]
                .iter()
                .all(|wait| wait.is_some_and(|wait| wait <= HINTS_POLL)),
            "{waits:?}"
        );
        // The three positions asked for; the first two stopped by the moves.
        assert_eq!((late.asked, late.cancelled), (3, 2));
    }

    #[test]
    fn modified_letters_and_esc_are_not_the_letters_keys_and_never_quit() {
        let state = ViewState::default();
        let key = |code, modifiers| Event::Key(KeyEvent::new(code, modifiers));
        for (event, action) in [
            (
                key(KeyCode::Char('q'), KeyModifiers::CONTROL),
                Action::Dismiss,
            ),
            (key(KeyCode::Char('n'), KeyModifiers::ALT), Action::Dismiss),
            (
                key(KeyCode::Char('u'), KeyModifiers::CONTROL),
                Action::Dismiss,
            ),
            (key(KeyCode::Esc, KeyModifiers::NONE), Action::Dismiss),
            (key(KeyCode::Char('q'), KeyModifiers::NONE), Action::Quit),
            (
                key(KeyCode::Char('H'), KeyModifiers::SHIFT),
                Action::ToggleHints,
            ),
            (key(KeyCode::Char('c'), KeyModifiers::CONTROL), Action::Quit),
        ] {
            assert_eq!(action_for(&event, &state), Some(action), "{event:?}");
        }
    }

    #[test]
    fn a_new_game_on_three_by_three() {
        let mut app = app(Rules::default(), Some(StrategyKind::Perfect));
        let terminal = play(&mut app, Vec::new(), (72, 20));
        insta::assert_snapshot!(terminal.backend());
    }

    #[test]
    fn a_whole_game_against_perfect_by_keys() {
        let mut app = app(Rules::default(), Some(StrategyKind::Perfect));
        // Corner, then wherever the cursor lands: the perfect player wins
        // or draws; the keys keep playing until the round is over.
        let mut events = keys("^<\n");
        events.extend(keys(">\nV\nVV\n<\n<<\n^\n^^\n>>\n"));
        let terminal = play(&mut app, events, (72, 20));
        assert!(app.game().is_over(), "{}", terminal.backend());
        assert_eq!(app.score().wins(Player::X), 0);
        assert_eq!(app.score().games(), 1);
        insta::assert_snapshot!(terminal.backend());
    }

    #[test]
    fn fifteen_by_fifteen_fits_eighty_by_twenty_four_without_grid_lines() {
        let rules = Rules::new(15, 15, 5).unwrap();
        let mut app = app(rules, Some(StrategyKind::AlphaBeta));
        let terminal = play(&mut app, keys("\n"), (80, 24));
        assert_eq!(app.moves().len(), 2);
        insta::assert_snapshot!(terminal.backend());
    }

    #[test]
    fn a_board_larger_than_the_screen_scrolls_with_the_cursor() {
        let rules = Rules::new(30, 30, 5).unwrap();
        let mut app = app(rules, None);
        // From the centre (row 16, column 16) to the bottom-right corner.
        let mut events = keys(&"V".repeat(20));
        events.extend(keys(&">".repeat(20)));
        events.extend(keys("\n"));
        let terminal = play(&mut app, events, (60, 16));
        assert_eq!(app.moves(), &[oxo_core::Cell::new(29, 29)]);
        insta::assert_snapshot!(terminal.backend());
    }

    fn key(code: KeyCode, modifiers: KeyModifiers) -> Event {
        Event::Key(KeyEvent::new(code, modifiers))
    }

    #[test]
    fn page_keys_move_a_view_at_a_time_and_dot_finds_the_last_move() {
        let rules = Rules::new(30, 30, 5).unwrap();
        let mut app = app(rules, None);
        // At 60×16 the view holds 12 rows and 9 columns (see the scrolling
        // snapshot): a page is one less, so the edge stays in sight.
        let events = vec![
            key(KeyCode::PageDown, KeyModifiers::NONE),
            key(KeyCode::Right, KeyModifiers::SHIFT),
            key(KeyCode::Enter, KeyModifiers::NONE),
            key(KeyCode::PageUp, KeyModifiers::NONE),
            key(KeyCode::PageUp, KeyModifiers::NONE),
            key(KeyCode::Home, KeyModifiers::NONE),
            key(KeyCode::Enter, KeyModifiers::NONE),
            key(KeyCode::End, KeyModifiers::NONE),
            key(KeyCode::Down, KeyModifiers::SHIFT),
            key(KeyCode::Left, KeyModifiers::SHIFT),
            key(KeyCode::Char('.'), KeyModifiers::NONE),
            key(KeyCode::Up, KeyModifiers::NONE),
            key(KeyCode::Enter, KeyModifiers::NONE),
        ];
        play(&mut app, events, (60, 16));
        assert_eq!(
            app.moves(),
            [
                oxo_core::Cell::new(15 + 11, 15 + 8),
                oxo_core::Cell::new(26 - 22, 0),
                oxo_core::Cell::new(3, 0),
            ]
        );
    }

    #[test]
    fn a_page_turns_the_view_with_the_cursor() {
        let rules = Rules::new(50, 50, 5).unwrap();
        // At 80×24 the view holds 20 rows. From the view's top row a page
        // down shows the next 19 rows, the cursor still on the view's top
        // row; a page up goes back.
        let up_to_the_top = || keys(&"^".repeat(25));
        let mut app = app(rules, None);
        let mut events = up_to_the_top();
        events.push(key(KeyCode::PageDown, KeyModifiers::NONE));
        let terminal = play(&mut app, events, (80, 24));
        assert_eq!(app.cursor(), oxo_core::Cell::new(19, 25));
        let screen = terminal.backend().to_string();
        assert!(screen.contains("in view: rows 20–39"), "{screen}");

        let mut app = self::app(rules, None);
        let mut events = up_to_the_top();
        events.extend([
            key(KeyCode::PageDown, KeyModifiers::NONE),
            key(KeyCode::PageUp, KeyModifiers::NONE),
        ]);
        let terminal = play(&mut app, events, (80, 24));
        assert_eq!(app.cursor(), oxo_core::Cell::new(0, 25));
        let screen = terminal.backend().to_string();
        assert!(screen.contains("in view: rows 1–20"), "{screen}");
    }

    #[test]
    fn the_full_help_fits_seventy_two_by_twenty_under_a_two_line_notice() {
        // Two people: `v` is refused with a reason that takes two lines.
        let mut app = app(Rules::default(), None);
        let terminal = play(&mut app, keys("v?"), (72, 20));
        let screen = terminal.backend().to_string();
        assert!(screen.contains("Ctrl-Z            suspend"), "{screen}");
        assert!(screen.contains("hints are not available"), "{screen}");
    }

    #[test]
    fn a_narrow_title_says_what_is_switched_on_or_off() {
        let mut app = app(Rules::default(), Some(StrategyKind::Perfect));
        let terminal = play(&mut app, keys("vm"), (46, 12));
        let title = terminal
            .backend()
            .to_string()
            .lines()
            .next()
            .unwrap()
            .to_owned();
        assert!(
            title.contains("3×3 k=3 · X 0, O 0, draws 0 · hints · no mouse"),
            "{title}"
        );
    }

    #[test]
    fn m_leaves_the_mouse_to_the_terminal_until_pressed_again() {
        let mut app = app(Rules::default(), None);
        let mut terminal = Terminal::new(TestBackend::new(72, 20)).unwrap();
        let mut events = Script::new(keys("mvm"));
        run_inline(&mut app, &mut terminal, &mut events, Palette::COLOUR).unwrap();
        // Told once each time, and not for the key between.
        assert_eq!(events.mouse, [false, true]);
        let mut events = Script::new(keys("m"));
        run_inline(&mut app, &mut terminal, &mut events, Palette::COLOUR).unwrap();
        assert_eq!(events.mouse, [false]);
        assert!(
            terminal
                .backend()
                .to_string()
                .contains("mouse off (m takes clicks)"),
            "{}",
            terminal.backend()
        );
    }

    #[test]
    fn the_cursor_cell_shows_the_whole_hint_and_a_narrow_screen_says_it() {
        // X in a corner, O on an edge beside it (X wins from there); the
        // cursor below X, hints on; on a `width`×16 screen.
        let corner = |width| {
            let o = app::tests::Scripted(vec![oxo_core::Cell::new(0, 1)]);
            let mut app = App::new(
                Rules::default(),
                [Seat::Human, Seat::Computer(Box::new(o))],
                Player::X,
            );
            let terminal = play(&mut app, keys("^<\nVv"), (width, 16));
            (app, terminal)
        };
        // 46 columns: no side panel, 3-wide cells.
        let (app, terminal) = corner(46);
        let screen = terminal.backend().to_string();
        let cursor = app.cursor();
        let hint = app
            .hints()
            .and_then(|h| h.iter().find(|&&(c, _)| c == cursor))
            .map(|&(_, v)| v)
            .expect("a hint under the cursor");
        assert_eq!(hint.value, oxo_ai::Value::Win);
        let plies = hint.plies.expect("a distance");
        // 3-wide cells: the value without the brackets, in reverse video.
        let cell = (3..6)
            .map(|x| &terminal.backend().buffer()[(x, 5)])
            .collect::<Vec<_>>();
        let text: String = cell.iter().map(|c| c.symbol()).collect();
        assert_eq!(text, format!("W{plies} "), "{screen}");
        assert!(
            cell.iter()
                .all(|c| c.modifier.contains(ratatui::style::Modifier::REVERSED))
        );
        assert!(
            screen.contains(&format!(
                "X to move: your turn · here: win in {plies} plies"
            )),
            "{screen}"
        );
        // Narrower, the words would wrap: the short value, on one line.
        let (_, terminal) = corner(40);
        let screen = terminal.backend().to_string();
        assert!(
            screen.contains(&format!("X to move: your turn · here: W{plies} ")),
            "{screen}"
        );
    }

    #[test]
    fn a_notice_wider_than_the_screen_is_wrapped_not_cut() {
        // Two people: hints are refused, with a reason longer than 80
        // columns.
        let mut app = app(Rules::default(), None);
        // The screen's rows as one line of text, as a reader runs them on.
        let read_on = |screen: &str| {
            screen
                .lines()
                .map(|line| line.trim_matches('"').trim())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let terminal = play(&mut app, keys("v"), (80, 24));
        let screen = terminal.backend().to_string();
        let reason = app::BETWEEN_PEOPLE;
        assert!(reason.chars().count() > 80);
        assert!(read_on(&screen).contains(reason), "{screen}");
        // On a small screen, over three lines, all of it.
        let terminal = play(&mut app, keys("vv"), (40, 12));
        let screen = terminal.backend().to_string();
        assert!(read_on(&screen).contains(reason), "{screen}");
    }

    #[test]
    fn column_numbers_stand_over_their_columns_on_wide_boards() {
        // Three-digit columns, and four-digit ones.
        for (rules, rights) in [
            (Rules::new(120, 120, 5).unwrap(), 45),
            (Rules::new(3, 1024, 3).unwrap(), 1023),
        ] {
            let mut app = app(rules, None);
            let events = keys(&">".repeat(rights));
            let terminal = play(&mut app, events, (80, 24));
            let screen = terminal.backend().to_string();
            // The board's part of each line: up to the side panel.
            let lines: Vec<&str> = screen.lines().map(|l| l.trim_matches('"')).collect();
            let panel = lines[1][..lines[1].find("X  human").unwrap()]
                .chars()
                .count()
                - 2;
            let lines: Vec<String> = lines
                .iter()
                .map(|l| l.chars().take(panel).collect())
                .collect();
            // The header is the line under the title; each number is a
            // word of its own, one per column, and the cursor's column has
            // the cursor's number over it.
            let cursor_line = lines.iter().position(|l| l.contains('[')).unwrap();
            let cursor_x = lines[cursor_line].chars().position(|c| c == '[').unwrap();
            let header = &lines[1];
            let numbers: Vec<u32> = header
                .split_whitespace()
                .map(|w| w.parse().unwrap())
                .collect();
            assert!(numbers.windows(2).all(|w| w[1] == w[0] + 1), "{header}");
            let cells = lines[cursor_line].matches(['·', 'X', 'O']).count();
            assert_eq!(numbers.len(), cells, "{screen}");
            let col = app.cursor().col + 1;
            let at = header.find(&format!(" {col} ")).unwrap() + 1;
            let under = header[..at].chars().count();
            assert!(
                (under..under + digits(col)).contains(&(cursor_x + 1)),
                "column {col} at {under}, the cursor at {cursor_x}:\n{screen}"
            );
            // The panel says which columns are in view, whole.
            assert!(
                screen.contains(&format!("–{}", numbers.last().unwrap())),
                "{screen}"
            );
        }
    }

    #[test]
    fn compact_hints_stand_apart() {
        // 5×5 k=3 at 40×12: compact cells; hints of three characters.
        let rules = Rules::new(5, 5, 3).unwrap();
        let mut app = app(rules, Some(StrategyKind::Perfect));
        let terminal = play(&mut app, keys("v"), (40, 12));
        let screen = terminal.backend().to_string();
        let row = screen
            .lines()
            .map(|l| l.trim_matches('"'))
            .find(|l| l.trim_start().starts_with("1 ") && l.contains('W'))
            .unwrap();
        let values: Vec<&str> = row.split_whitespace().skip(1).collect();
        assert_eq!(values.len(), 5, "{screen}");
        assert!(values.iter().all(|v| v.len() <= 3), "{row}");
    }

    #[test]
    fn the_tiny_help_says_how_to_quit_and_the_keys_line_stays() {
        let mut app = app(Rules::default(), None);
        let terminal = play(&mut app, keys("?"), (20, 8));
        let screen = terminal.backend().to_string();
        assert!(screen.contains("q  quit"), "{screen}");
        assert!(
            screen.lines().last().unwrap().contains("q quit"),
            "{screen}"
        );
    }

    #[test]
    fn hints_colour_every_empty_cell() {
        let mut app = app(Rules::default(), Some(StrategyKind::Perfect));
        // X in a corner; perfect answers in the centre; X takes the
        // opposite corner; then the hints.
        let terminal = play(&mut app, keys("^<\nVV>>\nv"), (72, 20));
        insta::assert_snapshot!(terminal.backend());
        let buffer = terminal.backend().buffer();
        // Every hint is a draw here, in the draw colour.
        let hinted: Vec<_> = buffer
            .content()
            .iter()
            .filter(|c| c.symbol() == "D")
            .collect();
        assert!(!hinted.is_empty());
        assert!(
            hinted
                .iter()
                .all(|c| c.fg == ratatui::style::Color::Indexed(136))
        );
    }

    /// Hints whose answer comes only after a few looks for it.
    struct Late {
        inline: Inline,
        /// Looks, while a job runs, before its answer comes.
        looks: u32,
        /// Whether a job runs.
        running: bool,
        /// Positions asked for.
        asked: u32,
        /// Searches stopped.
        cancelled: u32,
    }

    impl hints::Hinter for Late {
        fn ask(&mut self, job: hints::Job, game: oxo_core::Game) {
            self.asked += 1;
            self.running = true;
            self.inline.ask(job, game);
        }

        fn cancel(&mut self) {
            self.cancelled += 1;
            self.running = false;
            self.inline.cancel();
        }

        fn answer(&mut self) -> Option<hints::Answer> {
            if !self.running {
                None
            } else if self.looks == 0 {
                self.running = false;
                self.inline.answer()
            } else {
                self.looks -= 1;
                None
            }
        }
    }

    /// While hints are searched the loop waits for keys a short while at
    /// a time, looking for the answer in between, and draws it once it
    /// comes; the wait for keys is then as long as it takes again.
    #[test]
    fn the_loop_looks_for_hints_between_keys_until_they_come() {
        let mut app = app(Rules::default(), Some(StrategyKind::Perfect));
        let start = Instant::now();
        let mut events = Timed {
            now: start,
            // `q` a second later: the looks come first.
            keys: [(0, "v"), (1000, "q")]
                .map(|(ms, key)| (Duration::from_millis(ms), keys(key).remove(0)))
                .into(),
            start,
            waits: Vec::new(),
        };
        let mut late = Late {
            inline: Inline::default(),
            looks: 3,
            running: false,
            asked: 0,
            cancelled: 0,
        };
        let mut terminal = Terminal::new(TestBackend::new(72, 20)).unwrap();
        run(
            &mut app,
            &mut terminal,
            &mut events,
            &mut late,
            Palette::COLOUR,
        )
        .unwrap();
        assert_eq!(late.asked, 1);
        // Before `v`; after it, as the hints were asked for and after each
        // of two waits, no answer yet; after the third wait, the answer;
        // then `q`.
        assert_eq!(
            events.waits,
            [
                None,
                Some(HINTS_POLL),
                Some(HINTS_POLL),
                Some(HINTS_POLL),
                None
            ]
        );
        assert_eq!(app.hints().map(<[_]>::len), Some(9));
    }

    /// Hints whose thread has gone: the game ends with that error.
    struct Gone(Option<hints::Job>);

    impl hints::Hinter for Gone {
        fn ask(&mut self, job: hints::Job, _: oxo_core::Game) {
            self.0 = Some(job);
        }

        fn cancel(&mut self) {
            self.0 = None;
        }

        fn answer(&mut self) -> Option<hints::Answer> {
            self.0.take().map(|job| hints::Answer {
                job,
                values: Err(hints::HintError::Gone),
            })
        }
    }

    #[test]
    fn a_hints_thread_that_has_gone_ends_the_game() {
        let mut app = app(Rules::default(), Some(StrategyKind::Perfect));
        let mut terminal = Terminal::new(TestBackend::new(72, 20)).unwrap();
        let ended = run(
            &mut app,
            &mut terminal,
            &mut Script::new(keys("vq")),
            &mut Gone(None),
            Palette::COLOUR,
        );
        let error = ended.unwrap_err();
        assert_eq!(
            error.to_string(),
            "the hints' search failed (its panic message is above)"
        );
    }

    #[test]
    fn the_help_covers_the_board_and_any_key_closes_it() {
        let mut app = app(Rules::default(), None);
        let terminal = play(&mut app, keys("?"), (72, 20));
        insta::assert_snapshot!(terminal.backend());
        let terminal = play(&mut app, keys("\n"), (72, 20));
        assert!(!app.help_shown());
        assert!(app.moves().is_empty(), "the key only closed the help");
        assert!(!terminal.backend().to_string().contains("┌ help"));
    }

    #[test]
    fn a_small_screen_keeps_the_score_how_to_quit_and_a_help_that_fits() {
        let mut app = app(Rules::default(), None);
        let terminal = play(&mut app, Vec::new(), (40, 12));
        insta::assert_snapshot!("small_screen", terminal.backend());
        let text = terminal.backend().to_string();
        assert!(
            text.contains("X 0, O 0, draws 0") && text.contains("q quit"),
            "{text}"
        );
        let terminal = play(&mut app, keys("?"), (40, 12));
        insta::assert_snapshot!("small_screen_help", terminal.backend());
        assert!(terminal.backend().to_string().contains("q  quit"));
    }

    /// The screen position two columns past `mark` on the first line of
    /// the drawing that `line` picks: inside the cell after that grid line.
    fn beside(
        terminal: &Terminal<TestBackend>,
        line: impl Fn(&str) -> bool,
        mark: char,
    ) -> (u16, u16) {
        let text = terminal.backend().to_string();
        let (y, found) = text
            .lines()
            .map(|l| l.trim_start_matches('"'))
            .enumerate()
            .find(|(_, l)| line(l))
            .unwrap();
        let x = found.chars().position(|c| c == mark).unwrap() + 2;
        (x as u16, y as u16)
    }

    #[test]
    fn a_click_plays_the_cell_under_the_mouse() {
        let mut app = app(Rules::default(), None);
        let mut terminal = play(&mut app, Vec::new(), (72, 20));
        // Find the screen position of row 3, column 1 from the drawing:
        // the line labelled 3, the first cell after the grid line.
        let (x, y) = beside(&terminal, |l| l.trim_start().starts_with("3 │"), '│');
        let mut script = Script::new(vec![click(x, y), click(0, 0)]);
        run_inline(&mut app, &mut terminal, &mut script, Palette::COLOUR).unwrap();
        assert_eq!(app.moves(), &[oxo_core::Cell::new(2, 0)]);
        assert_eq!(app.cursor(), oxo_core::Cell::new(2, 0));
    }

    #[test]
    fn a_small_board_on_a_large_screen_gets_marks_three_lines_tall() {
        let mut app = app(Rules::default(), Some(StrategyKind::Perfect));
        // X in the centre, O answers, hints on; the cursor stays on X's
        // mark, its brackets at the cell's edges.
        let terminal = play(&mut app, keys("\nv"), (80, 24));
        insta::assert_snapshot!(terminal.backend());
        let screen = terminal.backend().to_string();
        assert!(
            screen.contains("╲ ╱") && screen.contains("╭───╮"),
            "{screen}"
        );
        assert!(screen.contains("│[   ╳   ]│"), "{screen}");

        // A click on the top line of a large cell plays that cell.
        let mut app = self::app(Rules::default(), None);
        let mut terminal = play(&mut app, Vec::new(), (80, 24));
        // The line under the top rule is row 1's first line.
        let (x, y) = beside(&terminal, |l| l.contains('┌'), '┌');
        let mut script = Script::new(vec![click(x, y + 1)]);
        run_inline(&mut app, &mut terminal, &mut script, Palette::COLOUR).unwrap();
        assert_eq!(app.moves(), &[oxo_core::Cell::new(0, 0)]);
    }

    #[test]
    fn marks_last_move_and_winning_line_have_their_styles() {
        let mut app = app(Rules::default(), None);
        // X: top row; O: the middle row's first two cells.
        let terminal = play(&mut app, keys("^<\nV\n^>\nV\n^>\n"), (72, 20));
        assert_eq!(app.score().wins(Player::X), 1);
        let buffer = terminal.backend().buffer();
        let x_cells: Vec<_> = buffer
            .content()
            .iter()
            .filter(|c| c.symbol() == "X")
            .collect();
        let on_line = x_cells
            .iter()
            .filter(|c| c.bg == ratatui::style::Color::Indexed(36))
            .count();
        assert_eq!(on_line, 3);
        let underlined = buffer
            .content()
            .iter()
            .filter(|c| {
                c.symbol() == "X" && c.modifier.contains(ratatui::style::Modifier::UNDERLINED)
            })
            .count();
        assert_eq!(underlined, 1, "the last move");
        let o_colour = ratatui::style::Color::Indexed(214);
        assert!(
            buffer
                .content()
                .iter()
                .any(|c| c.symbol() == "O" && c.fg == o_colour)
        );
    }

    #[test]
    fn no_color_means_no_colour_anywhere() {
        let mut app = app(Rules::default(), Some(StrategyKind::Perfect));
        let mut terminal = Terminal::new(TestBackend::new(72, 20)).unwrap();
        let mut script = Script::new(keys("\nv"));
        let palette = Palette::from_no_color(Some(std::ffi::OsStr::new("1")));
        run_inline(&mut app, &mut terminal, &mut script, palette).unwrap();
        let buffer = terminal.backend().buffer();
        assert!(
            buffer
                .content()
                .iter()
                .all(|c| c.fg == ratatui::style::Color::Reset
                    && c.bg == ratatui::style::Color::Reset)
        );
        assert_eq!(
            Palette::from_no_color(Some(std::ffi::OsStr::new(""))),
            Palette::COLOUR
        );
        assert_eq!(Palette::from_no_color(None), Palette::COLOUR);
    }

    #[test]
    fn a_signal_ends_the_game_as_q_does_with_the_signals_exit_code() {
        let mut app = app(Rules::default(), None);
        let mut terminal = Terminal::new(TestBackend::new(72, 20)).unwrap();
        let mut inputs: Vec<Input> = keys("\n").into_iter().map(Input::Event).collect();
        inputs.push(Input::Signal(Signal::Terminate));
        // Never read: the signal ended the game.
        inputs.extend(keys(">\n").into_iter().map(Input::Event));
        let mut script = Script::inputs(inputs);
        let end = run_inline(&mut app, &mut terminal, &mut script, Palette::COLOUR).unwrap();
        assert_eq!(end, End::Signal(Signal::Terminate));
        assert_eq!(app.moves().len(), 1);
        assert_eq!(script.inputs.len(), 2);
        assert_eq!(
            [
                Signal::Terminate,
                Signal::Hangup,
                Signal::Interrupt,
                Signal::Quit
            ]
            .map(Signal::exit_code),
            [143, 129, 130, 131]
        );
        let end = run_inline(
            &mut app,
            &mut terminal,
            &mut Script::new(keys("q")),
            Palette::COLOUR,
        );
        assert_eq!(end.unwrap(), End::Quit);
    }

    #[test]
    fn control_z_suspends_and_the_whole_screen_is_drawn_again() {
        let mut app = app(Rules::default(), None);
        let control_z = Event::Key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL));
        let mut events = keys("\n");
        events.push(control_z);
        let mut script = Script::new(events);
        let mut terminal = Terminal::new(Wiped {
            screen: TestBackend::new(72, 20),
            wipe: Rc::clone(&script.wipe),
        })
        .unwrap();
        run_inline(&mut app, &mut terminal, &mut script, Palette::COLOUR).unwrap();
        assert_eq!(script.suspended, 1);
        assert_eq!(app.moves().len(), 1, "Ctrl-Z played nothing");
        // The screen was wiped while the game was stopped: the frame after
        // it has everything on it again.
        let screen = terminal.backend().screen.to_string();
        assert!(
            screen.contains("1. X 2 2") && screen.contains("q quit"),
            "{screen}"
        );
    }

    #[test]
    fn a_computer_move_out_of_view_is_brought_into_view() {
        let rules = Rules::new(30, 30, 5).unwrap();
        // X in a corner; the computer (scripted, so its move is known)
        // answers at the other end, out of a phone's view.
        let far = oxo_core::Cell::new(29, 29);
        let o = app::tests::Scripted(vec![far]);
        let mut app = App::new(rules, [Seat::Human, Seat::Computer(Box::new(o))], Player::X);
        app.act(Action::PlayAt(oxo_core::Cell::new(0, 0)));
        let terminal = play(&mut app, Vec::new(), (40, 20));
        assert_eq!(app.moves(), [oxo_core::Cell::new(0, 0), far]);
        assert_eq!(app.cursor(), far);
        let screen = terminal.backend().to_string();
        assert!(screen.contains("30") && screen.contains("[O]"), "{screen}");
    }

    #[test]
    fn a_board_larger_than_the_window_opens_with_the_cursor_in_the_middle() {
        let mut app = app(Rules::new(30, 30, 5).unwrap(), None);
        let terminal = play(&mut app, Vec::new(), (80, 24));
        let screen = terminal.backend().to_string();
        // The cursor is on row and column 16 (counted from 1).
        let range = |label: &str| -> (u32, u32) {
            let at = screen.find(label).unwrap() + label.len();
            let text: String = screen[at..].chars().take_while(|&c| c != ' ').collect();
            let (from, to) = text.split_once('–').unwrap();
            (from.parse().unwrap(), to.parse().unwrap())
        };
        for (from, to) in [range("in view: rows "), range("cols ")] {
            assert!(from + 3 <= 16 && 16 + 3 <= to, "{from}–{to}: {screen}");
        }
    }

    #[test]
    fn the_move_list_keeps_the_latest_moves_when_the_panel_is_short() {
        let mut app = app(Rules::default(), None);
        // A drawn round, nine moves; the last, X at row 2, column 1.
        for (row, col) in [
            (0, 0),
            (1, 1),
            (2, 2),
            (0, 1),
            (2, 1),
            (2, 0),
            (0, 2),
            (1, 2),
            (1, 0),
        ] {
            app.act(Action::PlayAt(oxo_core::Cell::new(row, col)));
        }
        assert!(app.game().is_over());
        for height in [20, 16, 14] {
            let terminal = play(&mut app, Vec::new(), (72, height));
            let screen = terminal.backend().to_string();
            assert!(screen.contains("9. X 2 1"), "{screen}");
        }
    }

    #[test]
    fn a_stop_from_elsewhere_takes_the_terminal_back_and_draws_it_whole() {
        let mut app = app(Rules::default(), None);
        let mut inputs: Vec<Input> = keys("\n").into_iter().map(Input::Event).collect();
        inputs.push(Input::Continued);
        let mut script = Script::inputs(inputs);
        let mut terminal = Terminal::new(Wiped {
            screen: TestBackend::new(72, 20),
            wipe: Rc::clone(&script.wipe),
        })
        .unwrap();
        run_inline(&mut app, &mut terminal, &mut script, Palette::COLOUR).unwrap();
        assert_eq!((script.resumed, script.suspended), (1, 0));
        let screen = terminal.backend().screen.to_string();
        assert!(
            screen.contains("1. X 2 2") && screen.contains("q quit"),
            "{screen}"
        );
    }

    #[test]
    fn any_screen_size_draws_without_panicking() {
        for rules in [
            Rules::default(),
            Rules::new(15, 15, 5).unwrap(),
            Rules::new(4, 40, 4).unwrap(),
        ] {
            let mut app = app(rules, None);
            let mut terminal = Terminal::new(TestBackend::new(1, 1)).unwrap();
            for width in [1, 2, 5, 10, 20, 33, 50, 79, 100] {
                for height in [1, 2, 3, 4, 5, 8, 12, 17, 24, 30] {
                    terminal.backend_mut().resize(width, height);
                    let events = keys(">V\n?");
                    run_inline(
                        &mut app,
                        &mut terminal,
                        &mut Script::new(events),
                        Palette::COLOUR,
                    )
                    .unwrap();
                }
            }
        }
    }
}
