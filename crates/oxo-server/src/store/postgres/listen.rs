//! The change feed: each node listens on a connection of its own for the
//! notices every commit and presence announcement sends, and turns them
//! into [`StoreEvent`]s for its hub.

use std::future::Future;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, Config};

use super::CHANNEL;
use super::pool::{address, open};
use crate::id::GameId;
use crate::store::record::parse_keyed;
use crate::store::{StoreError, StoreEvent};

/// The first wait before reconnecting a lost feed; each failed attempt
/// doubles it, up to [`MAX_RETRY`], and a feed that is back starts again
/// from here.
const FIRST_RETRY: Duration = Duration::from_millis(100);
const MAX_RETRY: Duration = Duration::from_secs(3);

/// How often the listening connection is checked ([`PROBE_WITHIN`])...
pub(super) const PROBE_EVERY: Duration = Duration::from_secs(2);
/// ...and how long its answer may take before the feed is taken for lost.
/// A connection that dies silently (the database's host crashed or failed
/// over, a NAT or firewall dropped it: no reset ever arrives) otherwise
/// looks exactly like a quiet one, and the node would go on trusting its
/// memory while other nodes' changes never reach it.
pub(super) const PROBE_WITHIN: Duration = Duration::from_secs(5);

/// Follow [`CHANNEL`] for as long as anyone reads `events`: listen on a
/// connection of its own, forward each notification, check the connection
/// every [`PROBE_EVERY`], and after a lost (or silent) connection send
/// [`StoreEvent::Interrupted`], reconnect (ever more slowly, up to a few
/// seconds apart) and send [`StoreEvent::Resync`], since what was sent
/// meanwhile is lost.
pub(super) async fn listen(config: Config, node: String, events: mpsc::Sender<StoreEvent>) {
    let mut backoff = Backoff::default();
    let mut first = true;
    loop {
        match follow_once(&config, &node, &events, first, &mut backoff).await {
            // Nobody reads the events any more: the hub is gone.
            Ok(()) => return,
            Err(e) => {
                let retry = backoff.failed();
                tracing::warn!(error = %e, retry_ms = retry.as_millis(), "lost the PostgreSQL change feed; reconnecting");
                if events.send(StoreEvent::Interrupted).await.is_err() {
                    return;
                }
                tokio::time::sleep(retry).await;
            }
        }
        first = false;
    }
}

/// The waits between attempts to reconnect the feed.
#[derive(Debug)]
struct Backoff {
    /// The wait after the next failure.
    next: Duration,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff { next: FIRST_RETRY }
    }
}

impl Backoff {
    /// An attempt failed (or a feed was lost): how long to wait before the
    /// next, each wait twice the last, up to [`MAX_RETRY`].
    fn failed(&mut self) -> Duration {
        let wait = self.next;
        self.next = (wait * 2).min(MAX_RETRY);
        wait
    }

    /// The feed is back: its next loss is a new outage, retried quickly.
    fn back(&mut self) {
        self.next = FIRST_RETRY;
    }
}

/// One listening connection, until it fails or stops answering (an error)
/// or nobody reads the events (`Ok`). Once it listens, `backoff` starts
/// again ([`Backoff::back`]).
async fn follow_once(
    config: &Config,
    node: &str,
    events: &mpsc::Sender<StoreEvent>,
    first: bool,
    backoff: &mut Backoff,
) -> Result<(), StoreError> {
    let (client, mut connection) = open(config).await?;
    let (notes, mut received) = mpsc::unbounded_channel();
    // The connection yields the notifications; it must be polled for the
    // LISTEN below to complete, so it runs in a task of its own.
    let driver = tokio::spawn(async move {
        let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
        while let Some(message) = messages.next().await {
            match message {
                Ok(AsyncMessage::Notification(note)) => {
                    if notes.send(note.payload().to_owned()).is_err() {
                        return Ok(());
                    }
                }
                Ok(_) => {}
                Err(e) => return Err(StoreError::from(e)),
            }
        }
        Err(StoreError::Postgres(
            "the database closed the connection".into(),
        ))
    });
    // Aborted however this returns, so that a silent connection is let go.
    let _driver = AbortOnDrop(driver.abort_handle());
    answered(client.batch_execute(&format!("LISTEN {CHANNEL}")), config).await?;
    backoff.back();
    if !first && events.send(StoreEvent::Resync).await.is_err() {
        return Ok(());
    }
    let mut probe = tokio::time::interval(PROBE_EVERY);
    probe.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let payload = tokio::select! {
            payload = received.recv() => match payload {
                Some(payload) => payload,
                // The driver ended: the connection failed or closed.
                None => break,
            },
            _ = probe.tick() => {
                // Notices that arrive meanwhile wait in `received`, in
                // order: the answer comes on the same connection after them.
                answered(client.simple_query("SELECT 1"), config).await?;
                continue;
            }
        };
        let event = if payload.starts_with(PRESENCE) {
            match parse_presence(&payload, node) {
                Some(Some(event)) => Some(event),
                // This server's own word.
                Some(None) => continue,
                None => None,
            }
        } else {
            parse_note(&payload, node)
        };
        let Some(event) = event else {
            tracing::warn!(payload, "an unreadable change notice");
            continue;
        };
        if events.send(event).await.is_err() {
            return Ok(());
        }
    }
    drop(client);
    match driver.await {
        Ok(result) => result,
        Err(e) => Err(StoreError::Postgres(format!(
            "the change feed stopped: {e}"
        ))),
    }
}

