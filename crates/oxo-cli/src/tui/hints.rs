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
use oxo_ai::hints::{HINT_BUDGET, LONGER_BUDGET, hint_valuer, with_look};
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
    /// The thread that values positions has stopped (it panicked): the
    /// game ends.
    #[error("the hints' search failed (its panic message is above)")]
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
    let budget = if job.longer {
        LONGER_BUDGET
    } else {
        HINT_BUDGET
    };
    with_look(valuer, budget, stop, |valuer| valuer.some_values(game))
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

/// A job as the thread gets it: the ask's number, the position, and the
/// flag that stops its search.
type Work = (u64, Job, Game, Arc<AtomicBool>);

/// Values positions on a thread of its own, one at a time, keeping one
/// valuer (so a second longer look at a position goes on from what the
/// first proved). Dropping it stops the search under way and waits for
/// the thread to end (milliseconds: the flag is read every 16,384
/// positions).
#[derive(Debug)]
pub struct Threaded {
    jobs: Option<mpsc::Sender<Work>>,
    /// Answers, with the number of the ask each is for.
    answers: mpsc::Receiver<(u64, Answer)>,
    /// The last ask's number, its job and its stop flag, until its answer
    /// comes or it is cancelled: only its answer is taken (an earlier ask
    /// of the same job may have left one behind).
    running: Option<(u64, Job, Arc<AtomicBool>)>,
    /// The next ask's number.
    next: u64,
    /// The job asked for last, to name in the one report that the thread
    /// has gone (it may go while no job runs: a stopped search panics).
    last: Option<Job>,
    thread: Option<JoinHandle<()>>,
}

impl Threaded {
    /// Start the thread.
    ///
    /// # Errors
    /// The system would not start a thread.
    pub fn start() -> io::Result<Threaded> {
        let mut valuer = None;
        Threaded::spawn(move |job, game, stop| value(&mut valuer, job, game, Some(stop)))
    }

    /// Start the thread, valuing each position with `valuing` (given the
    /// job's stop flag).
    fn spawn(
        mut valuing: impl FnMut(Job, &Game, Arc<AtomicBool>) -> Result<SomeValues, ValuesError>
        + Send
        + 'static,
    ) -> io::Result<Threaded> {
        let (jobs, work) = mpsc::channel::<Work>();
        let (answered, answers) = mpsc::channel();
        let thread = thread::Builder::new()
            .name("oxo-hints".to_owned())
            .spawn(move || {
                for (ask, job, game, stop) in work {
                    if stop.load(Ordering::Relaxed) {
                        continue;
                    }
                    let values = valuing(job, &game, Arc::clone(&stop));
                    if stop.load(Ordering::Relaxed) {
                        continue;
                    }
                    let values = values.map_err(HintError::from);
                    if answered.send((ask, Answer { job, values })).is_err() {
                        return;
                    }
                }
            })?;
        Ok(Threaded {
            jobs: Some(jobs),
            answers,
            running: None,
            next: 0,
            last: None,
            thread: Some(thread),
        })
    }
}

impl Hinter for Threaded {
    fn ask(&mut self, job: Job, game: Game) {
        self.cancel();
        let stop = Arc::new(AtomicBool::new(false));
        let ask = self.next;
        self.next += 1;
        // A thread that has stopped is found out by `answer`.
        if let Some(jobs) = &self.jobs {
            jobs.send((ask, job, game, Arc::clone(&stop))).ok();
        }
        self.running = Some((ask, job, stop));
        self.last = Some(job);
    }

    fn cancel(&mut self) {
        if let Some((_, _, stop)) = self.running.take() {
            stop.store(true, Ordering::Relaxed);
        }
    }

