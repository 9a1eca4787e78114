//! The terminal game's state and rules of play, with no terminal in sight:
//! [`App::act`] takes an [`Action`] (a key or a click, already decoded) and
//! changes the state; the view draws whatever the state is.

use oxo_ai::Strategy;
use oxo_ai::exact::Valued;
use oxo_ai::hints::{self, NoHints, hints_allowed};
use oxo_ai::solver::QUICK_MAX_EMPTY;
use oxo_core::{Cell, Game, History, MoveResult, Outcome, Player, Rules, Scoreboard, Series};

use super::hints::{Answer, Job};

/// What a person asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Move the cursor one cell.
    Step(Direction),
    /// Move the cursor this many cells (a view's worth: Page Up, Page
    /// Down, Shift and an arrow), stopping at the edge.
    Stride(Direction, u32),
    /// Move the cursor to the edge of the board (Home, End).
    Edge(Direction),
    /// Move the cursor to the round's last move.
    LastMove,
    /// Play on the cursor's cell.
    Play,
    /// Move the cursor to this cell and play there (a mouse click).
    PlayAt(Cell),
    /// Take back the last move (against the computer: your move and its
    /// reply).
    TakeBack,
    /// Show or hide every empty cell's perfect-play value.
    ToggleHints,
    /// Search longer for the values the hints' budget left out.
    LookFurther,
    /// Start the next round (abandoning one in progress).
    NewRound,
    /// Show or hide the help.
    ToggleHelp,
    /// Stop or start taking the mouse's clicks (while stopped, the
    /// terminal's own text selection works).
    ToggleMouse,
    /// Close the help, or do nothing.
    Dismiss,
    /// Leave the game.
    Quit,
    /// Stop the game for a while (Ctrl-Z): the event loop's to do, as it
    /// hands the terminal back; nothing here.
    Suspend,
}

/// A cursor step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// One row up.
    Up,
    /// One row down.
    Down,
    /// One column left.
    Left,
    /// One column right.
    Right,
}

/// The line under the board: what just happened, or why a move was
/// refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Something worth knowing.
    Info(String),
    /// What the person asked for was refused, and why.
    Refused(String),
}

/// One side of the board: a person at this keyboard, or a computer player.
pub enum Seat {
    /// A person, playing with the keys or the mouse.
    Human,
    /// A computer player.
    Computer(Box<dyn Strategy>),
}

impl std::fmt::Debug for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Seat {
    /// `human`, or the strategy's name.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Seat::Human => "human",
            Seat::Computer(strategy) => strategy.name(),
        }
    }

    /// Whether a person plays this seat.
    #[must_use]
    pub const fn is_human(&self) -> bool {
        matches!(self, Seat::Human)
    }
}

/// Values of the empty cells of one position (the app's number for it).
#[derive(Debug)]
struct Hints {
    position: u64,
    values: Vec<(Cell, Valued)>,
    /// Whether a longer look may value moves these leave without a value
    /// (not after one that found no more).
    further: bool,
}

/// A session of rounds at the terminal.
#[derive(Debug)]
pub struct App {
    rules: Rules,
    seats: [Seat; 2],
    /// The round: its position and its moves.
    round: History,
    series: Series,
    cursor: Cell,
    notice: Option<Notice>,
    help: bool,
    quit: bool,
    hints_on: bool,
    hints: Option<Hints>,
    /// The position's number: a new one for every move, take-back and
    /// round, so that values found for one are never shown for another.
    position: u64,
    /// The position a longer look was asked for, until its answer comes.
    longer: Option<u64>,
    mouse: bool,
}

impl App {
    /// A session on `rules`, X's seat first, `first` starting round 1.
    #[must_use]
    pub fn new(rules: Rules, seats: [Seat; 2], first: Player) -> App {
        let centre = Cell::new(rules.rows() / 2, rules.cols() / 2);
        App {
            rules,
            seats,
            round: History::new(Game::starting_with(rules, first)),
            series: Series::new(first),
            cursor: centre,
            notice: None,
            help: false,
            quit: false,
            hints_on: false,
            hints: None,
            position: 0,
            longer: None,
            mouse: true,
        }
    }

    /// The round being played (or just finished).
    #[must_use]
    pub const fn game(&self) -> &Game {
        self.round.game()
    }

    /// The board and win length.
    #[must_use]
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    /// The round's moves, in order.
    #[must_use]
    pub fn moves(&self) -> &[Cell] {
        self.round.moves()
    }

    /// Who plays `player`.
    #[must_use]
    pub const fn seat(&self, player: Player) -> &Seat {
        &self.seats[player.index()]
    }

    /// Rounds finished so far.
    #[must_use]
    pub const fn score(&self) -> Scoreboard {
        self.series.score()
    }

    /// The round's number, from 1.
    #[must_use]
    pub const fn round(&self) -> u32 {
        self.series.round()
    }

    /// The cell under the cursor.
    #[must_use]
    pub const fn cursor(&self) -> Cell {
        self.cursor
    }

