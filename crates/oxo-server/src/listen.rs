//! The accept loop: every connection under the server's limits.
//!
//! A client that opens connections and sends nothing (or sends a request a
//! byte at a time) must not be able to hold the server's file descriptors:
//!
//! - a connection must send a whole request head within
//!   [`Limits::header_timeout`] of opening, and again of each response on
//!   a kept-alive connection (so an idle connection is closed then too);
//! - at most [`Limits::max_connections`] are open at once (further clients
//!   wait in the kernel's queue until one closes), and at most
//!   [`Limits::max_per_address`] from one address (more are closed at once),
//!   so one client cannot take them all.
//!
//! WebSockets, once upgraded, are the live view's business (`routes/live.rs`: a
//! send deadline, pings, and no client messages).

use std::collections::HashMap;
use std::future::Future;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tower_service::Service;

use crate::wire::JsonErrors;

pub use crate::rate::Rate;

/// How many connections the server takes, and for how long.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Time a connection has to send a request's head, from opening and
    /// from each response.
    pub header_timeout: Duration,
    /// Time a request may take, its body included (not a WebSocket's life).
    pub request_timeout: Duration,
    /// Connections open at once.
    pub max_connections: usize,
    /// Connections open at once from one address (not counted with
    /// `trust_proxy`, when every connection comes from the proxy).
    pub max_per_address: usize,
    /// Time a WebSocket client has to take each update before it is dropped.
    pub send_timeout: Duration,
    /// The kernel's send buffer for each connection, in bytes: what a
    /// client that stops reading can make the server hold (the kernel's
    /// own default grows to megabytes).
    pub send_buffer: usize,
    /// Games one address may create.
    pub creates: Rate,
    /// Other writes (joins, moves, rematches) one address may make.
    pub writes: Rate,
    /// Take the client's address from the last `X-Forwarded-For` entry
    /// (set by a load balancer in front) instead of the connection's.
    pub trust_proxy: bool,
}

impl Limits {
    /// The defaults with no rate limits, for tests and benchmarks that
    /// play many games from one address.
    #[must_use]
    pub fn without_rates() -> Limits {
        Limits {
            creates: Rate::UNLIMITED,
            writes: Rate::UNLIMITED,
            ..Limits::default()
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            max_connections: default_max_connections(),
            max_per_address: 256,
            send_timeout: Duration::from_secs(10),
            send_buffer: 128 * 1024,
            creates: Rate {
                burst: 20,
                per_second: 0.5,
            },
            writes: Rate {
                burst: 60,
                per_second: 20.0,
            },
            trust_proxy: false,
        }
    }
}

/// Descriptors kept free for the database, log files and the like.
const RESERVED_FILES: u64 = 64;

/// The most connections this process can hold with descriptors to spare:
/// the soft limit on open files less a reserve, at most 10,000 (and 512
/// where the limit cannot be read).
fn default_max_connections() -> usize {
    match connections_possible() {
        Some(possible) => usize::try_from(possible.clamp(16, 10_000)).unwrap_or(10_000),
        None => 512,
    }
}

/// The most connections this process can hold with descriptors to spare
/// for the database and logs, by its open-file limit (`None` where that
/// cannot be read): what `--max-connections` may be at most.
#[must_use]
pub fn connections_possible() -> Option<u64> {
    open_files_limit().map(|soft| soft.saturating_sub(RESERVED_FILES))
}

/// This process's soft limit on open files (`u64::MAX` for unlimited), from
/// `/proc/self/limits`; `None` where that cannot be read (not Linux).
#[must_use]
pub fn open_files_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max open files"))?;
    let soft = line
        .trim_start_matches("Max open files")
        .split_whitespace()
        .next()?;
    if soft == "unlimited" {
        Some(u64::MAX)
    } else {
        soft.parse().ok()
    }
}

/// Open connections (or other things in flight) per address, released as
/// each ends.
#[derive(Clone, Debug, Default)]
pub(crate) struct PerAddress(Arc<Mutex<HashMap<IpAddr, usize>>>);

