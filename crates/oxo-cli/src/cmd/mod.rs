//! One module per command: each builds a validated configuration from its
//! raw arguments, then runs it.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use oxo_campaign::output::OutputFile;
use oxo_cli::signals::{self, Signal, Signals};
use oxo_core::Rules;

use crate::args::Command;
use crate::failure::BadInput;

mod arena;
mod brain;
mod campaign;
mod play;
mod records;
mod referee;
mod serve;
mod solve;
mod stream;
mod train;
mod verify;

/// Run `command`; the exit code on success.
pub(crate) fn run(command: Command) -> anyhow::Result<u8> {
    match command {
        Command::Serve(args) => serve::run(&args),
        Command::Play(args) => play::run(&args),
        Command::Stream(args) => stream::run(&args),
        Command::Referee(args) => Ok(referee::run(args)),
        Command::Solve(args) => solve::run(&args),
        Command::Verify(args) => Ok(verify::run(&args)),
        Command::Arena(args) => arena::run(&args),
        Command::Train(args) => train::run(&args),
        Command::Brain(args) => brain::run(&args),
    }
}

/// Standard output, locked, with its write errors saying where the write
/// went: "cannot write to standard output: No space left on device", not
/// the bare reason. (The error's kind is kept, so a reader that went away,
/// as in `oxo … | head`, is still told apart.)
fn stdout() -> Labeled<io::StdoutLock<'static>> {
    Labeled(io::stdout().lock())
}

/// A writer to standard output whose errors say so.
struct Labeled<W>(W);

/// `err`, from a write to standard output, saying where the write went.
pub(crate) fn stdout_error(err: &io::Error) -> io::Error {
    io::Error::new(
        err.kind(),
        format!("cannot write to standard output: {err}"),
    )
}

impl<W: Write> Write for Labeled<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(|e| stdout_error(&e))
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.0.write_vectored(bufs).map_err(|e| stdout_error(&e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(|e| stdout_error(&e))
    }
}

/// Fail now, not after minutes of work (training, a tournament, a
/// census), if `path` cannot be written: make the temporary file that
/// [`OutputFile`] would write, and remove it again. Whatever is at `path`
/// is left as it was.
fn check_writable(path: &Path) -> anyhow::Result<()> {
    Ok(OutputFile::create(path).map(drop)?)
}

/// The output files given (flag and path, the `None`s left out), refused
/// when two name the same file: one would overwrite the other. A device, a
/// pipe or a terminal (`/dev/null`, `/dev/stdout`) overwrites nothing.
fn distinct_outputs<'a>(
    outputs: &[(&'a str, Option<&'a Path>)],
) -> Result<Vec<(&'a str, &'a Path)>, BadInput> {
    let given: Vec<(&str, &Path)> = outputs
        .iter()
        .filter_map(|&(flag, path)| Some((flag, path?)))
        .collect();
    for (i, &(flag, path)) in given.iter().enumerate() {
        let no_file = std::fs::metadata(path).is_ok_and(|m| !m.is_file());
        if no_file {
            continue;
        }
        if let Some((earlier, _)) = given[..i].iter().find(|(_, other)| same_file(other, path)) {
            return Err(BadInput(format!(
                "{earlier} and {flag} name the same file, {}: one would overwrite the other",
                path.display()
            )));
        }
    }
    Ok(given)
}

/// `--plot FILE` as given, refused when its name says another format than
/// the SVG it gets (`curve.png`); a name without an extension
/// (`/dev/stdout`) is taken as it is.
fn svg_path(plot: Option<&Path>) -> Result<(), BadInput> {
    match plot.and_then(|path| Some((path, path.extension()?))) {
        Some((path, ext)) if !ext.eq_ignore_ascii_case("svg") => Err(BadInput(format!(
            "--plot draws an SVG picture, but {} is named for another format: name it .svg",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// Whether `a` and `b` name the same file: the same file once links are
/// followed when both exist, else the same absolute path.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => std::path::absolute(a).ok() == std::path::absolute(b).ok(),
    }
}

/// Write `bytes` to `path` as one [`OutputFile`]: the file is replaced
/// whole, or, if the write fails, left as it was.
fn write_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut file = OutputFile::create(path)?;
    file.write_all(bytes)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(file.commit()?)
}

/// The seed given, or one from the clock (the only place oxo reads it),
/// below 2^53 so that the reports' JSON gives it exactly to readers that
/// hold numbers as doubles (jq, JavaScript): the run can be repeated with
/// `--seed`.
fn seed_or_clock(seed: Option<u64>) -> u64 {
    seed.unwrap_or_else(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        (nanos % (1 << 53)) as u64
    })
}

/// What `prefix` says of a seed taken from the clock.
fn seed_note(prefix: &str, seed: u64) -> String {
    format!(
        "{prefix}: the computer plays with seed {seed} (--seed {seed} makes the same choices again)"
    )
}

/// Worker threads: `--threads`, or one per core.
fn threads(arg: Option<u64>) -> anyhow::Result<usize> {
    Ok(match arg {
        Some(n) => usize::try_from(n)?,
        None => std::thread::available_parallelism().map_or(1, usize::from),
    })
}

/// Board rules from `--size`/`--k`, a bad combination being bad input.
fn rules(board: &crate::args::BoardArgs) -> anyhow::Result<Rules> {
    Ok(board.rules()?)
}

/// A strong-solution table saved by `oxo solve --all --save`, for `rules`.
fn load_table(path: &Path, rules: Rules) -> anyhow::Result<oxo_ai::StrongSolution> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    // A file that is not a whole, undamaged table is bad input (2), as a
    // bad model file is; a failing read is an I/O error (1).
    let table = oxo_ai::StrongSolution::load(io::BufReader::new(file)).map_err(|e| match e {
        oxo_ai::StrongTableError::Io(e) => {
            anyhow::Error::new(e).context(format!("cannot read {}", path.display()))
        }
        e => BadInput(format!("{}: {e}", path.display())).into(),
    })?;
    if table.rules() != rules {
        return Err(BadInput(format!(
            "{} solves {} games, not {rules}",
            path.display(),
            table.rules()
        ))
        .into());
    }
    Ok(table)
}

