//! Checkpoint files: a plan with every answer so far, written whole after
//! each job (a temp file renamed over the old one, so a stop at any moment
//! leaves the previous or the next checkpoint, never half of one).
//!
//! The format: the line `oxo-campaign 1`, the line `sha256 HEX` (the
//! digest of what follows), then the plan as JSON. A file that is not a
//! checkpoint, of another version, damaged (the digest does not match, or
//! the plan does not hold together) or for another board or position is
//! refused with a [`CheckpointError`] that says which.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use oxo_core::Game;
use sha2::{Digest, Sha256};

use crate::output::OutputFile;
use crate::plan::Plan;

/// The first line of every checkpoint: the format and its version.
pub const MAGIC: &str = "oxo-campaign 1";

/// Why a checkpoint cannot be written or is refused.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// Not a checkpoint at all.
    #[error("{}: not an oxo campaign checkpoint (it must begin with the line `{MAGIC}`)", path.display())]
    Foreign {
        /// The file.
        path: PathBuf,
    },
    /// A checkpoint of a version this program does not read.
    #[error("{}: unsupported checkpoint version `{found}` (this program reads `{MAGIC}`)", path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// Its first line.
        found: String,
    },
    /// A checkpoint whose contents do not hold.
    #[error("{}: damaged checkpoint: {reason}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A checkpoint of another proof.
    #[error("{}: the checkpoint is for {found}, not {asked}", path.display())]
    Other {
        /// The file.
        path: PathBuf,
        /// The board and position it holds.
        found: String,
        /// The board and position asked for.
        asked: String,
    },
    /// Another run holds the checkpoint's lock file.
    #[error(
        "{}: another run is using this checkpoint (it holds {})",
        path.display(),
        lock.display()
    )]
    Locked {
        /// The checkpoint.
        path: PathBuf,
        /// Its lock file.
        lock: PathBuf,
    },
}

/// A run's hold on a checkpoint: an advisory lock (`flock`) on the file
/// `CHECKPOINT.lock`, held while this lives. Two runs on one checkpoint
/// would overwrite each other's answers (and race for its temp file); the
/// second is refused instead. The operating system lets go of the lock
/// however the run ends (a crash, `kill -9`, a lost ssh session), so a
/// dead run never holds it. The file itself stays: removing it could let
/// a run waiting on the old file and one making a new file both go on.
#[derive(Debug)]
pub struct Lock {
    path: PathBuf,
    _file: std::fs::File,
}

impl Lock {
    /// Take the lock of the checkpoint at `path`.
    ///
    /// # Errors
    /// [`CheckpointError::Locked`] if another run holds it;
    /// [`CheckpointError::Io`] if the lock file cannot be made.
    pub fn take(path: &Path) -> Result<Lock, CheckpointError> {
        let lock = beside(path, ".lock");
        let io = |source| CheckpointError::Io {
            path: lock.clone(),
            source,
        };
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(CheckpointError::Locked {
                    path: path.to_owned(),
                    lock,
                });
            }
            Err(std::fs::TryLockError::Error(source)) => return Err(io(source)),
        }
        // Which process holds it, for a person looking.
        let _ = file
            .set_len(0)
            .and_then(|()| writeln!(file, "{}", std::process::id()));
        Ok(Lock {
            path: lock,
            _file: file,
        })
    }

    /// The lock file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// `path` with `suffix` added to its file name.
fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn describe(game: &Game) -> String {
    format!("{} position {game}", game.rules())
}

/// The checkpoint's text for `plan`.
#[must_use]
pub fn to_text(plan: &Plan) -> String {
    let body = serde_json::to_string(plan).expect("a plan serializes");
    let digest = Sha256::digest(body.as_bytes());
    let mut out = format!("{MAGIC}\nsha256 ");
    for byte in digest {
        let _ = write!(out, "{byte:02x}");
    }
    out.push('\n');
    out.push_str(&body);
    out.push('\n');
    out
}

/// Write `plan` to `path` whole ([`OutputFile`]:
/// a new temp file beside it, flushed to disk, then renamed over it); if
/// any step fails, `path` is left as it was.
///
/// # Errors
/// The file could not be written.
pub fn save(path: &Path, plan: &Plan) -> Result<(), CheckpointError> {
    let io = |source| CheckpointError::Io {
        path: path.to_owned(),
        source,
    };
    let mut file = OutputFile::create(path).map_err(|e| io(e.source))?;
    file.write_all(to_text(plan).as_bytes()).map_err(io)?;
    file.commit().map_err(|e| io(e.source))
}

