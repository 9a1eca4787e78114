//! `oxo train`'s learning curve: a table for the terminal, CSV, and an SVG
//! plot.

use std::fmt::Write as _;

use oxo_ai::curve::Checkpoint;
use oxo_ai::learned::MatchRecord;
use oxo_core::Rules;

fn wdl(r: &[u32; 3]) -> String {
    format!("{}/{}/{}", r[0], r[1], r[2])
}

/// The curve as a table for a terminal: results are wins/draws/losses of
/// the learned player.
#[must_use]
pub fn table(points: &[Checkpoint]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:>10} {:>8} {:>8}  {:>15} {:>15}  {:>15} {:>15}  {:>10}",
        "episodes",
        "searched",
        "seconds",
        "random: as X",
        "as O",
        "rules: as X",
        "as O",
        "value kept"
    );
    for p in points {
        let graded = p
            .graded
            .map_or("-".to_owned(), |g| format!("{:.1}%", 100.0 * g.share()));
        let _ = writeln!(
            out,
            "{:>10} {:>8} {:>8.1}  {:>15} {:>15}  {:>15} {:>15}  {:>10}",
            p.episodes,
            p.searched,
            p.seconds,
            wdl(&p.vs_random.as_x),
            wdl(&p.vs_random.as_o),
            wdl(&p.vs_rules.as_x),
            wdl(&p.vs_rules.as_o),
            graded
        );
    }
    out
}

/// The curve as CSV, one row a checkpoint.
#[must_use]
pub fn csv(points: &[Checkpoint]) -> String {
    let mut out = String::from(
        "episodes,searched,seconds,random_x_wins,random_x_draws,random_x_losses,random_o_wins,random_o_draws,random_o_losses,rules_x_wins,rules_x_draws,rules_x_losses,rules_o_wins,rules_o_draws,rules_o_losses,graded,kept\n",
    );
    for p in points {
        let _ = write!(out, "{},{},{:.3}", p.episodes, p.searched, p.seconds);
        for r in [
            p.vs_random.as_x,
            p.vs_random.as_o,
            p.vs_rules.as_x,
            p.vs_rules.as_o,
        ] {
            let _ = write!(out, ",{},{},{}", r[0], r[1], r[2]);
        }
        match p.graded {
            Some(g) => {
                let _ = writeln!(out, ",{},{}", g.graded, g.kept);
            }
            None => out.push_str(",,\n"),
        }
    }
    out
}

/// Points scored (a win 1, a draw ½) over games, in percent.
fn score(r: &MatchRecord) -> f64 {
    let games = f64::from(r.games().max(1));
    100.0 * (f64::from(r.as_x[0] + r.as_o[0]) + f64::from(r.as_x[1] + r.as_o[1]) / 2.0) / games
}

/// Games not lost, in percent.
fn unbeaten(r: &MatchRecord) -> f64 {
    100.0 * f64::from(r.games() - r.losses()) / f64::from(r.games().max(1))
}

/// A line on the plot: its name, colour, dash pattern and value at a point.
type Series = (
    &'static str,
    &'static str,
    &'static str,
    Box<dyn Fn(&Checkpoint) -> Option<f64>>,
);