/// Connections closed for their address's cap, told to the log at `warn`:
/// the first at once, then those since, once a minute at most, for as long
/// as any come (a school behind one NAT address at its cap must show in the
/// log, but a flood must not flood it). The times are passed in.
#[derive(Debug)]
struct Refused {
    /// The cap the addresses were at.
    cap: usize,
    /// Refused and not yet told.
    untold: u64,
    /// The address last refused.
    last: Option<IpAddr>,
    /// When the log last heard of refusals.
    told_at: Option<Instant>,
}

impl Refused {
    /// How often the log hears of refusals at most.
    const EVERY: Duration = Duration::from_secs(60);

    fn new(cap: usize) -> Refused {
        Refused {
            cap,
            untold: 0,
            last: None,
            told_at: None,
        }
    }

    /// When refusals not yet told are due to be (none while all are told).
    fn next_due(&self) -> Option<Instant> {
        match (self.untold, self.told_at) {
            (0, _) => None,
            (_, Some(at)) => Some(at + Refused::EVERY),
            (_, None) => Some(Instant::now()),
        }
    }

    /// Tell the log of what is due at `now`, if anything.
    fn tell(&mut self, now: Instant) {
        if let Some((count, last)) = self.due(now) {
            tracing::warn!(
                refused = count,
                %last,
                "closed connections from addresses that had {} open already \
                 (--max-connections-per-address)",
                self.cap
            );
        }
    }

    /// Count a refusal of `peer`.
    fn note(&mut self, peer: IpAddr) {
        self.untold += 1;
        self.last = Some(peer);
    }

    /// The refusals not yet told and the address last refused, once a
    /// minute has passed since the last line (or there was none).
    fn due(&mut self, now: Instant) -> Option<(u64, IpAddr)> {
        if self.untold == 0
            || self
                .told_at
                .is_some_and(|at| now.saturating_duration_since(at) < Refused::EVERY)
        {
            return None;
        }
        self.told_at = Some(now);
        Some((std::mem::take(&mut self.untold), self.last?))
    }
}

/// One connection counted against its address.
pub(crate) struct Counted {
    counts: PerAddress,
    ip: IpAddr,
}

impl PerAddress {
    pub(crate) fn take(&self, ip: IpAddr, max: usize) -> Option<Counted> {
        let mut counts = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let open = counts.entry(ip).or_insert(0);
        if *open >= max {
            return None;
        }
        *open += 1;
        Some(Counted {
            counts: self.clone(),
            ip,
        })
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        let mut counts = self.counts.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(open) = counts.get_mut(&self.ip) {
            *open -= 1;
            if *open == 0 {
                counts.remove(&self.ip);
            }
        }
    }
}

/// A connection's place under the limits, held by the connection and, once
/// it becomes a WebSocket, by the socket (requests carry it as an
/// extension): released when both are gone.
#[derive(Clone)]
pub struct Held(#[allow(dead_code)] Arc<(OwnedSemaphorePermit, Counted)>);

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Held")
    }
}

/// How long connections closed at the end of the grace have to let go
/// (they do so at once: this bounds a bug, not the work).
const ABANDON_WITHIN: Duration = Duration::from_secs(1);

