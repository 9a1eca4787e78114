//! The server's life: resume the work a previous run left, keep the
//! sweepers going, serve until told to stop, then close live connections
//! and let the requests in flight finish.

use std::future::Future;
use std::time::{Duration, Instant};

use tokio::net::TcpListener;

use crate::hub::ORPHAN_SWEEP;
use crate::listen;
use crate::routes::app;
use crate::state::{AppState, closed};

/// How long requests in flight have to finish once the server stops.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Serve `state` on `listener` until `shutdown` resolves, then close live
/// connections and finish the requests in flight, within
/// 5 s: a request or a sweep still waiting on the store
/// then (a stalled database) is dropped where it waits, its connection
/// closed unanswered. When it returns, the sweepers have ended and no HTTP
/// connection holds `state` any more, so a store that no live socket
/// still holds (such as a SQLite file and its lock) is let go with the
/// caller's own copies.
///
/// # Errors
/// The listener failed.
pub async fn run(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let hub = state.hub();
    hub.follow_store();
    hub.keep_presence();
    match hub.resume().await {
        Ok(0) => {}
        Ok(n) => tracing::info!(rooms = n, "resuming computer moves"),
        Err(e) => tracing::error!(error = %e, "could not resume computer moves"),
    }
    let mut background = Vec::new();
    if hub.store_is_shared() {
        background.push(tokio::spawn(take_up_orphans(state.clone())));
    }
    background.push(tokio::spawn(sweep(state.clone())));
    background.push(tokio::spawn(rule_flags(state.clone())));
    if let Some(every) = hub.prunes() {
        background.push(tokio::spawn(prune(state.clone(), every)));
    }
    let closer = state.clone();
    let after = state.clone();
    let limits = state.limits().clone();
    let (began, when) = tokio::sync::oneshot::channel();
    let served = listen::serve(
        listener,
        app(state),
        &limits,
        async move {
            shutdown.await;
            tracing::info!("shutting down");
            let _ = began.send(Instant::now());
            closer.shut_down();
        },
        SHUTDOWN_GRACE,
    )
    .await;
    // The sweepers end once told (also when serving failed), between two
    // rounds of work; one still waiting on the store when the grace is
    // over is stopped where it waits. When this returns, none of them
    // holds the state, and so the store.
    after.shut_down();
    drop(after);
    let until = when.await.unwrap_or_else(|_| Instant::now()) + SHUTDOWN_GRACE;
    let mut stopped = false;
    for mut task in background {
        if tokio::time::timeout_at(until.into(), &mut task)
            .await
            .is_err()
        {
            stopped = true;
            task.abort();
            let _ = task.await;
        }
    }
    if stopped {
        tracing::warn!(
            "background work still waiting on the database after {SHUTDOWN_GRACE:?}; stopped it"
        );
    }
    served
}

/// Computer turns left by a server that died mid-search (or whose claim
/// lapsed) are taken up by whichever server looks first: every
/// [`ORPHAN_SWEEP`], until the server stops.
async fn take_up_orphans(state: AppState) {
    let mut closing = state.closing();
    loop {
        tokio::select! {
            () = tokio::time::sleep(ORPHAN_SWEEP) => {
                match state.hub().resume().await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(rooms = n, "took up computer turns nobody was on"),
                    Err(e) => tracing::warn!(error = %e, "cannot look for computer turns nobody is on"),
                }
            }
            () = closed(&mut closing) => return,
        }
    }
}

/// Timed rooms whose seat to move has run out of time are ruled every
/// [`Hub::flag_sweep`](crate::Hub::flag_sweep), from the first moment (a
/// restart rules what ran out while the server was down), until the server
/// stops. Every server sweeps; the store's version guard lets one ruling in.
async fn rule_flags(state: AppState) {
    let hub = state.hub();
    let mut closing = state.closing();
    let mut every = tokio::time::interval(hub.flag_sweep());
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = every.tick() => {
                match hub.rule_flags().await {
                    Ok(0) => {}
                    Ok(n) => tracing::debug!(rooms = n, "ruled rounds lost on time"),
                    Err(e) => tracing::warn!(error = %e, "cannot look for games out of time"),
                }
            }
            () = closed(&mut closing) => return,
        }
    }
}

/// Games never played that nobody has changed for the hub's
/// `prune_after` are deleted every `every`, from the first moment, until
/// the server stops. Every server prunes; a room goes once.
async fn prune(state: AppState, every: Duration) {
    let hub = state.hub();
    let mut closing = state.closing();
    let mut every = tokio::time::interval(every);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = every.tick() => {
                match hub.prune_unplayed().await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(games = n, "deleted games never played and long unchanged"),
                    Err(e) => tracing::warn!(error = %e, "cannot delete games never played"),
                }
            }
            () = closed(&mut closing) => return,
        }
    }
}

/// Now and then, until the server stops: rooms nobody uses leave memory
/// (the store keeps them), clients whose rates recovered are forgotten, and
/// idle search pools shrink.
async fn sweep(state: AppState) {
    let hub = state.hub();
    let mut closing = state.closing();
    let every = (hub.idle_after() / 4).max(Duration::from_secs(1));
    loop {
        tokio::select! {
            () = tokio::time::sleep(every) => {
                let evicted = hub.evict_idle(hub.idle_after());
                state.edge().prune(Instant::now());
                hub.expire_pools();
                if evicted > 0 {
                    tracing::debug!(evicted, in_memory = hub.rooms_in_memory(), "idle rooms left memory");
                }
            }
            () = closed(&mut closing) => return,
        }
    }
}
