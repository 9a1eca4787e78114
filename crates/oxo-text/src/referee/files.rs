//! The file work of the referee: which reports go where, checked before
//! anything is read, and each report written whole with a rename.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::{Options, RefereeError, report};

/// A run of the referee over moves files.
#[derive(Clone, Debug)]
pub struct Job {
    /// Moves files; `-` is standard input (`./-` a file of that name).
    pub inputs: Vec<PathBuf>,
    /// The report file for a single input (standard output when neither
    /// this nor `out_dir` is given).
    pub output: Option<PathBuf>,
    /// A directory for one report per input, named as the input is.
    pub out_dir: Option<PathBuf>,
    /// Header lines.
    pub options: Options,
}

/// How a [`run`] went, worst first: bad content outranks a file that could
/// not be read or written, which outranks success. Statuses combine with
/// [`Ord::max`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// Every report was written.
    Reported,
    /// A file could not be read or written (and no moves file was bad).
    Io,
    /// A moves file was bad.
    BadInput,
}

/// Run `job`: referee each input (the input `-` read from `stdin`) and
/// write its report, to `stdout` or to files. One bad file does not stop
/// the others: each file's problem is handed to `problem` as it happens,
/// and the result is the worst [`Status`] met.
///
/// # Errors
/// The job cannot be done as asked (found before any file is read).
pub fn run(
    job: &Job,
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    problem: &mut dyn FnMut(&FileError),
) -> Result<Status, UsageError> {
    let plan = Plan::new(job)?;
    let mut status = Status::Reported;
    for (input, destination) in &plan.files {
        let io = Io { stdin, stdout };
        match referee_file(input, destination, plan.out_dir, &job.options, io) {
            Ok(()) => {}
            // The reader has seen enough: not an error (and there is only
            // one report on stdout).
            Err(FileError::Stdout(err)) if err.kind() == io::ErrorKind::BrokenPipe => break,
            Err(err) => {
                problem(&err);
                status = status.max(err.status());
            }
        }
    }
    Ok(status)
}

/// Why a [`Job`] cannot be done as asked.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// No moves file.
    #[error("no moves file given")]
    NoInput,
    /// Both a report file and a report directory.
    #[error("a report file and a report directory cannot be used together")]
    FileAndDirectory,
    /// One report file for several moves files.
    #[error("one report file was named but {0} moves files were given")]
    OneFileForMany(usize),
    /// Several reports for standard output.
    #[error("{0} moves files were given but standard output takes one report")]
    StdoutForMany(usize),
    /// An input whose report cannot be named after it.
    #[error("{}: not a file name to name a report after", .0.display())]
    NoFileName(PathBuf),
    /// Standard input (`-`) with a report directory: its report would
    /// have no name.
    #[error(
        "standard input (-) has no name for its report in a report directory: give it as a file, or its report with -o"
    )]
    StdinInDirectory,
    /// Two inputs whose reports would have the same name.
    #[error(
        "{} and {} would both be reported in {}: moves files in one run need different names",
        .earlier.display(), .input.display(), .report.display()
    )]
    SameName {
        /// The first input of that name.
        earlier: PathBuf,
        /// The second.
        input: PathBuf,
        /// The report both would get.
        report: PathBuf,
    },
    /// A report that would replace its own moves file.
    #[error("{}: the report would overwrite its own moves file", .0.display())]
    OverwritesInput(PathBuf),
    /// A header line of [`Options`] with a control character in it: a
    /// line break would add lines of its own to the report (a forged
    /// `Winner:` line, say).
    #[error("the {field} line cannot hold control characters such as line breaks: {text:?}")]
    HeaderControl {
        /// Which line: `programmer` or `project`.
        field: &'static str,
        /// The line as given.
        text: String,
    },
}

/// Where one report goes.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Destination {
    Stdout,
    File(PathBuf),
}

/// A [`Job`] checked for usage errors: every input with its destination.
#[derive(Debug)]
struct Plan<'a> {
    /// `--out-dir`, created when the first report is ready.
    out_dir: Option<&'a Path>,
    files: Vec<(&'a Path, Destination)>,
}

