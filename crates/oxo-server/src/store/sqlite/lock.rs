//! One store to a database file: an advisory lock on `<file>.lock`.
//!
//! The lock is an `flock` on the lock file's open file description, so the
//! operating system releases it when the process dies, even by SIGKILL. Its
//! one trap is a child process: a child started while a store is open gets
//! a copy of every descriptor and keeps it until it `exec`s (when the
//! close-on-exec ones go). A store of this process dropped in that window
//! leaves the lock held for a moment by a descriptor nobody here owns, and
//! opening the file again would be refused as in use by this very process.
//!
//! So this process also keeps its own count of the lock files its stores
//! hold ([`HELD`]). A lock held elsewhere whose file names this process,
//! while none of this process's stores holds it, is such a copy: it is waited
//! for (it goes when the child `exec`s) rather than refused. A lock a store
//! of this process holds is refused at once, as is one held by any other
//! process.

use std::collections::HashMap;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read as _, Seek as _, Write};
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::store::StoreError;

/// The lock files this process's stores hold, each with how many guards
/// hold it: one, as the lock is exclusive, but counted so that a guard's
/// drop takes out its own and never another's.
static HELD: LazyLock<Mutex<HashMap<Key, usize>>> = LazyLock::new(Mutex::default);

/// A lock file, as the lock knows it: the file its descriptor has open
/// (where the platform says which), not a name it may have lost.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// Device and inode.
    #[cfg(unix)]
    Inode(u64, u64),
    /// The canonical path, where the platform does not say (or the
    /// descriptor's metadata cannot be read).
    Path(PathBuf),
}

impl Key {
    fn of(file: &File, path: &Path) -> Key {
        #[cfg(unix)]
        if let Ok(meta) = file.metadata() {
            use std::os::unix::fs::MetadataExt as _;
            return Key::Inode(meta.dev(), meta.ino());
        }
        #[cfg(not(unix))]
        let _ = file;
        Key::Path(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned()))
    }
}

/// How long a lock left with a child process is waited for before the file
/// is reported in use: a child `exec`s within milliseconds, so this is
/// reached only if something else holds it under this process's id.
const CHILD_WAIT: Duration = Duration::from_secs(10);

/// How often a lock left with a child process is tried again.
const CHILD_POLL: Duration = Duration::from_millis(2);

/// The lock file of the database file `path`: `PATH.lock`.
pub(super) fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// A held lock on a database's lock file; dropping it releases the lock.
#[derive(Debug)]
pub(super) struct Held {
    /// The lock file, locked and holding this process's id.
    file: File,
    /// Its key in [`HELD`].
    key: Key,
}

impl Drop for Held {
    fn drop(&mut self) {
        // Taken out of the count before the file closes (after this body):
        // an opener in between finds the lock held but not counted, and
        // waits the moment it takes to close.
        let mut held = held();
        if let Some(count) = held.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.key);
            }
        }
    }
}

fn held() -> MutexGuard<'static, HashMap<Key, usize>> {
    // The map stays whole if a thread panicked while holding it: every
    // change to it is one step.
    HELD.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Lock the file beside the database at `path` (named `given` in errors)
/// for a store, and write this process's id into it; `None` for a private
/// database, which no other store can open.
pub(super) fn lock(path: &Path, given: &Path) -> Result<Option<Held>, StoreError> {
    let deadline = Instant::now() + CHILD_WAIT;
    lock_waiting(path, given, || {
        std::thread::sleep(CHILD_POLL);
        Instant::now() < deadline
    })
}