/// A model saved by `oxo train`, checked to be for `rules` if given: a file that
/// cannot be read is an I/O error (1), one that is not a model for this
/// board is bad input (2).
fn load_model(path: &Path, rules: Option<Rules>) -> anyhow::Result<oxo_ai::Model> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let model = oxo_ai::Model::from_bytes(&bytes)
        .map_err(|e| BadInput(format!("{} is not a usable model: {e}", path.display())))?;
    if let Some(rules) = rules {
        model
            .check_rules(rules)
            .map_err(|e| BadInput(format!("{}: {e}", path.display())))?;
    }
    Ok(model)
}

/// The strategies on offer, with the models given by `--model` (each
/// checked to be a model, and for `rules` when a board is fixed).
fn catalog(paths: &[PathBuf], rules: Option<Rules>) -> anyhow::Result<oxo_ai::Catalog> {
    let mut catalog = oxo_ai::Catalog::default();
    for path in paths {
        catalog = catalog.with_model(load_model(path, rules)?);
    }
    Ok(catalog)
}

/// Run `then` on a thread of its own once Ctrl-C or SIGTERM comes; the
/// signals are listened for before this returns.
fn on_signal(then: impl FnOnce(Signal) + Send + 'static) -> anyhow::Result<()> {
    signals::on_signal(Signals::new, then).context("cannot listen for Ctrl-C and SIGTERM")
}

/// Run `then` for every Ctrl-C or SIGTERM (see [`signals::on_each_signal`]).
fn on_each_signal(then: impl FnMut(Signal) + Send + 'static) -> anyhow::Result<()> {
    signals::on_each_signal(Signals::new, then).context("cannot listen for Ctrl-C and SIGTERM")
}

/// A one-line progress display on stderr, drawn only when stderr is a
/// terminal (so logs and pipes stay clean).
#[derive(Debug)]
struct StatusLine {
    shown: bool,
}

impl StatusLine {
    fn new() -> StatusLine {
        StatusLine {
            shown: io::stderr().is_terminal(),
        }
    }

    /// Replace the line with `text`.
    fn show(&self, text: std::fmt::Arguments<'_>) {
        if self.shown {
            crate::stderr::write(format_args!("\r\x1b[K{text}"));
        }
    }

    /// A bar of `done` out of `total`, then `what` (such as `games`) and
    /// any `more` figures.
    fn bar(&self, done: u64, total: u64, what: &str, more: std::fmt::Arguments<'_>) {
        const WIDTH: u64 = 30;
        let filled = done.min(total) * WIDTH / total.max(1);
        self.show(format_args!(
            "[{}{}] {done}/{total} {what}{more}",
            "#".repeat(filled as usize),
            ".".repeat((WIDTH - filled) as usize),
        ));
    }

    /// Whether the line is drawn at all.
    fn is_shown(&self) -> bool {
        self.shown
    }

    /// Erase the line.
    fn clear(&self) {
        if self.shown {
            crate::stderr::write(format_args!("\r\x1b[K"));
        }
    }
}

#[cfg(test)]
mod tests {
    /// A seed from the clock survives a JSON reader that holds numbers as
    /// doubles (today's nanoseconds since 1970 are about 2^60).
    #[test]
    fn a_seed_from_the_clock_is_exact_as_a_double() {
        let seed = super::seed_or_clock(None);
        assert!(seed < 1 << 53, "{seed}");
        assert_eq!(seed as f64 as u64, seed);
        assert_eq!(super::seed_or_clock(Some(u64::MAX)), u64::MAX);
    }
}
