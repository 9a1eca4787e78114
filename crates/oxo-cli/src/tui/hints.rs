//! Where the terminal game's hints are valued: off the loop's thread, so
//! the screen answers keys while a position is searched (up to a second for
//! the hints, seconds for a longer look), and a search for a position the
//! game has left is stopped at once.
//!
//! The [`App`](super::App) says what it wants valued
//! ([`App::hint_job`](super::App::hint_job)); the event loop hands that to
//! a [`Hinter`] and the answer back to the app
//! ([`App::hints_came`](super::App::hints_came)).

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, TryRecvError};
use std::thread::{self, JoinHandle};

use oxo_ai::exact::{SomeValues, Valuer, ValuesError};
use oxo_ai::hints::{HINT_BUDGET, LONGER_BUDGET, hint_valuer};
use oxo_core::Game;

/// A position to value: the app's number for it, and whether this is a
/// longer look ([`LONGER_BUDGET`] positions a pass instead of
/// [`HINT_BUDGET`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    /// The app's number for the position (see `App::hint_job`).
    pub position: u64,
    /// A longer look.
    pub longer: bool,
}

/// The values found for a job's position.
#[derive(Debug)]
pub struct Answer {
    /// What was asked.
    pub job: Job,
    /// Every move's value, or those the budget reached.
    pub values: Result<SomeValues, HintError>,
}

/// Why a position got no values.
#[derive(Debug, thiserror::Error)]
pub enum HintError {
    /// The valuer refused or failed.
    #[error(transparent)]
    Values(#[from] ValuesError),
    /// The thread that values positions has stopped (it panicked).
    #[error("the hints' search stopped working; restart the game to get hints again")]
    Gone,
}

/// Where the event loop has positions valued.
pub trait Hinter {
    /// Value `game` for `job`, stopping the search of any earlier job
    /// (whose answer then never comes).
    fn ask(&mut self, job: Job, game: Game);

    /// Stop the search under way, if any; its answer will not come.
    fn cancel(&mut self);

    /// An answer that has come, if any; each comes once.
    fn answer(&mut self) -> Option<Answer>;
}

/// Value `game` with `valuer` (made on first use, and again for other
/// rules) within the job's budget, stopping once `stop` is raised; the
/// valuer is left at the hints' budget with no stop flag.
fn value(
    valuer: &mut Option<Valuer>,
    job: Job,
    game: &Game,
    stop: Option<Arc<AtomicBool>>,
) -> Result<SomeValues, ValuesError> {
    let valuer = match valuer {
        Some(valuer) if valuer.rules() == game.rules() => valuer,
        _ => valuer.insert(hint_valuer(game.rules())?),
    };
    valuer.set_budget(Some(if job.longer {
        LONGER_BUDGET
    } else {
        HINT_BUDGET
    }));
    valuer.set_stop(stop);
    let values = valuer.some_values(game);
    valuer.set_budget(Some(HINT_BUDGET));
    valuer.set_stop(None);
    values
}

/// Values each position on the caller's thread as it is asked for: for
/// tests, where the answer must be there at once.
#[derive(Debug, Default)]
pub struct Inline {
    valuer: Option<Valuer>,
    answer: Option<Answer>,
}

impl Hinter for Inline {
    fn ask(&mut self, job: Job, game: Game) {
        let values = value(&mut self.valuer, job, &game, None).map_err(HintError::from);
        self.answer = Some(Answer { job, values });
    }

    fn cancel(&mut self) {
        self.answer = None;
    }

    fn answer(&mut self) -> Option<Answer> {
        self.answer.take()
    }
}

/// A job as the thread gets it: the position, and the flag that stops its
/// search.
type Work = (Job, Game, Arc<AtomicBool>);

/// Values positions on a thread of its own, one at a time, keeping one
/// valuer (so a second longer look at a position goes on from what the
/// first proved). Dropping it stops the search under way and waits for
/// the thread to end (milliseconds: the flag is read every 16,384
/// positions).
#[derive(Debug)]
pub struct Threaded {
    jobs: Option<mpsc::Sender<Work>>,
    answers: mpsc::Receiver<Answer>,
    /// The job asked for last and its stop flag, until its answer comes or
    /// it is cancelled.
    running: Option<(Job, Arc<AtomicBool>)>,
    thread: Option<JoinHandle<()>>,
}

impl Threaded {
    /// Start the thread.
    ///
    /// # Errors
    /// The system would not start a thread.
    pub fn start() -> io::Result<Threaded> {
        let (jobs, work) = mpsc::channel::<Work>();
        let (answered, answers) = mpsc::channel();
        let thread = thread::Builder::new()
            .name("oxo-hints".to_owned())
            .spawn(move || {
                let mut valuer = None;
                for (job, game, stop) in work {
                    if stop.load(Ordering::Relaxed) {
                        continue;
                    }
                    let values = value(&mut valuer, job, &game, Some(Arc::clone(&stop)));
                    if stop.load(Ordering::Relaxed) {
                        continue;
                    }
                    let values = values.map_err(HintError::from);
                    if answered.send(Answer { job, values }).is_err() {
                        return;
                    }
                }
            })?;
        Ok(Threaded {
            jobs: Some(jobs),
            answers,
            running: None,
            thread: Some(thread),
        })
    }
}

impl Hinter for Threaded {
    fn ask(&mut self, job: Job, game: Game) {
        self.cancel();
        let stop = Arc::new(AtomicBool::new(false));
        // A thread that has stopped is found out by `answer`.
        if let Some(jobs) = &self.jobs {
            jobs.send((job, game, Arc::clone(&stop))).ok();
        }
        self.running = Some((job, stop));
    }

