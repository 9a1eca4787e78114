//! The manager side: an external Gomocup engine as an oxo player, as
//! `oxo arena --x brain:PATH` runs it.
//!
//! Each game runs the engine as a child process and talks the Piskvork
//! protocol to it (see [`crate::brain`] for the commands): `START` (or
//! `RECTSTART`), the `INFO` it needs (`timeout_turn`, `timeout_match`,
//! `rule`, `game_type 1`), then `BEGIN` for the first move of a game, `TURN
//! X,Y` after a single opponent move, or the whole position with `BOARD`,
//! and `END` when the game is over. The referee's part: an engine that
//! answers anything but a free cell on the board, answers later than its
//! time (the move time plus a tenth, and at least 50 ms, for the pipes), or
//! dies, has no move; the arena scores that as a loss and reports why
//! ([`Strategy::failure`]).
//!
//! # The match clock
//! With a time for the whole game (`timeout_match`, as Gomocup tournaments
//! give it), each move is preceded by `INFO time_left N`, the milliseconds
//! the engine has left of it, and each move's time is taken from it: the
//! time from just before the arena writes the move's commands to when it
//! reads the answer, as the arena measures it (so the pipes' delays count
//! against the engine, as a Gomocup manager counts them). Like a move's
//! time, the match time has a slack: an engine has no move when its moves
//! of the game have taken more than the match time plus a tenth, and at
//! least 50 ms ([`allowance`] of the match time), in all. `START` is not
//! timed by the match clock (it has [`START_TIME`]). The move time still
//! bounds each move; the move's limit is whichever runs out first.

use std::collections::BTreeSet;
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError, mpsc};
use std::time::{Duration, Instant};

use oxo_ai::Strategy;
use oxo_core::{Cell, Game, MoveError, Player, Rules};
use oxo_text::input::{LineEnd, LineRead, MAX_LINE, quoted, read_line_bounded_to, skip_line_to};

use crate::log::{EngineLogger, Said};
use crate::{read_point, write_point};

/// The process groups of the engines this process runs now (each engine
/// leads a group of its own), for [`end_all`]; `None` once it has run,
/// so that no engine starts after it.
static RUNNING: Mutex<Option<BTreeSet<u32>>> = Mutex::new(Some(BTreeSet::new()));

fn running() -> std::sync::MutexGuard<'static, Option<BTreeSet<u32>>> {
    RUNNING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// End every engine this process runs, with all it started (each group
/// sent SIGKILL), and return how many: for a program stopping on a
/// signal, since an engine's group does not get the terminal's Ctrl-C and
/// the program's exit skips each engine's own ending. An engine started
/// after this is ended at once ([`EngineError::Stopping`]).
pub fn end_all() -> usize {
    let groups = running().take().unwrap_or_default();
    for &group in &groups {
        kill_group(group);
    }
    groups.len()
}

/// `why` an engine failed, as the log says it, and whether the arena was
/// stopping then ([`end_all`] had run: ended, likely not at fault).
fn stopped_or(why: String) -> String {
    if running().is_none() {
        format!("{why} (the arena is stopping)")
    } else {
        why
    }
}

/// Take `group` out of those [`end_all`] ends, once it has ended.
fn forget(group: u32) {
    if let Some(groups) = running().as_mut() {
        groups.remove(&group);
    }
}

/// End `child` and its group, and wait for it.
fn end_child(child: &mut Child) {
    kill_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
}

/// How long an engine may take to answer `START`.
pub const START_TIME: Duration = Duration::from_secs(10);

/// Why an engine has no move (or could not start): the reason the arena
/// gives for its loss.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The program could not be run.
    #[error("cannot start {}: {source}", .path.display())]
    Start {
        /// The engine's path.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The engine's standard output could not be taken.
    #[error("no stdout")]
    NoOutput,
    /// The program is stopping ([`end_all`] ran): no engine starts.
    #[error("no engine starts: the arena is stopping")]
    Stopping,
    /// `START` (or `RECTSTART`) answered with something else than `OK`.
    #[error("{engine} answered {command} with \"{}\"", quoted(.answer))]
    Refused {
        /// The command refused: `START` or `RECTSTART`.
        command: &'static str,
        /// The engine's name.
        engine: String,
        /// What it said, as bytes (an engine may say anything), up to
        /// [`MAX_LINE`] of them.
        answer: Vec<u8>,
    },
    /// The engine's input was closed after an earlier failure.
    #[error("the engine's input is closed")]
    InputClosed,
    /// Writing to the engine failed.
    #[error("{engine} stopped reading: {source}")]
    StoppedReading {
        /// The engine's name.
        engine: String,
        /// Why.
        source: io::Error,
    },
    /// No answer in time.
    #[error("{engine} gave no answer within {} ms", .limit.as_millis())]
    NoAnswer {
        /// The engine's name.
        engine: String,
        /// The time it had.
        limit: Duration,
    },
    /// No answer before the game's time ran out ([`MatchClock`]).
    #[error(
        "{engine} is out of match time: no answer within the {} ms it had left of {} ms",
        .left.as_millis(),
        .match_time.as_millis()
    )]
    OutOfTime {
        /// The engine's name.
        engine: String,
        /// The time it had for the game.
        match_time: Duration,
        /// What was left of it when the move was asked for (as it was
        /// told in `INFO time_left`).
        left: Duration,
    },
    /// The engine ended.
    #[error("{engine} exited{}", .status.map(|s| format!(" ({s})")).unwrap_or_default())]
    Exited {
        /// The engine's name.
        engine: String,
        /// How, if known.
        status: Option<ExitStatus>,
    },
    /// An answer that is not `X,Y` on the board.
    #[error("{engine} answered \"{}\", which is no move", quoted(.answer))]
    NotAMove {
        /// The engine's name.
        engine: String,
        /// What it said, as bytes (an engine may say anything), up to
        /// [`MAX_LINE`] of them.
        answer: Vec<u8>,
    },
    /// A move on a taken cell.
    #[error("{engine} answered {answer}, a taken cell")]
    Taken {
        /// The engine's name.
        engine: String,
        /// What it said.
        answer: String,
    },
    /// A move the game refuses.
    #[error("{engine} answered {answer}: {source}")]
    Illegal {
        /// The engine's name.
        engine: String,
        /// What it said.
        answer: String,
        /// Why the game refuses it.
        source: MoveError,
    },
}

/// The engine's input, written on a thread of its own: an engine that
/// stops reading (its pipe full) then holds up only that thread, and the
/// wait for its answer, which has a limit, decides the move (the arena
/// waited for ever in the write). The first write that fails ends the
/// thread, its error kept for the next send.
struct Input {
    queue: mpsc::Sender<Vec<u8>>,
    failed: Arc<Mutex<Option<io::Error>>>,
}

impl Input {
    /// The writer of `pipe`, which tells a failed write to `heard` too, so
    /// that a wait for the engine's answer ends at once.
    fn new(mut pipe: ChildStdin, heard: mpsc::SyncSender<Heard>) -> Input {
        let (queue, texts) = mpsc::channel::<Vec<u8>>();
        let failed = Arc::new(Mutex::new(None));
        let kept = Arc::clone(&failed);
        std::thread::spawn(move || {
            // Ends when the engine's `External` lets go of the queue (the
            // pipe then closed, the engine reading its end) or a write
            // fails.
            for text in texts {
                if let Err(err) = pipe.write_all(&text).and_then(|()| pipe.flush()) {
                    *kept.lock().unwrap_or_else(PoisonError::into_inner) = Some(err);
                    // A full queue of answers is read before any wait.
                    let _ = heard.try_send(Heard::WriteFailed);
                    return;
                }
            }
        });
        Input { queue, failed }
    }