/// Read the checkpoint at `path`.
///
/// # Errors
/// The file cannot be read, is not a checkpoint, is of another version or
/// is damaged.
pub fn load(path: &Path) -> Result<Plan, CheckpointError> {
    let bytes = std::fs::read(path).map_err(|source| CheckpointError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse(path, &bytes)
}

/// A checkpoint's plan from its bytes (`path` names it in errors).
///
/// # Errors
/// As [`load`], but for reading.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Plan, CheckpointError> {
    let damaged = |reason: &str| CheckpointError::Damaged {
        path: path.to_owned(),
        reason: reason.to_owned(),
    };
    let text = std::str::from_utf8(bytes).map_err(|_| CheckpointError::Foreign {
        path: path.to_owned(),
    })?;
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    if first.strip_suffix('\r') == Some(MAGIC) {
        return Err(damaged(
            "its line endings were changed to CRLF; restore the file as oxo wrote it",
        ));
    }
    if first != MAGIC {
        return Err(if first.starts_with("oxo-campaign ") {
            CheckpointError::Version {
                path: path.to_owned(),
                found: first.chars().take(40).collect(),
            }
        } else {
            CheckpointError::Foreign {
                path: path.to_owned(),
            }
        });
    }
    let (digest_line, body) = rest
        .split_once('\n')
        .ok_or_else(|| damaged("it ends after its first line"))?;
    let body = body.strip_suffix('\n').unwrap_or(body);
    let digest = Sha256::digest(body.as_bytes());
    let mut hex = String::new();
    for byte in digest {
        let _ = write!(hex, "{byte:02x}");
    }
    if digest_line.strip_prefix("sha256 ") != Some(hex.as_str()) {
        return Err(damaged(
            "its digest does not match its contents (truncated or altered)",
        ));
    }
    let plan: Plan = serde_json::from_str(body).map_err(|e| damaged(&e.to_string()))?;
    plan.check().map_err(|e| damaged(&e.to_string()))?;
    Ok(plan)
}

/// Refuse a checkpoint's plan for another proof than `game`'s.
///
/// # Errors
/// [`CheckpointError::Other`], naming both.
pub fn check_for(path: &Path, plan: &Plan, game: &Game) -> Result<(), CheckpointError> {
    let found = plan.game();
    if found.rules() == game.rules() && found.to_string() == game.to_string() {
        Ok(())
    } else {
        Err(CheckpointError::Other {
            path: path.to_owned(),
            found: describe(&found),
            asked: describe(game),
        })
    }
}

#[cfg(test)]
mod tests {
    use oxo_core::Rules;

    use super::*;

    fn plan() -> Plan {
        Plan::new(&Game::new(Rules::new(4, 4, 3).unwrap()), 2)
    }

    #[test]
    fn a_checkpoint_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c");
        let plan = plan();
        save(&path, &plan).unwrap();
        let back = load(&path).unwrap();
        assert_eq!(back.progress(), plan.progress());
        check_for(&path, &back, &plan.game()).unwrap();
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["c"]);
    }

    /// A file already there under a temp file's likely name is not the
    /// temp file: it is left as it was.
    #[test]
    fn saving_leaves_other_files_beside_it_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c");
        let theirs = dir.path().join("c.tmp");
        std::fs::write(&theirs, "someone's notes\n").unwrap();
        save(&path, &plan()).unwrap();
        save(&path, &plan()).unwrap();
        assert_eq!(
            std::fs::read_to_string(&theirs).unwrap(),
            "someone's notes\n"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn a_second_run_is_refused_while_the_first_holds_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c");
        let first = Lock::take(&path).unwrap();
        assert_eq!(first.path(), dir.path().join("c.lock"));
        let refused = Lock::take(&path).unwrap_err();
        assert!(
            matches!(refused, CheckpointError::Locked { .. }),
            "{refused:?}"
        );
        let text = refused.to_string();
        assert!(
            text.contains("another run is using this checkpoint"),
            "{text}"
        );
        assert!(text.contains(&first.path().display().to_string()), "{text}");
        // Let go (as when a run ends, however it ends): the next takes it,
        // though the file stays.
        drop(first);
        assert!(dir.path().join("c.lock").exists());
        drop(Lock::take(&path).unwrap());
    }

    #[test]
    fn damaged_foreign_and_other_files_are_refused() {
        let path = Path::new("c");
        let text = to_text(&plan());
        let refuse = |bytes: &[u8]| parse(path, bytes).unwrap_err().to_string();
        assert!(refuse(b"hello\n").contains("not an oxo campaign checkpoint"));
        assert!(refuse(b"oxo-campaign 9\n").contains("unsupported checkpoint version"));
        assert!(refuse(&text.as_bytes()[..text.len() / 2]).contains("damaged checkpoint"));
        let altered = text.replacen("\"split\":2", "\"split\":3", 1);
        assert_ne!(altered, text);
        assert!(refuse(altered.as_bytes()).contains("digest does not match"));
        // Line endings changed on the way (an editor, a transfer in text
        // mode): damage, not another version.
        let crlf = text.replace('\n', "\r\n");
        let said = refuse(crlf.as_bytes());
        assert!(
            said.contains("damaged checkpoint") && said.contains("CRLF"),
            "{said}"
        );
        let other = Game::new(Rules::new(4, 4, 4).unwrap());
        let err = check_for(path, &plan(), &other).unwrap_err().to_string();
        assert_eq!(
            err,
            "c: the checkpoint is for 4x4 k=3 position ..../..../..../...., \
             not 4x4 k=4 position ..../..../..../...."
        );
    }
}
