//! `oxo solve`: perfect-play values, one position, a batch, or a whole board.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use oxo_ai::StrongSolution;
use oxo_ai::exact::{Analyst, Searching, ValuesError};
use oxo_cli::exit;
use oxo_cli::solve::{self, Answer, CensusReport};
use oxo_core::{Game, Rules};

use crate::args::SolveArgs;
use crate::failure::BadInput;

/// What to solve.
#[derive(Debug)]
enum Job {
    /// Every position reachable on this board, optionally saved.
    All { rules: Rules, save: Option<PathBuf> },
    /// One position per line of standard input; k from `--k` or each
    /// board's default (its shorter side, at most 5).
    Batch { k: Option<u32> },
    /// One position.
    One(Game),
}

/// `oxo solve`, validated.
#[derive(Debug)]
struct Config {
    job: Job,
    json: bool,
    /// The value alone, without distances or the moves' values.
    value_only: bool,
    table_bytes: usize,
    /// Where to write a certificate of the position's value.
    proof: Option<PathBuf>,
    /// Positions each position's search may visit.
    budget: Option<u64>,
}

impl Config {
    fn new(args: &SolveArgs) -> anyhow::Result<Config> {
        let job = if args.all {
            Job::All {
                rules: Rules::with_size(args.size, args.k)?,
                save: args.save.clone(),
            }
        } else if args.save.is_some() {
            return Err(BadInput(
                "--save saves the table of --all: add --all, or leave --save out".to_owned(),
            )
            .into());
        } else {
            match args.position.as_deref() {
                Some("-") => Job::Batch { k: args.k },
                Some(text) => {
                    Job::One(solve::parse_position(text, args.k).map_err(BadInput::from_error)?)
                }
                None => Job::One(Game::new(Rules::with_size(args.size, args.k)?)),
            }
        };
        if args.proof.is_some() && !matches!(job, Job::One(_)) {
            return Err(BadInput(
                "--proof certifies one position: give a position or --size, not -".to_owned(),
            )
            .into());
        }
        Ok(Config {
            job,
            proof: args.proof.clone(),
            budget: args.budget,
            json: args.json,
            value_only: args.value,
            table_bytes: usize::try_from(args.table_mb.unwrap_or(DEFAULT_TABLE_MB))? << 20,
        })
    }
}

/// Why a position got no answer: its message, and whether the search ran
/// out of `--budget` (exit 4) rather than being refused (exit 2).
struct Unanswered {
    message: String,
    over_budget: bool,
}

impl From<ValuesError> for Unanswered {
    fn from(err: ValuesError) -> Unanswered {
        Unanswered {
            over_budget: err.is_over_budget(),
            message: err.to_string(),
        }
    }
}

/// `--table-mb` when not given.
const DEFAULT_TABLE_MB: u64 = 64;

/// Solvers (and their tables) `oxo solve -` keeps for recent board shapes.
const WARM_SOLVERS: usize = 2;

