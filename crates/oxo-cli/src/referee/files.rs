//! The file work of `oxo referee`: which reports go where, checked before
//! anything is read, and each report written whole with a rename.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{Options, RefereeError, report};
use crate::exit;

/// What `oxo referee` was asked to do.
#[derive(Clone, Debug)]
pub struct Job {
    /// Moves files.
    pub inputs: Vec<PathBuf>,
    /// `-o`: the report file for a single input.
    pub output: Option<PathBuf>,
    /// `--out-dir`: a directory for one report per input.
    pub out_dir: Option<PathBuf>,
    /// Header lines.
    pub options: Options,
}

/// Run `job`: referee each input and write its report. Problems go to
/// `stderr` as `oxo referee: ...` lines.
///
/// Returns the exit code: [`exit::SUCCESS`]; [`exit::BAD_INPUT`] for bad
/// usage (found before any file is read) or if any moves file was bad;
/// otherwise [`exit::IO_ERROR`] if any file could not be read or written.
pub fn run(job: &Job, stdout: &mut dyn Write, stderr: &mut dyn Write) -> u8 {
    let plan = match Plan::new(job) {
        Ok(plan) => plan,
        Err(message) => {
            let _ = writeln!(stderr, "oxo referee: {message}");
            return exit::BAD_INPUT;
        }
    };
    let mut code = exit::SUCCESS;
    for (input, destination) in &plan.files {
        match referee_file(input, destination, plan.out_dir, &job.options, stdout) {
            Ok(()) => {}
            // The reader has seen enough: not an error (and there is only
            // one report on stdout).
            Err(FileError::Stdout(err)) if err.kind() == io::ErrorKind::BrokenPipe => break,
            Err(err) => {
                let _ = writeln!(stderr, "oxo referee: {err}");
                code = worse(code, err.exit_code());
            }
        }
    }
    code
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
    /// Check `job` before any work; the error is the usage message.
    fn new(job: &'a Job) -> Result<Plan<'a>, String> {
        let inputs = &job.inputs;
        let files: Vec<(&Path, Destination)> = match (&job.output, &job.out_dir) {
            _ if inputs.is_empty() => return Err("no moves file given".to_owned()),
            (Some(_), Some(_)) => return Err("-o and --out-dir cannot be used together".into()),
            (Some(output), None) => match inputs.as_slice() {
                [input] => vec![(input.as_path(), Destination::File(output.clone()))],
                _ => {
                    return Err(format!(
                        "-o writes one report but {} moves files were given: \
                         use --out-dir DIR for one report per file",
                        inputs.len()
                    ));
                }
            },
            (None, None) => match inputs.as_slice() {
                [input] => vec![(input.as_path(), Destination::Stdout)],
                _ => {
                    return Err(format!(
                        "{} moves files were given but standard output takes one report: \
                         use --out-dir DIR for one report per file",
                        inputs.len()
                    ));
                }
            },
            (None, Some(dir)) => {
                let mut names: HashMap<&OsStr, &Path> = HashMap::new();
                let mut files = Vec::with_capacity(inputs.len());
                for input in inputs {
                    let Some(name) = input.file_name() else {
                        return Err(format!(
                            "{}: not a file name to name a report after",
                            input.display()
                        ));
                    };
                    if let Some(earlier) = names.insert(name, input) {
                        return Err(format!(
                            "{} and {} would both be reported in {}: \
                             moves files in one run need different names",
                            earlier.display(),
                            input.display(),
                            dir.join(name).display()
                        ));
                    }
                    files.push((input.as_path(), Destination::File(dir.join(name))));
                }
                files
            }
        };
        for (input, destination) in &files {
            if let Destination::File(report) = destination
                && same_file(input, report)
            {
                return Err(format!(
                    "{}: the report would overwrite its own moves file",
                    input.display()
                ));
            }
        }
        Ok(Plan {
            out_dir: job.out_dir.as_deref(),
            files,
        })
    }
}

/// Whether both paths name one existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Why one input got no report.
#[derive(Debug)]
enum FileError {
    Read(PathBuf, io::Error),
    Content(PathBuf, RefereeError),
    CreateDir(PathBuf, io::Error),
    Write(PathBuf, io::Error),
    Stdout(io::Error),
}

impl FileError {
    const fn exit_code(&self) -> u8 {
        match self {
            FileError::Content(..) => exit::BAD_INPUT,
            FileError::Read(..)
            | FileError::CreateDir(..)
            | FileError::Write(..)
            | FileError::Stdout(..) => exit::IO_ERROR,
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Read(path, err) => write!(f, "{}: cannot read: {err}", path.display()),
            FileError::Content(path, err) => write!(f, "{}: {err}", path.display()),
            FileError::CreateDir(path, err) => {
                write!(f, "{}: cannot create the directory: {err}", path.display())
            }
            FileError::Write(path, err) => write!(f, "{}: cannot write: {err}", path.display()),
            FileError::Stdout(err) => write!(f, "cannot write to standard output: {err}"),
        }
    }
}

/// Bad content outranks I/O trouble, which outranks success.
const fn worse(a: u8, b: u8) -> u8 {
    if a == exit::BAD_INPUT || b == exit::BAD_INPUT {
        exit::BAD_INPUT
    } else if a == exit::IO_ERROR || b == exit::IO_ERROR {
        exit::IO_ERROR
    } else {
        exit::SUCCESS
    }
}

/// Referee one file and write its report, all or nothing.
fn referee_file(
    input: &Path,
    destination: &Destination,
    out_dir: Option<&Path>,
    options: &Options,
    stdout: &mut dyn Write,
) -> Result<(), FileError> {
    let bytes = fs::read(input).map_err(|err| FileError::Read(input.to_owned(), err))?;
    let text = report(&bytes, options).map_err(|err| FileError::Content(input.to_owned(), err))?;
    match destination {
        Destination::Stdout => stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(FileError::Stdout),
        Destination::File(path) => {
            if let Some(dir) = out_dir {
                fs::create_dir_all(dir).map_err(|err| FileError::CreateDir(dir.to_owned(), err))?;
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
    fn exit_codes_combine_by_severity() {
        use exit::{BAD_INPUT, IO_ERROR, SUCCESS};
        assert_eq!(worse(SUCCESS, SUCCESS), SUCCESS);
        assert_eq!(worse(SUCCESS, IO_ERROR), IO_ERROR);
        assert_eq!(worse(BAD_INPUT, IO_ERROR), BAD_INPUT);
        assert_eq!(worse(IO_ERROR, BAD_INPUT), BAD_INPUT);
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
        assert!(usage(&job(&["a", "b"], None, None)).contains("--out-dir"));
        assert!(usage(&job(&["a", "b"], Some("r"), None)).contains("--out-dir"));
        assert!(usage(&job(&[], None, None)).contains("no moves file"));
        assert!(
            usage(&job(&["x/a.txt", "y/a.txt"], None, Some("out"))).contains("different names")
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
    }
}
