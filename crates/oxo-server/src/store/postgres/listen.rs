//! The change feed: each node listens on a connection of its own for the
//! notices every commit and presence announcement sends, and turns them
//! into [`StoreEvent`]s for its hub.

use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, Config, NoTls};

use super::CHANNEL;
use crate::id::GameId;
use crate::store::record::parse_keyed;
use crate::store::{StoreError, StoreEvent};

/// Follow [`CHANNEL`] for as long as anyone reads `events`: listen on a
/// connection of its own, forward each notification, and after a lost
/// connection reconnect (ever more slowly, up to a few seconds apart) and
/// send [`StoreEvent::Resync`], since what was sent meanwhile is lost.
pub(super) async fn listen(config: Config, node: String, events: mpsc::Sender<StoreEvent>) {
    let mut retry = Duration::from_millis(100);
    let mut first = true;
    loop {
        match follow_once(&config, &node, &events, first).await {
            // Nobody reads the events any more: the hub is gone.
            Ok(()) => return,
            Err(e) => {
                tracing::warn!(error = %e, retry_ms = retry.as_millis(), "lost the PostgreSQL change feed; reconnecting");
                if events.send(StoreEvent::Interrupted).await.is_err() {
                    return;
                }
            }
        }
        first = false;
        tokio::time::sleep(retry).await;
        retry = (retry * 2).min(Duration::from_secs(3));
    }
}

/// One listening connection, until it fails (an error) or nobody reads the
/// events (`Ok`).
async fn follow_once(
    config: &Config,
    node: &str,
    events: &mpsc::Sender<StoreEvent>,
    first: bool,
) -> Result<(), StoreError> {
    let (client, mut connection) = config.connect(NoTls).await?;
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
    let listening = client.batch_execute(&format!("LISTEN {CHANNEL}")).await;
    if let Err(e) = listening {
        driver.abort();
        return Err(e.into());
    }
    if !first && events.send(StoreEvent::Resync).await.is_err() {
        driver.abort();
        return Ok(());
    }
    while let Some(payload) = received.recv().await {
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
            driver.abort();
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
