//! `oxo arena`'s match results: a table for people, one JSON object for
//! programs; and the record of each game, one JSON object a line.

use std::time::Duration;

use oxo_ai::arena::{Config, Ending, Forfeit, Opening, Played, Results};
use oxo_ai::grade::{GameGrader, GradeSummary};
use oxo_core::{BoardSize, Cell, Player};
use serde::Serialize;

use crate::signals::Signal;
use crate::solve::to_json;

/// The engines' match clock (`--match-time`), as the report says it: the
/// time for each engine's moves of a game, and the time a move, if given
/// too. Without it the report says no time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineClock {
    /// The time for all of an engine's moves in a game.
    pub match_time: Duration,
    /// The time for each move (`--move-time`), when given with it.
    pub move_time: Option<Duration>,
}

impl EngineClock {
    /// The clause of a report's first line that says the clock, from its
    /// comma: `, engines 5000 ms a game` (and ` and 500 ms a move`).
    #[must_use]
    pub fn clause(clock: Option<EngineClock>) -> String {
        let Some(clock) = clock else {
            return String::new();
        };
        let a_move = clock
            .move_time
            .map(|time| format!(" and {} ms a move", time.as_millis()))
            .unwrap_or_default();
        format!(
            ", engines {} ms a game{a_move}",
            clock.match_time.as_millis()
        )
    }

    /// `"match_time_ms"` in JSON, when there is a clock.
    #[must_use]
    pub fn match_ms(clock: Option<EngineClock>) -> Option<u64> {
        clock.map(|clock| millis(clock.match_time))
    }

    /// `"move_time_ms"` in JSON, when there is a clock: a move's time, or
    /// without one the match time, which a move may then take.
    #[must_use]
    pub fn move_ms(clock: Option<EngineClock>) -> Option<u64> {
        clock.map(|clock| millis(clock.move_time.unwrap_or(clock.match_time)))
    }
}

fn millis(time: Duration) -> u64 {
    u64::try_from(time.as_millis()).unwrap_or(u64::MAX)
}

/// The readable results table, the engines' `clock` said on its first
/// line; with `stopped`, of a run that signal stopped before it was over.
#[must_use]
pub fn table(
    config: &Config,
    results: &Results,
    clock: Option<EngineClock>,
    elapsed: Duration,
    stopped: Option<Signal>,
) -> String {
    let pct = |n: u64| {
        if results.games == 0 {
            0.0
        } else {
            100.0 * n as f64 / results.games as f64
        }
    };
    let x_name = format!("X {}", config.x);
    let o_name = format!("O {}", config.o);
    let mut out = String::new();
    out.push_str(&format!(
        "{} of {} (seed {}), {} moving first{}{}{}\n",
        super::count(results.games, "game"),
        config.rules,
        config.seed,
        match config.first {
            Some(p) => format!("{p} always"),
            None => "X and O taking turns".to_owned(),
        },
        opening_clause(&config.opening),
        EngineClock::clause(clock),
        if config.threads > 1 {
            format!(", {} threads", config.threads)
        } else {
            String::new()
        }
    ));
    if let Some(signal) = stopped {
        out.push_str(&stopped_line(signal, results.games, config.games));
    }
    // Names as wide as the longest (an engine's path can be long).
    let w = x_name.chars().count().max(o_name.chars().count()).max(14);
    out.push_str(&format!(
        "  {:<w$} {:>8} {:>7}   {:>12}\n",
        "", "wins", "%", "per move"
    ));
    for (name, side) in [(x_name, &results.x), (o_name, &results.o)] {
        out.push_str(&format!(
            "  {:<w$} {:>8} {:>6.1}%   {:>12}\n",
            name,
            side.wins,
            pct(side.wins),
            per_move(side.micros_per_move())
        ));
    }
    out.push_str(&format!(
        "  {:<w$} {:>8} {:>6.1}%\n",
        "draws",
        results.draws,
        pct(results.draws)
    ));
    // A game lost before any move (an engine that could not start, say)
    // has no first mover: such games are counted apart.
    let summary = if results.unplayed == 0 {
        format!(
            "average game {:.2} plies; the first mover won {}",
            results.average_plies(),
            super::count(results.first_mover_wins, "game")
        )
    } else if results.unplayed < results.games {
        format!(
            "average game {:.2} plies and the first mover won {} of the {} with a move; {} \
             lost before any move",
            results.average_plies(),
            results.first_mover_wins,
            super::count(results.games - results.unplayed, "game"),
            super::count(results.unplayed, "game")
        )
    } else {
        format!(
            "no move made: {} lost before any move",
            super::count(results.unplayed, "game")
        )
    };
    out.push_str(&format!(
        "  {summary}; {:.2} s in all\n",
        elapsed.as_secs_f64()
    ));
    out.push_str(&forfeits_text(&results.forfeits));
    out
}