/// Serve `router` on `listener` under `limits` until `shutdown` resolves;
/// then stop accepting and give open connections `grace` to finish. A
/// connection whose request is still in flight after that (waiting on a
/// stalled database, say) is closed unanswered: its client cannot tell
/// whether a change it sent was made, as a 503 "outcome unknown" would
/// say, and sends it again with its idempotency key. So this returns
/// within `grace` of `shutdown` (and a moment).
///
/// # Errors
/// None today: a failed accept (out of descriptors, say) is logged and
/// retried after a pause, never the end of the server.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    limits: &Limits,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> std::io::Result<()> {
    let max = limits.max_connections.max(1);
    let slots = Arc::new(Semaphore::new(max));
    let per_address = PerAddress::default();
    let mut refused = Refused::new(limits.max_per_address);
    let (stop, stopping) = watch::channel(false);
    // Set once the grace is over: the connections still open are dropped.
    let (abandon, abandoned) = watch::channel(false);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    tokio::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        // The refusals not yet told, told when due even if no more come.
        let due = refused.next_due();
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors or memory, or a connection reset
                    // before it was taken: wait a moment and go on.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = tokio::time::sleep_until(due.unwrap_or_else(Instant::now).into()), if due.is_some() => {
                refused.tell(Instant::now());
                continue;
            }
            () = &mut shutdown => break,
        };
        // Behind a trusted proxy every connection comes from the proxy,
        // which keeps its own limits: only the total is capped here.
        let per_peer = if limits.trust_proxy {
            usize::MAX
        } else {
            limits.max_per_address
        };
        let Some(counted) = per_address.take(peer.ip(), per_peer) else {
            tracing::debug!(peer = %peer.ip(), "too many connections from one address");
            refused.note(peer.ip());
            refused.tell(Instant::now());
            drop(tcp);
            continue;
        };
        // Moves are small writes that should leave at once.
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "cannot set TCP_NODELAY");
        }
        if let Err(e) = socket2::SockRef::from(&tcp).set_send_buffer_size(limits.send_buffer) {
            tracing::debug!(error = %e, "cannot set the send buffer");
        }
        let held = Held(Arc::new((slot, counted)));
        let router = router.clone();
        let on_request = held.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            request.extensions_mut().insert(on_request.clone());
            let mut router = router.clone();
            async move { router.call(request.map(axum::body::Body::new)).await }
        });
        let connection = http
            .serve_connection(TokioIo::new(JsonErrors::new(tcp)), service)
            .with_upgrades();
        let mut stopping = stopping.clone();
        let mut abandoned = abandoned.clone();
        tokio::spawn(async move {
            // The connection (and the state its service holds) is dropped
            // at the end of this block, before its slot is given back: once
            // every slot is back, no connection holds the state.
            let ended = {
                tokio::pin!(connection);
                tokio::select! {
                    ended = connection.as_mut() => ended,
                    () = async { drop(stopping.wait_for(|stop| *stop).await) } => {
                        // Finish the request in flight, then close; or,
                        // past the grace, close without finishing it.
                        connection.as_mut().graceful_shutdown();
                        tokio::select! {
                            ended = connection.as_mut() => ended,
                            () = async { drop(abandoned.wait_for(|give_up| *give_up).await) } => Ok(()),
                        }
                    }
                }
            };
            if let Err(e) = ended {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(held);
        });
    }
    drop(listener);
    stop.send_replace(true);
    // Every connection gives its slot back as it closes.
    let all = u32::try_from(max).unwrap_or(u32::MAX);
    if tokio::time::timeout(grace, slots.acquire_many(all))
        .await
        .is_err()
    {
        tracing::warn!(
            "requests still in flight after {grace:?} (a stalled database?); closing their connections unanswered"
        );
        abandon.send_replace(true);
        // Each drops its connection as soon as it is next polled.
        if tokio::time::timeout(ABANDON_WITHIN, slots.acquire_many(all))
            .await
            .is_err()
        {
            tracing::warn!("connections still held after closing them; stopping without them");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_told_at_once_then_once_a_minute_while_they_come() {
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut refused = Refused::new(1);
        assert_eq!(refused.next_due(), None);
        assert_eq!(refused.due(at(0)), None, "nothing to tell");
        refused.note(a);
        assert_eq!(refused.due(at(0)), Some((1, a)), "the first at once");
        // A flood within the minute is counted, not told...
        for s in 1..=3 {
            refused.note(b);
            assert_eq!(refused.due(at(s)), None);
        }
        assert_eq!(
            refused.next_due(),
            Some(at(60)),
            "a minute after the last line"
        );
        assert_eq!(refused.due(at(59)), None);
        // ...then told as one line, even with no refusal after it.
        assert_eq!(refused.due(at(61)), Some((3, b)));
        assert_eq!(refused.due(at(200)), None, "all told");
        // After a quiet spell the next one is told at once again.
        refused.note(a);
        assert_eq!(refused.due(at(201)), Some((1, a)));
    }
}