    /// Put the cursor on `cell` (one off the board is ignored).
    pub fn move_cursor(&mut self, cell: Cell) {
        if self.rules.contains(cell) {
            self.cursor = cell;
        }
    }

    /// The last thing worth telling.
    #[must_use]
    pub const fn notice(&self) -> Option<&Notice> {
        self.notice.as_ref()
    }

    /// Whether the help is shown.
    #[must_use]
    pub const fn help_shown(&self) -> bool {
        self.help
    }

    /// Whether the person asked to leave.
    #[must_use]
    pub const fn quitting(&self) -> bool {
        self.quit
    }

    /// The empty cells' values, when hints are on and can be given here:
    /// every cell's, or where the hints' budget runs out, those it reached
    /// (the notice says so).
    #[must_use]
    pub fn hints(&self) -> Option<&[(Cell, Valued)]> {
        self.current_hints()
            .map(|h| h.values.as_slice())
            .filter(|values| !values.is_empty())
    }

    /// The hints found for this position, if hints are on.
    fn current_hints(&self) -> Option<&Hints> {
        self.hints
            .as_ref()
            .filter(|h| self.hints_on && h.position == self.position)
    }

    /// What should be valued now, if anything: this position's hints,
    /// or a longer look at them once asked for (see [`super::hints`]).
    /// Nothing while a computer is about to move against a person: the
    /// position is gone before its values would come.
    #[must_use]
    pub fn hint_job(&self) -> Option<Job> {
        if !self.hints_on
            || self.round.game().is_over()
            || self.hints_allowed().is_err()
            || (self.computer_to_move() && !self.computers_only())
        {
            return None;
        }
        let position = self.position;
        match self.current_hints() {
            None => Some(Job {
                position,
                longer: false,
            }),
            Some(_) if self.longer == Some(position) => Some(Job {
                position,
                longer: true,
            }),
            Some(_) => None,
        }
    }

    /// Whether this position's hints are being found.
    #[must_use]
    pub fn hints_coming(&self) -> bool {
        self.hint_job().is_some_and(|job| !job.longer)
    }

    /// Whether a longer look at this position's values is under way.
    #[must_use]
    pub fn looking_further(&self) -> bool {
        self.hint_job().is_some_and(|job| job.longer)
    }

    /// Whether a longer look may value moves this position's hints left
    /// without a value (`f` asks for it).
    #[must_use]
    pub fn further_helps(&self) -> bool {
        self.current_hints().is_some_and(|h| h.further)
    }

    /// Take the values found for a [`App::hint_job`]; one for a position
    /// the game has left, or no longer wanted, is dropped.
    pub fn hints_came(&mut self, answer: Answer) {
        if self.hint_job() != Some(answer.job) {
            return;
        }
        let position = self.position;
        let longer = answer.job.longer;
        let values = match answer.values {
            Ok(values) => values,
            Err(e) if longer => {
                self.longer = None;
                self.notice = Some(Notice::Refused(format!("looking further failed: {e}")));
                return;
            }
            Err(e) => {
                self.notice = Some(Notice::Refused(format!("no hints: {e}")));
                // Not asked again for this position.
                self.hints = Some(Hints {
                    position,
                    values: Vec::new(),
                    further: false,
                });
                return;
            }
        };
        if !longer {
            let missing = NoHints::of(&values);
            let further = missing.is_some_and(NoHints::longer_look_helps);
            if let Some(missing) = missing
                && self.notice.is_none()
            {
                // Said unless something else is (a move taken back, …).
                let offer = if further { "; f looks further" } else { "" };
                self.notice = Some(Notice::Info(format!("hints: {missing}{offer}")));
            }
            self.hints = Some(Hints {
                position,
                values: values.moves,
                further,
            });
            return;
        }
        self.longer = None;
        let before = self.current_hints().map_or(0, |h| h.values.len());
        let (after, moves) = (
            values.moves.len(),
            values.moves.len() + values.unvalued.len(),
        );
        let (said, values, further) = if after == moves {
            (
                "looked further: every move has its exact value now".to_owned(),
                values.moves,
                false,
            )
        } else if after > before {
            (
                format!(
                    "looked further: {after} of the {moves} moves have their exact value; f looks again"
                ),
                values.moves,
                true,
            )
        } else {
            // No more found: the offer goes, as on the web (a look that
            // found fewer, its passes sharing the budget otherwise, leaves
            // the values found before).
            let kept = self.hints.take().map(|h| h.values).unwrap_or_default();
            (
                "looking further found no more values here; oxo solve values every move without a limit"
                    .to_owned(),
                if after < before { kept } else { values.moves },
                false,
            )
        };
        self.notice = Some(Notice::Info(said));
        self.hints = Some(Hints {
            position,
            values,
            further,
        });
    }

    /// Whether hints are switched on (they may still be unavailable here).
    #[must_use]
    pub const fn hints_on(&self) -> bool {
        self.hints_on
    }

    /// Whether mouse clicks are taken (when not, the terminal selects text
    /// with the mouse as it does outside the game).
    #[must_use]
    pub const fn mouse_on(&self) -> bool {
        self.mouse
    }