/// The line that marks the results of a run `signal` stopped after
/// `played` of its `planned` games.
#[must_use]
pub fn stopped_line(signal: Signal, played: u64, planned: u64) -> String {
    format!(
        "  partial results: stopped by {} after {played} of {}; the games under way then are \
         not counted\n",
        signal.name(),
        super::count(planned, "game")
    )
}

/// The line said instead of the grades when `signal` stopped the run
/// before they were made.
#[must_use]
pub fn not_graded(signal: Signal) -> String {
    format!("  not graded: stopped by {}\n", signal.name())
}

/// The games lost for a move not given, one line each (the first 20).
#[must_use]
pub fn forfeits_text(forfeits: &[Forfeit]) -> String {
    const SHOWN: usize = 20;
    let mut out = String::new();
    if forfeits.is_empty() {
        return out;
    }
    out.push_str(&format!(
        "{} lost for a move not given:\n",
        super::count(forfeits.len() as u64, "game")
    ));
    for f in forfeits.iter().take(SHOWN) {
        out.push_str(&format!(
            "  game {}: {} ({}) lost: {}\n",
            f.game, f.player, f.side, f.reason
        ));
    }
    if forfeits.len() > SHOWN {
        out.push_str(&format!("  and {} more\n", forfeits.len() - SHOWN));
    }
    out
}

/// A forfeit as JSON shows it.
#[derive(Serialize)]
pub(super) struct ForfeitJson<'a> {
    game: u64,
    player: &'a str,
    side: char,
    reason: &'a str,
}

impl<'a> From<&'a Forfeit> for ForfeitJson<'a> {
    fn from(f: &'a Forfeit) -> Self {
        ForfeitJson {
            game: f.game,
            player: &f.player,
            side: f.side.as_char(),
            reason: &f.reason,
        }
    }
}

/// What the games start from, as the report's first line says it (nothing
/// for the empty board).
pub(crate) fn opening_clause(opening: &Opening) -> String {
    match opening {
        Opening::Random(0) => String::new(),
        Opening::Random(n) => format!(", from {n}-move openings"),
        Opening::Given(book) => format!(
            ", from a book of {}",
            super::count(book.len() as u64, "opening")
        ),
    }
}

/// What the games start from as `--json` says it: the random moves of
/// `--opening` (`"opening"`, left out at 0), or the number of openings of
/// a book (`"openings"`).
pub(crate) fn opening_json(opening: &Opening) -> (u32, Option<usize>) {
    match opening {
        Opening::Random(n) => (*n, None),
        Opening::Given(book) => (0, Some(book.len())),
    }
}

/// One game of `--records`, a JSON object on one line (without the line's
/// end): `{"game", "rows", "cols", "k", "exact", "x", "o", "first", "opening",
/// "moves", "times_ms", "result", "end", "reason"}`, as docs/manual/arena.md
/// describes them.
#[must_use]
pub fn record(game: &Played) -> String {
    #[derive(Serialize)]
    struct Record<'a> {
        game: u64,
        rows: u32,
        cols: u32,
        k: u32,
        exact: bool,
        x: &'a str,
        o: &'a str,
        first: char,
        opening: &'a [Cell],
        moves: &'a [Cell],
        times_ms: Vec<u128>,
        result: &'static str,
        end: &'static str,
        reason: Option<&'a str>,
    }
    let rules = game.start.rules();
    let (end, reason) = match &game.ending {
        Ending::Line => ("line", None),
        Ending::Full => ("full", None),
        Ending::Forfeit { reason, .. } => ("forfeit", Some(reason.as_str())),
    };
    to_json(&Record {
        game: game.index,
        rows: rules.rows(),
        cols: rules.cols(),
        k: rules.k(),
        exact: rules.is_exact(),
        x: &game.x,
        o: &game.o,
        first: game.first.as_char(),
        opening: &game.opening,
        moves: &game.moves,
        times_ms: game.times.iter().map(Duration::as_millis).collect(),
        result: match game.winner {
            Some(Player::X) => "X",
            Some(Player::O) => "O",
            None => "draw",
        },
        end,
        reason,
    })
}