    fn answer(&mut self) -> Option<Answer> {
        loop {
            match self.answers.try_recv() {
                Ok((ask, answer)) => {
                    // An answer to an earlier ask is dropped.
                    if self
                        .running
                        .as_ref()
                        .is_some_and(|&(running, _, _)| running == ask)
                    {
                        self.running = None;
                        return Some(answer);
                    }
                }
                Err(TryRecvError::Empty) => return None,
                Err(TryRecvError::Disconnected) => {
                    // Said once, whether or not a job runs.
                    self.running = None;
                    let job = self.last.take()?;
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
    use std::sync::atomic::AtomicUsize;
    use std::time::{Duration, Instant};

    use oxo_core::Rules;

    use super::*;

    /// The next answer from `hinter`; a test that waits a minute has
    /// failed (the answers here take milliseconds).
    fn wait(hinter: &mut Threaded) -> Answer {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Some(answer) = hinter.answer() {
                return answer;
            }
            thread::sleep(Duration::from_millis(2));
        }
        panic!("no answer came");
    }

    fn job(position: u64, longer: bool) -> Job {
        Job { position, longer }
    }

    /// No values, `position` positions searched: tells the fakes' answers
    /// apart.
    fn marked(position: u64) -> SomeValues {
        SomeValues {
            moves: Vec::new(),
            unvalued: Vec::new(),
            nodes: position,
        }
    }

    #[test]
    fn the_thread_values_a_position_as_the_caller_does() {
        let game = Game::from_notation("X../.O./...", 3).unwrap();
        let mut threaded = Threaded::start().unwrap();
        threaded.ask(job(4, false), game.clone());
        let answer = wait(&mut threaded);
        assert_eq!(answer.job, job(4, false));
        let mut inline = Inline::default();
        inline.ask(job(4, false), game);
        let theirs = inline.answer().unwrap().values.unwrap();
        assert_eq!(answer.values.unwrap().moves, theirs.moves);
        assert!(inline.answer().is_none(), "an answer comes once");
    }

    /// A job asked for while a longer look searches stops the look (a fake
    /// one that searches until its flag is raised), and only the new job's
    /// answer comes; dropping the hinter stops the search under way too.
    #[test]
    fn a_new_job_or_the_end_stops_the_search_under_way() {
        // Looks begun, and looks ended by their flag.
        let looks = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let counts = Arc::clone(&looks);
        let mut threaded = Threaded::spawn(move |job, _, stop| {
            if job.longer {
                counts[0].fetch_add(1, Ordering::Relaxed);
                // Searches until stopped (a failed test gives up at last).
                let given_up = Instant::now() + Duration::from_secs(120);
                while !stop.load(Ordering::Relaxed) && Instant::now() < given_up {
                    thread::sleep(Duration::from_millis(1));
                }
                if stop.load(Ordering::Relaxed) {
                    counts[1].fetch_add(1, Ordering::Relaxed);
                }
            }
            Ok(marked(job.position))
        })
        .unwrap();
        let begun = |n: usize| {
            let deadline = Instant::now() + Duration::from_secs(60);
            while looks[0].load(Ordering::Relaxed) < n {
                assert!(Instant::now() < deadline, "look {n} never began");
                thread::sleep(Duration::from_millis(1));
            }
        };
        let game = Game::new(Rules::default());
        threaded.ask(job(1, true), game.clone());
        begun(1);
        threaded.ask(job(2, false), game.clone());
        let answer = wait(&mut threaded);
        assert_eq!(answer.job, job(2, false));
        assert_eq!(answer.values.unwrap().nodes, 2);
        threaded.ask(job(2, true), game);
        begun(2);
        drop(threaded);
        assert_eq!(looks[1].load(Ordering::Relaxed), 2, "looks stopped");
    }

    /// Only the last ask's answer is taken: one an earlier ask of the same
    /// job left behind (it came as the job was cancelled) is dropped. The
    /// test plays the thread's part.
    #[test]
    fn an_answer_left_by_an_earlier_ask_of_the_same_job_is_dropped() {
        let (jobs, work) = mpsc::channel::<Work>();
        let (answered, answers) = mpsc::channel();
        let mut threaded = Threaded {
            jobs: Some(jobs),
            answers,
            running: None,
            next: 0,
            last: None,
            thread: None,
        };
        let game = Game::new(Rules::default());
        threaded.ask(job(7, false), game.clone());
        let (first, asked, _, first_stop) = work.try_recv().unwrap();
        assert_eq!(asked, job(7, false));
        answered
            .send((
                first,
                Answer {
                    job: asked,
                    values: Ok(marked(1)),
                },
            ))
            .unwrap();
        // Hints off and on again before the answer was looked for.
        threaded.cancel();
        assert!(first_stop.load(Ordering::Relaxed));
        threaded.ask(job(7, false), game);
        let (second, _, _, second_stop) = work.try_recv().unwrap();
        assert_ne!(second, first);
        assert!(threaded.answer().is_none(), "the earlier ask's answer");
        assert!(!second_stop.load(Ordering::Relaxed));
        answered
            .send((
                second,
                Answer {
                    job: asked,
                    values: Ok(marked(2)),
                },
            ))
            .unwrap();
        assert_eq!(threaded.answer().unwrap().values.unwrap().nodes, 2);
        // A thread that has gone says so once, even with no job under way
        // (it went while a cancelled search stopped).
        threaded.ask(job(8, false), Game::new(Rules::default()));
        threaded.cancel();
        assert!(threaded.answer().is_none());
        drop(answered);
        let gone = threaded.answer().unwrap();
        assert_eq!(gone.job, job(8, false));
        assert!(matches!(gone.values, Err(HintError::Gone)));
        assert!(threaded.answer().is_none());
    }
}
