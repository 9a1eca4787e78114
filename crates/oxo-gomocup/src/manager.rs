//! The manager side: an external Gomocup engine as an oxo player, as
//! `oxo arena --x brain:PATH` runs it.
//!
//! Each game runs the engine as a child process and talks the Piskvork
//! protocol to it (see [`crate::brain`] for the commands): `START` (or
//! `RECTSTART`), the `INFO` it needs (`timeout_turn`, `timeout_match 0`,
//! `rule`, `game_type 1`), then `BEGIN` for the first move of a game, `TURN
//! X,Y` after a single opponent move, or the whole position with `BOARD`,
//! and `END` when the game is over. The referee's part: an engine that
//! answers anything but a free cell on the board, answers later than its
//! time (the move time plus a tenth, and at least 50 ms, for the pipes), or
//! dies, has no move; the arena scores that as a loss and reports why
//! ([`Strategy::failure`]).

use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use oxo_ai::Strategy;
use oxo_core::{Cell, Game, MoveError, Player, Rules};
use oxo_text::input::{LineRead, MAX_LINE, quoted, read_line_bounded};

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
    /// `START` answered with something else than `OK`.
    #[error("{engine} answered START with \"{}\"", quoted(.answer.as_bytes()))]
    Refused {
        /// The engine's name.
        engine: String,
        /// What it said.
        answer: String,
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
    /// The engine ended.
    #[error("{engine} exited{}", .status.map(|s| format!(" ({s})")).unwrap_or_default())]
    Exited {
        /// The engine's name.
        engine: String,
        /// How, if known.
        status: Option<ExitStatus>,
    },
    /// An answer that is not `X,Y` on the board.
    #[error("{engine} answered \"{}\", which is no move", quoted(.answer.as_bytes()))]
    NotAMove {
        /// The engine's name.
        engine: String,
        /// What it said.
        answer: String,
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

/// An engine process playing one game.
pub struct External {
    name: String,
    child: Child,
    input: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    rules: Rules,
    move_time: Duration,
    /// The board as the engine knows it (after its last move).
    told: Vec<Option<Player>>,
    failure: Option<String>,
    /// Set once the engine has failed: it gets no more questions.
    broken: bool,
}

impl std::fmt::Debug for External {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("External")
            .field("name", &self.name)
            .field("rules", &self.rules)
            .finish_non_exhaustive()
    }
}

/// The answer time allowed for `move_time`: a tenth more, at least 50 ms.
#[must_use]
pub fn allowance(move_time: Duration) -> Duration {
    move_time + (move_time / 10).max(Duration::from_millis(50))
}

impl External {
    /// Start the engine at `path` for a game under `rules` with
    /// `move_time` a move, and wait for its `OK`.
    ///
    /// # Errors
    /// The engine cannot be started, or refuses the board.
    pub fn start(path: &Path, rules: Rules, move_time: Duration) -> Result<External, EngineError> {
        let name = format!("brain:{}", path.display());
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| EngineError::Start {
                path: path.to_owned(),
                source,
            })?;
        let stdout = child.stdout.take().ok_or(EngineError::NoOutput)?;
        let (send, lines) = mpsc::channel();
        // The engine's lines, read on a thread of their own so that an
        // engine that says nothing cannot hold the arena up.
        // Each line is kept to its first MAX_LINE bytes, so an engine that
        // never ends a line cannot fill the arena's memory.
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            while let Ok(LineRead::Line | LineRead::TooLong) =
                read_line_bounded(&mut reader, &mut buf, MAX_LINE)
            {
                // Line ends go with the rest of the trimming in `answer`.
                if send
                    .send(String::from_utf8_lossy(&buf).into_owned())
                    .is_err()
                {
                    return;
                }
            }
        });
        let mut engine = External {
            name,
            input: child.stdin.take(),
            child,
            lines,
            rules,
            move_time,
            told: vec![None; rules.cell_count()],
            failure: None,
            broken: false,
        };
        let start = if rules.rows() == rules.cols() {
            format!("START {}", rules.cols())
        } else {
            format!("RECTSTART {},{}", rules.cols(), rules.rows())
        };
        engine.send(&[start])?;
        let answer = engine.answer(START_TIME)?;
        if answer != "OK" {
            return Err(EngineError::Refused {
                engine: engine.name.clone(),
                answer,
            });
        }
        let ms = move_time.as_millis();
        let rule = u8::from(rules.is_exact());
        engine.send(&[
            format!("INFO timeout_turn {ms}"),
            "INFO timeout_match 0".to_owned(),
            format!("INFO rule {rule}"),
            "INFO game_type 1".to_owned(),
        ])?;
        Ok(engine)
    }

    fn send(&mut self, lines: &[String]) -> Result<(), EngineError> {
        let input = self.input.as_mut().ok_or(EngineError::InputClosed)?;
        let mut text = lines.join("\n");
        text.push('\n');
        input
            .write_all(text.as_bytes())
            .and_then(|()| input.flush())
            .map_err(|source| EngineError::StoppedReading {
                engine: self.name.clone(),
                source,
            })
    }

    /// The engine's next line that is not a `MESSAGE` or `DEBUG`, within
    /// `limit`.
    fn answer(&mut self, limit: Duration) -> Result<String, EngineError> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let line = line.trim().to_owned();
                    let word = line.split(' ').next().unwrap_or("").to_ascii_uppercase();
                    if line.is_empty() || word == "MESSAGE" || word == "DEBUG" {
                        continue;
                    }
                    return Ok(line);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(EngineError::NoAnswer {
                        engine: self.name.clone(),
                        limit,
                    });
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(EngineError::Exited {
                        engine: self.name.clone(),
                        status: self.child.try_wait().ok().flatten(),
                    });
                }
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
        let xy = |i: usize| {
            let cell = self.rules.cell_at(i);
            format!("{},{}", cell.col, cell.row)
        };
        let commands = match changed[..] {
            [] if game.move_count() == 0 => vec!["BEGIN".to_owned()],
            [one] if self.told[one].is_none() && game.cells()[one] == Some(me.other()) => {
                vec![format!("TURN {}", xy(one))]
            }
            _ => {
                let mut lines = vec!["BOARD".to_owned()];
                for (i, cell) in game.cells().iter().enumerate() {
                    if let Some(player) = cell {
                        let field = if *player == me { 1 } else { 2 };
                        lines.push(format!("{},{field}", xy(i)));
                    }
                }
                lines.push("DONE".to_owned());
                lines
            }
        };
        self.send(&commands)?;
        let answer = self.answer(allowance(self.move_time))?;
        let cell = answer
            .split_once(',')
            .and_then(|(x, y)| {
                let (x, y) = (x.trim().parse::<i64>().ok()?, y.trim().parse::<i64>().ok()?);
                self.rules.cell(y, x)
            })
            .ok_or_else(|| EngineError::NotAMove {
                engine: self.name.clone(),
                answer: answer.clone(),
            })?;
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
        Ok(cell)
    }
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
                self.failure = Some(reason.to_string());
                None
            }
        }
    }

    fn name(&self) -> &str {
        &self.name
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
        let deadline = Instant::now() + Duration::from_millis(200);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