impl<'a> Plan<'a> {
    /// Check `job` before any work.
    fn new(job: &'a Job) -> Result<Plan<'a>, UsageError> {
        job.options.check()?;
        let inputs = &job.inputs;
        let files: Vec<(&Path, Destination)> = match (&job.output, &job.out_dir) {
            _ if inputs.is_empty() => return Err(UsageError::NoInput),
            (Some(_), Some(_)) => return Err(UsageError::FileAndDirectory),
            (Some(output), None) => match inputs.as_slice() {
                [input] => vec![(input.as_path(), Destination::File(output.clone()))],
                _ => return Err(UsageError::OneFileForMany(inputs.len())),
            },
            (None, None) => match inputs.as_slice() {
                [input] => vec![(input.as_path(), Destination::Stdout)],
                _ => return Err(UsageError::StdoutForMany(inputs.len())),
            },
            (None, Some(dir)) => {
                let mut names: HashMap<&OsStr, &Path> = HashMap::new();
                let mut files = Vec::with_capacity(inputs.len());
                for input in inputs {
                    if is_stdin(input) {
                        return Err(UsageError::StdinInDirectory);
                    }
                    let Some(name) = input.file_name() else {
                        return Err(UsageError::NoFileName(input.clone()));
                    };
                    if let Some(earlier) = names.insert(name, input) {
                        return Err(UsageError::SameName {
                            earlier: earlier.to_owned(),
                            input: input.clone(),
                            report: dir.join(name),
                        });
                    }
                    files.push((input.as_path(), Destination::File(dir.join(name))));
                }
                files
            }
        };
        for (input, destination) in &files {
            if let Destination::File(report) = destination
                && !is_stdin(input)
                && same_file(input, report)
            {
                return Err(UsageError::OverwritesInput(input.to_path_buf()));
            }
        }
        Ok(Plan {
            out_dir: job.out_dir.as_deref(),
            files,
        })
    }
}

/// Whether `path` is `-`, standard input.
fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// `path` as a message names it.
fn shown(path: &Path) -> std::borrow::Cow<'_, str> {
    if is_stdin(path) {
        "standard input".into()
    } else {
        path.to_string_lossy()
    }
}

/// The bytes of the moves file `path` (`-`: `stdin`), read to at most
/// [`MAX_MOVES_FILE`] bytes.
fn read_moves_file(path: &Path, stdin: &mut dyn Read) -> Result<Vec<u8>, FileError> {
    let read = |err| FileError::Read(path.to_owned(), err);
    let mut bytes = Vec::new();
    let limit = MAX_MOVES_FILE + 1;
    if is_stdin(path) {
        stdin.take(limit).read_to_end(&mut bytes)
    } else {
        fs::File::open(path).and_then(|file| file.take(limit).read_to_end(&mut bytes))
    }
    .map_err(read)?;
    if bytes.len() as u64 > MAX_MOVES_FILE {
        return Err(FileError::TooLarge(path.to_owned()));
    }
    Ok(bytes)
}

/// Whether both paths name one existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The largest moves file the referee reads: a game's file is a few
/// hundred bytes, and a bigger one (`/dev/zero`, a file given by mistake)
/// is refused before it fills memory.
pub const MAX_MOVES_FILE: u64 = 1 << 20;

/// Why one input got no report.
#[derive(Debug)]
pub enum FileError {
    /// The moves file could not be read.
    Read(PathBuf, io::Error),
    /// The moves file is over [`MAX_MOVES_FILE`] bytes.
    TooLarge(PathBuf),
    /// The moves file is not a game the referee can judge.
    Content(PathBuf, RefereeError),
    /// The report directory could not be created.
    CreateDir(PathBuf, io::Error),
    /// The report could not be written.
    Write(PathBuf, io::Error),
    /// The report could not be written to standard output.
    Stdout(io::Error),
}

impl FileError {
    /// What this problem makes of the run.
    #[must_use]
    pub const fn status(&self) -> Status {
        match self {
            FileError::Content(..) | FileError::TooLarge(..) => Status::BadInput,
            FileError::Read(..)
            | FileError::CreateDir(..)
            | FileError::Write(..)
            | FileError::Stdout(..) => Status::Io,
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Read(path, err) => write!(f, "{}: cannot read: {err}", shown(path)),
            FileError::Content(path, err) => write!(f, "{}: {err}", shown(path)),
            FileError::TooLarge(path) => write!(
                f,
                "{}: over {} MiB, far more than any game's moves file",
                shown(path),
                MAX_MOVES_FILE >> 20
            ),
            FileError::CreateDir(path, err) => {
                write!(f, "{}: cannot create the directory: {err}", path.display())
            }
            FileError::Write(path, err) => write!(f, "{}: cannot write: {err}", path.display()),
            FileError::Stdout(err) => write!(f, "cannot write to standard output: {err}"),
        }
    }
}

impl std::error::Error for FileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FileError::Read(_, err)
            | FileError::CreateDir(_, err)
            | FileError::Write(_, err)
            | FileError::Stdout(err) => Some(err),
            FileError::Content(_, err) => Some(err),
            FileError::TooLarge(_) => None,
        }
    }
}

