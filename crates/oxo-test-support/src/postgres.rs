//! A throwaway PostgreSQL cluster for tests: Debian's server binaries run
//! on a temp dir and a free port of 127.0.0.1.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use tempfile::TempDir;

use crate::{free_port, log_tail};

/// Where Debian puts each PostgreSQL version's programs.
const PG_ROOT: &str = "/usr/lib/postgresql";

/// How many ports [`Postgres::start`] tries before giving up, in case
/// another process takes the free port it picked before the server binds it.
const PORT_TRIES: usize = 5;

/// A PostgreSQL cluster of its own in a temp dir, listening on a free port
/// of 127.0.0.1 with a database `oxo`; user `postgres`, no password
/// (`trust`). Stopped (`pg_ctl -m immediate`) and deleted when dropped.
///
/// Runs as the `postgres` user when the tests run as root (PostgreSQL
/// refuses to run as root), as the current user otherwise. `fsync` stays
/// on, as in production, so tests may measure what durability costs.
#[derive(Debug)]
pub struct Postgres {
    dir: TempDir,
    bin: PathBuf,
    port: u16,
    as_postgres: bool,
}

impl Postgres {
    /// Whether PostgreSQL is installed, for callers that want to fail before
    /// doing other work: `Ok` when [`Postgres::start`] can find its programs.
    ///
    /// # Errors
    /// PostgreSQL is not installed (the message says how to install it).
    pub fn check_installed() -> Result<(), String> {
        bin_dir(Path::new(PG_ROOT)).map(|_| ())
    }

    /// Create the cluster, start it and create the database `oxo`.
    ///
    /// # Errors
    /// PostgreSQL is not installed (the message says how to install it),
    /// or a step failed (the message quotes what it said).
    pub fn start() -> Result<Postgres, String> {
        let bin = bin_dir(Path::new(PG_ROOT))?;
        let as_postgres = is_root()?;
        let dir = tempfile::Builder::new()
            .prefix("oxo-pg-")
            .tempdir()
            .map_err(|e| format!("cannot make a temp dir for PostgreSQL: {e}"))?;
        let mut cluster = Postgres {
            dir,
            bin,
            port: 0,
            as_postgres,
        };
        if as_postgres {
            cluster.give_dir_to_postgres()?;
        }
        cluster.initdb()?;
        cluster.start_server()?;
        cluster.run_client(
            "createdb",
            &["-h", "127.0.0.1", "-p", &cluster.port.to_string()],
            &["-U", "postgres", "oxo"],
        )?;
        Ok(cluster)
    }

