//! The server's shared state: the rooms, the edge policy, and the signal
//! that tells live connections the server is stopping.

use std::sync::Arc;

use tokio::sync::watch;

use crate::edge::Edge;
use crate::hub::Hub;
use crate::listen::Limits;

/// The server's state: the rooms, the limits every request is held to, and
/// a signal that tells live connections the server is stopping. Cheap to
/// clone.
#[derive(Clone, Debug)]
pub struct AppState(Arc<Shared>);

/// What [`AppState`] shares: one reference count to bump per request and
/// layer, not one per field.
#[derive(Debug)]
struct Shared {
    hub: Hub,
    edge: Edge,
    closing: watch::Receiver<bool>,
    close: watch::Sender<bool>,
}

impl AppState {
    /// State around `hub`, with the default [`Limits`].
    #[must_use]
    pub fn new(hub: Hub) -> AppState {
        AppState::with_limits(hub, Limits::default())
    }

    /// State around `hub`, serving under `limits`.
    #[must_use]
    pub fn with_limits(hub: Hub, limits: Limits) -> AppState {
        let (close, closing) = watch::channel(false);
        AppState(Arc::new(Shared {
            hub,
            edge: Edge::new(limits),
            closing,
            close,
        }))
    }

    /// The limits the server keeps to.
    #[must_use]
    pub fn limits(&self) -> &Limits {
        self.0.edge.limits()
    }

    /// The rooms.
    #[must_use]
    pub fn hub(&self) -> &Hub {
        &self.0.hub
    }

    /// The policy every request and every move on a live socket goes
    /// through.
    pub(crate) fn edge(&self) -> &Edge {
        &self.0.edge
    }

    /// Tell every live connection to close.
    pub fn shut_down(&self) {
        self.0.close.send_replace(true);
    }

    /// Whether the server is shutting down.
    pub(crate) fn is_closing(&self) -> bool {
        *self.0.closing.borrow()
    }

    /// A receiver that [`closed`] waits on.
    pub(crate) fn closing(&self) -> watch::Receiver<bool> {
        self.0.closing.clone()
    }
}

/// Resolves once the server starts shutting down (`closing` from
/// [`AppState::closing`]).
pub(crate) async fn closed(closing: &mut watch::Receiver<bool>) {
    // An error means the sender is gone, which also means shutting down.
    let _ = closing.wait_for(|closing| *closing).await;
}