/// The curve drawn: percentages against episodes.
#[must_use]
pub fn svg(rules: Rules, seed: u64, points: &[Checkpoint]) -> String {
    let (left, top, width, height) = (70.0, 50.0, 640.0, 320.0);
    // Episodes on a log scale: learning is fastest early.
    // Searched games count after the episodes.
    let games = |p: &Checkpoint| p.episodes + p.searched;
    let lo = points.iter().map(games).min().unwrap_or(1).max(1) as f64;
    let hi = (points.iter().map(games).max().unwrap_or(1) as f64).max(lo * 10.0);
    let x = |episodes: u64| {
        left + width * ((episodes.max(1) as f64).log10() - lo.log10()) / (hi.log10() - lo.log10())
    };
    let y = |percent: f64| top + height * (1.0 - percent / 100.0);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{:.0}" height="{:.0}" font-family="sans-serif" font-size="13">"##,
        left + width + 260.0,
        top + height + 60.0
    );
    let _ = writeln!(
        out,
        r##"<rect width="100%" height="100%" fill="#fff"/><text x="{left:.0}" y="28" font-size="16" font-weight="bold">Learning curve: {rules} (seed {seed})</text>"##
    );
    let _ = writeln!(
        out,
        r##"<rect x="{left:.0}" y="{top:.0}" width="{width:.0}" height="{height:.0}" fill="#f6f8fa" stroke="#ccc"/>"##
    );
    for percent in [0.0, 25.0, 50.0, 75.0, 100.0] {
        let _ = writeln!(
            out,
            r##"<line x1="{left:.0}" y1="{0:.1}" x2="{1:.0}" y2="{0:.1}" stroke="#ddd"/><text x="{2:.0}" y="{3:.1}" text-anchor="end">{percent:.0}%</text>"##,
            y(percent),
            left + width,
            left - 8.0,
            y(percent) + 4.0
        );
    }
    let mut tick = 10f64.powf(lo.log10().ceil());
    while tick <= hi {
        let _ = writeln!(
            out,
            r##"<line x1="{0:.1}" y1="{1:.0}" x2="{0:.1}" y2="{2:.0}" stroke="#ddd"/><text x="{0:.1}" y="{3:.0}" text-anchor="middle">{tick}</text>"##,
            x(tick as u64),
            top,
            top + height,
            top + height + 20.0
        );
        tick *= 10.0;
    }
    let _ = writeln!(
        out,
        r##"<text x="{:.0}" y="{:.0}" text-anchor="middle">{}</text>"##,
        left + width / 2.0,
        top + height + 44.0,
        if points.iter().any(|p| p.searched > 0) {
            "self-play games, the searched ones after the episodes (log scale)"
        } else {
            "self-play episodes (log scale)"
        }
    );
    // Colour-blind-safe colours (Okabe–Ito), each series with its own dash.
    let series: [Series; 4] = [
        (
            "unbeaten vs random",
            "#0072B2",
            "",
            Box::new(|p| Some(unbeaten(&p.vs_random))),
        ),
        (
            "unbeaten vs rules",
            "#D55E00",
            "6 3",
            Box::new(|p| Some(unbeaten(&p.vs_rules))),
        ),
        (
            "score vs rules",
            "#CC79A7",
            "2 3",
            Box::new(|p| Some(score(&p.vs_rules))),
        ),
        (
            "moves keeping the value",
            "#009E73",
            "10 4 2 4",
            Box::new(|p| p.graded.map(|g| 100.0 * g.share())),
        ),
    ];
    let mut legend_y = top + 10.0;
    for (name, colour, dash, value) in &series {
        let path: Vec<String> = points
            .iter()
            .filter_map(|p| value(p).map(|v| format!("{:.1},{:.1}", x(games(p)), y(v))))
            .collect();
        if path.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            r##"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2.5" stroke-dasharray="{dash}"/>"##,
            path.join(" ")
        );
        let _ = writeln!(
            out,
            r##"<line x1="{0:.0}" y1="{1:.0}" x2="{2:.0}" y2="{1:.0}" stroke="{colour}" stroke-width="2.5" stroke-dasharray="{dash}"/><text x="{3:.0}" y="{4:.0}">{name}</text>"##,
            left + width + 14.0,
            legend_y,
            left + width + 44.0,
            left + width + 50.0,
            legend_y + 4.0
        );
        legend_y += 22.0;
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use oxo_ai::curve::{self, Config};

    fn config(episodes: u64) -> Config {
        Config {
            rules: Rules::TIC_TAC_TOE,
            episodes,
            seed: 3,
            checkpoints: 4,
            eval_games: 50,
            grade_positions: 100,
            search_rounds: 0,
            search_games: 1,
            threads: 1,
            stop: None,
        }
    }

    fn fake_clock() -> impl FnMut() -> Duration {
        let mut t = Duration::ZERO;
        move || {
            t += Duration::from_millis(1);
            t
        }
    }

    fn go_on(_: u64, _: Duration) -> std::ops::ControlFlow<()> {
        std::ops::ControlFlow::Continue(())
    }

    #[test]
    fn outputs_have_a_row_or_a_line_a_checkpoint() {
        let (_, curve) =
            curve::run(&config(2_000), fake_clock(), go_on, |_, _| {}, |_| {}).unwrap();
        let csv = csv(&curve);
        assert_eq!(csv.lines().count(), curve.len() + 1);
        assert!(csv.starts_with("episodes,searched,seconds,random_x_wins,"));
        assert!(csv.lines().all(|l| l.split(',').count() == 17), "{csv}");
        let svg = svg(Rules::TIC_TAC_TOE, 3, &curve);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 4);
        assert_eq!(table(&curve).lines().count(), curve.len() + 1);
    }

    #[test]
    fn ungraded_checkpoints_leave_the_grade_columns_empty() {
        let mut c = config(200);
        c.rules = Rules::new(7, 7, 5).unwrap();
        c.eval_games = 2;
        let (_, curve) = curve::run(&c, fake_clock(), go_on, |_, _| {}, |_| {}).unwrap();
        let csv = csv(&curve);
        assert!(csv.lines().nth(1).unwrap().ends_with(",,"), "{csv}");
    }
}