/// Rounded to `places` decimals, for JSON that reads well.
pub(super) fn round(value: f64, places: i32) -> f64 {
    let scale = 10f64.powi(places);
    (value * scale).round() / scale
}

/// The solver's grades of both players' moves (`oxo arena --grade`), to
/// follow the table.
#[must_use]
pub fn grades(config: &Config, grades: &GradeSummary) -> String {
    let x_name = format!("X {}", config.x);
    let o_name = format!("O {}", config.o);
    let w = x_name.chars().count().max(o_name.chars().count()).max(14);
    let mut out = format!(
        "  graded by the solver: {} of {} drawn games had no won position for either side; not graded: {} positions with fewer than {} marks, {} over {} nodes\n",
        grades.clean_draws,
        grades.draws,
        grades.early,
        GameGrader::FROM_MARKS,
        grades.over_budget,
        GameGrader::BUDGET
    );
    for (i, name) in [x_name, o_name].into_iter().enumerate() {
        out.push_str(&format!(
            "  {name:<w$} let a won position go {} (in {} it did not win), turned a draw into a loss {}\n",
            super::count(grades.wins_let_go[i], "time"),
            super::count(grades.won_games_not_won[i], "game"),
            super::count(grades.draws_lost[i], "time")
        ));
    }
    out
}

/// A side's grades as JSON shows them.
#[derive(Serialize)]
struct SideGradesJson {
    wins_let_go: u64,
    won_games_not_won: u64,
    draws_lost: u64,
}

/// The grades as JSON shows them.
#[derive(Serialize)]
struct GradesJson {
    draws: u64,
    clean_draws: u64,
    early: u64,
    over_budget: u64,
    x: SideGradesJson,
    o: SideGradesJson,
}

impl From<&GradeSummary> for GradesJson {
    fn from(g: &GradeSummary) -> Self {
        let side = |i: usize| SideGradesJson {
            wins_let_go: g.wins_let_go[i],
            won_games_not_won: g.won_games_not_won[i],
            draws_lost: g.draws_lost[i],
        };
        GradesJson {
            draws: g.draws,
            clean_draws: g.clean_draws,
            early: g.early,
            over_budget: g.over_budget,
            x: side(0),
            o: side(1),
        }
    }
}

/// The results as one JSON object, with the solver's grades when there
/// are any and the engines' `clock` when they have one; with `stopped`, of
/// a run that signal stopped before it was over.
#[must_use]
pub fn json(
    config: &Config,
    results: &Results,
    grades: Option<&GradeSummary>,
    clock: Option<EngineClock>,
    elapsed: Duration,
    stopped: Option<Signal>,
) -> String {
    #[derive(Serialize)]
    struct Json<'a> {
        x: &'a str,
        o: &'a str,
        size: BoardSize,
        k: u32,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        exact: bool,
        seed: u64,
        games: u64,
        x_wins: u64,
        o_wins: u64,
        draws: u64,
        x_first: u64,
        average_plies: f64,
        x_us_per_move: f64,
        o_us_per_move: f64,
        seconds: f64,
        forfeits: Vec<ForfeitJson<'a>>,
        #[serde(skip_serializing_if = "is_zero")]
        opening: u32,
        #[serde(skip_serializing_if = "Option::is_none")]
        openings: Option<usize>,
        #[serde(skip_serializing_if = "Option::is_none")]
        match_time_ms: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        move_time_ms: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        grades: Option<GradesJson>,
        #[serde(flatten)]
        stopped: Option<StoppedJson>,
    }
    to_json(&Json {
        x: config.x.name(),
        o: config.o.name(),
        size: config.rules.size(),
        k: config.rules.k(),
        exact: config.rules.is_exact(),
        seed: config.seed,
        games: results.games,
        x_wins: results.x.wins,
        o_wins: results.o.wins,
        draws: results.draws,
        x_first: results.x_first,
        average_plies: round(results.average_plies(), 3),
        x_us_per_move: round(results.x.micros_per_move(), 2),
        o_us_per_move: round(results.o.micros_per_move(), 2),
        seconds: round(elapsed.as_secs_f64(), 3),
        forfeits: results.forfeits.iter().map(ForfeitJson::from).collect(),
        opening: opening_json(&config.opening).0,
        openings: opening_json(&config.opening).1,
        match_time_ms: EngineClock::match_ms(clock),
        move_time_ms: EngineClock::move_ms(clock),
        grades: grades.map(GradesJson::from),
        stopped: stopped.map(|signal| StoppedJson::new(signal, config.games)),
    })
}