    /// Queue `text`; the error of a write that failed before, if one did.
    fn send(&self, text: Vec<u8>) -> Result<(), Option<io::Error>> {
        if let Some(err) = self.failed() {
            return Err(Some(err));
        }
        self.queue.send(text).map_err(|_| self.failed())
    }

    /// The error of a write that failed, if one did (once).
    fn failed(&self) -> Option<io::Error> {
        self.failed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

/// What the arena hears of an engine while it waits for an answer.
enum Heard {
    /// An answer (a line that is not a `MESSAGE`, a `DEBUG` or blank,
    /// trimmed), and when it was read.
    Line(Instant, Vec<u8>),
    /// A write to the engine failed ([`Input`] keeps why).
    WriteFailed,
    /// The engine's output ended.
    Ended,
}

/// An engine process playing one game.
pub struct External {
    name: String,
    child: Child,
    input: Option<Input>,
    lines: mpsc::Receiver<Heard>,
    rules: Rules,
    move_time: Duration,
    /// The time for the engine's moves of the game, if it has one.
    clock: Option<MatchClock>,
    /// The board as the engine knows it (after its last move).
    told: Vec<Option<Player>>,
    /// The stones of `told` in the order they were played (see
    /// [`External::catch_up`]).
    played: Vec<Cell>,
    /// The moves the game started from, in order ([`Strategy::start_from`]).
    history: Vec<Cell>,
    failure: Option<String>,
    /// Set once the engine has failed: it gets no more questions.
    broken: bool,
    /// Where what is said both ways goes, if anywhere.
    log: Option<Arc<EngineLogger>>,
    /// Ends (disconnected) once the threads that log the engine's output
    /// and standard error have logged their last lines.
    logged: mpsc::Receiver<()>,
}

impl std::fmt::Debug for External {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("External")
            .field("name", &self.name)
            .field("rules", &self.rules)
            .finish_non_exhaustive()
    }
}

/// How many of an engine's answers may wait unread: more than any engine
/// that keeps to the protocol sends at once.
const QUEUED_LINES: usize = 16;

/// How often a wait for an answer looks whether the engine has exited.
const EXIT_CHECK: Duration = Duration::from_millis(100);

/// How long an engine that has exited is given for what it wrote before to
/// be read (its output's reader is a thread of its own).
const EXIT_GRACE: Duration = Duration::from_millis(200);

/// Whether a trimmed line from an engine answers (a move, `OK`, or
/// anything else the arena judges), rather than being a `MESSAGE` or a
/// `DEBUG` for the manager's log, or blank.
fn is_answer(line: &[u8]) -> bool {
    let word = line.split(|&b| b == b' ').next().unwrap_or_default();
    !(line.is_empty()
        || word.eq_ignore_ascii_case(b"MESSAGE")
        || word.eq_ignore_ascii_case(b"DEBUG"))
}

/// The answer time allowed for `move_time`: a tenth more, at least 50 ms.
/// (The same slack is given on a match time, for all of a game's moves.)
#[must_use]
pub fn allowance(move_time: Duration) -> Duration {
    move_time + (move_time / 10).max(Duration::from_millis(50))
}

/// An engine's time for all its moves of one game (Gomocup's
/// `timeout_match`), and what it has used of it. Pure: the times used are
/// given to it, measured by the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchClock {
    match_time: Duration,
    used: Duration,
}

impl MatchClock {
    /// A clock of `match_time` for the game, none of it used.
    #[must_use]
    pub const fn new(match_time: Duration) -> MatchClock {
        MatchClock {
            match_time,
            used: Duration::ZERO,
        }
    }

    /// The time for the game.
    #[must_use]
    pub const fn match_time(&self) -> Duration {
        self.match_time
    }

    /// What is left of the match time (none once it is used up, even
    /// within the slack): what the engine is told in `INFO time_left`.
    #[must_use]
    pub fn left(&self) -> Duration {
        self.match_time.saturating_sub(self.used)
    }

    /// How long the next answer may take: what is left of the match
    /// time's [`allowance`], the slack included.
    #[must_use]
    pub fn allowed(&self) -> Duration {
        allowance(self.match_time).saturating_sub(self.used)
    }

    /// Take `took`, one move's time, from the clock.
    pub fn spend(&mut self, took: Duration) {
        self.used = self.used.saturating_add(took);
    }
}