/// [`lock`], calling `wait` before each new try while the lock is held by a
/// copy of a descriptor this process closed; `wait` answers whether to try
/// again (`false`: report the file in use).
fn lock_waiting(
    path: &Path,
    given: &Path,
    mut wait: impl FnMut() -> bool,
) -> Result<Option<Held>, StoreError> {
    if path.as_os_str().is_empty() || path == Path::new(":memory:") {
        return Ok(None);
    }
    let lock_path = lock_path(path);
    let failed = |source: io::Error| StoreError::Lock {
        path: lock_path.clone(),
        source,
    };
    // Not truncated on opening: while another process holds the lock, the
    // file holds its id.
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(failed)?;
    let key = Key::of(&file, &lock_path);
    let me = std::process::id();
    loop {
        // Taking the lock and counting it are one step for this process
        // (and a guard's drop uncounts it under the same mutex before its
        // file closes), so another opener never sees a lock of this
        // process's stores uncounted.
        let mut held = held();
        match file.try_lock() {
            Ok(()) => {
                *held.entry(key.clone()).or_default() += 1;
                drop(held);
                let locked = Held { file, key };
                let mut file = &locked.file;
                // From the start: a wait read the file to its end.
                file.set_len(0).map_err(failed)?;
                file.rewind().map_err(failed)?;
                writeln!(file, "{me}").map_err(failed)?;
                return Ok(Some(locked));
            }
            Err(TryLockError::WouldBlock) => {
                // Empty (so `None`) if the other process has not written it
                // yet; read from the start, as it is read again after a wait.
                let pid = read_pid(&file);
                let left_with_a_child = pid == Some(me) && !held.contains_key(&key);
                drop(held);
                if !(left_with_a_child && wait()) {
                    return Err(StoreError::InUse {
                        path: given.to_owned(),
                        pid,
                    });
                }
            }
            Err(TryLockError::Error(e)) => return Err(failed(e)),
        }
    }
}

/// The process id a lock file holds, if it holds one.
fn read_pid(file: &File) -> Option<u32> {
    let mut file = file;
    file.rewind().ok()?;
    let mut text = String::new();
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database in `dir` whose lock a store of this process took and let
    /// go while a child it started still holds it: the path, and the
    /// child's copy of the descriptor (what a child holds until it execs,
    /// sharing the lock).
    fn left_with_a_child(dir: &Path) -> (PathBuf, File) {
        let path = dir.join("oxo.db");
        let first = lock(&path, &path).unwrap().unwrap();
        let child = first.file.try_clone().unwrap();
        drop(first);
        (path, child)
    }

    #[test]
    fn a_lock_left_with_a_child_process_is_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let (path, child) = left_with_a_child(dir.path());
        let mut child = Some(child);
        let mut waits = 0;
        let again = lock_waiting(&path, &path, || {
            waits += 1;
            // The child execs: its copy goes. (A real child another test
            // starts meanwhile may make it wait again.)
            child = None;
            true
        })
        .unwrap();
        assert!(again.is_some());
        assert!(waits >= 1, "waited for the child's copy, then took it");
        assert!(child.is_none());
        assert_eq!(
            std::fs::read_to_string(lock_path(&path)).unwrap(),
            format!("{}\n", std::process::id())
        );
    }

    #[test]
    fn a_lock_held_by_this_processs_store_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oxo.db");
        let first = lock(&path, &path).unwrap().unwrap();
        let err = lock_waiting(&path, &path, || panic!("waited")).unwrap_err();
        assert!(
            matches!(err, StoreError::InUse { pid: Some(pid), .. } if pid == std::process::id()),
            "{err}"
        );
        drop(first);
        // A child another test starts may hold a copy for a moment: the
        // real wait.
        assert!(lock(&path, &path).unwrap().is_some());
    }

    #[test]
    fn a_child_that_keeps_the_lock_leaves_the_file_in_use() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _child) = left_with_a_child(dir.path());
        let mut waits = 0;
        let err = lock_waiting(&path, &path, || {
            waits += 1;
            waits < 3
        })
        .unwrap_err();
        assert!(matches!(err, StoreError::InUse { .. }), "{err}");
        assert_eq!(waits, 3);
    }

    #[test]
    fn a_lock_file_naming_another_process_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let (path, child) = left_with_a_child(dir.path());
        // As if another process held it: its id in the file.
        let other = std::process::id() + 1;
        child.set_len(0).unwrap();
        (&child).rewind().unwrap();
        (&child).write_all(format!("{other}\n").as_bytes()).unwrap();
        let err = lock_waiting(&path, &path, || panic!("waited")).unwrap_err();
        assert!(
            matches!(err, StoreError::InUse { pid: Some(pid), .. } if pid == other),
            "{err}"
        );
    }
}