    /// The URL of the database `oxo`:
    /// `postgres://postgres@127.0.0.1:PORT/oxo`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/oxo", self.port)
    }

    /// The port it listens on.
    #[must_use]
    pub const fn port(&self) -> u16 {
        self.port
    }

    /// Run `sql` in the database `oxo` with `psql -At` (unaligned, tuples
    /// only: one row a line, columns split by `|`); its output without the
    /// final newline.
    ///
    /// # Errors
    /// psql could not run or the SQL failed (the message quotes psql).
    pub fn psql(&self, sql: &str) -> Result<String, String> {
        let out = self.run_client(
            "psql",
            &["-h", "127.0.0.1", "-p", &self.port.to_string()],
            &[
                "-U",
                "postgres",
                "-d",
                "oxo",
                "-X",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-c",
                sql,
            ],
        )?;
        Ok(out.strip_suffix('\n').unwrap_or(&out).to_owned())
    }

    /// The cluster's processes, for measuring what the database costs: the
    /// postmaster first (its pid is the first line of `postmaster.pid`),
    /// then its children (a backend for each connection and the background
    /// workers), found in `/proc`. Backends come and go with connections;
    /// the CPU time of those that ended is in the postmaster's `cutime` and
    /// `cstime`.
    ///
    /// # Errors
    /// The cluster is not running, or `/proc` cannot be read (Linux only).
    pub fn pids(&self) -> Result<Vec<u32>, String> {
        let path = self.data_dir().join("postmaster.pid");
        let text = fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let postmaster: u32 = text
            .lines()
            .next()
            .and_then(|line| line.trim().parse().ok())
            .ok_or_else(|| format!("no pid on the first line of {}", path.display()))?;
        let mut pids = vec![postmaster];
        let entries = fs::read_dir("/proc").map_err(|e| format!("cannot list /proc: {e}"))?;
        for entry in entries.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            // A process may end between the listing and the read.
            let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            if parent_pid(&stat) == Some(postmaster) {
                pids.push(pid);
            }
        }
        Ok(pids)
    }

    /// Stop the server at once, as a crash does (`pg_ctl -m immediate
    /// stop`: no checkpoint, every connection cut wherever it was), then
    /// start it again on the same port; what was committed survives, from
    /// the WAL.
    ///
    /// # Errors
    /// A step failed, or the port was taken meanwhile (the message quotes
    /// the server's log).
    pub fn crash_and_restart(&self) -> Result<(), String> {
        let data = self.data_dir();
        let out = self.server_command("pg_ctl", |command| {
            command
                .arg("-D")
                .arg(&data)
                .args(["-m", "immediate", "-w", "stop"]);
        })?;
        check("pg_ctl stop", &out)?;
        let out = self.pg_ctl_start(self.port)?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "pg_ctl start failed: {}; the server's log:\n{}",
                String::from_utf8_lossy(&out.stderr).trim(),
                self.log_tail()
            ))
        }
    }

    /// The server's log so far (its last 20 lines), for failure messages.
    #[must_use]
    pub fn log_tail(&self) -> String {
        log_tail(&self.log_path())
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    fn log_path(&self) -> PathBuf {
        self.dir.path().join("log")
    }

    /// As root, the temp dir goes to `postgres`, who runs the server.
    fn give_dir_to_postgres(&self) -> Result<(), String> {
        let out = Command::new("chown")
            .arg("postgres:postgres")
            .arg(self.dir.path())
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run chown: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "cannot give {} to the user postgres (is there one? the postgresql \
                 package makes it: run scripts/install-services.sh): {}",
                self.dir.path().display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(())
    }

    fn initdb(&self) -> Result<(), String> {
        let data = self.data_dir();
        let out = self.server_command("initdb", |command| {
            command
                .arg("-D")
                .arg(&data)
                // The cluster is gone when the test ends: initdb need not
                // wait for its files to reach the disk (the server still
                // syncs everything written later).
                .args(["-U", "postgres", "--auth=trust", "--no-sync"])
                .args(["--encoding=UTF8", "--locale=C"]);
        })?;
        check("initdb", &out)?;
        // Settings that do not change between tries go into the file, so
        // paths need no quoting on pg_ctl's command line.
        let socket_dir = self.dir.path().to_string_lossy().replace('\'', "''");
        let mut conf = OpenOptions::new()
            .append(true)
            .open(data.join("postgresql.conf"))
            .map_err(|e| format!("cannot open postgresql.conf: {e}"))?;
        write!(
            conf,
            "\n# oxo-test-support\nlisten_addresses = '127.0.0.1'\n\
             unix_socket_directories = '{socket_dir}'\nmax_connections = 200\n"
        )
        .map_err(|e| format!("cannot write postgresql.conf: {e}"))
    }

    /// Start the server on a free port, trying another when the one
    /// picked was taken in between.
    /// `pg_ctl start` on `port`, waiting up to 30 s, logging to the log
    /// file; its output, for the caller to judge.
    fn pg_ctl_start(&self, port: u16) -> Result<Output, String> {
        let data = self.data_dir();
        let log = self.log_path();
        self.server_command("pg_ctl", |command| {
            command.arg("-D").arg(&data).arg("-l").arg(&log).args([
                "-w",
                "-t",
                "30",
                "-o",
                &format!("-p {port}"),
                "start",
            ]);
        })
    }

    fn start_server(&mut self) -> Result<(), String> {
        let log = self.log_path();
        for _ in 0..PORT_TRIES {
            let port = free_port()?;
            let out = self.pg_ctl_start(port)?;
            if out.status.success() {
                self.port = port;
                return Ok(());
            }
            let tail = self.log_tail();
            if !tail.contains("could not bind") {
                return Err(format!(
                    "pg_ctl start failed: {}; the server's log:\n{tail}",
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
            // Start over with an empty log, so the next failure is its own.
            let _ = fs::remove_file(&log);
        }
        Err(format!(
            "PostgreSQL found no free port in {PORT_TRIES} tries; the server's log:\n{}",
            self.log_tail()
        ))
    }

    /// Run one of the server programs (initdb, pg_ctl) as the user who
    /// owns the cluster, in the temp dir (the caller's working directory
    /// may be closed to `postgres`).
    fn server_command(
        &self,
        program: &str,
        args: impl FnOnce(&mut Command),
    ) -> Result<Output, String> {
        let path = self.bin.join(program);
        let mut command = if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(&path);
            command
        } else {
            Command::new(&path)
        };
        args(&mut command);
        command
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .output()
            .map_err(|e| {
                let runner = if self.as_postgres { "runuser " } else { "" };
                format!("cannot run {runner}{}: {e}", path.display())
            })
    }

    /// Run a client program (createdb, psql) of this version with
    /// `connection` then `args`; its stdout.
    fn run_client(
        &self,
        program: &str,
        connection: &[&str],
        args: &[&str],
    ) -> Result<String, String> {
        let path = self.bin.join(program);
        let out = Command::new(&path)
            .args(connection)
            .args(args)
            // Settings of whoever runs the tests must not redirect these.
            .env_remove("PGSERVICE")
            .env_remove("PGOPTIONS")
            .env_remove("PGPASSWORD")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", path.display()))?;
        check(program, &out)?;
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let data = self.data_dir();
        // Also after a start that failed half-way: the server may be up.
        if !data.join("postmaster.pid").exists() {
            return;
        }
        // Immediate: nothing of a throwaway cluster needs a clean shutdown.
        let _ = self.server_command("pg_ctl", |command| {
            command
                .arg("-D")
                .arg(&data)
                .args(["-m", "immediate", "-w", "stop"]);
        });
    }
}

/// The program directory of the newest PostgreSQL installed the Debian
/// way (`root/<version>/bin`, root being [`PG_ROOT`]).
fn bin_dir(root: &Path) -> Result<PathBuf, String> {
    let missing = || {
        format!(
            "PostgreSQL not installed (no {}/<version>/bin/initdb): \
             run scripts/install-services.sh",
            root.display()
        )
    };
    let entries = fs::read_dir(root).map_err(|_| missing())?;
    entries
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = version_key(&entry.file_name().to_string_lossy())?;
            let bin = entry.path().join("bin");
            is_file(&bin.join("initdb")).then_some((version, bin))
        })
        .max()
        .map(|(_, bin)| bin)
        .ok_or_else(missing)
}