    fn cancel(&mut self) {
        if let Some((_, stop)) = self.running.take() {
            stop.store(true, Ordering::Relaxed);
        }
    }

    fn answer(&mut self) -> Option<Answer> {
        loop {
            match self.answers.try_recv() {
                Ok(answer) => {
                    // An answer that came as its job was cancelled is
                    // dropped; the app asks again if it wants it.
                    if self
                        .running
                        .as_ref()
                        .is_some_and(|(job, _)| *job == answer.job)
                    {
                        self.running = None;
                        return Some(answer);
                    }
                }
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => {
                    let (job, _) = self.running.take()?;
                    return Some(Answer {
                        job,
                        values: Err(HintError::Gone),
                    });
                }
            }
        }
    }
}

impl Drop for Threaded {
    fn drop(&mut self) {
        self.cancel();
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            thread.join().ok();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use oxo_core::Rules;

    use super::*;

    /// A 7×7 k=5 position whose hints leave moves without a value, and
    /// which a longer look values whole (as the server's tests use).
    fn short_of_the_budget() -> Game {
        Game::from_notation("...O.../..X..../......./......./...X.../......./......O", 5).unwrap()
    }

    /// The next answer from `hinter`; a test that waits minutes has
    /// failed (a look takes seconds).
    fn wait(hinter: &mut Threaded) -> Answer {
        let deadline = std::time::Instant::now() + Duration::from_secs(300);
        while std::time::Instant::now() < deadline {
            if let Some(answer) = hinter.answer() {
                return answer;
            }
            thread::sleep(Duration::from_millis(5));
        }
        panic!("no answer came");
    }

    #[test]
    fn the_thread_values_a_position_as_the_caller_does() {
        let game = Game::from_notation("X../.O./...", 3).unwrap();
        let mut threaded = Threaded::start().unwrap();
        let job = Job {
            position: 4,
            longer: false,
        };
        threaded.ask(job, game.clone());
        let answer = wait(&mut threaded);
        assert_eq!(answer.job, job);
        let mut inline = Inline::default();
        inline.ask(job, game);
        let theirs = inline.answer().unwrap().values.unwrap();
        assert_eq!(answer.values.unwrap().moves, theirs.moves);
        assert!(inline.answer().is_none(), "an answer comes once");
    }

    /// A job asked for while another searches stops that search: only the
    /// last job's answer comes; a longer look then values every move.
    #[test]
    fn a_new_job_stops_the_last_and_only_its_answer_comes() {
        let mut threaded = Threaded::start().unwrap();
        let game = short_of_the_budget();
        let first = Job {
            position: 1,
            longer: true,
        };
        threaded.ask(first, game.clone());
        let hints = Job {
            position: 2,
            longer: false,
        };
        threaded.ask(hints, game.clone());
        let answer = wait(&mut threaded);
        assert_eq!(answer.job, hints);
        assert!(answer.values.is_ok());
        let longer = Job {
            position: 2,
            longer: true,
        };
        threaded.ask(longer, game);
        let answer = wait(&mut threaded);
        assert_eq!(answer.job, longer);
        assert!(answer.values.unwrap().is_complete());
        assert!(threaded.answer().is_none());
    }

    #[test]
    fn a_cancelled_job_never_answers_and_dropping_ends_the_thread() {
        let mut threaded = Threaded::start().unwrap();
        threaded.ask(
            Job {
                position: 1,
                longer: true,
            },
            short_of_the_budget(),
        );
        threaded.cancel();
        // The next job's answer is the one that comes.
        let next = Job {
            position: 2,
            longer: false,
        };
        threaded.ask(next, Game::new(Rules::default()));
        assert_eq!(wait(&mut threaded).job, next);
        threaded.ask(
            Job {
                position: 3,
                longer: true,
            },
            short_of_the_budget(),
        );
        // Stops the look and joins the thread.
        drop(threaded);
    }
}
