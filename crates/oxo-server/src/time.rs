//! Where the server reads the time, for its clocks: milliseconds since the
//! Unix epoch, from the system or, in tests, from a clock the test moves.
//!
//! Clocks are stored as Unix times so that every server sharing a store, and
//! the same server after a restart, reads them alike; the rules of the
//! clocks themselves ([`oxo_core::Clock`]) take the time as an argument and
//! never read it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The hub's time: milliseconds since the Unix epoch. Cheap to clone.
#[derive(Clone)]
pub struct TimeSource(Arc<dyn Fn() -> u64 + Send + Sync>);

impl TimeSource {
    /// The system's clock.
    #[must_use]
    pub fn system() -> TimeSource {
        TimeSource(Arc::new(|| {
            // A clock set before 1970 reads as 1970: clocks would then
            // never run out, rather than the server failing.
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |since| {
                    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
                })
        }))
    }

    /// A time read from `manual`, which a test moves by hand.
    #[must_use]
    pub fn manual(manual: &ManualTime) -> TimeSource {
        let millis = Arc::clone(&manual.0);
        TimeSource(Arc::new(move || millis.load(Ordering::SeqCst)))
    }

    /// Now, in milliseconds since the Unix epoch.
    #[must_use]
    pub fn now(&self) -> u64 {
        (self.0)()
    }
}

impl Default for TimeSource {
    fn default() -> Self {
        TimeSource::system()
    }
}

impl std::fmt::Debug for TimeSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TimeSource({} ms)", self.now())
    }
}

/// A time that stands still until it is moved: for tests, so that no test
/// waits for a real clock to run out. Clones share the time.
#[derive(Clone, Debug)]
pub struct ManualTime(Arc<AtomicU64>);

impl ManualTime {
    /// A time standing at the system's now.
    #[must_use]
    pub fn at_system_now() -> ManualTime {
        ManualTime::at(TimeSource::system().now())
    }

    /// A time standing at `millis` since the Unix epoch.
    #[must_use]
    pub fn at(millis: u64) -> ManualTime {
        ManualTime(Arc::new(AtomicU64::new(millis)))
    }

    /// Move the time on by `by`.
    pub fn advance(&self, by: Duration) {
        let by = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        self.0.fetch_add(by, Ordering::SeqCst);
    }

    /// The time it stands at.
    #[must_use]
    pub fn now(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }

    /// A [`TimeSource`] reading this time.
    #[must_use]
    pub fn source(&self) -> TimeSource {
        TimeSource::manual(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_time_moves_only_when_told() {
        let manual = ManualTime::at(1_000);
        let source = manual.source();
        assert_eq!(source.now(), 1_000);
        manual.advance(Duration::from_millis(2_500));
        assert_eq!((source.now(), manual.clone().now()), (3_500, 3_500));
        // The system's is after 2020.
        assert!(TimeSource::system().now() > 1_577_836_800_000);
    }
}