/// Start `command`, trying again for up to 5 s while its program is
/// "busy" (ETXTBSY): a script written just now stays busy for an instant
/// when some process forked while the file was open for writing, until
/// that process execs (a test harness running tests on threads, an editor
/// or a build starting other programs).
fn spawn(command: &mut Command) -> io::Result<Child> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match command.spawn() {
            Err(e)
                if e.kind() == io::ErrorKind::ExecutableFileBusy && Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

impl External {
    /// Start the engine at `path` for a game under `rules` with
    /// `move_time` a move and, if given, `match_time` for all its moves of
    /// the game (see [the match clock](crate::manager#the-match-clock)), and wait for
    /// its `OK`. With `log`, every line sent and heard, and the engine's
    /// standard error, go there ([`crate::log`]); without, its standard
    /// error is dropped.
    ///
    /// # Errors
    /// The engine cannot be started, or refuses the board.
    pub fn start(
        path: &Path,
        rules: Rules,
        move_time: Duration,
        match_time: Option<Duration>,
        log: Option<EngineLogger>,
    ) -> Result<External, EngineError> {
        let log = log.map(Arc::new);
        let started = External::start_logged(path, rules, move_time, match_time, log.clone());
        if let (Err(e), Some(log)) = (&started, &log) {
            log.line(
                Said::Note,
                stopped_or(format!("could not start: {e}")).as_bytes(),
            );
        }
        started
    }

    fn start_logged(
        path: &Path,
        rules: Rules,
        move_time: Duration,
        match_time: Option<Duration>,
        log: Option<Arc<EngineLogger>>,
    ) -> Result<External, EngineError> {
        let name = format!("brain:{}", path.display());
        let mut command = Command::new(path);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if log.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            });
        // A process group of its own, so that the processes the engine
        // starts (a script's commands) can be ended with it: killing the
        // engine alone would leave them running.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = spawn(&mut command).map_err(|source| EngineError::Start {
            path: path.to_owned(),
            source,
        })?;
        // Known from its start, so that [`end_all`] reaches it wherever it
        // comes; after it, the engine is ended at once.
        match running().as_mut() {
            Some(groups) => groups.insert(child.id()),
            None => {
                end_child(&mut child);
                return Err(EngineError::Stopping);
            }
        };
        let Some(stdout) = child.stdout.take() else {
            end_child(&mut child);
            forget(child.id());
            return Err(EngineError::NoOutput);
        };
        // Held by the threads that log the engine's pipes, so that the
        // engine's end can wait for their last lines.
        let (logging, logged) = mpsc::channel::<()>();
        if let (Some(stderr), Some(log)) = (child.stderr.take(), &log) {
            let log = Arc::clone(log);
            let logging = logging.clone();
            std::thread::spawn(move || {
                log_lines(stderr, &log, Said::Error);
                drop(logging);
            });
        }
        // The engine's lines, read on a thread of their own so that an
        // engine that says nothing cannot hold the arena up, each with when
        // it was read, so that an answer is judged on when it came. Each
        // line is kept to its first MAX_LINE bytes, and what is not an
        // answer (`MESSAGE`, `DEBUG`, blank lines) is dropped here: an
        // engine that never ends a line, or floods those, cannot fill the
        // arena's memory nor bury its answer. The queue is short: an engine
        // that floods answers waits for the arena to read them.
        let (send, lines) = mpsc::sync_channel(QUEUED_LINES);
        let input = child
            .stdin
            .take()
            .map(|pipe| Input::new(pipe, send.clone()));
        let heard = log.clone();
        let logging = log.is_some().then_some(logging);
        std::thread::spawn(move || {
            let _logging = logging;
            let mut listened = true;
            let ended = each_line(stdout, |line, cut| {
                // Timed as read. Logged before it is passed on, so that
                // the log has it before what the arena sends in reply
                // (logging only queues the line: it never waits for the
                // file). A long line's first bytes go at once, so the arena
                // can judge the answer while the rest is dropped.
                let read = Instant::now();
                if let Some(log) = heard.as_deref() {
                    log.cut_line(Said::Output, line, cut);
                }
                if listened && is_answer(line) {
                    listened = send.send(Heard::Line(read, line.to_vec())).is_ok();
                }
                // Once nobody listens, the rest is read only to be logged.
                listened || heard.as_deref().is_some_and(|log| !log.is_closed())
            });
            if ended {
                // The output ended (or cannot be read): said once, as the
                // writer's sender keeps the channel open.
                let _ = send.send(Heard::Ended);
            }
        });
        let mut engine = External {
            name,
            input,
            child,
            lines,
            rules,
            move_time,
            clock: match_time.map(MatchClock::new),
            told: vec![None; rules.cell_count()],
            played: Vec::new(),
            history: Vec::new(),
            failure: None,
            broken: false,
            log,
            logged,
        };
        let (command, start) = if rules.rows() == rules.cols() {
            ("START", format!("START {}", rules.cols()))
        } else {
            (
                "RECTSTART",
                format!("RECTSTART {},{}", rules.cols(), rules.rows()),
            )
        };
        engine.send(&[start])?;
        let (answer, _) = engine.answer(Instant::now(), START_TIME, None)?;
        // Replies are recognised in either case, as the protocol asks.
        if !answer.eq_ignore_ascii_case(b"OK") {
            return Err(EngineError::Refused {
                command,
                engine: engine.name.clone(),
                answer,
            });
        }
        let ms = move_time.as_millis();
        let match_ms = match_time.map_or(0, |time| time.as_millis());
        let rule = u8::from(rules.is_exact());
        engine.send(&[
            format!("INFO timeout_turn {ms}"),
            format!("INFO timeout_match {match_ms}"),
            format!("INFO rule {rule}"),
            "INFO game_type 1".to_owned(),
        ])?;
        Ok(engine)
    }

    /// Log `lines` as sent, then send them.
    fn send(&mut self, lines: &[String]) -> Result<(), EngineError> {
        if let Some(log) = &self.log {
            log.sent(lines);
        }
        self.write_lines(lines)
    }

    /// Send `lines` (already logged).
    fn write_lines(&mut self, lines: &[String]) -> Result<(), EngineError> {
        let input = self.input.as_ref().ok_or(EngineError::InputClosed)?;
        let mut text = lines.join("\n");
        text.push('\n');
        let Err(failed) = input.send(text.into_bytes()) else {
            return Ok(());
        };
        // An earlier write failed: the engine exited, or stopped reading.
        Err(match (self.exit_status(), failed) {
            (Some(status), _) => EngineError::Exited {
                engine: self.name.clone(),
                status: Some(status),
            },
            (None, Some(source)) => EngineError::StoppedReading {
                engine: self.name.clone(),
                source,
            },
            (None, None) => EngineError::InputClosed,
        })
    }

    /// The engine's next answer (a line that is not a `MESSAGE`, a `DEBUG`
    /// or blank, trimmed) to what was `sent` then, read within `limit` of
    /// it, and when it was read. Late, the error is [`EngineError::NoAnswer`]
    /// or, with the `clock` that set the limit, [`EngineError::OutOfTime`].
    ///
    /// While it waits, it looks every [`EXIT_CHECK`] whether the engine has
    /// exited: its output may stay open after it (held by a process it
    /// started), and the wait would then last the whole move's time.
    fn answer(
        &mut self,
        sent: Instant,
        limit: Duration,
        clock: Option<MatchClock>,
    ) -> Result<(Vec<u8>, Instant), EngineError> {
        let deadline = sent + limit;
        let late = || match clock {
            Some(clock) => EngineError::OutOfTime {
                engine: self.name.clone(),
                match_time: clock.match_time(),
                left: clock.left(),
            },
            None => EngineError::NoAnswer {
                engine: self.name.clone(),
                limit,
            },
        };
        let heard = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left.min(EXIT_CHECK)) {
                Err(mpsc::RecvTimeoutError::Timeout) if left > EXIT_CHECK => {
                    if let Ok(Some(status)) = self.child.try_wait() {
                        // Gone, its output held open: what it wrote before
                        // it went is read within a moment, else it exited.
                        match self.lines.recv_timeout(EXIT_GRACE) {
                            Ok(Heard::Line(read, line)) => break Ok(Heard::Line(read, line)),
                            _ => {
                                return Err(EngineError::Exited {
                                    engine: self.name.clone(),
                                    status: Some(status),
                                });
                            }
                        }
                    }
                }
                heard => break heard,
            }
        };
        match heard {
            // Read after the deadline: one that waited in the queue behind
            // others.
            Ok(Heard::Line(read, _)) if read > deadline => Err(late()),
            Ok(Heard::Line(read, line)) => Ok((line, read)),
            // What was sent never reached it: an engine that exited (its
            // input closed with it) is said to have exited, with how; one
            // that closed its input and runs on has stopped reading (told
            // at once, not as late).
            Ok(Heard::WriteFailed) => match self.exit_status() {
                Some(status) => Err(EngineError::Exited {
                    engine: self.name.clone(),
                    status: Some(status),
                }),
                None => Err(EngineError::StoppedReading {
                    engine: self.name.clone(),
                    source: self
                        .input
                        .as_ref()
                        .and_then(Input::failed)
                        .unwrap_or_else(|| io::ErrorKind::BrokenPipe.into()),
                }),
            },
            Err(mpsc::RecvTimeoutError::Timeout) => Err(late()),
            Ok(Heard::Ended) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                Err(EngineError::Exited {
                    engine: self.name.clone(),
                    status: self.exit_status(),
                })
            }
        }
    }

    /// How the engine exited, if it has or does within a moment: a
    /// process's pipes close as it exits, a little before it can be
    /// waited for.
    fn exit_status(&mut self) -> Option<ExitStatus> {
        let deadline = Instant::now() + Duration::from_millis(200);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                _ => return None,
            }
        }
    }

    /// Tell the engine what happened since its last move and read its
    /// move.
    fn ask(&mut self, game: &Game) -> Result<Cell, EngineError> {
        let me = game.to_move();
        let changed: Vec<usize> = (0..self.told.len())
            .filter(|&i| game.cells()[i] != self.told[i])
            .collect();
        let mut commands = match changed[..] {
            [] if game.move_count() == 0 => vec!["BEGIN".to_owned()],
            [one] if self.told[one].is_none() && game.cells()[one] == Some(me.other()) => {
                let cell = self.rules.cell_at(one);
                self.played.push(cell);
                vec![format!("TURN {}", write_point(cell))]
            }
            _ => {
                self.catch_up(game, &changed);
                board(game, &self.played)
            }
        };
        if let Some(clock) = self.clock {
            commands.insert(0, format!("INFO time_left {}", clock.left().as_millis()));
        }
        // The move's time: from its commands' sending to its answer's
        // reading; the match clock sets the limit when it runs out first.
        let turn = allowance(self.move_time);
        let by_clock = self.clock.filter(|clock| clock.allowed() <= turn);
        let limit = by_clock.map_or(turn, |clock| clock.allowed());
        // Logged before the move's time starts: the log never costs the
        // engine its time.
        if let Some(log) = &self.log {
            log.sent(&commands);
        }
        let sent = Instant::now();
        self.write_lines(&commands)?;
        let (said, read) = self.answer(sent, limit, by_clock)?;
        if let Some(clock) = &mut self.clock {
            clock.spend(read.saturating_duration_since(sent));
        }
        let not_a_move = || EngineError::NotAMove {
            engine: self.name.clone(),
            answer: said.clone(),
        };
        // A move is plain ASCII, `X,Y`: anything else is no move.
        let answer = String::from_utf8(said.clone()).map_err(|_| not_a_move())?;
        let cell = read_point(&answer)
            .and_then(|point| point.to_cell(self.rules).ok())
            .ok_or_else(not_a_move)?;
        if game.get(cell).is_some() {
            return Err(EngineError::Taken {
                engine: self.name.clone(),
                answer,
            });
        }
        let mut after = game.clone();
        if let Err(source) = after.play(cell) {
            return Err(EngineError::Illegal {
                engine: self.name.clone(),
                answer,
                source,
            });
        }
        self.told = after.cells().to_vec();
        self.played.push(cell);
        Ok(cell)
    }
}

