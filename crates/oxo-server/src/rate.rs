//! Writes per client address: a token bucket per address, refilled at a
//! steady rate, so a burst is allowed and a flood is not.
//!
//! Game creation has a bucket of its own (it makes a room, the costliest
//! write to hold), every other write (joins, moves, rematches) another.
//! An IPv6 client is counted by its /64, the block a single host usually
//! holds.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How fast one address may do something.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// Done at once after a quiet spell.
    pub burst: u32,
    /// Sustained, per second; zero means no limit.
    pub per_second: f64,
}

impl Rate {
    /// No limit at all.
    pub const UNLIMITED: Rate = Rate {
        burst: 0,
        per_second: 0.0,
    };

    /// `per_second`, in bursts as many seconds of it as this rate's burst
    /// is of this rate (at least one): the defaults' shape at another
    /// rate, so that a rate set lower is not undone by a default burst.
    #[must_use]
    pub fn at(self, per_second: f64) -> Rate {
        // An unlimited rate has no burst to keep: one at the new rate.
        let seconds = if self.is_unlimited() {
            0.0
        } else {
            f64::from(self.burst) / self.per_second
        };
        Rate {
            burst: (seconds * per_second).round().max(1.0) as u32,
            per_second,
        }
    }

    /// Whether this is [`Rate::UNLIMITED`] (or any rate of zero).
    #[must_use]
    pub fn is_unlimited(&self) -> bool {
        self.per_second <= 0.0
    }
}

/// Addresses tracked before full buckets are dropped to make room.
const MAX_TRACKED: usize = 100_000;

/// A bucket per address.
#[derive(Debug)]
pub(crate) struct Limiter {
    rate: Rate,
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl Limiter {
    pub(crate) fn new(rate: Rate) -> Limiter {
        Limiter {
            rate,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Take one token for `ip` at `now`: `Err(wait)` when the bucket is
    /// empty, `wait` being how long until it holds one again.
    pub(crate) fn take(&self, ip: IpAddr, now: Instant) -> Result<(), Duration> {
        if self.rate.is_unlimited() {
            return Ok(());
        }
        let burst = f64::from(self.rate.burst.max(1));
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if buckets.len() >= MAX_TRACKED {
            Self::drop_full(&mut buckets, self.rate, now);
        }
        let (tokens, at) = buckets.entry(key(ip)).or_insert((burst, now));
        let refilled = (*tokens
            + now.saturating_duration_since(*at).as_secs_f64() * self.rate.per_second)
            .min(burst);
        *at = now;
        if refilled >= 1.0 {
            *tokens = refilled - 1.0;
            Ok(())
        } else {
            *tokens = refilled;
            Err(Duration::from_secs_f64(
                (1.0 - refilled) / self.rate.per_second,
            ))
        }
    }

    /// Forget addresses whose buckets have filled up again (they would
    /// start full anyway), so memory stays with the active ones.
    pub(crate) fn prune(&self, now: Instant) {
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        Self::drop_full(&mut buckets, self.rate, now);
    }

    fn drop_full(buckets: &mut HashMap<IpAddr, (f64, Instant)>, rate: Rate, now: Instant) {
        let burst = f64::from(rate.burst.max(1));
        buckets.retain(|_, (tokens, at)| {
            *tokens + now.saturating_duration_since(*at).as_secs_f64() * rate.per_second < burst
        });
    }
}

/// The address counted: an IPv4 address, or an IPv6 address's /64.
fn key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let mut segments = v6.segments();
                segments[4..].fill(0);
                IpAddr::V6(segments.into())
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_keeps_its_bursts_seconds_at_another_rate() {
        let creates = Rate {
            burst: 20,
            per_second: 0.5,
        };
        let at = |per_second| creates.at(per_second);
        assert_eq!(at(0.5).burst, 20);
        assert_eq!(at(1.0).burst, 40);
        assert_eq!(at(5.0 / 60.0).burst, 3);
        // At least one, and no limit stays none.
        assert_eq!(at(1.0 / 60.0).burst, 1);
        assert_eq!(at(1.0 / 600.0).burst, 1, "rounds to none");
        assert_eq!(Rate::UNLIMITED.at(2.0).burst, 1);
        assert!(at(0.0).is_unlimited());
        // A huge rate saturates rather than wraps.
        assert_eq!(at(f64::from(u32::MAX)).burst, u32::MAX);
    }

    #[test]
    fn a_burst_then_the_steady_rate() {
        let limiter = Limiter::new(Rate {
            burst: 3,
            per_second: 2.0,
        });
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(limiter.take(ip, t0), Ok(()));
        }
        assert_eq!(limiter.take(ip, t0), Err(Duration::from_millis(500)));
        // Another address has its own bucket.
        assert_eq!(limiter.take("10.0.0.2".parse().unwrap(), t0), Ok(()));
        // Half a second later one token is back, and only one.
        let t1 = t0 + Duration::from_millis(500);
        assert_eq!(limiter.take(ip, t1), Ok(()));
        assert!(limiter.take(ip, t1).is_err());
        // Full again after a quiet spell: pruned.
        limiter.prune(t1 + Duration::from_secs(10));
        assert!(limiter.buckets.lock().unwrap().is_empty());
    }

    #[test]
    fn an_ipv6_host_is_counted_by_its_64() {
        let limiter = Limiter::new(Rate {
            burst: 1,
            per_second: 1.0,
        });
        let t0 = Instant::now();
        assert!(limiter.take("2001:db8:1:2::1".parse().unwrap(), t0).is_ok());
        assert!(
            limiter
                .take("2001:db8:1:2::ffff".parse().unwrap(), t0)
                .is_err()
        );
        assert!(limiter.take("2001:db8:1:3::1".parse().unwrap(), t0).is_ok());
        assert!(
            Limiter::new(Rate::UNLIMITED)
                .take("::1".parse().unwrap(), t0)
                .is_ok()
        );
    }
}
