//! Files written whole: a checkpoint, a certificate, a table, a model, a
//! plot. A write that fails or is stopped part way must leave whatever was
//! at the path as it was, so the bytes go to a new temporary file beside
//! it, renamed over it only once they are all on disk.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A file written whole ([`OutputFile::create`], then
/// [`OutputFile::commit`]).
///
/// Dropping an uncommitted `OutputFile` removes only the temporary file it
/// made. A path to a symbolic link replaces the file the link points to
/// and keeps the link. A path that exists but is not a regular file
/// (`/dev/null`, a named pipe) is written in place, and never replaced or
/// removed. A file with other hard links is replaced by a new file of its
/// own (the links keep the old contents).
#[derive(Debug)]
pub struct OutputFile {
    /// The path as given, for messages.
    path: PathBuf,
    /// Where the bytes go: the temporary file, or the file itself.
    file: File,
    /// The temporary file and the file it is to replace; `None` once
    /// renamed, or when writing in place.
    replace: Option<(PathBuf, PathBuf)>,
}

/// A file that could not be written, and why.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}", path.display())]
pub struct WriteError {
    /// The path as given.
    pub path: PathBuf,
    /// What the system said.
    #[source]
    pub source: io::Error,
}

impl OutputFile {
    /// Start writing `path`.
    ///
    /// # Errors
    /// The file cannot be written: a file there that this process may not
    /// write, or no temporary file can be made beside it.
    pub fn create(path: &Path) -> Result<OutputFile, WriteError> {
        let cannot = |source| WriteError {
            path: path.to_owned(),
            source,
        };
        let existing = std::fs::metadata(path).ok();
        if existing.as_ref().is_some_and(|m| !m.is_file()) {
            let file = OpenOptions::new().write(true).open(path).map_err(cannot)?;
            return Ok(OutputFile {
                path: path.to_owned(),
                file,
                replace: None,
            });
        }
        // Through a symbolic link, the file it points to; one that is
        // there is replaced only by whoever may write it, as writing it in
        // place would ask (its directory's permission alone would let
        // anyone who may make files there replace it).
        let target = if existing.is_some() {
            OpenOptions::new().write(true).open(path).map_err(cannot)?;
            std::fs::canonicalize(path).map_err(cannot)?
        } else {
            path.to_owned()
        };
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let name = target.file_name().unwrap_or(target.as_os_str());
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        // The mode a new file gets from `File::create` (less the umask), or
        // the mode of the file it replaces.
        #[cfg(unix)]
        {
            use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
            options.mode(existing.map_or(0o666, |m| m.permissions().mode() & 0o777));
        }
        // A name no other file has: made anew (`create_new`), never one
        // that is there already, whoever made it.
        static MADE: AtomicU64 = AtomicU64::new(0);
        loop {
            let n = MADE.fetch_add(1, Ordering::Relaxed);
            let mut temp_name = std::ffi::OsString::from(".");
            temp_name.push(name);
            temp_name.push(format!(".{}.{n}.tmp", std::process::id()));
            let temp = dir.join(temp_name);
            match options.open(&temp) {
                Ok(file) => {
                    return Ok(OutputFile {
                        path: path.to_owned(),
                        file,
                        replace: Some((temp, target)),
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && n < 1000 => {}
                Err(e) => return Err(cannot(e)),
            }
        }
    }

    /// Finish: the bytes are on disk, then in place of the file.
    ///
    /// # Errors
    /// The bytes could not be flushed to disk or the file renamed; what
    /// was at the path is then as it was.
    pub fn commit(mut self) -> Result<(), WriteError> {
        let cannot = |source| WriteError {
            path: self.path.clone(),
            source,
        };
        self.file.flush().map_err(cannot)?;
        if let Some((temp, target)) = &self.replace {
            self.file.sync_all().map_err(cannot)?;
            std::fs::rename(temp, target).map_err(cannot)?;
            self.replace = None;
        }
        Ok(())
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if let Some((temp, _)) = &self.replace {
            let _ = std::fs::remove_file(temp);
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.file.write_vectored(bufs)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Committed, the file holds the bytes and nothing else is left in
    /// its directory; dropped uncommitted, what was there stays.
    #[test]
    fn a_file_is_replaced_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "old\n").unwrap();
        let mut file = OutputFile::create(&path).unwrap();
        file.write_all(b"half").unwrap();
        drop(file);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
        let mut file = OutputFile::create(&path).unwrap();
        file.write_all(b"new\n").unwrap();
        file.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