impl External {
    /// Bring [`External::played`] up to `game`, whose cells at `changed`
    /// differ from what the engine was told. Stones it saw played keep
    /// their order; stones it did not see (an opening placed before its
    /// first move) follow in the order [`Strategy::start_from`] gave, and
    /// any others in turn, alternating so that the last is the opponent's
    /// (the engine is to move), each side's in board order. A stone gone
    /// from the board (another game) starts the order afresh.
    fn catch_up(&mut self, game: &Game, changed: &[usize]) {
        let cells = game.cells();
        let mut fresh: Vec<usize> = if changed.iter().any(|&i| self.told[i].is_some()) {
            self.played.clear();
            (0..cells.len()).filter(|&i| cells[i].is_some()).collect()
        } else {
            changed.to_vec()
        };
        for &cell in &self.history {
            let index = self.rules.index(cell);
            if let Some(at) = fresh.iter().position(|&i| i == index) {
                fresh.swap_remove(at);
                self.played.push(cell);
            }
        }
        let me = game.to_move();
        let of = |player: Player| {
            fresh
                .iter()
                .filter(move |&&i| cells[i] == Some(player))
                .map(|&i| self.rules.cell_at(i))
        };
        let (mut mine, mut theirs): (Vec<Cell>, Vec<Cell>) =
            (of(me).collect(), of(me.other()).collect());
        mine.sort_unstable_by_key(|&c| self.rules.index(c));
        theirs.sort_unstable_by_key(|&c| self.rules.index(c));
        // The side with a stone more moved first among the fresh stones.
        let (first, second) = if theirs.len() > mine.len() {
            (theirs, mine)
        } else {
            (mine, theirs)
        };
        let mut second = second.into_iter();
        for cell in first {
            self.played.push(cell);
            self.played.extend(second.next());
        }
        self.played.extend(second);
    }
}

/// The `BOARD` command that tells the player to move in `game` the
/// position, its stones `played` in the order they were played: a line
/// `X,Y,FIELD` a stone (field 1 for the player's own stones, 2 for its
/// opponent's), in that order, then `DONE`.
#[must_use]
pub fn board(game: &Game, played: &[Cell]) -> Vec<String> {
    let me = game.to_move();
    let mut lines = Vec::with_capacity(played.len() + 2);
    lines.push("BOARD".to_owned());
    for cell in played {
        let field = if game.get(*cell) == Some(me) { 1 } else { 2 };
        lines.push(format!("{},{field}", write_point(*cell)));
    }
    lines.push("DONE".to_owned());
    lines
}