/// The standard streams a run was given.
struct Io<'a, 'b> {
    stdin: &'a mut dyn Read,
    stdout: &'b mut dyn Write,
}

/// Referee one file and write its report, all or nothing.
fn referee_file(
    input: &Path,
    destination: &Destination,
    out_dir: Option<&Path>,
    options: &Options,
    Io { stdin, stdout }: Io<'_, '_>,
) -> Result<(), FileError> {
    let bytes = read_moves_file(input, stdin)?;
    let text = report(&bytes, options).map_err(|err| FileError::Content(input.to_owned(), err))?;
    match destination {
        Destination::Stdout => stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(FileError::Stdout),
        Destination::File(path) => {
            if let Some(dir) = out_dir {
                fs::create_dir_all(dir).map_err(|err| {
                    // "File exists" would not say which way round.
                    let err = if dir.exists() && !dir.is_dir() {
                        io::Error::new(
                            io::ErrorKind::NotADirectory,
                            "it is a file, not a directory",
                        )
                    } else {
                        err
                    };
                    FileError::CreateDir(dir.to_owned(), err)
                })?;
            }
            write_report(path, text.as_bytes()).map_err(|err| FileError::Write(path.clone(), err))
        }
    }
}

/// Write a report to `path` as a user expects: a regular file (or a new
/// one) is replaced in one step ([`write_atomically`]); through a symbolic
/// link, the file it points to is (in one step too when that is a regular
/// file); anything else (a FIFO, a device, a terminal) is written to
/// directly, as a shell's `>` would, and never replaced by a file.
fn write_report(path: &Path, contents: &[u8]) -> io::Result<()> {
    let meta = match fs::symlink_metadata(path) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            return write_atomically(path, contents);
        }
        other => other?,
    };
    if meta.file_type().is_file() {
        return write_atomically(path, contents);
    }
    if meta.file_type().is_symlink()
        && let Ok(target) = fs::canonicalize(path)
        && fs::metadata(&target).is_ok_and(|m| m.file_type().is_file())
    {
        return write_atomically(&target, contents);
    }
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?;
    file.write_all(contents)?;
    file.flush()
}

