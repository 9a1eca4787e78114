//! HAProxy in front of several servers, configured from the example that
//! ships in the repository (`deploy/haproxy.cfg`), so the tests run the
//! configuration docs/manual/serve.md shows.

use std::fmt::Write as _;
use std::fs::{self, File};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use crate::{TIMEOUT, free_port, log_tail};

/// Debian's HAProxy.
const HAPROXY: &str = "/usr/sbin/haproxy";

/// `deploy/haproxy.cfg`, with `@LISTEN@` and `@SERVERS@` to fill in.
const TEMPLATE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../deploy/haproxy.cfg"
));

/// The health check the template asks for.
const TEMPLATE_CHECK: &str = "option httpchk GET /readyz";

/// How many ports [`Haproxy::start`] tries, in case another process takes
/// the free port it picked before HAProxy binds it.
const PORT_TRIES: usize = 5;

/// `haproxy -db` (foreground) with `deploy/haproxy.cfg`, listening on a
/// free port of 127.0.0.1 and balancing over the backends given; killed
/// when dropped.
#[derive(Debug)]
pub struct Haproxy {
    child: Child,
    addr: SocketAddr,
    dir: TempDir,
}

impl Haproxy {
    /// Start HAProxy in front of `backends`, checking each with
    /// `GET /readyz` as the template says; returns once it accepts
    /// connections.
    ///
    /// # Errors
    /// HAProxy is not installed (the message says how to install it), or
    /// it did not start within [`TIMEOUT`] (the message quotes its log).
    pub fn start(backends: &[SocketAddr]) -> Result<Haproxy, String> {
        Haproxy::start_with_check(backends, "/readyz")
    }

    /// Like [`Haproxy::start`], with the health check on `check_path`
    /// instead of the template's `/readyz`.
    ///
    /// # Errors
    /// As [`Haproxy::start`].
    pub fn start_with_check(backends: &[SocketAddr], check_path: &str) -> Result<Haproxy, String> {
        if !fs::metadata(HAPROXY).is_ok_and(|meta| meta.is_file()) {
            return Err(format!(
                "HAProxy not installed (no {HAPROXY}): run scripts/install-services.sh"
            ));
        }
        let dir = tempfile::Builder::new()
            .prefix("oxo-haproxy-")
            .tempdir()
            .map_err(|e| format!("cannot make a temp dir for HAProxy: {e}"))?;
        let config = dir.path().join("haproxy.cfg");
        let log = dir.path().join("log");
        for _ in 0..PORT_TRIES {
            let addr = SocketAddr::from(([127, 0, 0, 1], free_port()?));
            let text = render(TEMPLATE, addr, backends, check_path)?;
            fs::write(&config, text)
                .map_err(|e| format!("cannot write {}: {e}", config.display()))?;
            let mut child = spawn(&config, &log)?;
            match wait_until_listening(&mut child, addr, &log) {
                Ok(()) => return Ok(Haproxy { child, addr, dir }),
                Err(Exit::Bind) => {}
                Err(Exit::Other(error)) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(error);
                }
            }
        }
        Err(format!("HAProxy found no free port in {PORT_TRIES} tries"))
    }

    /// Where it listens.
    #[must_use]
    pub const fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// What it wrote to stderr so far (its last 20 lines): server state
    /// changes and errors.
    #[must_use]
    pub fn log_tail(&self) -> String {
        log_tail(&self.dir.path().join("log"))
    }
}

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Why HAProxy did not come up.
enum Exit {
    /// Its port was taken: try another.
    Bind,
    /// Anything else, in words.
    Other(String),
}

fn spawn(config: &Path, log: &Path) -> Result<Child, String> {
    let stderr = File::create(log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let stdout = stderr
        .try_clone()
        .map_err(|e| format!("cannot share {}: {e}", log.display()))?;
    Command::new(HAPROXY)
        .arg("-db")
        .arg("-f")
        .arg(config)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot start {HAPROXY}: {e}"))
}

/// Wait until `child` accepts connections on `addr`, or exits (its
/// output is in `log`).
fn wait_until_listening(child: &mut Child, addr: SocketAddr, log: &Path) -> Result<(), Exit> {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            let said = log_tail(log);
            if said.contains("cannot bind socket") {
                return Err(Exit::Bind);
            }
            return Err(Exit::Other(format!("HAProxy exited ({status}): {said}")));
        }
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(Exit::Other(format!(
                "HAProxy did not listen on {addr} within {TIMEOUT:?}: {}",
                log_tail(log)
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The template with `@LISTEN@` set to `listen`, the `@SERVERS@` line
/// replaced by one `server` line a backend, and the health check on
/// `check_path`.
fn render(
    template: &str,
    listen: SocketAddr,
    backends: &[SocketAddr],
    check_path: &str,
) -> Result<String, String> {
    let drifted = |what: &str| format!("deploy/haproxy.cfg has no {what}: update oxo-test-support");
    if !template.contains("@LISTEN@") {
        return Err(drifted("@LISTEN@"));
    }
    if !template.contains(TEMPLATE_CHECK) {
        return Err(drifted(TEMPLATE_CHECK));
    }
    let mut out = String::with_capacity(template.len() + 64 * backends.len());
    let mut servers = false;
    for line in template.lines() {
        if line.trim() == "@SERVERS@" {
            servers = true;
            let indent = &line[..line.len() - line.trim_start().len()];
            for (i, backend) in backends.iter().enumerate() {
                let _ = writeln!(out, "{indent}server node{} {backend} check inter 1s", i + 1);
            }
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    if !servers {
        return Err(drifted("line @SERVERS@"));
    }
    Ok(out
        .replace("@LISTEN@", &listen.to_string())
        .replace(TEMPLATE_CHECK, &format!("option httpchk GET {check_path}")))
}

#[cfg(test)]
mod tests {
    use super::{TEMPLATE, render};
    use std::net::SocketAddr;

    #[test]
    fn the_template_renders_with_every_backend() {
        let listen = SocketAddr::from(([127, 0, 0, 1], 8000));
        let backends = [
            SocketAddr::from(([127, 0, 0, 1], 8001)),
            SocketAddr::from(([127, 0, 0, 1], 8002)),
        ];
        let config = render(TEMPLATE, listen, &backends, "/healthz").unwrap();
        assert!(config.contains("    bind 127.0.0.1:8000\n"), "{config}");
        assert!(config.contains("    server node1 127.0.0.1:8001 check inter 1s\n"));
        assert!(config.contains("    server node2 127.0.0.1:8002 check inter 1s\n"));
        assert!(config.contains("option httpchk GET /healthz\n"));
        assert!(!config.contains("@SERVERS@\n"));
        assert!(!config.contains("GET /readyz"));
    }

    #[test]
    fn a_template_without_placeholders_is_an_error() {
        let listen = SocketAddr::from(([127, 0, 0, 1], 8000));
        let error = render("frontend x\n", listen, &[], "/readyz").unwrap_err();
        assert!(error.contains("@LISTEN@"), "{error}");
    }
}
