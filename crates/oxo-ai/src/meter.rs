//! The node count, budget and progress reports of a search: one
//! [`Meter`] each for the 64-bit solver and the prover, on their hot path
//! (one [`Meter::visit`] per position).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Positions between two progress reports.
const REPORT_EVERY: u64 = 1 << 20;
/// Positions between two looks at the clock and the stop flag: often
/// enough for a search of a few thousand positions a second (the prover
/// on large boards) to report within a second, too seldom to cost
/// anything.
const CHECK_EVERY: u64 = 1 << 14;
/// The longest time between two progress reports, however slow the
/// search: a report is due at the first look at the clock after it.
const REPORT_INTERVAL: Duration = Duration::from_secs(1);

/// Counts a search's positions, stops a call at its budget or when its
/// stop flag is raised, and calls a progress callback about once every
/// million positions, or once a second when that is sooner.
///
/// A call begins with [`Meter::start`], visits positions with
/// [`Meter::visit`] (the search returns as soon as [`Meter::aborted`]
/// says so, storing nothing unfinished) and ends with
/// [`Meter::finish`], which tells whether it ran out. `P` is the owner's
/// progress report, made by the owner from the count and the time.
pub(crate) struct Meter<P> {
    nodes: u64,
    /// The last node count the current call may reach (a budget of N lets
    /// it visit N positions; the next one stops it)...
    limit: u64,
    /// ...and whether it did (out of budget or stopped).
    aborted: bool,
    /// Raised by the owner's caller to stop the current call; read at
    /// every look at the clock, after any progress report (whose callback
    /// may raise it).
    stop: Option<Arc<AtomicBool>>,
    /// Whether the current call was stopped by `stop`.
    stopped: bool,
    next_report: u64,
    /// Positions between two reports ([`REPORT_EVERY`]; fewer in tests).
    report_every: u64,
    /// The count of the next look at the clock: [`CHECK_EVERY`] on, or
    /// the next report's if that is sooner.
    next_check: u64,
    /// The longest time between reports ([`REPORT_INTERVAL`]; other
    /// times in tests).
    report_interval: Duration,
    /// When the last report was made (or the meter was): kept across
    /// calls, so that a search made of many short calls (the prover's
    /// rounds of the 64-bit solver) still reports once a second.
    last_report: Instant,
    /// The lesser of the count past `limit` and `next_check`: the one
    /// count the hot path compares with.
    next_event: u64,
    started: Instant,
    /// Positions one call may visit (`None`: no limit).
    budget: Option<u64>,
    on_progress: Option<Box<dyn FnMut(P) + Send>>,
}

impl<P> Meter<P> {
    pub(crate) fn new() -> Meter<P> {
        Meter {
            nodes: 0,
            limit: u64::MAX,
            aborted: false,
            stop: None,
            stopped: false,
            next_report: REPORT_EVERY,
            report_every: REPORT_EVERY,
            next_check: CHECK_EVERY,
            report_interval: REPORT_INTERVAL,
            last_report: Instant::now(),
            next_event: CHECK_EVERY,
            started: Instant::now(),
            budget: None,
            on_progress: None,
        }
    }

    /// Positions counted since the meter was made.
    #[inline]
    pub(crate) const fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Whether the current call has run out of budget.
    #[inline]
    pub(crate) const fn aborted(&self) -> bool {
        self.aborted
    }

    /// Whether the current call was stopped by its stop flag (rather than
    /// by its budget); read before [`Meter::finish`].
    #[inline]
    pub(crate) const fn stopped(&self) -> bool {
        self.stopped
    }

    /// The budget of each call (`None`: no limit).
    pub(crate) const fn budget(&self) -> Option<u64> {
        self.budget
    }

    pub(crate) fn set_budget(&mut self, nodes: Option<u64>) {
        self.budget = nodes;
    }