/// Write `contents` to `path` in one step: into a new file beside it, then
/// renamed over it. Readers never see half a report, and on failure an
/// older file at `path` is left as it was.
fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    let (temp, mut file) = create_beside(path)?;
    let written = file.write_all(contents).and_then(|()| file.sync_all());
    // Closed before the rename, which Windows needs.
    drop(file);
    let result = written.and_then(|()| fs::rename(&temp, path));
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// A new, hidden temporary file in the directory of `path` (so the rename
/// stays on one file system), and its path.
fn create_beside(path: &Path) -> io::Result<(PathBuf, fs::File)> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path does not end in a file name",
        )
    })?;
    let mut attempt: u32 = 0;
    loop {
        let mut temp_name = OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".{}.{attempt}.tmp", std::process::id()));
        let temp = path.with_file_name(temp_name);
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)
        {
            Ok(file) => return Ok((temp, file)),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1;
            }
            Err(err) => return Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_combine_by_severity() {
        use Status::{BadInput, Io, Reported};
        assert_eq!(Reported.max(Reported), Reported);
        assert_eq!(Reported.max(Io), Io);
        assert_eq!(BadInput.max(Io), BadInput);
        assert_eq!(Io.max(BadInput), BadInput);
    }

    fn job(inputs: &[&str], output: Option<&str>, out_dir: Option<&str>) -> Job {
        Job {
            inputs: inputs.iter().map(PathBuf::from).collect(),
            output: output.map(PathBuf::from),
            out_dir: out_dir.map(PathBuf::from),
            options: Options::default(),
        }
    }

    #[test]
    fn usage_is_checked_before_any_work() {
        let usage = |job: &Job| Plan::new(job).map(|plan| plan.files).unwrap_err();
        assert!(matches!(
            usage(&job(&["a", "b"], None, None)),
            UsageError::StdoutForMany(2)
        ));
        assert!(matches!(
            usage(&job(&["a", "b"], Some("r"), None)),
            UsageError::OneFileForMany(2)
        ));
        assert!(matches!(
            usage(&job(&["a"], Some("r"), Some("out"))),
            UsageError::FileAndDirectory
        ));
        assert!(matches!(usage(&job(&[], None, None)), UsageError::NoInput));
        assert!(
            usage(&job(&["x/a.txt", "y/a.txt"], None, Some("out")))
                .to_string()
                .contains("different names")
        );
        let two = job(&["x/a.txt", "b.txt"], None, Some("out"));
        let files = Plan::new(&two).unwrap().files;
        assert_eq!(
            files,
            [
                (
                    Path::new("x/a.txt"),
                    Destination::File(PathBuf::from("out/a.txt"))
                ),
                (
                    Path::new("b.txt"),
                    Destination::File(PathBuf::from("out/b.txt"))
                ),
            ]
        );
        // A header line with a line break would write a line of its own
        // into the report: refused, whichever line has it.
        let mut forged = job(&["a"], None, None);
        forged.options.programmer = "A\nWinner: X".to_owned();
        assert!(matches!(
            usage(&forged),
            UsageError::HeaderControl {
                field: "programmer",
                ..
            }
        ));
        forged.options.programmer = "A Ames".to_owned();
        forged.options.project = "P6\r".to_owned();
        assert!(matches!(
            usage(&forged),
            UsageError::HeaderControl {
                field: "project",
                ..
            }
        ));
        forged.options.project = "Projekt 6 \u{2014} caf\u{e9}".to_owned();
        assert!(Plan::new(&forged).is_ok());
    }

    /// Endless input (`/dev/zero`) and a file far too large are refused
    /// as bad input at the limit, never read whole.
    #[test]
    fn a_moves_file_over_the_limit_is_refused_as_bad_input() {
        let problem = |path: &str| {
            let mut seen = Vec::new();
            let status = run(
                &job(&[path], None, None),
                &mut io::empty(),
                &mut Vec::new(),
                &mut |e| {
                    seen.push(e.to_string());
                },
            )
            .unwrap();
            (status, seen)
        };
        let (status, seen) = problem("/dev/zero");
        assert_eq!(status, Status::BadInput);
        assert_eq!(
            seen,
            ["/dev/zero: over 1 MiB, far more than any game's moves file"]
        );
        let dir = tempfile::tempdir().unwrap();
        let at_limit = dir.path().join("at-limit.txt");
        let game = b"T\nX: A O: B\n\nX 1\nO 4\nX 2\nO 5\nX 3\n";
        let mut bytes = game.to_vec();
        bytes.resize(usize::try_from(MAX_MOVES_FILE).unwrap(), b'\n');
        fs::write(&at_limit, &bytes).unwrap();
        let (status, seen) = problem(at_limit.to_str().unwrap());
        assert_eq!((status, seen.len()), (Status::Reported, 0), "{seen:?}");
    }

    #[test]
    fn standard_input_is_read_for_the_input_named_dash() {
        let game = b"T\nX: A O: B\n\nX 1\nO 4\nX 2\nO 5\nX 3\n";
        let mut report = Vec::new();
        let status = run(
            &job(&["-"], None, None),
            &mut &game[..],
            &mut report,
            &mut |e| panic!("{e}"),
        )
        .unwrap();
        assert_eq!(status, Status::Reported);
        let text = String::from_utf8(report).unwrap();
        assert!(text.ends_with("Winner: X\n"), "{text}");
        // Its problems name it as such, and it has no name in a directory.
        let mut seen = Vec::new();
        let status = run(
            &job(&["-"], None, None),
            &mut &b"T\n"[..],
            &mut Vec::new(),
            &mut |e| {
                seen.push(e.to_string());
            },
        )
        .unwrap();
        assert_eq!(status, Status::BadInput);
        assert!(seen[0].starts_with("standard input: "), "{seen:?}");
        assert!(matches!(
            Plan::new(&job(&["a.txt", "-"], None, Some("out"))).map(|p| p.files),
            Err(UsageError::StdinInDirectory)
        ));
    }

    #[test]
    fn a_report_directory_that_is_a_file_is_named_as_such() {
        let dir = tempfile::tempdir().unwrap();
        let moves = dir.path().join("moves.txt");
        fs::write(&moves, b"T\nX: A O: B\n\nX 1\nO 4\nX 2\nO 5\nX 3\n").unwrap();
        let file = dir.path().join("file");
        fs::write(&file, b"").unwrap();
        let mut seen = Vec::new();
        let job = job(&[moves.to_str().unwrap()], None, file.to_str());
        let status = run(&job, &mut io::empty(), &mut Vec::new(), &mut |e| {
            seen.push(e.to_string());
        })
        .unwrap();
        assert_eq!(status, Status::Io);
        assert_eq!(
            seen,
            [format!(
                "{}: cannot create the directory: it is a file, not a directory",
                file.display()
            )]
        );
    }
}