/// `15` → `[15]`, `9.6` → `[9, 6]`: versions that sort as numbers.
fn version_key(name: &str) -> Option<Vec<u32>> {
    name.split('.').map(|part| part.parse().ok()).collect()
}

fn is_file(path: &Path) -> bool {
    path.metadata().is_ok_and(|meta| meta.is_file())
}

/// Whether this process runs as root, which PostgreSQL refuses to run as.
fn is_root() -> Result<bool, String> {
    let out = Command::new("id")
        .arg("-u")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run id -u: {e}"))?;
    check("id -u", &out)?;
    Ok(String::from_utf8_lossy(&out.stdout).trim() == "0")
}

/// The parent's pid (field 4) in the text of `/proc/PID/stat`. The command
/// name (field 2) may hold spaces and parentheses, so fields are counted
/// from the last `)`, after which field 3 comes first.
fn parent_pid(stat: &str) -> Option<u32> {
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// `Ok` when `out` is a success, else what the program said.
fn check(program: &str, out: &Output) -> Result<(), String> {
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let said = if stderr.trim().is_empty() {
        stdout.trim()
    } else {
        stderr.trim()
    };
    Err(format!("{program} failed ({}): {said}", out.status))
}

#[cfg(test)]
mod tests {
    use super::{bin_dir, parent_pid, version_key};
    use std::fs;

    #[test]
    fn the_newest_version_with_initdb_is_used() {
        let root = tempfile::tempdir().unwrap();
        for (version, with_initdb) in [("9.6", true), ("15", true), ("16", false)] {
            let bin = root.path().join(version).join("bin");
            fs::create_dir_all(&bin).unwrap();
            if with_initdb {
                fs::write(bin.join("initdb"), "").unwrap();
            }
        }
        assert_eq!(bin_dir(root.path()).unwrap(), root.path().join("15/bin"));
    }

    #[test]
    fn without_postgresql_the_error_says_how_to_install_it() {
        let root = tempfile::tempdir().unwrap();
        for missing in [root.path().to_owned(), root.path().join("absent")] {
            let error = bin_dir(&missing).unwrap_err();
            assert!(error.starts_with("PostgreSQL not installed"), "{error}");
            assert!(error.contains("run scripts/install-services.sh"), "{error}");
        }
    }

    #[test]
    fn the_parent_pid_is_read_after_the_command_name() {
        assert_eq!(parent_pid("42 (postgres) S 7 42 42 0 -1"), Some(7));
        assert_eq!(parent_pid("43 (a) b (c) R 9 43 43 0 -1"), Some(9));
        assert_eq!(parent_pid("44 (postgres"), None);
    }

    #[test]
    fn versions_sort_as_numbers() {
        assert!(version_key("15") > version_key("9.6"));
        assert!(version_key("16") > version_key("15"));
        assert_eq!(version_key("main"), None);
    }
}
