//! `oxo arena --records FILE` and `--psq DIR`: every game finished, kept
//! as the arena hands it on (in game order, from the thread that collects
//! the results, so no game waits for a file).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use oxo_ai::arena::Played;
use oxo_cli::render;

/// Where the games go: the JSON Lines file, the `.psq` folder, either or
/// both, or neither.
pub(super) struct Recorder {
    /// `--records`: its path, and the file once the first game comes (or
    /// the run ends), so that a run refused as it starts (an opening that
    /// cannot be found, say) leaves whatever was there; each game a line
    /// flushed as it comes, so that a run ended at once by a second signal
    /// keeps the games handed on before it.
    lines: Option<(PathBuf, Option<BufWriter<File>>)>,
    /// `--psq`: the folder, and the digits of a file's number.
    psq: Option<(PathBuf, usize)>,
    /// The first write that failed; nothing is written after it.
    failed: Option<anyhow::Error>,
}

impl Recorder {
    /// Open the records of a run of `games` games, before the first: the
    /// file checked, the folder made if missing. Either failing is a file
    /// that cannot be written (exit 1).
    pub(super) fn open(
        lines: Option<&Path>,
        psq: Option<&Path>,
        games: u64,
    ) -> anyhow::Result<Recorder> {
        let lines = lines
            .map(|path| {
                super::check_writable(path)?;
                anyhow::Ok((path.to_owned(), None))
            })
            .transpose()?;
        let psq = psq
            .map(|dir| {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot make the folder {}", dir.display()))?;
                let digits = games.to_string().len().max(4);
                super::check_writable(&dir.join(psq_name(0, digits)))?;
                anyhow::Ok((dir.to_owned(), digits))
            })
            .transpose()?;
        Ok(Recorder {
            lines,
            psq,
            failed: None,
        })
    }

    /// Whether any record is kept.
    pub(super) const fn keeps(&self) -> bool {
        self.lines.is_some() || self.psq.is_some()
    }

    /// Keep `game`, unless a write failed before.
    pub(super) fn record(&mut self, game: &Played) {
        if self.failed.is_none()
            && let Err(err) = self.write(game)
        {
            self.failed = Some(err);
        }
    }

    fn write(&mut self, game: &Played) -> anyhow::Result<()> {
        if let Some((path, file)) = &mut self.lines {
            let file = opened(path, file)?;
            writeln!(file, "{}", render::arena::record(game))
                .and_then(|()| file.flush())
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        if let Some((dir, digits)) = &self.psq {
            let path = dir.join(psq_name(game.index, *digits));
            std::fs::write(&path, oxo_gomocup::psq::write(game))
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    }

    /// Done: the file made if no game came, and the first write that
    /// failed, if one did.
    pub(super) fn finish(mut self) -> anyhow::Result<()> {
        if let (None, Some((path, file))) = (&self.failed, &mut self.lines) {
            opened(path, file)?;
        }
        self.failed.map_or(Ok(()), Err)
    }
}

/// The file at `path`, made empty the first time.
fn opened<'a>(
    path: &Path,
    file: &'a mut Option<BufWriter<File>>,
) -> anyhow::Result<&'a mut BufWriter<File>> {
    if file.is_none() {
        let made =
            File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
        *file = Some(BufWriter::new(made));
    }
    Ok(file.as_mut().expect("made above"))
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