    /// Whether it is a computer's turn in a round still being played.
    #[must_use]
    pub fn computer_to_move(&self) -> bool {
        !self.round.game().is_over() && !self.seat(self.round.game().to_move()).is_human()
    }

    /// Whether no person plays: the computers play on by themselves.
    #[must_use]
    pub fn computers_only(&self) -> bool {
        !self.seats.iter().any(Seat::is_human)
    }

    /// Whether two people play each other, no computer.
    fn people_only(&self) -> bool {
        self.seats.iter().all(Seat::is_human)
    }

    /// Do what `action` asks.
    pub fn act(&mut self, action: Action) {
        if self.help && !matches!(action, Action::Quit | Action::Suspend) {
            // Any key closes the help; it does nothing else.
            self.help = false;
            return;
        }
        match action {
            Action::Step(direction) => self.step(direction, 1),
            Action::Stride(direction, cells) => self.step(direction, cells.max(1)),
            Action::Edge(direction) => self.step(direction, u32::MAX),
            Action::LastMove => match self.round.moves().last() {
                Some(&last) => self.cursor = last,
                None => {
                    self.notice = Some(Notice::Refused("no move yet this round".to_owned()));
                }
            },
            Action::Play => self.play_person(self.cursor),
            Action::PlayAt(cell) => {
                if self.rules.contains(cell) {
                    self.cursor = cell;
                    self.play_person(cell);
                }
            }
            Action::TakeBack => self.take_back(),
            Action::ToggleHints => self.toggle_hints(),
            Action::LookFurther => self.look_further(),
            Action::NewRound => self.new_round(),
            Action::ToggleHelp => self.help = !self.help,
            Action::ToggleMouse => {
                self.mouse = !self.mouse;
                self.notice = Some(Notice::Info(
                    if self.mouse {
                        "mouse on: a click plays"
                    } else {
                        "mouse off: the terminal selects text with it; m turns clicks back on"
                    }
                    .to_owned(),
                ));
            }
            Action::Dismiss | Action::Suspend => {}
            Action::Quit => self.quit = true,
        }
    }

    /// Let the computer whose turn it is move.
    pub fn play_computer(&mut self) {
        if !self.computer_to_move() {
            return;
        }
        let mover = self.round.game().to_move();
        let Seat::Computer(strategy) = &mut self.seats[mover.index()] else {
            return;
        };
        let choice = strategy.choose(self.round.game());
        let name = strategy.name().to_owned();
        // The new round's notice stays up over the computer's opening
        // move, until the person does something.
        let kept = self.notice.take().filter(|_| self.round.moves().is_empty());
        let refusal = match choice {
            None => format!("{name} found no move"),
            Some(cell) => match self.apply(cell) {
                Ok(()) => {
                    if self.notice.is_none() {
                        self.notice = kept;
                    }
                    return;
                }
                Err(e) => format!("{name} offered {cell}: {e}"),
            },
        };
        self.notice = Some(Notice::Refused(refusal));
    }

    /// Move the cursor `cells` cells, stopping at the board's edge.
    fn step(&mut self, direction: Direction, cells: u32) {
        let Cell { row, col } = self.cursor;
        let (rows, cols) = (self.rules.rows(), self.rules.cols());
        self.cursor = match direction {
            Direction::Up => Cell::new(row.saturating_sub(cells), col),
            Direction::Down => Cell::new(row.saturating_add(cells).min(rows - 1), col),
            Direction::Left => Cell::new(row, col.saturating_sub(cells)),
            Direction::Right => Cell::new(row, col.saturating_add(cells).min(cols - 1)),
        };
    }

    /// Hints on or off. A refusal that holds for the whole session (a
    /// board no search values at once; two people) leaves them off; one
    /// that passes (a finished round; a board whose hints come once fewer
    /// cells are empty) leaves them on, and says when they will come.
    fn toggle_hints(&mut self) {
        self.hints_on = !self.hints_on;
        self.notice = None;
        self.longer = None;
        if !self.hints_on {
            self.notice = Some(Notice::Info("hints off".to_owned()));
            return;
        }
        // Where both hold, the board's reason is the one to give: it holds
        // whoever plays.
        let never = if !hints::hints_ever(self.rules) {
            Some(NoHints::TooSlow.to_string())
        } else if self.people_only() {
            Some(BETWEEN_PEOPLE.to_owned())
        } else {
            None
        };
        if let Some(why) = never {
            self.hints_on = false;
            self.notice = Some(Notice::Refused(why));
        } else if self.round.game().is_over()
            && hints_allowed(&Game::new(self.rules), false).is_ok()
        {
            self.notice = Some(Notice::Info(
                "hints on: they come with the next round (n)".to_owned(),
            ));
        } else if self.round.game().is_over() || hints_allowed(self.round.game(), false).is_err() {
            self.notice = Some(Notice::Info(format!(
                "hints on: on this board they come once at most {QUICK_MAX_EMPTY} cells are empty"
            )));
        }
    }