/// What JSON adds for a run stopped by a signal: which, and the games
/// there were to play ("games" being those played).
#[derive(Serialize)]
pub(super) struct StoppedJson {
    stopped: &'static str,
    games_planned: u64,
}

impl StoppedJson {
    pub(super) const fn new(signal: Signal, games_planned: u64) -> StoppedJson {
        StoppedJson {
            stopped: signal.name(),
            games_planned,
        }
    }
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
pub(crate) const fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A time a move, `micros` microseconds, in the unit that reads best:
/// µs under a millisecond, ms under a second, else s.
fn per_move(micros: f64) -> String {
    // Compared as rounded, so that 999.96 µs reads 1.0 ms, not 1000.0 µs.
    if micros < 999.95 {
        format!("{micros:.1} µs")
    } else if micros < 999_950.0 {
        format!("{:.1} ms", micros / 1_000.0)
    } else {
        format!("{:.2} s", micros / 1_000_000.0)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use oxo_ai::arena::{self, Entrant};
    use oxo_ai::{Strategy, StrategyKind};
    use oxo_core::Rules;

    fn config(x: StrategyKind, o: StrategyKind, games: u64) -> Config {
        Config {
            rules: Rules::TIC_TAC_TOE,
            x: Entrant::strategy(x),
            o: Entrant::strategy(o),
            games,
            first: None,
            seed: 42,
            threads: 2,
            opening: Opening::Random(0),
        }
    }

    #[test]
    fn the_table_names_the_openings() {
        let mut config = config(StrategyKind::Rules, StrategyKind::Rules, 20);
        config.rules = Rules::new(9, 9, 5).unwrap();
        config.opening = Opening::Random(4);
        let results = arena::run(&config, &AtomicBool::new(false), |_| {}).unwrap();
        let text = table(&config, &results, None, Duration::ZERO, None);
        assert!(text.contains("from 4-move openings"), "{text}");
    }

    #[test]
    fn grades_follow_the_table_and_join_the_json() {
        let c = config(StrategyKind::Rules, StrategyKind::Random, 10);
        let mut played = Vec::new();
        let results =
            arena::run_recorded(&c, &AtomicBool::new(false), |_| {}, |p| played.push(p)).unwrap();
        let mut grader = GameGrader::new(c.rules).unwrap();
        let mut summary = GradeSummary::default();
        for p in &played {
            summary.add(&grader.grade(&p.start, &p.moves).unwrap(), p.winner);
        }
        assert_eq!(summary.games, 10);
        assert_eq!(summary.draws, results.draws);
        // From the drawn empty board, every X win needs a losing O move.
        if results.x.wins > 0 {
            assert!(summary.draws_lost[1] > 0, "{summary:?}");
        }
        let text = grades(&c, &summary);
        assert!(text.starts_with("  graded by the solver: "), "{text}");
        assert!(
            text.contains("\n  X rules        let a won position go "),
            "{text}"
        );
        let with = json(&c, &results, Some(&summary), None, Duration::ZERO, None);
        assert!(with.contains(",\"grades\":{\"draws\":"), "{with}");
        assert!(!json(&c, &results, None, None, Duration::ZERO, None).contains("grades"));
    }

    /// The record's fields, named once: what docs/manual/arena.md shows.
    #[test]
    fn a_record_is_one_line_of_every_field() {
        let rules = Rules::new(3, 3, 3).unwrap();
        let mut start = oxo_core::Game::starting_with(rules, Player::O);
        start.play(oxo_core::Cell::new(1, 1)).unwrap();
        let mut game = arena::Played {
            index: 7,
            x: "rules".to_owned(),
            o: "brain:./pbrain-x".to_owned(),
            first: Player::O,
            opening: vec![oxo_core::Cell::new(1, 1)],
            start,
            moves: vec![oxo_core::Cell::new(0, 0), oxo_core::Cell::new(0, 2)],
            times: vec![Duration::from_micros(2_999), Duration::from_secs(12)],
            winner: Some(Player::X),
            ending: Ending::Forfeit {
                side: Player::O,
                reason: "answered \"a\", which is no move".to_owned(),
            },
        };
        assert_eq!(
            record(&game),
            r#"{"game":7,"rows":3,"cols":3,"k":3,"exact":false,"x":"rules","o":"brain:./pbrain-x","first":"O","opening":[[1,1]],"moves":[[0,0],[0,2]],"times_ms":[2,12000],"result":"X","end":"forfeit","reason":"answered \"a\", which is no move"}"#
        );
        game.winner = None;
        game.ending = Ending::Full;
        assert!(
            record(&game).ends_with(r#""result":"draw","end":"full","reason":null}"#),
            "{}",
            record(&game)
        );
    }

    /// An engine that gives no move: one that exits when asked its first.
    struct Mute;

    impl Strategy for Mute {
        fn choose(&mut self, _game: &oxo_core::Game) -> Option<oxo_core::Cell> {
            None
        }
        fn name(&self) -> &str {
            "mute"
        }
    }

    #[test]
    fn games_lost_before_any_move_are_no_first_mover_wins() {
        let mut c = config(StrategyKind::Rules, StrategyKind::Random, 2);
        c.o = Entrant::external("absent", |_, _| Err("cannot start".to_owned()));
        let results = arena::run(&c, &AtomicBool::new(false), |_| {}).unwrap();
        let text = table(&c, &results, None, Duration::ZERO, None);
        assert!(
            text.contains("  no move made: 2 games lost before any move; 0.00 s in all\n"),
            "{text}"
        );
        // An engine that gives no move when it is first: the games it
        // moves second in have a move.
        let mut c = config(StrategyKind::Rules, StrategyKind::Random, 4);
        c.o = Entrant::external("mute", |_, _| Ok(Box::new(Mute) as Box<dyn Strategy>));
        let results = arena::run(&c, &AtomicBool::new(false), |_| {}).unwrap();
        let text = table(&c, &results, None, Duration::ZERO, None);
        assert!(
            text.contains(
                "  average game 1.00 plies and the first mover won 2 of the 2 games with a move; \
                 2 games lost before any move; 0.00 s in all\n"
            ),
            "{text}"
        );
        let c = config(StrategyKind::Rules, StrategyKind::Random, 2);
        let played = table(
            &c,
            &arena::run(&c, &AtomicBool::new(false), |_| {}).unwrap(),
            None,
            Duration::ZERO,
            None,
        );
        assert!(!played.contains("before any move"), "{played}");
    }

    #[test]
    fn outputs_name_both_sides() {
        let c = config(StrategyKind::Rules, StrategyKind::Random, 20);
        let results = arena::run(&c, &AtomicBool::new(false), |_| {}).unwrap();
        let json = json(&c, &results, None, None, Duration::from_millis(5), None);
        assert!(json.starts_with("{\"x\":\"rules\",\"o\":\"random\",\"size\":\"3x3\",\"k\":3,\"seed\":42,\"games\":20,"), "{json}");
        let text = table(&c, &results, None, Duration::from_millis(5), None);
        assert!(text.contains("X rules"), "{text}");
        assert!(text.contains("O random"), "{text}");
    }

    /// The engines' match clock is said on the first line and in JSON
    /// when there is one, and nothing is added when there is none.
    #[test]
    fn the_match_clock_is_said_when_there_is_one() {
        let c = config(StrategyKind::Rules, StrategyKind::Random, 2);
        let results = arena::run(&c, &AtomicBool::new(false), |_| {}).unwrap();
        let clock = |move_ms: Option<u64>| {
            Some(EngineClock {
                match_time: Duration::from_millis(5000),
                move_time: move_ms.map(Duration::from_millis),
            })
        };
        let first = |clock| {
            table(&c, &results, clock, Duration::ZERO, None)
                .lines()
                .next()
                .unwrap()
                .to_owned()
        };
        assert_eq!(
            first(clock(None)),
            "2 games of 3x3 k=3 (seed 42), X and O taking turns moving first, engines 5000 ms a game, \
             2 threads"
        );
        assert_eq!(
            first(clock(Some(500))),
            "2 games of 3x3 k=3 (seed 42), X and O taking turns moving first, engines 5000 ms a \
             game and 500 ms a move, 2 threads"
        );
        assert!(!first(None).contains("engines"));
        let timed = json(&c, &results, None, clock(Some(500)), Duration::ZERO, None);
        assert!(timed.contains(",\"match_time_ms\":5000"), "{timed}");
        let untimed = json(&c, &results, None, None, Duration::ZERO, None);
        assert!(!untimed.contains("match_time"), "{untimed}");
    }

    #[test]
    fn a_moves_time_reads_in_its_unit() {
        assert_eq!(per_move(0.1), "0.1 µs");
        assert_eq!(per_move(999.94), "999.9 µs");
        assert_eq!(per_move(999.96), "1.0 ms");
        assert_eq!(per_move(79_264.6), "79.3 ms");
        assert_eq!(per_move(999_960.0), "1.00 s");
        assert_eq!(per_move(1_500_000.0), "1.50 s");
    }
}
