//! `oxo stream` throughput: one million instructions, three workloads.
//!
//! For each workload this prints instructions per second for
//! - `oxo-lib`: `oxo_text::stream::run` over in-memory input into a sink;
//! - `baseline`: a plain translation of the seed's reference design (a
//!   string per token, every output line kept in a vector, and a win check
//!   that walks the whole row, column and diagonals through the move);
//! - `oxo-bin`: the real `oxo stream` binary reading a file, writing a pipe.
//!
//! The baseline's output is compared with oxo's, so the figures are only
//! printed for runs that agree. Run with `cargo bench -p oxo-cli --bench stream`.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use oxo_core::Rules;

const INSTRUCTIONS: usize = 1_000_000;

fn main() {
    let workloads = [
        (
            "3x3 k=3, one short game then 'Game already over'",
            3,
            3,
            0..3,
        ),
        (
            "1024x1024 k=5, random cells, some off the board",
            1024,
            5,
            -8..1032,
        ),
        (
            "1000x1000 k=50, random cells on the board",
            1000,
            50,
            0..1000,
        ),
        (
            "1024x1024 k=1024, nobody wins: every line formatted",
            1024,
            1024,
            0..1024,
        ),
    ];
    println!("oxo stream: {INSTRUCTIONS} instructions per run, best of 3\n");
    for (name, side, k, range) in workloads {
        let rules = Rules::new(side, side, k).expect("valid rules");
        let input = generate(INSTRUCTIONS, range);
        let mut expected = Vec::with_capacity(INSTRUCTIONS * 20);
        oxo_text::stream::run(rules, input.as_bytes(), &mut expected).expect("well-formed input");
        let baseline_out = baseline(side as i64, k as i64, &input).join("\n") + "\n";
        assert_eq!(
            baseline_out.as_bytes(),
            &expected[..],
            "baseline and oxo disagree on {name}"
        );
        summarise(&expected);

        let lib = best_of(3, || {
            oxo_text::stream::run(rules, input.as_bytes(), std::io::sink()).unwrap();
        });
        let base = best_of(3, || {
            std::hint::black_box(baseline(side as i64, k as i64, &input));
        });
        let bin = run_binary(side, k, &input, &expected);
        println!("  {name}");
        report("oxo-lib", lib);
        report("baseline", base);
        report("oxo-bin", bin);
        println!(
            "  oxo-lib is {:.1}x the baseline; the binary end to end is {:.1}x\n",
            base.as_secs_f64() / lib.as_secs_f64(),
            base.as_secs_f64() / bin.as_secs_f64()
        );
    }
}

fn report(label: &str, time: Duration) {
    println!(
        "    {label:<9} {:>8.1} ms  {:>12.0} instructions/s",
        time.as_secs_f64() * 1e3,
        INSTRUCTIONS as f64 / time.as_secs_f64()
    );
}

fn summarise(output: &[u8]) {
    let text = std::str::from_utf8(output).unwrap();
    let placed = text.matches("placed at").count();
    let invalid = text.matches("Invalid move").count();
    let over = text.matches("Game already over").count();
    println!("  (output: {placed} placed, {invalid} invalid, {over} after the end)");
}

fn best_of(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap()
}

/// The count line, then `move R C` lines with coordinates from `range`,
/// from a fixed-seed splitmix64 so every run feeds the same input.
fn generate(n: usize, range: std::ops::Range<i64>) -> String {
    let mut state: u64 = 0x0123_4567_89AB_CDEF;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        range.start + (z % (range.end - range.start) as u64) as i64
    };
    let mut text = format!("{n}\n");
    for _ in 0..n {
        let (r, c) = (next(), next());
        text.push_str(&format!("move {r} {c}\n"));
    }
    text
}

fn run_binary(side: u32, k: u32, input: &str, expected: &[u8]) -> Duration {
    let dir = std::env::temp_dir().join(format!("oxo-stream-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("instructions.txt");
    std::fs::write(&path, input).unwrap();
    let time = best_of(3, || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_oxo"))
            .args(["stream", "--size", &side.to_string(), "--k", &k.to_string()])
            .arg(&path)
            .stdout(Stdio::piped())
            .spawn()
            .expect("oxo binary runs");
        let mut out = Vec::with_capacity(expected.len());
        std::io::copy(child.stdout.as_mut().unwrap(), &mut out).unwrap();
        assert!(child.wait().unwrap().success());
        assert_eq!(out, expected, "binary output differs");
    });
    std::fs::remove_dir_all(&dir).ok();
    std::io::stdout().flush().ok();
    time
}

/// The seed's design, translated plainly and generalised to k: strings per
/// line, outputs collected, and a win check over whole lines through the move.
fn baseline(size: i64, k: i64, input: &str) -> Vec<String> {
    let mut lines = input.lines();
    let n: usize = lines.next().unwrap().trim().parse().unwrap();
    let mut grid = vec![vec![' '; size as usize]; size as usize];
    let mut filled = 0;
    let mut turn = 0;
    let mut over = false;
    let marks = ['X', 'O'];
    let mut output = Vec::new();
    for line in lines.take(n) {
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        let (r, c): (i64, i64) = (words[1].parse().unwrap(), words[2].parse().unwrap());
        if over {
            output.push("Game already over".to_owned());
            continue;
        }
        let mark = marks[turn];
        if r < 0 || r >= size || c < 0 || c >= size || grid[r as usize][c as usize] != ' ' {
            output.push("Invalid move".to_owned());
            continue;
        }
        grid[r as usize][c as usize] = mark;
        filled += 1;
        if has_won(&grid, size, k, r, c, mark) {
            over = true;
            output.push(format!("{mark} wins"));
        } else if filled == size * size {
            over = true;
            output.push("Draw".to_owned());
        } else {
            turn ^= 1;
            output.push(format!("{mark} placed at ({r}, {c})"));
        }
    }
    output
}

fn has_won(grid: &[Vec<char>], size: i64, k: i64, r: i64, c: i64, mark: char) -> bool {
    [(0, 1), (1, 0), (1, 1), (1, -1)].iter().any(|&(dr, dc)| {
        // Walk the whole line through (r, c), counting the longest run.
        let (mut sr, mut sc) = (r, c);
        while (0..size).contains(&(sr - dr)) && (0..size).contains(&(sc - dc)) {
            sr -= dr;
            sc -= dc;
        }
        let (mut run, mut best) = (0, 0);
        while (0..size).contains(&sr) && (0..size).contains(&sc) {
            run = if grid[sr as usize][sc as usize] == mark {
                run + 1
            } else {
                0
            };
            best = best.max(run);
            sr += dr;
            sc += dc;
        }
        best >= k
    })
}