    /// Ask for a longer look where this position's hints left moves
    /// without a value; say why not elsewhere.
    fn look_further(&mut self) {
        let refusal = if !self.hints_on {
            "hints are off: v shows them, then f looks further where they leave moves without a value"
        } else if self.looking_further() {
            "already looking further here"
        } else if self.further_helps() {
            self.longer = Some(self.position);
            self.notice = Some(Notice::Info(
                "looking further for the other moves' values (seconds); a move stops the look"
                    .to_owned(),
            ));
            return;
        } else if self.hints_coming() {
            "the hints are still being found; f looks further once they are, where they leave moves without a value"
        } else if let Some(hints) = self.hints() {
            if hints.len() < self.round.game().legal_moves().count() {
                "looking further found no more values here; oxo solve values every move without a limit"
            } else {
                "every move here already has its exact value"
            }
        } else {
            // None yet, none on this board yet, or none found (said then).
            "no hints here to look further into"
        };
        self.notice = Some(Notice::Refused(refusal.to_owned()));
    }

    /// Whether hints can come at all in this session: not between two
    /// people, nor on a board no search values at once.
    #[must_use]
    pub fn hints_possible(&self) -> bool {
        hints::hints_ever(self.rules) && !self.people_only()
    }

    fn play_person(&mut self, cell: Cell) {
        if self.round.game().is_over() {
            self.notice = Some(Notice::Refused(
                "the round is over: press n for the next one".to_owned(),
            ));
            return;
        }
        if !self.seat(self.round.game().to_move()).is_human() {
            self.notice = Some(Notice::Refused(format!(
                "it is {}'s turn: {} is thinking",
                self.round.game().to_move(),
                self.seat(self.round.game().to_move()).name()
            )));
            return;
        }
        if let Some(by) = self.round.game().get(cell) {
            self.notice = Some(Notice::Refused(format!(
                "{} is taken by {by}",
                cell_name(cell)
            )));
            return;
        }
        if let Err(e) = self.apply(cell) {
            self.notice = Some(Notice::Refused(e.to_string()));
        }
    }

    /// Play `cell` for the side to move; record the round's end.
    fn apply(&mut self, cell: Cell) -> Result<(), oxo_core::MoveError> {
        let result = self.round.play(cell)?;
        // Between two computers the next round starts by itself.
        let next = if self.computers_only() {
            "the next round starts in a moment"
        } else {
            "Press n for the next round"
        };
        self.notice = match result {
            MoveResult::Placed => None,
            MoveResult::Won { winner, .. } => {
                self.series.record(Outcome::Win(winner));
                Some(Notice::Info(format!("{winner} wins! {next}")))
            }
            MoveResult::Draw => {
                self.series.record(Outcome::Draw);
                Some(Notice::Info(format!("a draw. {next}")))
            }
        };
        self.position += 1;
        Ok(())
    }

    fn take_back(&mut self) {
        if self.round.game().is_over() {
            self.notice = Some(Notice::Refused(
                "the round is over: press n for the next one".to_owned(),
            ));
            return;
        }
        if self.computers_only() {
            self.notice = Some(Notice::Refused(
                "no one here to take a move back for".to_owned(),
            ));
            return;
        }
        let person_moved =
            (0..self.round.moves().len()).any(|i| self.seat(self.mover(i)).is_human());
        if !person_moved {
            // Between two people, neither has a move to take back; against
            // the computer, the person has none.
            let whose = if self.people_only() {
                "no move to take back"
            } else {
                "no move of yours to take back"
            };
            self.notice = Some(Notice::Refused(whose.to_owned()));
            return;
        }
        // Back to the last position where a person was to move, at least
        // one move back: against the computer that is the person's own
        // move and the computer's reply.
        let mut keep = self.round.moves().len() - 1;
        while keep > 0 && !self.seat(self.mover(keep)).is_human() {
            keep -= 1;
        }
        self.round.truncate(keep);
        self.notice = Some(Notice::Info("move taken back".to_owned()));
        self.position += 1;
    }

    /// Who made (or makes) the round's move number `index` (from 0).
    #[must_use]
    pub const fn mover(&self, index: usize) -> Player {
        self.round.mover(index)
    }

    /// Start the next round (as `n` does, but with the help left as it
    /// is): between two computers, once a round is over.
    pub fn next_round(&mut self) {
        self.new_round();
    }

    fn new_round(&mut self) {
        let abandoned = !self.round.game().is_over() && !self.round.moves().is_empty();
        self.series.next_round();
        self.round = History::new(self.series.game(self.rules));
        let (round, starter) = (self.series.round(), self.series.starter());
        self.notice = Some(Notice::Info(if abandoned {
            format!(
                "round {} abandoned, not scored; {starter} starts round {round}",
                round - 1
            )
        } else {
            format!("{starter} starts round {round}")
        }));
        self.position += 1;
    }

    /// Whether hints may be shown now, by the rule every front end keeps
    /// ([`oxo_ai::hints`]); but never between two people, where the rule
    /// allows a finished round: the web game looks back through its
    /// positions, and this game cannot (the finished board has nothing
    /// left to value).
    fn hints_allowed(&self) -> Result<(), NoHints> {
        if self.people_only() {
            return Err(NoHints::BetweenPeople);
        }
        hints_allowed(self.round.game(), false)
    }
}

