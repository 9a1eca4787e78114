//! Moves per second: replaying fixed random games with the checked
//! `Game::play`, with `Game::play_unchecked`, and with a naive baseline that
//! scans the whole board for a win after every move.
//!
//! Run with `cargo bench -p oxo-core --bench moves`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use oxo_core::{Cell, Game, MoveError, Outcome, Player, Rules};

/// Seed for the game generator: the games are the same on every run.
const SEED: u64 = 0x0DDB_A11C_AFE5_7A7E;

/// Marsaglia's xorshift64: small, deterministic, good enough to shuffle.
#[derive(Debug)]
struct XorShift64(u64);

impl XorShift64 {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n` (the slight modulo bias does not matter here).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// `count` random games under `rules`, each played to its end (win or
/// draw), as move lists.
fn random_games(rules: Rules, count: usize, rng: &mut XorShift64) -> Vec<Vec<Cell>> {
    (0..count)
        .map(|_| {
            let mut order: Vec<Cell> = rules.cells().collect();
            // Fisher–Yates.
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i + 1));
            }
            let mut game = Game::new(rules);
            let mut moves = Vec::new();
            for cell in order {
                game.play_unchecked(cell);
                moves.push(cell);
                if game.is_over() {
                    break;
                }
            }
            moves
        })
        .collect()
}

/// The baseline: a plain board whose win check looks at every cell in all
/// four directions after each move, instead of only through the last move.
/// It refuses the same moves `Game::play` does.
#[derive(Debug)]
struct NaiveBoard {
    rows: usize,
    cols: usize,
    k: usize,
    marks: Vec<Option<Player>>,
    to_move: Player,
    filled: usize,
    outcome: Option<Outcome>,
}

impl NaiveBoard {
    fn new(rules: Rules) -> NaiveBoard {
        NaiveBoard {
            rows: rules.rows() as usize,
            cols: rules.cols() as usize,
            k: rules.k() as usize,
            marks: vec![None; rules.cell_count()],
            to_move: Player::X,
            filled: 0,
            outcome: None,
        }
    }

    fn at(&self, row: isize, col: isize) -> Option<Player> {
        if row < 0 || col < 0 || row as usize >= self.rows || col as usize >= self.cols {
            return None;
        }
        self.marks[row as usize * self.cols + col as usize]
    }

    fn has_run(&self, player: Player) -> bool {
        let k = self.k as isize;
        for row in 0..self.rows as isize {
            for col in 0..self.cols as isize {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    if (0..k).all(|i| self.at(row + i * dr, col + i * dc) == Some(player)) {
                        return true;
                    }
                }
            }
        }
        false
    }

    fn play(&mut self, cell: Cell) -> Result<Option<Outcome>, MoveError> {
        if self.outcome.is_some() {
            return Err(MoveError::GameOver);
        }
        let (row, col) = (cell.row as usize, cell.col as usize);
        if row >= self.rows || col >= self.cols {
            return Err(MoveError::OffBoard {
                row: cell.row.into(),
                col: cell.col.into(),
            });
        }
        let slot = row * self.cols + col;
        if let Some(by) = self.marks[slot] {
            return Err(MoveError::Occupied { cell, by });
        }
        let mover = self.to_move;
        self.marks[slot] = Some(mover);
        self.filled += 1;
        self.to_move = mover.other();
        if self.has_run(mover) {
            self.outcome = Some(Outcome::Win(mover));
        } else if self.filled == self.marks.len() {
            self.outcome = Some(Outcome::Draw);
        }
        Ok(self.outcome)
    }
}

/// Replays with the checked `Game::play`; returns a digest of the results
/// so that nothing can be optimised away.
fn replay_checked(rules: Rules, games: &[Vec<Cell>]) -> usize {
    let mut digest = 0;
    for moves in games {
        let mut game = Game::new(rules);
        for &cell in moves {
            let result = game.play(black_box(cell)).expect("a legal move");
            digest += usize::from(result.outcome().is_some());
        }
        digest += game.move_count();
    }
    digest
}

fn replay_unchecked(rules: Rules, games: &[Vec<Cell>]) -> usize {
    let mut digest = 0;
    for moves in games {
        let mut game = Game::new(rules);
        for &cell in moves {
            let result = game.play_unchecked(black_box(cell));
            digest += usize::from(result.outcome().is_some());
        }
        digest += game.move_count();
    }
    digest
}

fn replay_naive(rules: Rules, games: &[Vec<Cell>]) -> usize {
    let mut digest = 0;
    for moves in games {
        let mut board = NaiveBoard::new(rules);
        for &cell in moves {
            let outcome = board.play(black_box(cell)).expect("a legal move");
            digest += usize::from(outcome.is_some());
        }
        digest += board.filled;
    }
    digest
}

/// Check once, outside the timings, that the baseline and the game agree on
/// how every game ends.
fn check_baseline(rules: Rules, games: &[Vec<Cell>]) {
    for moves in games {
        let mut game = Game::new(rules);
        let mut board = NaiveBoard::new(rules);
        for &cell in moves {
            let fast = game.play(cell).expect("a legal move").outcome();
            let slow = board.play(cell).expect("a legal move");
            assert_eq!(fast, slow, "baseline disagrees at {cell} in {moves:?}");
        }
        assert!(game.is_over(), "a generated game did not end");
    }
}

fn bench_rules(c: &mut Criterion, name: &str, rules: Rules, game_count: usize) {
    let mut rng = XorShift64(SEED);
    let games = random_games(rules, game_count, &mut rng);
    check_baseline(rules, &games);
    let moves: usize = games.iter().map(Vec::len).sum();
    eprintln!(
        "moves/{name}: {} games, {moves} moves ({:.1} per game) per iteration",
        games.len(),
        moves as f64 / games.len() as f64
    );

    let mut group = c.benchmark_group(format!("moves/{name}"));
    group.throughput(Throughput::Elements(moves as u64));
    group.measurement_time(Duration::from_secs(4));
    group.bench_function("play", |b| {
        b.iter(|| replay_checked(rules, black_box(&games)));
    });
    group.bench_function("play_unchecked", |b| {
        b.iter(|| replay_unchecked(rules, black_box(&games)));
    });
    group.bench_function("naive_full_scan", |b| {
        b.iter(|| replay_naive(rules, black_box(&games)));
    });
    group.finish();
}

fn moves(c: &mut Criterion) {
    bench_rules(c, "3x3_k3", Rules::TIC_TAC_TOE, 1000);
    bench_rules(
        c,
        "15x15_k5",
        Rules::new(15, 15, 5).expect("valid rules"),
        100,
    );
}

criterion_group!(benches, moves);
criterion_main!(benches);