pub(super) fn run(args: &SolveArgs) -> anyhow::Result<u8> {
    // An option the mode does not use is a mistake, not ignored.
    if args.table_mb.is_some() && (args.all || args.campaign.any()) {
        let what = if args.all {
            "--all does not use it (it keeps every position it solves, whatever the size)"
        } else {
            "a long proof sizes its tables by --memory"
        };
        return Err(BadInput(format!("--table-mb: {what}")).into());
    }
    if let Some(name) = args.campaign.unused(args.proof.is_some()).first() {
        let what = if *name == "--split" && args.campaign.resume {
            "a resumed proof keeps the split it was started with"
        } else if args.campaign.any() {
            "this kind of long proof does not use it (see oxo solve --help)"
        } else {
            "it is for long proofs (--checkpoint, --post, --worker, --assemble)"
        };
        return Err(BadInput(format!("{name}: {what}")).into());
    }
    if args.campaign.any() {
        return super::campaign::run(args);
    }
    let config = Config::new(args)?;
    let status = super::StatusLine::new();
    let answer = |analyst: &mut Analyst, game: Game| -> Result<Box<dyn Answer>, Unanswered> {
        Ok(solve::answer(analyst, game)?)
    };
    let make_analyst = |rules: Rules| -> anyhow::Result<Analyst> {
        let mut analyst = Analyst::new(rules, config.table_bytes, config.budget, config.value_only)
            .map_err(|e| {
                // The full analysis needs the solver's boards; the value
                // alone reaches further.
                if e.value_alone_fits(rules) && !config.value_only {
                    BadInput::from_error(format_args!(
                        "{e}; --value gives the value alone on this board"
                    ))
                } else {
                    BadInput::from_error(e)
                }
            })?;
        let status = super::StatusLine::new();
        analyst.on_progress(move |searching| match searching {
            Searching::Solving(p) => {
                if p.elapsed.as_secs() >= 1 {
                    let rate = p.nodes as f64 / p.elapsed.as_secs_f64();
                    let moves = p.moves.map_or(String::new(), |(done, all)| {
                        format!(", move {}/{all}", done + 1)
                    });
                    let depth = p
                        .depth
                        .map_or(String::new(), |d| format!(", distance search at {d} plies"));
                    status.show(format_args!(
                        "solving: {} positions, {:.1} M/s{moves}{depth}",
                        p.nodes,
                        rate / 1e6
                    ));
                }
            }
            Searching::Proving(p) => show_rate(&status, "proving", p.nodes, p.elapsed),
            Searching::Valuing(p) => show_rate(&status, "valuing the moves", p.nodes, p.elapsed),
        });
        Ok(analyst)
    };
    match config.job {
        Job::All { rules, save } => {
            if let Some(path) = &save {
                super::check_writable(path)?;
            }
            let start = Instant::now();
            let strong = StrongSolution::compute(rules).map_err(BadInput::from_error)?;
            let report = CensusReport {
                strong: &strong,
                time: start.elapsed(),
            };
            // The table first: a reader of the report that goes away
            // (`oxo solve --all --save t | head`) does not cost the file.
            if let Some(path) = save {
                let mut file = oxo_campaign::output::OutputFile::create(&path)?;
                strong
                    .save(io::BufWriter::new(&mut file))
                    .with_context(|| format!("cannot write {}", path.display()))?;
                file.commit()?;
            }
            let mut out = super::stdout();
            if config.json {
                writeln!(out, "{}", report.json())?;
            } else {
                write!(out, "{}", report.table())?;
            }
            Ok(exit::SUCCESS)
        }
        Job::Batch { k } => {
            // One analyst per board shape, kept warm across lines.
            let mut solvers: Vec<Analyst> = Vec::new();
            let mut over_budget = 0;
            let summary = solve::solve_lines(
                io::stdin().lock(),
                super::stdout(),
                &mut crate::stderr::Notes,
                config.json,
                |text| {
                    let game = solve::parse_position(text, k).map_err(|e| e.to_string())?;
                    let rules = game.rules();
                    let index = match solvers.iter().position(|s| s.rules() == rules) {
                        Some(i) => i,
                        None => {
                            // Keep a few recent board shapes warm, not one
                            // table for every shape a long batch mentions.
                            if solvers.len() == WARM_SOLVERS {
                                solvers.remove(0);
                            }
                            solvers.push(make_analyst(rules).map_err(|e| format!("{e:#}"))?);
                            solvers.len() - 1
                        }
                    };
                    let report = answer(&mut solvers[index], game);
                    status.clear();
                    report.map_err(|unanswered| {
                        over_budget += u64::from(unanswered.over_budget);
                        unanswered.message
                    })
                },
            )?;
            Ok(if summary.failed > over_budget {
                exit::BAD_INPUT
            } else if over_budget > 0 {
                exit::OVER_BUDGET
            } else {
                exit::SUCCESS
            })
        }
        Job::One(game) => {
            if let Some(path) = &config.proof {
                super::check_writable(path)?;
            }
            let mut analyst = make_analyst(game.rules())?;
            let report = match answer(&mut analyst, game.clone()) {
                Ok(report) => report,
                Err(Unanswered {
                    message,
                    over_budget: true,
                }) => {
                    status.clear();
                    note!("oxo: {message} (--budget)");
                    return Ok(exit::OVER_BUDGET);
                }
                Err(Unanswered { message, .. }) => return Err(BadInput(message).into()),
            };
            // After the report, so that its figures are the solve's own.
            // `--budget` bounds the search for the value; writing its
            // certificate has the certificate's own size limit.
            let certificate = config.proof.as_ref().map(|_| {
                analyst
                    .certificate(&game)
                    .map_err(|e| anyhow::Error::from(BadInput(e.to_string())))
            });
            status.clear();
            // The certificate is written before the value is printed, so a
            // reader of the value that goes away (`| head`) does not cost
            // the file; the value is printed even when no certificate can
            // be had, and then the reason ends the command.
            let written = match (&config.proof, certificate) {
                (Some(path), Some(Ok(certificate))) => {
                    super::write_file(path, certificate.to_text().as_bytes())
                        .map(|()| Some((path, certificate)))
                }
                (_, Some(Err(e))) => Err(e),
                _ => Ok(None),
            };
            let mut out = super::stdout();
            let printed = if config.json {
                writeln!(out, "{}", report.json())
            } else {
                write!(out, "{}", report.table())
            };
            if let Some((path, certificate)) = written? {
                let nodes = certificate.nodes.len();
                note!(
                    "oxo: proof of {} ({nodes} position{}) written to {}",
                    certificate.claim,
                    if nodes == 1 { "" } else { "s" },
                    path.display()
                );
            }
            printed?;
            Ok(exit::SUCCESS)
        }
    }
}

/// Show `what` with the positions searched and their rate on the status
/// line, once a search has run for a second.
fn show_rate(status: &super::StatusLine, what: &str, nodes: u64, elapsed: std::time::Duration) {
    if elapsed.as_secs() >= 1 {
        let rate = nodes as f64 / elapsed.as_secs_f64();
        status.show(format_args!(
            "{what}: {nodes} positions, {:.2} M/s",
            rate / 1e6
        ));
    }
}