/// Between two people, why hints are refused, as this game can give them:
/// against the computer only (the web game also looks back through a
/// finished round; this one cannot, and a finished round has no empty
/// cell left to value). Other reasons as every front end gives them.
pub const BETWEEN_PEOPLE: &str =
    "hints are not available while two people play; they are for games against the computer";

/// A cell as people read it on the screen: rows and columns from 1.
#[must_use]
pub fn cell_name(cell: Cell) -> String {
    format!("row {}, column {}", cell.row + 1, cell.col + 1)
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::hints::{Hinter, Inline};
    use super::*;

    fn people() -> App {
        App::new(Rules::default(), [Seat::Human, Seat::Human], Player::X)
    }

    pub(in crate::tui) fn against(strategy: oxo_ai::StrategyKind) -> App {
        let rules = Rules::default();
        let computer = Seat::Computer(strategy.build(rules, 7).unwrap());
        App::new(rules, [Seat::Human, computer], Player::X)
    }

    /// Between two computers the next round starts by itself: the end of a
    /// round says so, where a person is told to press `n`.
    #[test]
    fn between_computers_the_end_of_a_round_asks_for_no_key() {
        let rules = Rules::default();
        let computer = || Seat::Computer(oxo_ai::StrategyKind::Rules.build(rules, 3).unwrap());
        let mut app = App::new(rules, [computer(), computer()], Player::X);
        while app.computer_to_move() {
            app.play_computer();
        }
        assert!(app.game().is_over());
        assert!(
            matches!(app.notice(), Some(Notice::Info(n)) if n.ends_with(" the next round starts in a moment")),
            "{:?}",
            app.notice()
        );
    }

    /// Act, then let computers answer and hints come, as the event loop
    /// does (the hints valued at once, by one valuer for the test).
    pub(in crate::tui) fn act(app: &mut App, actions: &[Action]) {
        for &action in actions {
            app.act(action);
            settle(app);
        }
    }

    /// Let computers answer and hints come, until nothing more comes by
    /// itself.
    fn settle(app: &mut App) {
        thread_local! {
            static HINTER: std::cell::RefCell<Inline> = std::cell::RefCell::default();
        }
        loop {
            while app.computer_to_move() {
                app.play_computer();
            }
            let Some(job) = app.hint_job() else { break };
            let answer = HINTER.with_borrow_mut(|hinter| {
                hinter.ask(job, app.game().clone());
                hinter.answer().unwrap()
            });
            app.hints_came(answer);
        }
    }

    #[test]
    fn the_cursor_starts_in_the_centre_and_stays_on_the_board() {
        let mut app = people();
        assert_eq!(app.cursor(), Cell::new(1, 1));
        act(&mut app, &[Action::Step(Direction::Up); 5]);
        act(&mut app, &[Action::Step(Direction::Left); 5]);
        assert_eq!(app.cursor(), Cell::new(0, 0));
        act(&mut app, &[Action::Step(Direction::Down); 5]);
        act(&mut app, &[Action::Step(Direction::Right); 5]);
        assert_eq!(app.cursor(), Cell::new(2, 2));
    }

    #[test]
    fn a_taken_cell_is_refused_with_the_reason_and_the_turn_stays() {
        let mut app = people();
        act(&mut app, &[Action::Play, Action::Play]);
        assert_eq!(
            app.notice(),
            Some(&Notice::Refused("row 2, column 2 is taken by X".into()))
        );
        assert_eq!(app.game().to_move(), Player::O);
        assert_eq!(app.moves().len(), 1);
    }

    #[test]
    fn a_round_is_scored_and_the_next_starts_with_the_other_player() {
        let mut app = people();
        for cell in [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)] {
            act(&mut app, &[Action::PlayAt(Cell::new(cell.0, cell.1))]);
        }
        assert_eq!(app.score().wins(Player::X), 1);
        act(&mut app, &[Action::Play]);
        assert!(matches!(app.notice(), Some(Notice::Refused(_))));
        act(&mut app, &[Action::NewRound]);
        assert_eq!((app.round(), app.game().to_move()), (2, Player::O));
        assert!(app.moves().is_empty());
    }

    #[test]
    fn taking_back_against_the_computer_undoes_the_reply_too() {
        let mut app = against(oxo_ai::StrategyKind::Perfect);
        act(&mut app, &[Action::PlayAt(Cell::new(0, 0))]);
        assert_eq!(app.moves().len(), 2);
        act(&mut app, &[Action::TakeBack]);
        assert!(app.moves().is_empty());
        assert_eq!(app.game().to_move(), Player::X);
        assert_eq!(app.game().move_count(), 0);
        act(&mut app, &[Action::TakeBack]);
        assert_eq!(
            app.notice(),
            Some(&Notice::Refused("no move of yours to take back".into()))
        );
    }

    #[test]
    fn taking_back_between_people_undoes_one_move() {
        let mut app = people();
        act(&mut app, &[Action::Play, Action::PlayAt(Cell::new(0, 0))]);
        act(&mut app, &[Action::TakeBack]);
        assert_eq!(app.moves(), &[Cell::new(1, 1)]);
        assert_eq!(app.game().to_move(), Player::O);
        act(&mut app, &[Action::TakeBack, Action::TakeBack]);
        assert!(app.moves().is_empty());
        assert_eq!(
            app.notice(),
            Some(&Notice::Refused("no move to take back".into()))
        );
    }

    #[test]
    fn hints_against_the_computer_but_not_between_people() {
        let mut app = against(oxo_ai::StrategyKind::Random);
        act(&mut app, &[Action::ToggleHints]);
        let hints = app.hints().expect("hints against the computer");
        assert_eq!(hints.len(), 9);
        // The empty 3×3 board is a draw whatever the first move.
        assert!(hints.iter().all(|(_, e)| e.value == oxo_ai::Value::Draw));
        act(&mut app, &[Action::Play]);
        assert_eq!(app.hints().map(<[_]>::len), Some(7));

        let mut app = people();
        act(&mut app, &[Action::ToggleHints]);
        assert!(app.hints().is_none());
        assert!(
            matches!(app.notice(), Some(Notice::Refused(r)) if r.contains("against the computer"))
        );
        for cell in [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)] {
            act(&mut app, &[Action::PlayAt(Cell::new(cell.0, cell.1))]);
        }
        // The round is over, but this game cannot look back through it:
        // still refused, with a reason that says only what is true here.
        act(&mut app, &[Action::ToggleHints, Action::ToggleHints]);
        assert!(app.hints().is_none());
        assert_eq!(app.notice(), Some(&Notice::Refused(BETWEEN_PEOPLE.into())));
        assert!(!BETWEEN_PEOPLE.contains("finished"));
    }

    #[test]
    fn a_refusal_for_good_leaves_hints_off_and_one_that_passes_leaves_them_on() {
        // Two people: refused for the whole session, so off; the next `v`
        // is refused again rather than silently switching them off.
        let mut app = people();
        act(&mut app, &[Action::ToggleHints]);
        assert!(!app.hints_on());
        act(&mut app, &[Action::ToggleHints]);
        assert!(!app.hints_on());
        assert_eq!(app.notice(), Some(&Notice::Refused(BETWEEN_PEOPLE.into())));

        // Two people on a board whose values come later: still two people.
        let rules = Rules::new(6, 6, 4).unwrap();
        let mut app = App::new(rules, [Seat::Human, Seat::Human], Player::X);
        assert!(!app.hints_possible());
        act(&mut app, &[Action::ToggleHints]);
        assert!(!app.hints_on());
        assert_eq!(app.notice(), Some(&Notice::Refused(BETWEEN_PEOPLE.into())));

        // 15×15: no search values it at once, now or later.
        let rules = Rules::new(15, 15, 5).unwrap();
        let computer = Seat::Computer(oxo_ai::StrategyKind::Random.build(rules, 7).unwrap());
        let mut app = App::new(rules, [Seat::Human, computer], Player::X);
        act(&mut app, &[Action::ToggleHints]);
        assert!(!app.hints_on());
        assert!(matches!(app.notice(), Some(Notice::Refused(_))));

        // 6×6 k=4: values come once at most 16 cells are empty; hints stay
        // on, the notice says when, and they come by themselves. Twenty
        // moves with no four in a row, X's by the person, O's by the
        // computer.
        let rules = Rules::new(6, 6, 4).unwrap();
        let order = [
            0, 1, 2, 3, 6, 7, 8, 9, 14, 15, 12, 13, 16, 17, 19, 18, 21, 20, 22, 23,
        ]
        .map(|i| Cell::new(i / 6, i % 6));
        let replies = order.iter().copied().skip(1).step_by(2).collect();
        let mut app = App::new(
            rules,
            [Seat::Human, Seat::Computer(Box::new(Scripted(replies)))],
            Player::X,
        );
        act(&mut app, &[Action::ToggleHints]);
        assert!(app.hints_on());
        assert!(app.hints().is_none());
        assert_eq!(
            app.notice(),
            Some(&Notice::Info(
                "hints on: on this board they come once at most 16 cells are empty".into()
            ))
        );
        for &cell in order.iter().step_by(2) {
            act(&mut app, &[Action::PlayAt(cell)]);
            if app.game().move_count() < 20 {
                assert!(app.hints().is_none());
            }
        }
        assert_eq!(app.game().move_count(), 20);
        assert!(!app.game().is_over());
        assert_eq!(app.hints().map(<[_]>::len), Some(16));

        act(&mut app, &[Action::ToggleHints]);
        assert!(!app.hints_on());
        assert!(app.hints().is_none());
        assert_eq!(app.notice(), Some(&Notice::Info("hints off".into())));
    }

    #[test]
    fn hints_turned_on_after_a_round_come_with_the_next() {
        let mut app = against(oxo_ai::StrategyKind::Perfect);
        assert!(app.hints_possible());
        act(&mut app, &[Action::ToggleHints]);
        assert!(app.hints().is_some());
        // X gives the round away: corner, then two edges.
        for cell in [
            (0, 0),
            (0, 1),
            (1, 0),
            (2, 1),
            (1, 2),
            (2, 0),
            (0, 2),
            (2, 2),
        ] {
            if !app.game().is_over() && app.game().get(Cell::new(cell.0, cell.1)).is_none() {
                act(&mut app, &[Action::PlayAt(Cell::new(cell.0, cell.1))]);
            }
        }
        assert!(app.game().is_over());
        // Nothing left to value on a finished board.
        assert!(app.hints().is_none());
        act(&mut app, &[Action::ToggleHints, Action::ToggleHints]);
        assert!(app.hints_on());
        assert_eq!(
            app.notice(),
            Some(&Notice::Info(
                "hints on: they come with the next round (n)".into()
            ))
        );
        assert!(app.hints().is_none());
        act(&mut app, &[Action::NewRound]);
        assert!(app.hints().is_some());

        // On a board whose hints come later, the next round does not bring
        // them at once: the notice says when they come.
        let rules = Rules::new(6, 6, 4).unwrap();
        let o = Scripted(vec![Cell::new(5, 0), Cell::new(5, 1), Cell::new(5, 2)]);
        let mut app = App::new(rules, [Seat::Human, Seat::Computer(Box::new(o))], Player::X);
        for col in 0..4 {
            act(&mut app, &[Action::PlayAt(Cell::new(0, col))]);
        }
        assert!(app.game().is_over());
        act(&mut app, &[Action::ToggleHints]);
        assert!(app.hints_on());
        assert_eq!(
            app.notice(),
            Some(&Notice::Info(
                "hints on: on this board they come once at most 16 cells are empty".into()
            ))
        );
    }

    #[test]
    fn big_steps_stop_at_the_edge_and_dot_finds_the_last_move() {
        let rules = Rules::new(30, 30, 5).unwrap();
        let mut app = App::new(rules, [Seat::Human, Seat::Human], Player::X);
        assert_eq!(app.cursor(), Cell::new(15, 15));
        act(&mut app, &[Action::Stride(Direction::Down, 10)]);
        assert_eq!(app.cursor(), Cell::new(25, 15));
        act(&mut app, &[Action::Stride(Direction::Down, 10)]);
        assert_eq!(app.cursor(), Cell::new(29, 15));
        act(&mut app, &[Action::Stride(Direction::Left, 0)]);
        assert_eq!(
            app.cursor(),
            Cell::new(29, 14),
            "a stride is at least one cell"
        );
        act(&mut app, &[Action::Edge(Direction::Right)]);
        assert_eq!(app.cursor(), Cell::new(29, 29));
        act(&mut app, &[Action::Edge(Direction::Left)]);
        assert_eq!(app.cursor(), Cell::new(29, 0));
        act(&mut app, &[Action::Edge(Direction::Up)]);
        assert_eq!(app.cursor(), Cell::new(0, 0));

        act(&mut app, &[Action::LastMove]);
        assert_eq!(app.cursor(), Cell::new(0, 0));
        assert_eq!(
            app.notice(),
            Some(&Notice::Refused("no move yet this round".into()))
        );
        act(&mut app, &[Action::PlayAt(Cell::new(3, 4)), Action::Play]);
        assert_eq!(app.moves(), [Cell::new(3, 4)]);
        act(&mut app, &[Action::Edge(Direction::Down), Action::LastMove]);
        assert_eq!(app.cursor(), Cell::new(3, 4));
    }

    #[test]
    fn m_turns_the_mouse_off_and_on_and_says_so() {
        let mut app = people();
        assert!(app.mouse_on());
        act(&mut app, &[Action::ToggleMouse]);
        assert!(!app.mouse_on());
        assert!(matches!(app.notice(), Some(Notice::Info(n)) if n.starts_with("mouse off")));
        act(&mut app, &[Action::ToggleMouse]);
        assert!(app.mouse_on());
    }

    #[test]
    fn the_new_round_notice_stays_over_the_computers_opening_move() {
        let mut app = against(oxo_ai::StrategyKind::Perfect);
        act(&mut app, &[Action::Play, Action::NewRound]);
        // O starts round 2 and has moved at once.
        assert_eq!(app.moves().len(), 1);
        assert_eq!(
            app.notice(),
            Some(&Notice::Info(
                "round 1 abandoned, not scored; O starts round 2".into()
            ))
        );
        // Until the person acts.
        let free = (0..9)
            .map(|i| Cell::new(i / 3, i % 3))
            .find(|&c| app.game().get(c).is_none())
            .unwrap();
        act(&mut app, &[Action::PlayAt(free)]);
        assert_eq!(app.moves().len(), 3);
        assert_eq!(app.notice(), None);
    }

    /// A computer that plays the cells it is given, in turn.
    pub(in crate::tui) struct Scripted(pub(in crate::tui) Vec<Cell>);

    impl Strategy for Scripted {
        fn choose(&mut self, game: &Game) -> Option<Cell> {
            (!game.is_over() && !self.0.is_empty()).then(|| self.0.remove(0))
        }

        fn name(&self) -> &str {
            "scripted"
        }
    }

    /// Where the hints' budget runs out (a 7×7 k=5 position after four
    /// moves, beyond the opening table, where 42 of X's 45 moves are
    /// valued within it), the moves it reached have their values and the
    /// notice says how many of all.
    #[test]
    fn hints_give_the_moves_valued_in_time_and_say_so() {
        let mut app = short_of_the_hints_budget();
        assert_eq!(app.game().move_count(), 4);
        let hints = app.hints().expect("hints against the computer");
        assert!(!hints.is_empty() && hints.len() < 45, "{}", hints.len());
        let said = format!("hints: exact values for {} of the 45 moves", hints.len());
        assert!(
            matches!(app.notice(), Some(Notice::Info(n)) if n.starts_with(&said) && n.ends_with("; f looks further")),
            "{:?}",
            app.notice()
        );
        assert!(app.further_helps());
        // The longer look values the rest.
        app.act(Action::LookFurther);
        assert!(app.looking_further());
        assert_eq!(
            app.hint_job(),
            Some(Job {
                position: app.position,
                longer: true
            })
        );
        settle(&mut app);
        assert!(!app.looking_further() && !app.further_helps());
        assert_eq!(app.hints().unwrap().len(), 45);
        assert_eq!(
            app.notice(),
            Some(&Notice::Info(
                "looked further: every move has its exact value now".into()
            ))
        );
        act(&mut app, &[Action::LookFurther]);
        assert_eq!(
            app.notice(),
            Some(&Notice::Refused(
                "every move here already has its exact value".into()
            ))
        );
    }

    /// Hints on, against the computer, at a 7×7 k=5 position after four
    /// moves whose hints leave moves without a value (a longer look values
    /// them all); the computer's next move is in the top-left corner.
    pub(in crate::tui) fn short_of_the_hints_budget() -> App {
        let rules = Rules::new(7, 7, 5).unwrap();
        let computer = Scripted(vec![Cell::new(0, 3), Cell::new(6, 6), Cell::new(0, 0)]);
        let mut app = App::new(
            rules,
            [Seat::Human, Seat::Computer(Box::new(computer))],
            Player::X,
        );
        act(
            &mut app,
            &[
                Action::ToggleHints,
                Action::PlayAt(Cell::new(1, 2)),
                Action::PlayAt(Cell::new(4, 3)),
            ],
        );
        app
    }

    /// A longer look that finds no more values says so and takes the offer
    /// away; `f` then says why it does nothing.
    #[test]
    fn a_look_that_finds_no_more_takes_the_offer_away() {
        let mut app = short_of_the_hints_budget();
        let found = app.hints().unwrap().to_vec();
        app.act(Action::LookFurther);
        let job = app.hint_job().unwrap();
        assert!(job.longer);
        let unvalued = app
            .game()
            .legal_moves()
            .filter(|cell| found.iter().all(|(c, _)| c != cell))
            .collect();
        app.hints_came(Answer {
            job,
            values: Ok(oxo_ai::exact::SomeValues {
                moves: found.clone(),
                unvalued,
                nodes: 0,
            }),
        });
        assert_eq!(app.hints(), Some(found.as_slice()));
        assert!(!app.further_helps() && !app.looking_further());
        let said = "looking further found no more values here; oxo solve values every move without a limit";
        assert_eq!(app.notice(), Some(&Notice::Info(said.into())));
        act(&mut app, &[Action::LookFurther]);
        assert_eq!(app.notice(), Some(&Notice::Refused(said.into())));
    }

    /// A longer look found for a position the game has left, or once hints
    /// were turned off (and on again), is dropped.
    #[test]
    fn a_look_for_a_position_left_behind_is_dropped() {
        let mut app = short_of_the_hints_budget();
        let mut hinter = Inline::default();
        app.act(Action::LookFurther);
        let look = app.hint_job().unwrap();
        hinter.ask(look, app.game().clone());
        let late = hinter.answer().unwrap();
        // Turned off and on again: the look was not asked again.
        act(&mut app, &[Action::ToggleHints, Action::ToggleHints]);
        assert!(!app.looking_further() && app.further_helps());
        let valued = app.hints().unwrap().len();
        app.hints_came(late);
        assert_eq!(
            app.hints().unwrap().len(),
            valued,
            "a look no longer wanted"
        );
        // A look for a position the game has left.
        app.act(Action::LookFurther);
        let look = app.hint_job().unwrap();
        hinter.ask(look, app.game().clone());
        let late = hinter.answer().unwrap();
        act(&mut app, &[Action::PlayAt(Cell::new(2, 2))]);
        let now = app.hints().map(<[_]>::len);
        app.hints_came(late);
        assert_eq!(app.hints().map(<[_]>::len), now);
        assert!(!app.looking_further());
    }

    #[test]
    fn help_swallows_the_next_key_but_not_quit() {
        let mut app = people();
        act(&mut app, &[Action::ToggleHelp, Action::Play]);
        assert!(!app.help_shown());
        assert!(app.moves().is_empty());
        act(&mut app, &[Action::ToggleHelp, Action::Quit]);
        assert!(app.quitting());
    }
}
