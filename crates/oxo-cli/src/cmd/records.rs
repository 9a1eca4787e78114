//! `oxo arena --records FILE` and `--psq DIR`: every game finished, kept
//! as the arena hands it on (in the order played, from the thread that collects
//! the results, so no game waits for a file).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use oxo_ai::arena::Played;
use oxo_cli::render;

/// Where the games go: the JSON Lines file, the `.psq` folder, either or
/// both, or neither. A write that fails stops that kind of record, not
/// the other.
pub(super) struct Recorder {
    lines: Option<Lines>,
    psq: Option<Psq>,
}

/// `--records`: its path, and the file once the first game comes (or the
/// run ends), so that a run refused as it starts (an opening that cannot
/// be found, say) leaves whatever was there. Each game is one write of a
/// whole line, unbuffered, so that a run ended at once by a second signal
/// keeps the games handed on before it; a write that fails is cut back to
/// the last whole line.
struct Lines {
    path: PathBuf,
    file: Option<File>,
    /// Bytes of whole lines written.
    written: u64,
    failed: Option<anyhow::Error>,
}

/// `--psq`: the folder, the digits of a file's number, and the first
/// write that failed.
struct Psq {
    dir: PathBuf,
    digits: usize,
    failed: Option<anyhow::Error>,
}

impl Recorder {
    /// Open the records of a run of `games` games, before the first: the
    /// file checked, the folder made if missing and refused if it holds
    /// `.psq` files already (an earlier run's games would pass for this
    /// one's). Each failing is a file that cannot be written (exit 1).
    pub(super) fn open(
        lines: Option<&Path>,
        psq: Option<&Path>,
        games: u64,
    ) -> anyhow::Result<Recorder> {
        let lines = lines
            .map(|path| {
                super::check_writable(path)?;
                anyhow::Ok(Lines {
                    path: path.to_owned(),
                    file: None,
                    written: 0,
                    failed: None,
                })
            })
            .transpose()?;
        let psq = psq
            .map(|dir| {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot make the folder {}", dir.display()))?;
                let held = std::fs::read_dir(dir)
                    .with_context(|| format!("cannot read the folder {}", dir.display()))?
                    .filter_map(Result::ok)
                    .any(|entry| entry.path().extension().is_some_and(|e| e == "psq"));
                if held {
                    anyhow::bail!(
                        "{} holds .psq files already (another run's games?): give an empty or new folder",
                        dir.display()
                    );
                }
                let digits = games.to_string().len().max(4);
                super::check_writable(&dir.join(psq_name(0, digits)))?;
                anyhow::Ok(Psq {
                    dir: dir.to_owned(),
                    digits,
                    failed: None,
                })
            })
            .transpose()?;
        Ok(Recorder { lines, psq })
    }

    /// Whether any record is kept.
    pub(super) const fn keeps(&self) -> bool {
        self.lines.is_some() || self.psq.is_some()
    }

    /// Keep `game`, in each kind of record whose writes have not failed.
    pub(super) fn record(&mut self, game: &Played) {
        if let Some(lines) = &mut self.lines
            && lines.failed.is_none()
            && let Err(err) = lines.write(game)
        {
            lines.failed = Some(err);
        }
        if let Some(psq) = &mut self.psq
            && psq.failed.is_none()
        {
            let path = psq.dir.join(psq_name(game.index, psq.digits));
            if let Err(err) = super::write_file(&path, oxo_gomocup::psq::write(game).as_bytes()) {
                psq.failed = Some(err);
            }
        }
    }

    /// Done: the file made if no game came, and the writes that failed,
    /// if any did (both, when both kinds failed).
    pub(super) fn finish(self) -> anyhow::Result<()> {
        let mut failures = Vec::new();
        if let Some(mut lines) = self.lines {
            if lines.failed.is_none()
                && let Err(err) = lines.opened()
            {
                lines.failed = Some(err);
            }
            failures.extend(lines.failed);
        }
        failures.extend(self.psq.and_then(|psq| psq.failed));
        match failures.len() {
            0 => Ok(()),
            1 => Err(failures.remove(0)),
            _ => Err(anyhow::anyhow!("{:#}; and {:#}", failures[0], failures[1])),
        }
    }
}

impl Lines {
    /// The file, made empty the first time.
    fn opened(&mut self) -> anyhow::Result<&mut File> {
        if self.file.is_none() {
            let made = File::create(&self.path)
                .with_context(|| format!("cannot write {}", self.path.display()))?;
            self.file = Some(made);
        }
        Ok(self.file.as_mut().expect("made above"))
    }

    /// `game` as a line; on failure, the file cut back to its whole lines.
    fn write(&mut self, game: &Played) -> anyhow::Result<()> {
        let line = format!("{}\n", render::arena::record(game));
        let written = self.written;
        let path = self.path.clone();
        let file = self.opened()?;
        if let Err(err) = file.write_all(line.as_bytes()) {
            let _ = file.set_len(written);
            return Err(err).with_context(|| format!("cannot write {}", path.display()));
        }
        self.written += line.len() as u64;
        Ok(())
    }
}

/// The `.psq` file of game `index`, numbered from 1 with `digits` digits.
fn psq_name(index: u64, digits: usize) -> String {
    format!("{:0digits$}.psq", index + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn psq_files_are_numbered_from_one() {
        assert_eq!(psq_name(0, 4), "0001.psq");
        assert_eq!(psq_name(41, 6), "000042.psq");
        // A run of 100,000 games has six digits for its last.
        assert_eq!(psq_name(99_999, 6), "100000.psq");
    }
}
