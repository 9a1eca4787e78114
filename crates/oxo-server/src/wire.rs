//! The few answers hyper writes by itself, given a JSON body like every
//! other error.
//!
//! A request hyper cannot parse (a broken request line or header, more
//! than 100 headers, a head over its buffer, a URI too long) never reaches
//! the router: hyper answers it with a bare `400`, `431` or `414`, an empty
//! body and `connection: close`, and offers no hook to change that answer.
//! [`JsonErrors`] wraps a connection and recognises such a head as hyper
//! writes it (the whole head in one write, which it does when the stream
//! does not take vectored writes) and sends the same status with
//! `{"error": "…"}` instead. Every other byte passes through untouched; the
//! router's own errors always have a body, so they never match.
//!
//! A client that speaks HTTP/2 from its first byte (prior knowledge, such
//! as `curl --http2-prior-knowledge`) cannot read an HTTP/1.1 answer, and
//! hyper closes such a connection without a word. [`JsonErrors`] answers it
//! in its own protocol instead: the server's empty SETTINGS, then a GOAWAY
//! with the error HTTP_1_1_REQUIRED (RFC 9113, 7) and the reason as its
//! debug data, after which the connection ends.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The error each automatic answer gets, by status line.
const ANSWERS: [(&[u8], &str); 3] = [
    (
        b"HTTP/1.1 400 Bad Request\r\n",
        "the request is not HTTP/1.1 this server can read (its request line, a header or the version)",
    ),
    (
        b"HTTP/1.1 431 Request Header Fields Too Large\r\n",
        "the request's headers are too many (at most 100) or too large",
    ),
    (
        b"HTTP/1.1 414 URI Too Long\r\n",
        "the request's URI is too long",
    ),
];

/// A connection whose automatic error answers carry a JSON body.
#[derive(Debug)]
pub(crate) struct JsonErrors<T> {
    inner: T,
    /// An answer being written in place of a bare one: its bytes, how many
    /// are written, and the length of the bare head it stands for.
    pending: Option<(Vec<u8>, usize, usize)>,
    /// Nothing read yet: the first bytes may be HTTP/2's preface.
    fresh: bool,
    /// The HTTP/2 answer being written, and how much of it is.
    h2: Option<(Vec<u8>, usize)>,
}

impl<T> JsonErrors<T> {
    pub(crate) const fn new(inner: T) -> JsonErrors<T> {
        JsonErrors {
            inner,
            pending: None,
            fresh: true,
            h2: None,
        }
    }
}

/// The start of the preface an HTTP/2 client opens a connection with: no
/// HTTP/1.1 request begins so.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n";

/// HTTP/2's error code asking the client to use HTTP/1.1 (RFC 9113, 7).
const HTTP_1_1_REQUIRED: u32 = 0xd;

/// What an HTTP/2 client is told: the server's SETTINGS frame (empty), then
/// a GOAWAY frame (no stream processed, HTTP_1_1_REQUIRED, the reason).
fn h2_answer() -> Vec<u8> {
    let reason = b"this server speaks HTTP/1.1 (and WebSocket over it) only";
    let frame = |kind: u8, payload: &[u8]| {
        let length = u32::try_from(payload.len()).unwrap_or(0).to_be_bytes();
        let mut frame = vec![length[1], length[2], length[3], kind, 0, 0, 0, 0, 0];
        frame.extend_from_slice(payload);
        frame
    };
    let mut goaway = vec![0; 4];
    goaway.extend_from_slice(&HTTP_1_1_REQUIRED.to_be_bytes());
    goaway.extend_from_slice(reason);
    let mut out = frame(0x4, &[]);
    out.extend(frame(0x7, &goaway));
    out
}

/// The answer to write instead of `head`, if `head` is one of hyper's
/// bare error answers, whole.
fn with_body(head: &[u8]) -> Option<Vec<u8>> {
    let (status_line, error) = ANSWERS.iter().find(|(line, _)| head.starts_with(line))?;
    let text = std::str::from_utf8(head).ok()?;
    let fields = text.strip_suffix("\r\n\r\n")?;
    let mut lines = fields.split("\r\n").skip(1);
    let bare = lines
        .clone()
        .any(|l| l.eq_ignore_ascii_case("content-length: 0"))
        && lines
            .clone()
            .any(|l| l.eq_ignore_ascii_case("connection: close"));
    if !bare {
        return None;
    }
    let body = serde_json::json!({ "error": error }).to_string();
    let mut out = Vec::with_capacity(head.len() + body.len() + 64);
    out.extend_from_slice(status_line);
    for line in lines.by_ref() {
        if !line.to_ascii_lowercase().starts_with("content-length:") {
            out.extend_from_slice(line.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
    }
    out.extend_from_slice(b"content-type: application/json\r\n");
    out.extend_from_slice(format!("content-length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(body.as_bytes());
    Some(out)
}

impl<T: AsyncRead + AsyncWrite + Unpin> AsyncRead for JsonErrors<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.h2.is_none() {
            let before = buf.filled().len();
            ready!(Pin::new(&mut this.inner).poll_read(cx, buf))?;
            let read = &buf.filled()[before..];
            if !this.fresh || read.is_empty() {
                return Poll::Ready(Ok(()));
            }
            this.fresh = false;
            if !read.starts_with(H2_PREFACE) {
                return Poll::Ready(Ok(()));
            }
            // Not for hyper: it would close without a word.
            buf.set_filled(before);
            this.h2 = Some((h2_answer(), 0));
        }
        // The answer written, the connection ends: hyper reads its end.
        let (answer, written) = this.h2.as_mut().expect("set above");
        while *written < answer.len() {
            let n = ready!(Pin::new(&mut this.inner).poll_write(cx, &answer[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        ready!(Pin::new(&mut this.inner).poll_flush(cx))?;
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for JsonErrors<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.pending.is_none() {
            match with_body(buf) {
                Some(answer) => this.pending = Some((answer, 0, buf.len())),
                None => return Pin::new(&mut this.inner).poll_write(cx, buf),
            }
        }
        // Writing an answer in place of the bare head hyper handed over:
        // the head counts as written once the whole answer is.
        let (answer, written, stands_for) = this.pending.as_mut().expect("set above");
        while *written < answer.len() {
            let n = ready!(Pin::new(&mut this.inner).poll_write(cx, &answer[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        let stands_for = *stands_for;
        this.pending = None;
        Poll::Ready(Ok(stands_for))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    /// No: hyper then hands each head over in one write, which is what
    /// lets a bare error answer be recognised.
    fn is_write_vectored(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DATE: &str = "date: Tue, 24 Nov 2026 06:59:43 GMT\r\n";

    #[test]
    fn hypers_bare_answers_get_a_body_and_nothing_else_changes() {
        let bare = format!(
            "HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\n{DATE}\r\n"
        );
        let answer = String::from_utf8(with_body(bare.as_bytes()).unwrap()).unwrap();
        let body = r#"{"error":"the request's headers are too many (at most 100) or too large"}"#;
        assert_eq!(
            answer,
            format!(
                "HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\n{DATE}\
                 content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            )
        );
        for other in [
            // The router's answers: a body, or not an error hyper makes.
            format!(
                "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 12\r\n{DATE}\r\n{{\"error\":1}}"
            ),
            format!("HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n{DATE}\r\n"),
            format!("HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n{DATE}\r\n"),
            // A head cut short.
            "HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n".to_owned(),
            String::new(),
        ] {
            assert_eq!(with_body(other.as_bytes()), None, "{other}");
        }
    }
}