impl Strategy for External {
    fn choose(&mut self, game: &Game) -> Option<Cell> {
        if self.broken || game.is_over() {
            return None;
        }
        match self.ask(game) {
            Ok(cell) => Some(cell),
            Err(reason) => {
                self.broken = true;
                let reason = reason.to_string();
                if let Some(log) = &self.log {
                    log.line(
                        Said::Note,
                        stopped_or(format!("no move: {reason}")).as_bytes(),
                    );
                }
                self.failure = Some(reason);
                None
            }
        }
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn start_from(&mut self, moves: &[Cell]) {
        self.history = moves.to_vec();
    }

    fn failure(&mut self) -> Option<String> {
        self.failure.take()
    }
}

impl Drop for External {
    fn drop(&mut self) {
        // END, a moment to leave, then no more waiting: no engine outlives
        // its game.
        let _ = self.send(&["END".to_owned()]);
        drop(self.input.take());
        let exited = self.exit_status().is_some();
        // Whether or not the engine left, what it started may still run
        // (a script waiting on a command, or one that left a command in
        // the background): end its whole process group, and the engine
        // with it if it is still there.
        if exited {
            kill_group(self.child.id());
        } else {
            end_child(&mut self.child);
        }
        forget(self.child.id());
        // The pipes close with the engine's group: its last lines logged,
        // the log is whole. (A process that left the group could hold a
        // pipe open: waited for a moment only.) Nobody reads answers now:
        // the reader, blocked on a full queue of them, goes on to log.
        if self.log.is_some() {
            self.lines = mpsc::sync_channel(0).1;
            let _ = self.logged.recv_timeout(Duration::from_secs(1));
            if let Some(log) = &self.log {
                log.close();
            }
        }
    }
}

/// Hand each line of `pipe` to `take`, trimmed, blank ones left out:
/// lines end with CR LF, LF or CR alone, as the protocol allows an engine,
/// and are kept to their first [`MAX_LINE`] bytes (`take`'s second
/// argument says when a line was cut there), so that an engine that never
/// ends a line cannot fill the arena's memory. `true` when `pipe` ended (or
/// could not be read), `false` when `take` asked to stop.
fn each_line(pipe: impl io::Read, mut take: impl FnMut(&[u8], bool) -> bool) -> bool {
    let mut reader = BufReader::new(pipe);
    let mut buf = Vec::new();
    loop {
        let cut = match read_line_bounded_to(&mut reader, &mut buf, MAX_LINE, LineEnd::CrOrNewline)
        {
            Ok(LineRead::Line) => false,
            Ok(LineRead::TooLong) => true,
            Ok(LineRead::End) | Err(_) => return true,
        };
        let line = buf.trim_ascii();
        if !line.is_empty() && !take(line, cut) {
            return false;
        }
        if cut && skip_line_to(&mut reader, LineEnd::CrOrNewline).is_err() {
            return true;
        }
    }
}

/// Log each line `pipe` gives as `said`, until it ends or the log is
/// closed.
fn log_lines(pipe: impl io::Read, log: &EngineLogger, said: Said) {
    each_line(pipe, |line, cut| {
        log.cut_line(said, line, cut);
        !log.is_closed()
    });
}

/// Send SIGKILL to the process group `pgid` (the engine's, which
/// [`External::start`] made its own); whether the signal was sent.
///
/// By the `kill` command, as the standard library has no call for a
/// group and this crate takes no dependency for one. A group outlives its
/// leader while any member runs, so its id cannot have been taken by
/// another process meanwhile; once it is empty the id could only be
/// reused after the process ids wrap around, and then only for an
/// instant.
#[cfg(unix)]
fn kill_group(pgid: u32) -> bool {
    Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Without process groups, only the engine itself can be ended.
#[cfg(not(unix))]
fn kill_group(_pgid: u32) -> bool {
    false
}

#[cfg(all(test, unix))]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::brain::{self, Brain};

    /// A game of 9x9 five in a row, its moves in the order played (row,
    /// column): not the board's reading order.
    const GAME: [(u32, u32); 9] = [
        (4, 4),
        (0, 8),
        (8, 0),
        (0, 1),
        (4, 5),
        (3, 3),
        (5, 5),
        (2, 7),
        (1, 6),
    ];

    fn rules() -> Rules {
        Rules::new(9, 9, 5).unwrap()
    }

    fn moves() -> Vec<Cell> {
        GAME.iter().map(|&(row, col)| Cell::new(row, col)).collect()
    }

    /// Replays the game a move at a time through `BOARD`: the lines give
    /// the stones in the order played with the right fields, and oxo's own
    /// brain rebuilds that order.
    #[test]
    fn board_lists_the_stones_in_the_order_played() {
        let moves = moves();
        let mut game = Game::new(rules());
        for n in 1..moves.len() {
            game.play(moves[n - 1]).unwrap();
            let played = &moves[..n];
            let lines = board(&game, played);
            assert_eq!(lines.first().map(String::as_str), Some("BOARD"));
            assert_eq!(lines.last().map(String::as_str), Some("DONE"));
            let stones = &lines[1..lines.len() - 1];
            for (i, (line, cell)) in stones.iter().zip(played).enumerate() {
                // The last stone is the opponent's; the sides alternate.
                let field = if (n - i) % 2 == 1 { 2 } else { 1 };
                assert_eq!(
                    *line,
                    format!("{},{},{field}", cell.col, cell.row),
                    "{lines:?}"
                );
            }
            assert_eq!(stones.len(), n);

            // Oxo's brain answers with the first free cell; then every
            // stone is taken back, last played first: each TAKEBACK names
            // the brain's last stone only if it rebuilt the order played.
            let reply = game.legal_moves().next().unwrap();
            let mut script = format!("START 9\n{}\n", lines.join("\n"));
            for cell in std::iter::once(&reply).chain(played.iter().rev()) {
                script.push_str(&format!("TAKEBACK {},{}\n", cell.col, cell.row));
            }
            let answers = talk(&script);
            assert_eq!(answers[0], "OK");
            assert_eq!(answers[1], format!("{},{}", reply.col, reply.row));
            assert!(answers[2..].iter().all(|a| a == "OK"), "{answers:?}");
            assert_eq!(answers.len(), n + 3, "{answers:?}");
        }
    }

    /// The brain side as a Gomocup manager would run it, on `script`, with
    /// a player that takes the first free cell.
    fn talk(script: &str) -> Vec<String> {
        struct FirstFree;
        impl Strategy for FirstFree {
            fn choose(&mut self, game: &Game) -> Option<Cell> {
                game.legal_moves().next()
            }
            fn name(&self) -> &str {
                "first-free"
            }
        }
        let build = |_rules| Ok(Box::new(FirstFree) as Box<dyn Strategy>);
        let now = Instant::now();
        let mut brain = Brain::new(Box::new(build), Arc::new(move || now), "first-free");
        let mut out = Vec::new();
        brain::run(&mut brain, script.as_bytes(), &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// An engine script in `dir` that logs what it is told to `log` and
    /// answers each move with the next line of `answers` (none once they
    /// are used up), after running `pause` (shell).
    fn recording_engine(dir: &Path, answers: &[&str], pause: &str) -> (PathBuf, PathBuf) {
        let log = dir.join("told");
        let list = dir.join("answers");
        std::fs::write(&list, answers.join("\n") + "\n").unwrap();
        let path = dir.join("pbrain-record");
        let body = format!(
            "#!/bin/sh\nn=0\nwhile read -r line; do\n  echo \"$line\" >> '{log}'\n  case \"$line\" in\n    \
             START*) echo OK ;;\n    BEGIN|TURN*|DONE) n=$((n+1)); {pause} sed -n \"${{n}}p\" '{list}' ;;\n    \
             END) exit 0 ;;\n  esac\ndone\n",
            log = log.display(),
            list = list.display()
        );
        executable(&path, &body);
        (path, log)
    }

    /// A log's writer whose bytes the test can read.
    #[derive(Clone, Default)]
    struct Kept(Arc<Mutex<Vec<u8>>>);

    impl Write for Kept {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Kept {
        /// The log's lines without their times.
        fn lines(&self) -> Vec<String> {
            String::from_utf8(self.0.lock().unwrap().clone())
                .unwrap()
                .lines()
                .map(|line| line.trim_start().split_once(' ').unwrap().1.to_owned())
                .collect()
        }
    }

    #[test]
    fn the_engine_log_has_every_line_both_ways_its_stderr_and_why_it_lost() {
        let dir = std::env::temp_dir().join(format!("oxo-gomocup-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("pbrain-chatty");
        executable(
            &path,
            "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    START*) echo OK ;;\n    \
             BEGIN) echo 'MESSAGE thinking'; echo 'warming up' >&2; printf '\\033[31mred\\n' >&2; \
             echo; echo 4,4 ;;\n    TURN*) echo 99,99 ;;\n    END) exit 0 ;;\n  esac\ndone\n",
        );
        let kept = Kept::default();
        let log = crate::EngineLog::new(Box::new(kept.clone()));
        let logger = log.engine(3, Player::O, "brain:chatty");
        let mut engine =
            External::start(&path, rules(), Duration::from_secs(30), None, Some(logger)).unwrap();
        let mut game = Game::new(rules());
        let first = engine.choose(&game).unwrap();
        assert_eq!(first, Cell::new(4, 4));
        game.play(first).unwrap();
        game.play(Cell::new(0, 0)).unwrap();
        assert_eq!(engine.choose(&game), None);
        drop(engine);
        // The engine's end waits for its standard error's last lines.
        log.finish().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let lines = kept.lines();
        let of = |mark: &str| -> Vec<String> {
            let start = format!("game 3 O brain:chatty {mark} ");
            lines
                .iter()
                .filter_map(|l| l.strip_prefix(&start).map(str::to_owned))
                .collect()
        };
        assert_eq!(
            of("<"),
            [
                "START 9",
                "INFO timeout_turn 30000",
                "INFO timeout_match 0",
                "INFO rule 0",
                "INFO game_type 1",
                "BEGIN",
                "TURN 0,0",
                "END"
            ],
            "{lines:#?}"
        );
        // Blank lines are left out; MESSAGE lines are kept.
        assert_eq!(
            of(">"),
            ["OK", "MESSAGE thinking", "4,4", "99,99"],
            "{lines:#?}"
        );
        // Control characters cannot reach a reader's terminal.
        assert_eq!(of("!"), ["warming up", "\u{FFFD}[31mred"], "{lines:#?}");
        let notes = of("#");
        assert_eq!(notes.len(), 1, "{lines:#?}");
        assert!(
            notes[0].starts_with("no move: brain:") && notes[0].contains("answered \"99,99\""),
            "{notes:?}"
        );
        // Every line has its time first, in seconds.
        let text = String::from_utf8(kept.0.lock().unwrap().clone()).unwrap();
        for line in text.lines() {
            let time = line.split_whitespace().next().unwrap();
            assert!(time.parse::<f64>().is_ok(), "{line}");
        }
    }

    #[test]
    fn an_engine_that_floods_the_log_is_cut_at_its_bound() {
        let kept = Kept::default();
        let log = crate::EngineLog::new(Box::new(kept.clone()));
        let logger = log.engine(0, Player::X, "brain:flood");
        let long = vec![b'a'; MAX_LINE + 10];
        logger.line(Said::Output, &long);
        let line = vec![b'b'; 1000];
        for _ in 0..(crate::log::ENGINE_BYTES / 1000 + 10) {
            logger.line(Said::Error, &line);
        }
        // What the arena sends and notes is kept, flood or not.
        logger.line(Said::Sent, b"END");
        logger.line(Said::Note, b"no move: it flooded");
        // Another engine's lines in the same log are its own.
        log.engine(1, Player::O, "brain:quiet")
            .line(Said::Sent, b"BEGIN");
        // Once its game is over, nothing more is logged under its label.
        logger.close();
        logger.line(Said::Error, b"from a process left behind");
        log.finish().unwrap();
        let text = String::from_utf8(kept.0.lock().unwrap().clone()).unwrap();
        let lines = kept.lines();
        // The long line cut at MAX_LINE and marked.
        assert!(lines[0].ends_with(&format!("{} …", "a".repeat(MAX_LINE))));
        assert!(lines[0].len() < MAX_LINE + 40);
        let flood = "game 0 X brain:flood";
        assert_eq!(
            lines[lines.len() - 4..],
            [
                format!(
                    "{flood} # the rest of this engine's output and standard error in this game \
                     is left out (over 1048576 bytes of log)"
                ),
                format!("{flood} < END"),
                format!("{flood} # no move: it flooded"),
                "game 1 O brain:quiet < BEGIN".to_owned(),
            ],
        );
        // The engine's lines, whole (times and labels too), within the
        // bound and a line more.
        let bytes: usize = text
            .lines()
            .filter(|l| l.contains(" brain:flood > ") || l.contains(" brain:flood ! "))
            .map(|l| l.len() + 1)
            .sum();
        let bound = crate::log::ENGINE_BYTES as usize;
        assert!((bound - 1100..=bound + 1100).contains(&bytes), "{bytes}");
    }

    /// An engine whose answers fill the queue nobody reads once it has
    /// failed: its end lets the reader go on, so the log has its last line.
    #[test]
    fn an_engines_end_logs_what_it_said_after_its_failure() {
        let dir = std::env::temp_dir().join(format!("oxo-gomocup-many-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // "info 1" is its answer (no move); 59 more lines, then the last.
        let path = scripted_engine(
            &dir,
            "pbrain-many",
            "for i in $(seq 1 60); do echo \"info $i\"; done; echo last",
        );
        let kept = Kept::default();
        let log = crate::EngineLog::new(Box::new(kept.clone()));
        let logger = log.engine(0, Player::X, "brain:many");
        let mut engine =
            External::start(&path, rules(), Duration::from_secs(30), None, Some(logger)).unwrap();
        assert_eq!(engine.choose(&Game::new(rules())), None);
        drop(engine);
        log.finish().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let lines = kept.lines();
        assert!(
            lines.contains(&"game 0 X brain:many > last".to_owned()),
            "{lines:#?}"
        );
        assert!(
            lines.contains(&"game 0 X brain:many > info 60".to_owned()),
            "{lines:#?}"
        );
    }

    /// A writer that holds every write until it is let go.
    #[derive(Clone, Default)]
    struct Held(Arc<(Mutex<bool>, std::sync::Condvar)>, Kept);

    impl Held {
        fn let_go(&self) {
            *self.0.0.lock().unwrap() = true;
            self.0.1.notify_all();
        }
    }

    impl Write for Held {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            let (free, wake) = &*self.0;
            let mut free = free.lock().unwrap();
            while !*free {
                free = wake.wait(free).unwrap();
            }
            self.1.write(bytes)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A log that cannot be written (a full pipe, a stalled disk) holds
    /// up neither the engine's answers nor its reader: the move is made,
    /// and the lines the queue cannot hold are left out and counted.
    #[test]
    fn a_stalled_log_costs_no_engine_its_move() {
        let held = Held::default();
        let log = crate::EngineLog::new(Box::new(held.clone()));
        let judged = {
            let logger = log.engine(0, Player::X, "brain:x");
            let path =
                std::env::temp_dir().join(format!("oxo-gomocup-held-{}", std::process::id()));
            std::fs::create_dir_all(&path).unwrap();
            let engine = scripted_engine(&path, "pbrain-held", "echo 4,4");
            // A minute for the move: with the writer held, a reader that
            // waited for the log would never pass the answer on.
            let mut external = External::start(
                &engine,
                rules(),
                Duration::from_secs(60),
                None,
                Some(logger),
            )
            .unwrap();
            let moved = external.choose(&Game::new(rules()));
            drop(external);
            let _ = std::fs::remove_dir_all(&path);
            moved
        };
        assert_eq!(judged, Some(Cell::new(4, 4)));
        // More lines than the queue holds, while the writer is held.
        let flood = log.engine(1, Player::O, "brain:y");
        for _ in 0..crate::log::QUEUED + 100 {
            flood.line(Said::Sent, b"TURN 0,0");
        }
        held.let_go();
        log.finish().unwrap();
        let lines = held.1.lines();
        assert!(
            lines.contains(&"game 0 X brain:x > 4,4".to_owned()),
            "{lines:?}"
        );
        let said = lines
            .iter()
            .find(|l| l.contains("lines left out here"))
            .expect("a count");
        let missed: usize = said.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!((100..=200).contains(&missed), "{said}");
    }

    /// Write `body` to `path`, executable: an engine script.
    fn executable(path: &Path, body: &str) {
        std::fs::write(path, body).unwrap();
        let mut permissions = std::fs::metadata(path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(path, permissions).unwrap();
    }

    /// An engine script in `dir` named `name` that answers `START` with
    /// `OK` and runs `on_move` (shell) when asked for a move.
    fn scripted_engine(dir: &Path, name: &str, on_move: &str) -> PathBuf {
        let path = dir.join(name);
        let body = format!(
            "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    START*) echo OK ;;\n    \
             BEGIN|TURN*|DONE) {on_move} ;;\n    END) exit 0 ;;\n  esac\ndone\n"
        );
        executable(&path, &body);
        path
    }

    /// The engine's first move on an empty board, asked on a thread of its
    /// own: `None` when it was not given within a minute (a bound on the
    /// protocol, not a speed test), else its move or its failure.
    fn first_move(path: &Path, move_time: Duration) -> Option<Result<Cell, String>> {
        move_in(path, Game::new(rules()), move_time)
    }

    /// The first move of the engine script `body`, written as `name` in a
    /// folder of its own (removed after), as [`first_move`] judges it.
    fn script_first_move(
        name: &str,
        body: &str,
        move_time: Duration,
    ) -> Option<Result<Cell, String>> {
        let dir = std::env::temp_dir().join(format!("oxo-gomocup-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        executable(&path, body);
        let judged = first_move(&path, move_time);
        let _ = std::fs::remove_dir_all(&dir);
        judged
    }

    /// The engine's move in `game`, as [`first_move`] asks it; the engine
    /// is ended before the answer is given (so that no test leaves one
    /// running).
    fn move_in(path: &Path, game: Game, move_time: Duration) -> Option<Result<Cell, String>> {
        let path = path.to_owned();
        let (send, answer) = mpsc::channel();
        std::thread::spawn(move || {
            let mut engine = match External::start(&path, game.rules(), move_time, None, None) {
                Ok(engine) => engine,
                Err(e) => {
                    let _ = send.send(Err(format!("could not start: {e}")));
                    return;
                }
            };
            let chosen = engine.choose(&game);
            let judged = chosen.ok_or_else(|| engine.failure().unwrap_or_default());
            drop(engine);
            let _ = send.send(judged);
        });
        answer.recv_timeout(Duration::from_secs(60)).ok()
    }

    /// `MESSAGE`, `DEBUG` and blank lines are not answers: skipped however
    /// many come before the move, and an engine that sends nothing else
    /// has no move in its time (the arena waited for ever, its memory
    /// growing by gigabytes, while such a flood kept coming).
    #[test]
    fn an_engine_flooding_messages_has_no_move_in_its_time() {
        let dir = std::env::temp_dir().join(format!("oxo-gomocup-flood-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let chatty = scripted_engine(
            &dir,
            "pbrain-chatty",
            "yes 'MESSAGE thinking' | head -n 3000; yes 'debug x' | head -n 3000; \
             yes '' | head -n 3000; echo 7,7",
        );
        let flood = scripted_engine(&dir, "pbrain-flood", "exec yes 'MESSAGE thinking'");
        // A generous time for the chatty one: the test checks what is
        // skipped, not how fast.
        let chatty = first_move(&chatty, Duration::from_secs(30));
        let flood = first_move(&flood, Duration::from_millis(200));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(chatty, Some(Ok(Cell::new(7, 7))));
        let failure = flood
            .expect("the flooding engine's move was judged")
            .expect_err("no move");
        assert!(failure.contains("gave no answer within"), "{failure}");
    }

    /// An engine that stops reading its input has no move in its time,
    /// however much it is sent (here a `BOARD` of 10,000 stones, more than
    /// a pipe holds): the arena waited for ever, its write blocked.
    #[test]
    fn an_engine_that_stops_reading_has_no_move_in_its_time() {
        let dir = std::env::temp_dir().join(format!("oxo-gomocup-deaf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("pbrain-deaf");
        executable(&path, "#!/bin/sh\nread -r line\necho OK\nexec sleep 600\n");
        // Stones two apart: no five anywhere, whoever holds them.
        let rules = Rules::new(200, 200, 5).unwrap();
        let mut game = Game::new(rules);
        for row in (0..200).step_by(2) {
            for col in (0..200).step_by(2) {
                game.play(Cell::new(row, col)).unwrap();
            }
        }
        let judged = move_in(&path, game, Duration::from_millis(200));
        let _ = std::fs::remove_dir_all(&dir);
        let failure = judged.expect("the move was judged").expect_err("no move");
        assert!(failure.contains("gave no answer within"), "{failure}");
    }

    /// An engine that closes its input but runs on has stopped reading,
    /// told as soon as a write to it fails: the move's hour is not waited
    /// out.
    #[test]
    fn an_engine_that_closes_its_input_stopped_reading() {
        // An hour for the move: only a failed write can end the wait.
        let judged = script_first_move(
            "pbrain-closed",
            "#!/bin/sh\nread -r line\nexec 0<&-\necho OK\nexec sleep 600\n",
            Duration::from_secs(3600),
        );
        let failure = judged.expect("judged").expect_err("no move");
        assert!(failure.contains("stopped reading"), "{failure}");
    }

    /// An engine that exits while a process it started holds its output
    /// open has exited: said as soon as the arena looks, not when the
    /// move's hour is up (no end of its output ever comes).
    #[test]
    fn an_engine_that_exits_leaving_its_output_open_has_exited() {
        // Its own group is ended with the game: the sleeper does not
        // outlive the test.
        let judged = script_first_move(
            "pbrain-left",
            "#!/bin/sh\nread -r line\necho OK\nread -r line\nsleep 600 &\nexit 3\n",
            Duration::from_secs(3600),
        );
        let failure = judged
            .expect("judged within the test's bound")
            .expect_err("no move");
        assert!(failure.contains("exited (exit status: 3)"), "{failure}");
    }

    /// Lines ended by CR alone are lines, and `ok` in any case is OK, as
    /// the protocol allows an engine and Piskvork reads it.
    #[test]
    fn an_engine_ending_its_lines_with_cr_alone_plays() {
        let moved = script_first_move(
            "pbrain-cr",
            "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    START*) printf 'ok\\r' ;;\n    \
             BEGIN|TURN*|DONE) printf 'MESSAGE thinking\\r7,7\\r' ;;\n    END) exit 0 ;;\n  esac\ndone\n",
            Duration::from_secs(30),
        );
        assert_eq!(moved, Some(Ok(Cell::new(7, 7))));
    }

    /// An engine that exits is said to have exited, with its status, not
    /// to have stopped reading, though its input closes with it: whether
    /// the failed write is heard while waiting for an answer or on the
    /// next write. Its output stays open (a process it left holds it), so
    /// only the failed write tells of it.
    #[test]
    fn an_engine_that_exits_is_said_to_have_exited() {
        let dir = std::env::temp_dir().join(format!("oxo-gomocup-exit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("pbrain-exit");
        executable(
            &path,
            "#!/bin/sh\nread -r line\necho OK\nexec 0<&-\nsleep 600 &\nexit 3\n",
        );
        let exited = |e: EngineError| e.to_string().ends_with("exited (exit status: 3)");
        // Heard while waiting: a write after the exit fails (queued here
        // past the check of earlier failures), and the wait hears it.
        let mut engine =
            External::start(&path, rules(), Duration::from_secs(30), None, None).unwrap();
        engine.child.wait().unwrap();
        let input = engine.input.as_ref().unwrap();
        let _ = input.queue.send(b"TURN 0,0\n".to_vec());
        let heard = engine.answer(Instant::now(), Duration::from_secs(60), None);
        assert!(heard.is_err_and(exited));
        // Heard on the next write: the failure waits for it.
        let mut engine =
            External::start(&path, rules(), Duration::from_secs(30), None, None).unwrap();
        engine.child.wait().unwrap();
        let sent = match engine.send(&["TURN 0,0".to_owned()]) {
            Ok(()) => {
                let failed = engine.lines.recv_timeout(Duration::from_secs(60));
                assert!(matches!(failed, Ok(Heard::WriteFailed)));
                engine.send(&["TURN 0,1".to_owned()])
            }
            failed => failed,
        };
        assert!(sent.is_err_and(exited));
        drop(engine);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A refusal names the command refused: `RECTSTART` on a board that is
    /// not square.
    #[test]
    fn a_refused_rectstart_is_named() {
        let dir = std::env::temp_dir().join(format!("oxo-gomocup-rect-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Answers anything but START with an error, as an engine that only
        // plays square boards may.
        let path = dir.join("pbrain-square");
        executable(
            &path,
            "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    START*) echo OK ;;\n    \
             *) echo 'UNKNOWN only square boards' ;;\n  esac\ndone\n",
        );
        let rect = Rules::new(9, 7, 5).unwrap();
        let refused = External::start(&path, rect, Duration::from_secs(30), None, None);
        let _ = std::fs::remove_dir_all(&dir);
        let err = refused.expect_err("refused");
        assert_eq!(
            err.to_string(),
            format!(
                "brain:{} answered RECTSTART with \"UNKNOWN only square boards\"",
                path.display()
            )
        );
    }

    /// An engine that fails is ended with what it started: here a script
    /// whose command, started before its wrong answer to `START`, would
    /// otherwise run on for 100 s after the arena let the script go.
    #[cfg(target_os = "linux")]
    #[test]
    fn an_engine_is_ended_with_the_processes_it_started() {
        let dir = std::env::temp_dir().join(format!("oxo-gomocup-group-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pid_file = dir.join("pid");
        let path = dir.join("pbrain-garbage");
        let body = format!(
            "#!/bin/sh\nsh -c 'echo $$ > \"$0\"; echo garbage; exec sleep 100' '{}'\n",
            pid_file.display()
        );
        executable(&path, &body);
        // A generous time: the engine answers garbage at once.
        let refused = External::start(&path, rules(), Duration::from_secs(30), None, None);
        assert!(
            matches!(refused, Err(EngineError::Refused { .. })),
            "{refused:?}"
        );
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        // Gone, or dead and waiting for init to collect it.
        let running = || {
            std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
                .is_ok_and(|stat| !stat.rsplit(") ").next().unwrap_or("").starts_with('Z'))
        };
        // A protocol's bound, not a speed test.
        let deadline = Instant::now() + Duration::from_secs(60);
        while running() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!running(), "the engine's sleep {} outlived it", pid.trim());
    }

    /// After an opening it did not see played, the engine is given the
    /// stones in turn: the first player's first, the sides alternating,
    /// the last its opponent's; then its own move and the opponent's
    /// reply come as played (`TURN`).
    #[test]
    fn an_engine_after_an_opening_is_told_the_stones_in_turn() {
        let dir = std::env::temp_dir().join(format!("oxo-gomocup-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (path, log) = recording_engine(&dir, &["6,6", "7,7"], "");
        // A generous time: the test checks what is said, not how fast.
        let mut engine =
            External::start(&path, rules(), Duration::from_secs(30), None, None).unwrap();
        let moves = moves();
        let mut game = Game::new(rules());
        for &cell in &moves[..4] {
            game.play(cell).unwrap();
        }
        let first = engine.choose(&game);
        assert_eq!(first, Some(Cell::new(6, 6)), "{:?}", engine.failure());
        game.play(Cell::new(6, 6)).unwrap();
        game.play(moves[4]).unwrap();
        assert_eq!(engine.choose(&game), Some(Cell::new(7, 7)));
        drop(engine);
        let told = std::fs::read_to_string(&log).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        // Up to END, which the engine may not get to log before it is
        // ended on a slow machine.
        let told: Vec<&str> = told
            .lines()
            .skip_while(|l| *l != "BOARD")
            .take_while(|l| *l != "END")
            .collect();
        // X (the engine, to move) began: its stones 1, O's 2, alternating.
        assert_eq!(
            told,
            [
                "BOARD", "4,4,1", "1,0,2", "0,8,1", "8,0,2", "DONE", "TURN 5,4"
            ],
            "{told:?}"
        );
    }

    /// Given the opening's order ([`Strategy::start_from`], as the arena
    /// gives it), the engine is told the stones in that order, not in
    /// board order.
    #[test]
    fn an_engine_told_the_opening_gets_it_in_the_order_played() {
        let dir = std::env::temp_dir().join(format!("oxo-gomocup-order-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (path, log) = recording_engine(&dir, &["6,6"], "");
        let mut engine =
            External::start(&path, rules(), Duration::from_secs(30), None, None).unwrap();
        // X's second stone and O's first come before X's first in board order.
        let opening = [
            Cell::new(5, 5),
            Cell::new(8, 8),
            Cell::new(1, 1),
            Cell::new(0, 0),
        ];
        let mut game = Game::new(rules());
        for &cell in &opening {
            game.play(cell).unwrap();
        }
        engine.start_from(&opening);
        assert_eq!(
            engine.choose(&game),
            Some(Cell::new(6, 6)),
            "{:?}",
            engine.failure()
        );
        drop(engine);
        let told = std::fs::read_to_string(&log).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        // Without a match time, none is said.
        assert!(told.contains("INFO timeout_match 0\n"), "{told}");
        assert!(!told.contains("time_left"), "{told}");
        let told: Vec<&str> = told
            .lines()
            .skip_while(|l| *l != "BOARD")
            .take_while(|l| *l != "END")
            .collect();
        assert_eq!(
            told,
            ["BOARD", "5,5,1", "8,8,2", "1,1,1", "0,0,2", "DONE"],
            "{told:?}"
        );
    }

    /// The slack is given once for the game; what is told left is never
    /// less than nothing.
    #[test]
    fn a_match_clock_counts_down_with_a_slack_for_the_game() {
        let ms = Duration::from_millis;
        let mut clock = MatchClock::new(ms(1000));
        assert_eq!((clock.left(), clock.allowed()), (ms(1000), ms(1100)));
        clock.spend(ms(300));
        assert_eq!((clock.left(), clock.allowed()), (ms(700), ms(800)));
        // Past the match time, within the slack: nothing left to tell.
        clock.spend(ms(750));
        assert_eq!((clock.left(), clock.allowed()), (ms(0), ms(50)));
        clock.spend(ms(100));
        assert_eq!((clock.left(), clock.allowed()), (ms(0), ms(0)));
        // At least 50 ms for the pipes, as for a move.
        assert_eq!(MatchClock::new(ms(100)).allowed(), ms(150));
        assert_eq!(MatchClock::new(ms(1000)).match_time(), ms(1000));
    }

    /// The engine at `path` started with `move_time` a move and
    /// `match_time` a game.
    fn on_clock(path: &Path, move_time: Duration, match_time: Duration) -> External {
        External::start(path, rules(), move_time, Some(match_time), None).unwrap()
    }

    /// With a match time, the engine is told it at the start, and before
    /// each move what is left of it as the arena measured the moves before
    /// (each at least the 10 ms the engine pauses: the test checks what is
    /// said, not how fast).
    #[test]
    fn an_engine_on_a_match_clock_is_told_its_time_left() {
        let dir = std::env::temp_dir().join(format!("oxo-gomocup-clock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (path, log) = recording_engine(&dir, &["4,4", "5,5", "6,6"], "sleep 0.01;");
        let mut engine = on_clock(&path, Duration::from_secs(30), Duration::from_secs(60));
        let mut game = Game::new(rules());
        for (mine, theirs) in [((4, 4), (0, 8)), ((5, 5), (8, 0)), ((6, 6), (0, 1))] {
            let mine = Cell::new(mine.0, mine.1);
            assert_eq!(engine.choose(&game), Some(mine), "{:?}", engine.failure());
            game.play(mine).unwrap();
            game.play(Cell::new(theirs.0, theirs.1)).unwrap();
        }
        drop(engine);
        let told = std::fs::read_to_string(&log).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let timeouts: Vec<&str> = told
            .lines()
            .filter(|l| l.starts_with("INFO timeout"))
            .collect();
        assert_eq!(
            timeouts,
            ["INFO timeout_turn 30000", "INFO timeout_match 60000"]
        );
        let left: Vec<u64> = told
            .lines()
            .filter_map(|l| l.strip_prefix("INFO time_left "))
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(left.len(), 3, "{told}");
        assert_eq!(left[0], 60_000, "{told}");
        assert!(left.windows(2).all(|w| w[1] + 10 <= w[0]), "{left:?}");
        // Each just before the command that asks for the move.
        let asked: Vec<&str> = told
            .lines()
            .skip_while(|l| !l.starts_with("INFO time_left"))
            .take_while(|l| *l != "END")
            .map(|l| {
                if l.starts_with("INFO time_left ") {
                    "INFO time_left"
                } else {
                    l
                }
            })
            .collect();
        assert_eq!(
            asked,
            [
                "INFO time_left",
                "BEGIN",
                "INFO time_left",
                "TURN 8,0",
                "INFO time_left",
                "TURN 0,8"
            ],
            "{told}"
        );
    }

    /// An engine that gives no answer before its match time runs out has
    /// no move, out of match time; one whose move time runs out first is
    /// late, as without a match time. Neither depends on speed: the first
    /// never answers its third move (at the latest: a busy machine may use
    /// its time sooner), the second never answers.
    #[test]
    fn an_engine_out_of_match_time_has_no_move() {
        let dir = std::env::temp_dir().join(format!("oxo-gomocup-out-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (path, _) = recording_engine(&dir, &["4,4", "5,5"], "");
        let mut engine = on_clock(&path, Duration::from_secs(60), Duration::from_millis(500));
        let mut game = Game::new(rules());
        let mut moves = 0;
        let failure = loop {
            let Some(cell) = engine.choose(&game) else {
                break engine.failure().expect("a reason");
            };
            moves += 1;
            game.play(cell).unwrap();
            let reply = game.legal_moves().next().unwrap();
            game.play(reply).unwrap();
        };
        assert!(moves <= 2, "{moves} moves");
        assert!(
            failure.starts_with("brain:")
                && failure.contains(" is out of match time: no answer within the ")
                && failure.ends_with(" ms it had left of 500 ms"),
            "{failure}"
        );
        // No more questions after it.
        assert_eq!(engine.choose(&game), None);
        drop(engine);

        let mute = scripted_engine(&dir, "pbrain-mute", ":");
        let mut engine = on_clock(&mute, Duration::from_millis(100), Duration::from_secs(60));
        assert_eq!(engine.choose(&Game::new(rules())), None);
        let failure = engine.failure().expect("a reason");
        drop(engine);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            failure.ends_with("gave no answer within 150 ms"),
            "{failure}"
        );
    }
}