/// `request` on the listening connection, within [`PROBE_WITHIN`]: a
/// connection that does not answer in time is lost, said so with the
/// database's address.
async fn answered<T>(
    request: impl Future<Output = Result<T, tokio_postgres::Error>>,
    config: &Config,
) -> Result<T, StoreError> {
    match tokio::time::timeout(PROBE_WITHIN, request).await {
        Ok(answer) => Ok(answer?),
        Err(_) => Err(StoreError::NoAnswer {
            at: address(config),
            within: PROBE_WITHIN,
        }),
    }
}

/// Aborts a task when dropped.
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The first word of a presence notice (never a room id, which has no `@`).
pub(super) const PRESENCE: &str = "@presence ";

/// `"@presence ID NODE X O"` (X and O `0` or `1`), as
/// [`Store::announce`](crate::store::Store::announce) sends it, read by the server named `me`: `None` when
/// unreadable, `Some(None)` for `me`'s own.
fn parse_presence(payload: &str, me: &str) -> Option<Option<StoreEvent>> {
    let mut words = payload.strip_prefix(PRESENCE)?.split(' ');
    let id = GameId::parse(words.next()?)?;
    let node = words.next()?;
    let seat = |word: Option<&str>| match word? {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    };
    let seats = [seat(words.next())?, seat(words.next())?];
    if words.next().is_some() {
        return None;
    }
    Some((node != me).then(|| StoreEvent::Presence {
        id,
        node: node.to_owned(),
        seats,
    }))
}

/// `"ID VERSION NODE [ROW COL [SEAT:KEY]]"`, as [`Commit::SQL`] announces a
/// change, read by the server named `me`.
fn parse_note(payload: &str, me: &str) -> Option<StoreEvent> {
    let mut words = payload.split(' ');
    let id = GameId::parse(words.next()?)?;
    let version = words.next()?.parse().ok()?;
    let own = words.next()? == me;
    let played = match (words.next(), words.next()) {
        (Some(row), Some(col)) => Some(oxo_core::Cell::new(row.parse().ok()?, col.parse().ok()?)),
        (None, None) => None,
        _ => return None,
    };
    let key = match words.next() {
        Some(word) if played.is_some() => Some(parse_keyed(word)?),
        Some(_) => return None,
        None => None,
    };
    if words.next().is_some() {
        return None;
    }
    Some(StoreEvent::Changed {
        id,
        version,
        own,
        played,
        key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_notices_are_read_back() {
        let id = GameId::random().unwrap();
        assert_eq!(
            parse_note(&format!("{id} 17 a:1:ff 2 3"), "b:2:00"),
            Some(StoreEvent::Changed {
                id: id.clone(),
                version: 17,
                own: false,
                played: Some(oxo_core::Cell::new(2, 3)),
                key: None,
            })
        );
        assert_eq!(
            parse_note(&format!("{id} 18 a:1:ff 0 1 o:k-1"), "b:2:00"),
            Some(StoreEvent::Changed {
                id: id.clone(),
                version: 18,
                own: false,
                played: Some(oxo_core::Cell::new(0, 1)),
                key: Some(crate::room::Keyed {
                    seat: oxo_core::Player::O,
                    key: crate::id::IdempotencyKey::parse("k-1").unwrap(),
                    request: None,
                }),
            })
        );
        assert_eq!(
            parse_note(&format!("{id} 19 a:1:ff 0 1 o/m0.1:k:2"), "b:2:00"),
            Some(StoreEvent::Changed {
                id: id.clone(),
                version: 19,
                own: false,
                played: Some(oxo_core::Cell::new(0, 1)),
                key: Some(crate::room::Keyed {
                    seat: oxo_core::Player::O,
                    key: crate::id::IdempotencyKey::parse("k:2").unwrap(),
                    request: crate::room::Request::parse("m0.1"),
                }),
            })
        );
        assert_eq!(
            parse_note(&format!("{id} 4 b:2:00"), "b:2:00"),
            Some(StoreEvent::Changed {
                id: id.clone(),
                version: 4,
                own: true,
                played: None,
                key: None,
            })
        );
        for bad in [
            "nonsense".to_owned(),
            format!("{id} -1 a"),
            format!("{id} 3"),
            format!("{id} 3 a 1"),
            format!("{id} 3 a 1 2 3"),
            format!("{id} 3 a 1 2 o:k 4"),
            format!("{id} 3 a 1 2 z:k"),
        ] {
            assert_eq!(parse_note(&bad, "a"), None, "{bad}");
        }
    }

    #[test]
    fn a_feed_that_came_back_is_retried_quickly_when_lost_again() {
        let mut backoff = Backoff::default();
        let waits: Vec<_> = (0..7).map(|_| backoff.failed()).collect();
        assert_eq!(waits.first(), Some(&FIRST_RETRY));
        assert_eq!(waits.last(), Some(&MAX_RETRY));
        backoff.back();
        assert_eq!(backoff.failed(), FIRST_RETRY);
    }

    #[test]
    fn presence_notices_are_read_back() {
        let id = GameId::random().unwrap();
        assert_eq!(
            parse_presence(&format!("@presence {id} a:1:ff 1 0"), "b:2:00"),
            Some(Some(StoreEvent::Presence {
                id: id.clone(),
                node: "a:1:ff".into(),
                seats: [true, false],
            }))
        );
        assert_eq!(
            parse_presence(&format!("@presence {id} b:2:00 0 1"), "b:2:00"),
            Some(None)
        );
        for bad in [
            format!("@presence {id} a 1"),
            format!("@presence {id} a 1 2"),
            format!("@presence {id} a 1 0 1"),
            "@presence nonsense!".to_owned(),
        ] {
            assert_eq!(parse_presence(&bad, "b"), None, "{bad}");
        }
    }
}