    /// Stop each call once `stop` is true (`None`: no flag).
    pub(crate) fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        self.stop = stop;
    }

    /// The stop flag [`Meter::set_stop`] set, for a search this one runs
    /// on its behalf.
    pub(crate) const fn stop_flag(&self) -> Option<&Arc<AtomicBool>> {
        self.stop.as_ref()
    }

    pub(crate) fn on_progress(&mut self, report: impl FnMut(P) + Send + 'static) {
        self.on_progress = Some(Box::new(report));
    }

    /// Report every `nodes` positions instead, from the next call on.
    #[cfg(test)]
    pub(crate) fn set_report_every(&mut self, nodes: u64) {
        self.report_every = nodes.max(1);
    }

    /// Report at least once every `interval` instead, from the next call
    /// on.
    #[cfg(test)]
    pub(crate) fn set_report_interval(&mut self, interval: Duration) {
        self.report_interval = interval;
    }

    /// Time since the current call began.
    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Begin a call: its budget counts from here, and so does its time.
    pub(crate) fn start(&mut self) {
        self.stopped = self.stop_raised();
        self.aborted = self.stopped;
        self.limit = self
            .budget
            .map_or(u64::MAX, |budget| self.nodes.saturating_add(budget));
        self.started = Instant::now();
        self.next_report = self.nodes + self.report_every;
        self.next_check = self.next_check();
        self.next_event = self.next_event();
    }

    /// The count of the look at the clock after this one.
    fn next_check(&self) -> u64 {
        self.nodes.saturating_add(CHECK_EVERY).min(self.next_report)
    }

    /// The count at which [`Meter::visit`] next has something to do: one
    /// past the limit, or a look at the clock.
    fn next_event(&self) -> u64 {
        self.limit.saturating_add(1).min(self.next_check)
    }

    /// End a call: whether it ran out of budget. The limit and the flag
    /// belong to the call now ending.
    pub(crate) fn finish(&mut self) -> bool {
        self.limit = u64::MAX;
        self.next_event = self.next_check;
        self.stopped = false;
        std::mem::take(&mut self.aborted)
    }

    fn stop_raised(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// The positions the current call may still visit (`u64::MAX` without
    /// a budget).
    pub(crate) fn left(&self) -> u64 {
        if self.limit == u64::MAX {
            u64::MAX
        } else {
            self.limit.saturating_sub(self.nodes)
        }
    }

    /// Count `nodes` positions visited by another search on this call's
    /// behalf (its budget was at most [`Meter::left`]).
    pub(crate) fn add(&mut self, nodes: u64) {
        self.nodes += nodes;
        if self.nodes > self.limit {
            self.aborted = true;
        }
    }

    /// Narrow the current call's limit to at most `cap` more positions,
    /// for a sub-search that may give up without ending the call; returns
    /// the limit to give back to [`Meter::widen`].
    pub(crate) fn narrow(&mut self, cap: u64) -> u64 {
        let outer = self.limit;
        self.limit = outer.min(self.nodes.saturating_add(cap));
        self.next_event = self.next_event();
        outer
    }

    /// Give back the limit [`Meter::narrow`] returned: whether the
    /// sub-search stopped at its own cap only, the call itself going on.
    pub(crate) fn widen(&mut self, outer: u64) -> bool {
        self.limit = outer;
        self.next_event = self.next_event();
        if self.aborted && self.nodes <= outer && !self.stopped {
            self.aborted = false;
            true
        } else {
            false
        }
    }

    /// Count one position. `report` makes the progress report from the
    /// count and the time since the call began, when one is due.
    #[inline]
    pub(crate) fn visit(&mut self, report: impl FnOnce(u64, Duration) -> P) {
        self.nodes += 1;
        if self.nodes >= self.next_event {
            self.event(report);
        }
    }

    /// The budget ran out, or a look at the clock is due (a report if
    /// its count or its time has come, then a look at the stop flag), or
    /// both.
    #[cold]
    #[inline(never)]
    fn event(&mut self, report: impl FnOnce(u64, Duration) -> P) {
        if self.nodes > self.limit {
            // Out of budget: every search returns at once, storing nothing
            // (a result cut short is not a result).
            self.aborted = true;
        }
        if self.nodes >= self.next_check {
            let now = Instant::now();
            if self.nodes >= self.next_report
                || now.duration_since(self.last_report) >= self.report_interval
            {
                self.next_report = self.nodes + self.report_every;
                self.last_report = now;
                if let Some(on_progress) = self.on_progress.as_mut() {
                    on_progress(report(self.nodes, now.duration_since(self.started)));
                }
            }
            if self.stop_raised() {
                self.aborted = true;
                self.stopped = true;
            }
            self.next_check = self.next_check();
        }
        self.next_event = self.next_event();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    #[test]
    fn a_call_stops_at_its_budget_and_the_next_starts_afresh() {
        let mut meter = Meter::<u64>::new();
        meter.set_budget(Some(3));
        meter.start();
        // A budget of 3 lets the call visit 3 positions; the 4th stops it.
        for _ in 0..3 {
            meter.visit(|n, _| n);
        }
        assert!(!meter.aborted());
        assert_eq!(meter.left(), 0);
        meter.visit(|n, _| n);
        assert!(meter.aborted());
        assert!(meter.finish());
        assert_eq!(meter.left(), u64::MAX);
        meter.start();
        meter.add(3);
        assert!(!meter.aborted());
        meter.add(1);
        assert!(meter.finish());
        assert!(!meter.finish());
        assert_eq!(meter.nodes(), 8);
        meter.set_budget(None);
        meter.start();
        assert_eq!(meter.left(), u64::MAX);
    }

    #[test]
    fn a_raised_flag_stops_the_call_at_the_next_report_and_not_the_next_call() {
        let stop = Arc::new(AtomicBool::new(false));
        let mut meter = Meter::<u64>::new();
        meter.set_report_every(10);
        meter.set_stop(Some(Arc::clone(&stop)));
        // The progress callback raises the flag, as a caller checking for
        // Ctrl-C in it does.
        let raise = Arc::clone(&stop);
        meter.on_progress(move |n| raise.store(n >= 20, Ordering::Relaxed));
        meter.start();
        for _ in 0..19 {
            meter.visit(|n, _| n);
        }
        assert!(!meter.aborted());
        // A sub-search's cap given back does not undo a stop.
        let outer = meter.narrow(5);
        meter.visit(|n, _| n);
        assert!(meter.aborted() && meter.stopped());
        assert!(!meter.widen(outer));
        assert!(meter.aborted());
        assert!(meter.finish());
        assert!(!meter.stopped());
        // Still raised: the next call stops before it visits anything.
        meter.start();
        assert!(meter.aborted() && meter.stopped());
        meter.finish();
        stop.store(false, Ordering::Relaxed);
        meter.start();
        assert!(!meter.aborted());
    }

    #[test]
    fn progress_is_reported_every_million_positions() {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let mut meter = Meter::<u64>::new();
        // Counts only, however slowly this runs.
        meter.set_report_interval(Duration::MAX);
        let sink = Arc::clone(&heard);
        meter.on_progress(move |n| sink.lock().unwrap().push(n));
        meter.start();
        for _ in 0..2 * REPORT_EVERY + 5 {
            meter.visit(|n, _| n);
        }
        assert_eq!(*heard.lock().unwrap(), [REPORT_EVERY, 2 * REPORT_EVERY]);
    }

    /// A slow search reports when the interval has passed, at the next
    /// look at the clock, long before a million positions: here an
    /// interval of zero, so at the first look.
    #[test]
    fn a_slow_search_reports_at_the_first_look_at_the_clock_after_the_interval() {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let mut meter = Meter::<u64>::new();
        meter.set_report_interval(Duration::ZERO);
        let sink = Arc::clone(&heard);
        meter.on_progress(move |n| sink.lock().unwrap().push(n));
        meter.start();
        for _ in 0..2 * CHECK_EVERY + 5 {
            meter.visit(|n, _| n);
        }
        assert_eq!(*heard.lock().unwrap(), [CHECK_EVERY, 2 * CHECK_EVERY]);
    }
}
