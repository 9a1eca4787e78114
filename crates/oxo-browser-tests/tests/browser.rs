//! `oxo serve` in headless Chromium: the server runs in-process on a free
//! port, chromedriver is started per test, and every browser session gets a
//! profile of its own (seat tokens live in `localStorage`, so two players need
//! two profiles).
//!
//! Needs `/usr/bin/chromium` and `/usr/bin/chromedriver`; the tests fail (they
//! do not skip) without them: run `scripts/install-browser.sh`.
//!
//! Screenshots go to `$OXO_ARTIFACTS`, else to `target/browser-artifacts/`.

use std::fmt::Write as _;
use std::future::Future;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::panic::resume_unwind;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use oxo_server::SqliteStore;
use serde::Deserialize;
use serde_json::{Value, json};
use tempfile::TempDir;

#[path = "browser/analysis.rs"]
mod analysis;
#[path = "browser/clock.rs"]
mod clock;
#[path = "browser/hints7.rs"]
mod hints7;
#[path = "browser/life.rs"]
mod life;
#[path = "browser/lobby.rs"]
mod lobby;
#[path = "browser/web.rs"]
mod web;

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// How long a condition in the page may take to come true.
const WAIT: Duration = Duration::from_secs(10);
/// How often it is checked meanwhile.
const POLL: Duration = Duration::from_millis(40);
/// The most a whole scenario may take.
const SCENARIO_LIMIT: Duration = Duration::from_secs(90);

/// The browsers run one test at a time: a few Chromiums at once on a small
/// machine make timings erratic.
static SERIAL: Mutex<()> = Mutex::new(());

// ---------------------------------------------------------------------------
// The harness: server, chromedriver, sessions, artifacts.
// ---------------------------------------------------------------------------

/// chromedriver in a process group of its own, so that the browsers it starts
/// go with it when the group is killed (also when a test panics).
#[derive(Debug)]
struct ChromeDriver {
    child: Child,
    url: String,
    log: PathBuf,
}

impl ChromeDriver {
    fn start(dir: &Path) -> ChromeDriver {
        use std::os::unix::process::CommandExt as _;

        let log = dir.join("chromedriver.log");
        let mut last_error = String::new();
        for _ in 0..3 {
            let port = free_port();
            let mut child = Command::new(CHROMEDRIVER)
                .arg(format!("--port={port}"))
                .arg(format!("--log-path={}", log.display()))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0)
                .spawn()
                .unwrap_or_else(|e| {
                    panic!("could not start {CHROMEDRIVER}: {e}; run scripts/install-browser.sh")
                });
            let deadline = Instant::now() + WAIT;
            loop {
                if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return ChromeDriver {
                        child,
                        url: format!("http://127.0.0.1:{port}"),
                        log,
                    };
                }
                if let Ok(Some(status)) = child.try_wait() {
                    last_error = format!("chromedriver exited with {status} (port {port})");
                    break;
                }
                if Instant::now() >= deadline {
                    last_error =
                        format!("chromedriver did not listen on port {port} within {WAIT:?}");
                    kill_group(&mut child);
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        panic!("could not start chromedriver: {last_error}");
    }
}

impl Drop for ChromeDriver {
    fn drop(&mut self) {
        kill_group(&mut self.child);
    }
}

/// Stop the process group led by `child`: TERM, a short grace, then KILL.
fn kill_group(child: &mut Child) {
    let group = format!("-{}", child.id());
    let signal = |name: &str| {
        let _ = Command::new("kill")
            .args([name, "--", &group])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    };
    signal("-TERM");
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        if matches!(child.try_wait(), Ok(Some(_))) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // Whatever is left of the group (a browser that ignored TERM, say).
    signal("-KILL");
    let _ = child.kill();
    let _ = child.wait();
    // Wait (briefly) for the group to be gone, so no browser outlives the test.
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline
        && Command::new("kill")
            .args(["-0", "--", &group])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    {
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn artifacts_dir() -> PathBuf {
    let dir = std::env::var_os("OXO_ARTIFACTS").map_or_else(
        || {
            let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
            // crates/oxo-browser-tests -> the workspace's target/.
            let root = manifest.ancestors().nth(2).unwrap_or(manifest);
            root.join("target/browser-artifacts")
        },
        PathBuf::from,
    );
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| {
        panic!(
            "cannot create the artifacts directory {}: {e}",
            dir.display()
        )
    });
    dir
}

/// One test's world: a server on a free port with a fresh database, a
/// chromedriver, and the browser sessions opened so far.
#[derive(Debug)]
struct Harness {
    name: &'static str,
    addr: SocketAddr,
    sessions: Mutex<Vec<(String, Client)>>,
    api: oxo_test_support::Client,
    /// Every node's address (the first is `addr`).
    nodes: Vec<SocketAddr>,
    // Dropped in this order: the servers (stopping them), chromedriver (and
    // with it every browser), the database server if any, then the
    // directory with the database and profiles.
    servers: Mutex<Vec<oxo_test_support::InProcess>>,
    driver: ChromeDriver,
    _postgres: Option<oxo_test_support::Postgres>,
    dir: TempDir,
    /// The servers' time, for [`Setup::SqliteTimed`].
    time: Option<oxo_server::ManualTime>,
}

/// Where a test's games are kept.
#[derive(Clone, Copy, Debug)]
enum Setup {
    /// One server on a SQLite file.
    Sqlite,
    /// One server on a SQLite file, where a player may claim the round
    /// this long after the opponent left (`HubConfig::claim_after`).
    SqliteClaimAfter(Duration),
    /// This many servers on one PostgreSQL database.
    Postgres(usize),
    /// One server on a SQLite file, its clocks reading a time the test
    /// moves ([`Harness::time`]), their flags swept every 50 ms.
    SqliteTimed,
}

impl Harness {
    async fn start(name: &'static str, setup: Setup) -> Harness {
        for bin in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                Path::new(bin).exists(),
                "{bin} is missing: the browser tests need Chromium and chromedriver; \
                 run scripts/install-browser.sh (it installs the Debian packages \
                 chromium and chromium-driver)"
            );
        }
        let dir = tempfile::Builder::new()
            .prefix("oxo-browser-")
            .tempdir()
            .expect("a temporary directory");
        let mut time = None;
        let (servers, postgres) = match setup {
            Setup::SqliteTimed => {
                let store = SqliteStore::open(dir.path().join("oxo.db")).expect("a fresh database");
                let manual = oxo_server::ManualTime::at_system_now();
                let config = oxo_server::HubConfig {
                    time: manual.source(),
                    flag_sweep: Duration::from_millis(50),
                    ..oxo_server::HubConfig::default()
                };
                time = Some(manual);
                let server =
                    oxo_test_support::InProcess::start_with(Arc::new(store), &config).await;
                (vec![server], None)
            }
            Setup::Sqlite | Setup::SqliteClaimAfter(_) => {
                let store = SqliteStore::open(dir.path().join("oxo.db")).expect("a fresh database");
                let mut config = oxo_server::HubConfig::default();
                if let Setup::SqliteClaimAfter(wait) = setup {
                    config.claim_after = wait;
                }
                let server =
                    oxo_test_support::InProcess::start_with(Arc::new(store), &config).await;
                (vec![server], None)
            }
            Setup::Postgres(nodes) => {
                let postgres = tokio::task::spawn_blocking(oxo_test_support::Postgres::start)
                    .await
                    .expect("the PostgreSQL starter")
                    .unwrap_or_else(|e| panic!("{e}"));
                let mut servers = Vec::new();
                for _ in 0..nodes {
                    let store = oxo_server::PgStore::connect(&postgres.url())
                        .await
                        .expect("a PostgreSQL store");
                    servers.push(oxo_test_support::InProcess::start(Arc::new(store)).await);
                }
                (servers, Some(postgres))
            }
        };
        let nodes: Vec<SocketAddr> = servers.iter().map(|s| s.addr).collect();
        let addr = nodes[0];
        let driver = ChromeDriver::start(dir.path());
        Harness {
            name,
            addr,
            nodes,
            sessions: Mutex::new(Vec::new()),
            api: oxo_test_support::Client::new(addr),
            servers: Mutex::new(servers),
            driver,
            _postgres: postgres,
            dir,
            time,
        }
    }

    /// `path` on node `node` (0 is the one `url` names).
    fn url_on(&self, node: usize, path: &str) -> String {
        format!("http://{}{path}", self.nodes[node])
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// A new browser with a profile of its own, its window `width`×`height`.
    async fn session(&self, label: &str, width: u32, height: u32) -> Client {
        self.session_with(label, width, height, &[]).await
    }

    /// [`Harness::session`] with more command-line switches for Chromium
    /// (a touch screen's pointer, say).
    async fn session_with(&self, label: &str, width: u32, height: u32, more: &[&str]) -> Client {
        let profile = self.dir.path().join(format!("profile-{label}"));
        std::fs::create_dir_all(&profile).expect("a profile directory");
        let mut args = vec![
            "--headless".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            "--disable-dev-shm-usage".to_owned(),
            "--disable-quic".to_owned(),
            "--no-first-run".to_owned(),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--disable-sync".to_owned(),
            "--hide-scrollbars".to_owned(),
            format!("--window-size={width},{height}"),
            format!("--user-data-dir={}", profile.display()),
        ];
        args.extend(more.iter().map(|&arg| arg.to_owned()));
        let mut caps = serde_json::Map::new();
        caps.insert("browserName".into(), json!("chrome"));
        caps.insert(
            "goog:chromeOptions".into(),
            json!({ "binary": CHROMIUM, "args": args }),
        );
        let mut builder = ClientBuilder::new(HttpConnector::new());
        builder.capabilities(caps);
        let connecting = builder.connect(&self.driver.url);
        let client = tokio::time::timeout(Duration::from_secs(30), connecting)
            .await
            .unwrap_or_else(|_| panic!("session {label}: Chromium did not start within 30 s"))
            .unwrap_or_else(|e| {
                panic!(
                    "session {label}: could not start Chromium through chromedriver: {e} \
                     (see {})",
                    self.driver.log.display()
                )
            });
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((label.to_owned(), client.clone()));
        // Headless Chromium widens a window under 500 px given on its command
        // line to 500 px; set through WebDriver, a phone's 390 px holds.
        client
            .set_window_size(width, height)
            .await
            .unwrap_or_else(|e| panic!("session {label}: cannot size the window: {e}"));
        client
    }

    /// Save a PNG of what `client` shows as `<name>.png` among the artifacts.
    async fn screenshot(&self, client: &Client, name: &str) -> PathBuf {
        let png = client.screenshot().await.expect("a screenshot");
        let path = artifacts_dir().join(format!("{name}.png"));
        std::fs::write(&path, png)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        path
    }

    /// After a failure: a screenshot of every session and chromedriver's log.
    async fn keep_evidence(&self) {
        let sessions = self
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        for (label, client) in &sessions {
            let name = format!("{}-failed-{label}", self.name);
            if let Ok(Ok(png)) =
                tokio::time::timeout(Duration::from_secs(5), client.screenshot()).await
            {
                let path = artifacts_dir().join(format!("{name}.png"));
                if std::fs::write(&path, png).is_ok() {
                    eprintln!("screenshot of session {label}: {}", path.display());
                }
            }
        }
        let log = artifacts_dir().join(format!("{}-chromedriver.log", self.name));
        if std::fs::copy(&self.driver.log, &log).is_ok() {
            eprintln!("chromedriver's log: {}", log.display());
        }
    }

    /// Close every browser and stop the server.
    async fn finish(&self) {
        let sessions: Vec<_> = self
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain(..)
            .collect();
        for (_, client) in sessions {
            let _ = tokio::time::timeout(Duration::from_secs(5), client.close()).await;
        }
        let servers: Vec<_> = self
            .servers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain(..)
            .collect();
        for mut server in servers {
            server.request_stop();
        }
    }

    /// `GET /api/games/{id}`, straight from the server.
    async fn api_game(&self, id: &str) -> Value {
        self.api(&format!("/api/games/{id}")).await
    }

    /// `GET path`, straight from the server.
    async fn api(&self, path: &str) -> Value {
        self.api.get_json(path).await
    }
}

/// Run `scenario` on a fresh harness, on a runtime of its own, one test at a
/// time. A failure leaves screenshots of every session among the artifacts.
fn run<F, Fut>(name: &'static str, scenario: F)
where
    F: FnOnce(Arc<Harness>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    run_on(name, Setup::Sqlite, scenario);
}

/// [`run`] with the games kept as `setup` says.
fn run_on<F, Fut>(name: &'static str, setup: Setup, scenario: F)
where
    F: FnOnce(Arc<Harness>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let _one_at_a_time = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let started = Instant::now();
        let harness = Arc::new(Harness::start(name, setup).await);
        let mut task = tokio::spawn(scenario(Arc::clone(&harness)));
        let outcome = tokio::time::timeout(SCENARIO_LIMIT, &mut task).await;
        if outcome.is_err() {
            task.abort();
            let _ = task.await;
        }
        if !matches!(outcome, Ok(Ok(()))) {
            harness.keep_evidence().await;
        }
        harness.finish().await;
        drop(harness);
        match outcome {
            Ok(Ok(())) => eprintln!("{name}: passed in {:.1?}", started.elapsed()),
            Ok(Err(e)) if e.is_panic() => resume_unwind(e.into_panic()),
            Ok(Err(e)) => panic!("{name}: the scenario was cancelled: {e}"),
            Err(_) => panic!("{name}: the scenario took longer than {SCENARIO_LIMIT:?}"),
        }
    });
}

// ---------------------------------------------------------------------------
// Reading and driving the page.
// ---------------------------------------------------------------------------

/// What the game page shows, read in one script.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Page {
    path: String,
    start_view: bool,
    game_view: bool,
    version: String,
    /// The marks in the server's notation, such as `X.O/.X./..O`.
    board: String,
    cells: usize,
    status: String,
    role: String,
    connection: String,
    score_x: String,
    score_o: String,
    score_draws: String,
    /// `#board.playable`: the seat in this browser is to move.
    playable: bool,
    /// Cells that can be played (not aria-disabled).
    enabled: Vec<[u32; 2]>,
    /// Cells with the class `win`.
    win: Vec<[u32; 2]>,
    /// Cells whose label says they are on the winning line.
    win_labels: Vec<[u32; 2]>,
    rematch: bool,
    invite: bool,
    message: String,
    /// The focused cell, if a cell has the focus.
    active: Option<[u32; 2]>,
}

impl Page {
    fn mark(&self, row: u32, col: u32) -> char {
        self.board
            .split('/')
            .nth(row as usize)
            .and_then(|r| r.chars().nth(col as usize))
            .unwrap_or('?')
    }

    fn count(&self, mark: char) -> usize {
        self.board.chars().filter(|&c| c == mark).count()
    }

    fn over(&self) -> bool {
        self.status == "Draw" || self.status.contains(" wins")
    }
}

const PAGE_SCRIPT: &str = r"
const $ = (id) => document.getElementById(id);
const board = $('board');
const cells = [...board.querySelectorAll('.cell')];
const pos = (c) => [+c.dataset.row, +c.dataset.col];
const grid = [];
for (const c of cells) (grid[+c.dataset.row] ||= [])[+c.dataset.col] = c.dataset.mark || '.';
const active = document.activeElement;
return {
  path: location.pathname + location.search,
  startView: !$('start-view').hidden,
  gameView: !$('game-view').hidden,
  version: board.dataset.version || '',
  board: grid.map((r) => Array.from(r, (m) => m || '?').join('')).join('/'),
  cells: cells.length,
  status: $('status').textContent,
  role: $('role').textContent,
  connection: $('connection').textContent,
  scoreX: $('score-x').textContent,
  scoreO: $('score-o').textContent,
  scoreDraws: $('score-draws').textContent,
  playable: board.classList.contains('playable'),
  enabled: cells.filter((c) => c.getAttribute('aria-disabled') !== 'true').map(pos),
  win: cells.filter((c) => c.classList.contains('win')).map(pos),
  winLabels: cells.filter((c) => (c.getAttribute('aria-label') || '').includes('winning line')).map(pos),
  rematch: !$('rematch').hidden,
  invite: !$('invite').hidden,
  message: $('message').hidden ? '' : $('message').textContent,
  active: active && active.classList && active.classList.contains('cell') ? pos(active) : null,
};
";

async fn try_page(client: &Client) -> Result<Page, String> {
    let value = client
        .execute(PAGE_SCRIPT, vec![])
        .await
        .map_err(|e| format!("the page could not be read: {e}"))?;
    serde_json::from_value(value.clone()).map_err(|e| format!("unexpected page state {value}: {e}"))
}

async fn page(client: &Client) -> Page {
    try_page(client).await.unwrap_or_else(|e| panic!("{e}"))
}

/// Poll the page until `ready` holds; fail after [`WAIT`] showing the page.
async fn wait_page(client: &Client, what: &str, ready: impl Fn(&Page) -> bool) -> Page {
    let deadline = Instant::now() + WAIT;
    loop {
        let seen = try_page(client).await;
        if let Ok(page) = &seen
            && ready(page)
        {
            return page.clone();
        }
        if Instant::now() >= deadline {
            match seen {
                Ok(page) => panic!("not seen within {WAIT:?}: {what}; the page shows {page:#?}"),
                Err(e) => panic!("not seen within {WAIT:?}: {what}; {e}"),
            }
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Poll `script` until it returns `true`.
async fn wait_script(client: &Client, what: &str, script: &str) {
    wait_script_within(client, what, script, WAIT).await;
}

/// [`wait_script`] for what a long search on the server answers: up to
/// `limit` (the scenario's own limit still holds).
async fn wait_script_within(client: &Client, what: &str, script: &str, limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        let seen = client.execute(script, vec![]).await;
        if matches!(seen, Ok(Value::Bool(true))) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "not seen within {limit:?}: {what}; last result {seen:?}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// Open the analysis board at `query` (`size=7x7&k=5&moves=…`).
async fn open_analysis(h: &Harness, client: &Client, query: &str) {
    client
        .goto(&h.url(&format!("/analysis?{query}")))
        .await
        .expect("the analysis board");
}

/// Open game `id`'s page in `client` as `seat` ("x" or "o"), its `token`
/// kept in the browser (on the server's origin) as the page keeps a seat's.
async fn open_seat(h: &Harness, client: &Client, id: &str, seat: &str, token: &str) {
    client.goto(&h.url("/")).await.expect("the start page");
    client
        .execute(
            "localStorage.setItem('oxo.seat.' + arguments[0], \
               JSON.stringify({ seat: arguments[1], token: arguments[2] })); return true;",
            vec![json!(id), json!(seat), json!(token)],
        )
        .await
        .expect("the seat kept");
    client
        .goto(&h.url(&format!("/g/{id}")))
        .await
        .expect("the game");
}

async fn find(client: &Client, css: &str) -> Element {
    client
        .find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no element {css}: {e}"))
}

async fn cell(client: &Client, row: u32, col: u32) -> Element {
    find(
        client,
        &format!("#board .cell[data-row=\"{row}\"][data-col=\"{col}\"]"),
    )
    .await
}

/// A game's moves as an analysis link writes them (`1%2C1%3B0%2C0`).
fn link_moves(game: &Value) -> String {
    let cells: Vec<String> = game["moves"]
        .as_array()
        .expect("the game's moves")
        .iter()
        .map(|m| format!("{}%2C{}", m[0], m[1]))
        .collect();
    cells.join("%3B")
}

/// Play the live round out in `c`, the first free cell each turn, until a
/// rematch is offered (`what` names the wait).
async fn play_round_out(c: &Client, what: &str) {
    loop {
        let p = wait_page(c, what, |p| {
            (p.playable || p.rematch) && !p.status.contains("showing")
        })
        .await;
        if p.rematch {
            break;
        }
        let [row, col] = p.enabled[0];
        click_cell(c, row, col).await;
        wait_page(c, "the move taken", |q| q.version != p.version).await;
    }
}

/// Click the cell at `row`, `col`, brought to the middle of its board
/// first: on a zoomed board WebDriver scrolls a cell only to the edge of
/// the board's box, under the coordinates pinned there, which would take
/// the click.
async fn click_cell(client: &Client, row: u32, col: u32) {
    let target = cell(client, row, col).await;
    client
        .execute(
            "arguments[0].scrollIntoView({block: 'center', inline: 'center'});",
            vec![serde_json::to_value(&target).expect("an element as JSON")],
        )
        .await
        .expect("the cell scrolled into view");
    target.click().await.expect("a cell clicked");
}

/// Send `keys` to whatever has the focus.
async fn press(client: &Client, keys: &[Key]) {
    let text: String = keys.iter().map(|&k| char::from(k)).collect();
    client
        .active_element()
        .await
        .expect("a focused element")
        .send_keys(&text)
        .await
        .unwrap_or_else(|e| panic!("could not press {keys:?}: {e}"));
}

/// Open the start page and wait until the server's options are in the form.
async fn open_start_page(h: &Harness, client: &Client) {
    client.goto(&h.url("/")).await.expect("the start page");
    // The form's options are replaced once /api/info answers; choose after
    // that, or the choice would be lost.
    wait_script(
        client,
        "the start page, with the server's options loaded",
        "return document.readyState === 'complete' \
           && !document.getElementById('start-view').hidden \
           && performance.getEntriesByType('resource') \
                .some((e) => e.name.endsWith('/api/info') && e.responseEnd > 0);",
    )
    .await;
    // Let the app's handler of that response finish (a settle, not a check).
    let _ = client
        .execute(
            "return new Promise((done) => setTimeout(done, 50));",
            vec![],
        )
        .await;
}

/// Start a game from the start page's form, as a person would; returns the
/// game's id once the game page is live.
async fn start_game(
    h: &Harness,
    client: &Client,
    opponent: &str,
    preset: &str,
    first: &str,
) -> String {
    let (rows, cols, k) = parse_preset(preset);
    open_start_page(h, client).await;
    for (select, value) in [("opponent", opponent), ("preset", preset), ("first", first)] {
        find(client, &format!("select#{select}"))
            .await
            .select_by_value(value)
            .await
            .unwrap_or_else(|e| panic!("cannot choose {value} in #{select}: {e}"));
    }
    let chosen = client
        .execute(
            "const v = (id) => document.getElementById(id).value; \
             return [v('opponent'), v('preset'), v('first'), v('rows'), v('cols'), v('k')];",
            vec![],
        )
        .await
        .expect("the form's values");
    assert_eq!(
        chosen,
        json!([
            opponent,
            preset,
            first,
            rows.to_string(),
            cols.to_string(),
            k.to_string()
        ]),
        "the form does not hold what was chosen"
    );
    find(client, "button#start")
        .await
        .click()
        .await
        .expect("Start clicked");
    let shown = wait_page(client, "the new game's page, live", |p| {
        p.path.starts_with("/g/")
            && p.game_view
            && !p.start_view
            && p.cells == (rows * cols) as usize
            && !p.version.is_empty()
            && p.connection == "live"
    })
    .await;
    let id = shown.path.trim_start_matches("/g/").to_owned();
    let game = h.api_game(&id).await;
    assert_eq!(
        (
            &game["opponent"],
            &game["rows"],
            &game["cols"],
            &game["k"],
            &game["first"]
        ),
        (
            &json!(opponent),
            &json!(rows),
            &json!(cols),
            &json!(k),
            &json!(first)
        ),
        "the server's game is not the one chosen in the form: {game}"
    );
    id
}

fn parse_preset(preset: &str) -> (u32, u32, u32) {
    let (size, k) = preset.split_once('k').expect("a preset like 3x3k3");
    let (rows, cols) = size.split_once('x').expect("a preset like 3x3k3");
    let n = |s: &str| s.parse::<u32>().expect("a number in the preset");
    (n(rows), n(cols), n(k))
}

/// Mark a page so that a reload (which would lose the mark) can be noticed.
async fn tag_page(client: &Client, tag: &str) {
    client
        .execute(
            "window.__oxoTag = arguments[0]; return true;",
            vec![json!(tag)],
        )
        .await
        .expect("the page tagged");
}

async fn assert_not_reloaded(client: &Client, tag: &str) {
    let seen = client
        .execute("return window.__oxoTag || null;", vec![])
        .await
        .expect("the tag read");
    assert_eq!(
        seen,
        json!(tag),
        "session {tag}: the page was reloaded, updates must arrive without a reload"
    );
}

/// How many move requests this page has sent.
async fn moves_sent(client: &Client) -> u64 {
    client
        .execute(
            "return performance.getEntriesByType('resource') \
               .filter((e) => e.name.includes('/moves')).length;",
            vec![],
        )
        .await
        .expect("the resource entries")
        .as_u64()
        .expect("a count")
}

// ---------------------------------------------------------------------------
// The tests.
// ---------------------------------------------------------------------------

/// One page plays a whole 3×3 game against the perfect computer, which
/// cannot lose; its replies arrive over the WebSocket.
#[test]
fn plays_a_full_game_against_the_computer() {
    run("computer-game", |h| async move {
        let c = h.session("player", 1000, 1000).await;
        let id = start_game(&h, &c, "perfect", "3x3k3", "x").await;
        let mut played = 0;
        loop {
            let now = wait_page(&c, "my turn, or the end of the game", |p| {
                p.over() || (p.playable && !p.enabled.is_empty())
            })
            .await;
            if now.over() {
                break;
            }
            assert!(now.status.ends_with("Your turn (X)"), "{}", now.status);
            if played > 0 {
                // The computer's reply is announced, for screen readers.
                assert!(now.status.starts_with("O played row "), "{}", now.status);
            }
            assert!(played < 5, "X has had five moves and the game is not over");
            let [row, col] = now.enabled[0];
            click_cell(&c, row, col).await;
            played += 1;
            // Our move comes back in the POST's answer; the computer's reply
            // only over the WebSocket.
            wait_page(
                &c,
                &format!("X at ({row},{col}) and the computer's reply {played}"),
                |p| p.mark(row, col) == 'X' && (p.over() || p.count('O') == played),
            )
            .await;
        }
        let end = wait_page(&c, "the score updated", |p| {
            p.score_draws == "1" || p.score_o == "1"
        })
        .await;
        h.screenshot(&c, "computer-game-end").await;
        assert!(
            end.status == "Draw" || end.status.starts_with("O wins"),
            "the perfect computer cannot lose, yet the page says {:?}",
            end.status
        );
        assert_eq!(end.score_x, "0", "{end:#?}");
        if end.status == "Draw" {
            assert_eq!((end.score_o.as_str(), end.score_draws.as_str()), ("0", "1"));
        } else {
            assert_eq!((end.score_o.as_str(), end.score_draws.as_str()), ("1", "0"));
            assert_eq!(
                end.win.len(),
                3,
                "the winning line is highlighted: {end:#?}"
            );
        }
        assert!(end.rematch, "a finished game offers a rematch");
        assert!(
            end.enabled.is_empty(),
            "no cell can be played after the end"
        );
        let game = h.api_game(&id).await;
        assert_eq!(
            game["board"].as_str().map(str::to_ascii_uppercase),
            Some(end.board.clone()),
            "the page's board differs from the server's: {game}"
        );
        let expected_status = if end.status == "Draw" { "draw" } else { "won" };
        assert_eq!(game["status"], json!(expected_status), "{game}");
    });
}

/// A move sent on a live socket that never answers (a connection that died
/// without closing) goes again as a POST a few seconds later and is played,
/// with no error shown; the computer's reply still arrives live.
#[test]
fn a_move_the_socket_never_answers_goes_again_as_a_post() {
    run("socket-move-fallback", |h| async move {
        let c = h.session("player", 1000, 1000).await;
        let id = start_game(&h, &c, "perfect", "3x3k3", "x").await;
        let now = wait_page(&c, "my turn", |p| p.playable && !p.enabled.is_empty()).await;
        // From now on the page's sockets swallow whatever they are given.
        c.execute(
            "WebSocket.prototype.send = function () {}; return true;",
            vec![],
        )
        .await
        .expect("the socket's send replaced");
        let [row, col] = now.enabled[0];
        click_cell(&c, row, col).await;
        let seen = wait_page(&c, "the move played and the computer's reply", |p| {
            p.mark(row, col) == 'X' && p.count('O') == 1
        })
        .await;
        assert_eq!(seen.message, "", "no error shown: {seen:#?}");
        assert_eq!(moves_sent(&c).await, 1, "the move went again as one POST");
        let game = h.api_game(&id).await;
        assert_eq!(
            game["board"].as_str().map(str::to_ascii_uppercase),
            Some(seen.board.clone()),
            "{game}"
        );
        assert_eq!(game["moves"].as_array().map(Vec::len), Some(2), "{game}");
    });
}

/// The form offers only the opponents that can play the chosen board (no
/// refusal after Start), and a game against the learned player, which
/// cannot be beaten on 3×3 by first-free-cell play, runs to its end.
#[test]
fn the_form_offers_only_opponents_that_can_play_the_board() {
    run("opponents-by-board", |h| async move {
        let c = h.session("player", 1000, 900).await;
        open_start_page(&h, &c).await;
        let disabled = "return [...document.getElementById('opponent').options] \
                          .filter((o) => o.disabled).map((o) => o.value);";
        assert_eq!(c.execute(disabled, vec![]).await.unwrap(), json!([]));
        find(&c, "select#opponent")
            .await
            .select_by_value("learned")
            .await
            .expect("learned offered on 3x3");
        find(&c, "select#preset")
            .await
            .select_by_value("15x15k5")
            .await
            .expect("the 15x15 preset");
        assert_eq!(
            c.execute(disabled, vec![]).await.unwrap(),
            json!(["perfect"]),
            "learned has a model for 15x15 k=5; perfect cannot play it"
        );
        // A custom 9x9 board, typed in: learned has no model for it.
        for (id, value) in [("rows", "9"), ("cols", "9"), ("k", "5")] {
            let input = find(&c, &format!("input#{id}")).await;
            input.clear().await.expect("the field cleared");
            input.send_keys(value).await.expect("the field typed in");
        }
        assert_eq!(
            c.execute(disabled, vec![]).await.unwrap(),
            json!(["perfect", "learned"]),
            "perfect and learned cannot play 9x9 k=5"
        );
        let chosen = c
            .execute("return document.getElementById('opponent').value;", vec![])
            .await
            .unwrap();
        assert_eq!(chosen, json!("human"), "the choice moved to one that fits");
        // ... and a note beside the choice says so.
        let note = c
            .execute(
                "const n = document.getElementById('opponent-note'); \
                 return n.hidden ? null : n.textContent;",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(
            note,
            json!(
                "The computer learned cannot play 9×9 with 5 in a row, \
                 so the opponent is now a friend — share a link."
            )
        );
        h.screenshot(&c, "opponents-9x9").await;
        // A fractional size is refused, not cut to a whole number.
        let rows = find(&c, "input#rows").await;
        rows.clear().await.expect("the field cleared");
        rows.send_keys("2.5").await.expect("the field typed in");
        find(&c, "button#start")
            .await
            .click()
            .await
            .expect("Start clicked");
        let refused = wait_page(&c, "a fractional size refused", |p| {
            p.message.contains("whole numbers")
        })
        .await;
        assert!(refused.start_view && refused.path == "/", "{refused:#?}");
        find(&c, "select#preset")
            .await
            .select_by_value("3x3k3")
            .await
            .expect("the 3x3 preset");
        assert_eq!(c.execute(disabled, vec![]).await.unwrap(), json!([]));
        // On a board it plays again, the computer is back and the note gone.
        assert_eq!(
            c.execute(
                "return [document.getElementById('opponent').value, \
                         document.getElementById('opponent-note').hidden];",
                vec![]
            )
            .await
            .unwrap(),
            json!(["learned", true])
        );

        let id = start_game(&h, &c, "learned", "3x3k3", "x").await;
        loop {
            let now = wait_page(&c, "my turn, or the end of the game", |p| {
                p.over() || (p.playable && !p.enabled.is_empty())
            })
            .await;
            if now.over() {
                assert!(!now.status.starts_with("X wins"), "{}", now.status);
                break;
            }
            let [row, col] = now.enabled[0];
            let placed = now.count('X') + 1;
            click_cell(&c, row, col).await;
            wait_page(&c, "my move and the computer's reply", |p| {
                p.count('X') == placed && (p.over() || p.count('O') == placed)
            })
            .await;
        }
        let game = h.api_game(&id).await;
        assert_ne!(game["winner"], json!("x"), "{game}");
        assert_eq!(game["opponent"], json!("learned"), "{game}");
    });
}

/// Two browsers (two profiles, so two seats) play each other through the
/// server while a third watches; every move shows up in the other browsers
/// without a reload.
#[test]
fn two_players_and_a_spectator_play_live() {
    run("two-players", |h| async move {
        let a = h.session("a", 1000, 1000).await;
        let b = h.session("b", 1000, 1000).await;
        let watcher = h.session("spectator", 1000, 1000).await;

        let id = start_game(&h, &a, "human", "3x3k3", "x").await;
        let waiting = wait_page(&a, "the invite box", |p| p.invite).await;
        assert_eq!(waiting.role, "You are X");
        assert!(
            waiting.status.starts_with("Waiting for a friend"),
            "{waiting:#?}"
        );
        assert!(waiting.enabled.is_empty(), "X cannot move before O joins");
        let invite = invite_link(&a).await;
        // The invite rides in the fragment, which no server ever sees.
        let secret = invite
            .strip_prefix(&h.url(&format!("/g/{id}#join=")))
            .unwrap_or_else(|| panic!("an invite link for {id}: {invite}"));
        assert_eq!(secret.len(), 32, "{invite}");
        let watch = find(&a, "#spectate-link")
            .await
            .attr("href")
            .await
            .expect("the watch link")
            .expect("an href");
        // The watch link carries the read-only watch id, not the room's id
        // (which would let its holder take the free seat).
        assert!(watch.starts_with(&h.url("/g/")), "{watch}");
        assert!(
            !watch.contains(&id),
            "the watch link gives the room id away: {watch}"
        );
        tag_page(&a, "a").await;

        // The room id alone (a player's address bar shown to someone) does
        // not take the seat: that browser watches, and is told why.
        watcher
            .goto(&h.url(&format!("/g/{id}?join")))
            .await
            .expect("the room link opened");
        let refused = wait_page(&watcher, "the room id alone refused", |p| {
            p.message.contains("invite link") && p.connection == "live"
        })
        .await;
        assert_eq!(refused.role, "Watching", "{refused:#?}");
        assert!(refused.status.starts_with("Waiting"), "{refused:#?}");

        // B takes seat O through the invite link.
        b.goto(&invite).await.expect("the invite link opened");
        let joined = wait_page(&b, "seat O taken", |p| {
            p.role == "You are O" && p.connection == "live" && !p.version.is_empty()
        })
        .await;
        assert_eq!(
            joined.path,
            format!("/g/{id}"),
            "the invite is dropped from the address"
        );
        tag_page(&b, "b").await;
        wait_page(&b, "B waits for X", |p| p.status == "Waiting for X…").await;
        // A learns of it over the WebSocket.
        let ready = wait_page(&a, "A told that O joined", |p| {
            p.status == "Your turn (X)" && !p.invite && p.playable
        })
        .await;
        assert_eq!(ready.enabled.len(), 9);

        // Fair play: neither player is offered hints in a game between two
        // people.
        for (name, client) in [("a", &a), ("b", &b)] {
            wait_script(
                client,
                &format!("{name}: no hints toggle between two people"),
                "return document.getElementById('hints').closest('label').hidden === true \
                   && document.getElementById('hints').checked === false;",
            )
            .await;
        }

        // The spectator opens the plain game link.
        watcher.goto(&watch).await.expect("the watch link opened");
        let watching = wait_page(&watcher, "the spectator's page, live", |p| {
            p.connection == "live" && p.status == "X to move"
        })
        .await;
        tag_page(&watcher, "spectator").await;
        assert_eq!(watching.role, "Watching");
        assert!(
            watching.enabled.is_empty() && !watching.playable,
            "a spectator's cells are disabled: {watching:#?}"
        );
        assert!(!watching.rematch && !watching.invite, "{watching:#?}");
        // Cells stay focusable (aria-disabled, so the board can be read by
        // keyboard), but clicking one does nothing.
        let version_before = h.api_game(&id).await["version"].clone();
        cell(&watcher, 2, 2)
            .await
            .click()
            .await
            .expect("a spectator's cell can be clicked");

        let moves = [
            ('X', 0, 0),
            ('O', 1, 0),
            ('X', 0, 1),
            ('O', 1, 1),
            ('X', 0, 2),
        ];
        let sessions = [("a", &a), ("b", &b), ("spectator", &watcher)];
        let mut expected = ["...".to_owned(), "...".to_owned(), "...".to_owned()];
        for (n, &(mark, row, col)) in moves.iter().enumerate() {
            let (mover_name, mover) = if mark == 'X' {
                sessions[0]
            } else {
                sessions[1]
            };
            wait_page(mover, &format!("{mover_name}'s turn"), |p| {
                p.status.ends_with(&format!("Your turn ({mark})"))
                    && p.enabled.contains(&[row, col])
            })
            .await;
            // Looking back never hides the game: X steps back before O's
            // 4th move and is still told it is their turn; O steps back
            // before X's winning move and is still told the result.
            let looking = match n {
                3 => Some(("a", &a, "Your turn (X)")),
                4 => Some(("b", &b, "X wins — you lose")),
                _ => None,
            };
            if let Some((name, looker, _)) = looking {
                find(looker, "#step-back")
                    .await
                    .click()
                    .await
                    .expect("back");
                wait_page(looker, &format!("{name} looks back a move"), |p| {
                    p.status
                        .contains(&format!("showing round 1, move {} of {}", n - 1, n))
                })
                .await;
            }
            click_cell(mover, row, col).await;
            if let Some((name, looker, live)) = looking {
                let seen = wait_page(looker, &format!("{name} told of the game"), |p| {
                    p.status.contains(live)
                })
                .await;
                assert!(
                    seen.status.contains(&format!(
                        "showing round 1, move {} of {} — » goes back to the game",
                        n - 1,
                        n + 1
                    )),
                    "{name} still looks back: {seen:#?}"
                );
                find(looker, "#step-last")
                    .await
                    .click()
                    .await
                    .expect("last");
            }
            expected[row as usize].replace_range(col as usize..=col as usize, &mark.to_string());
            let board = expected.join("/");
            for (name, client) in sessions {
                let seen = wait_page(
                    client,
                    &format!("move {} ({mark} at ({row},{col})) shown to {name}", n + 1),
                    |p| p.board == board,
                )
                .await;
                if name == "spectator" {
                    assert!(
                        seen.enabled.is_empty() && !seen.playable,
                        "a spectator's cells stay disabled: {seen:#?}"
                    );
                    // The move is said, for a screen reader, then whose turn.
                    if n + 1 < moves.len() {
                        let next = if mark == 'X' { 'O' } else { 'X' };
                        let said = format!(
                            "{mark} played row {}, column {} — {next} to move",
                            row + 1,
                            col + 1
                        );
                        wait_page(client, "the spectator told the move", |p| p.status == said)
                            .await;
                    }
                }
            }
            if n == 2 {
                h.screenshot(&watcher, "spectator-live").await;
            }
            if n == 0 {
                // The spectator's click never reached the server.
                let game = h.api_game(&id).await;
                assert_eq!(game["board"], json!("X../.../..."), "{game}");
                assert_eq!(
                    game["version"].as_u64(),
                    version_before.as_u64().map(|v| v + 1),
                    "only X's move changed the game: {game}"
                );
                assert_eq!(moves_sent(&watcher).await, 0, "the spectator sent a move");
                let seen = page(&watcher).await;
                assert_eq!(seen.message, "", "no error shown to the spectator");
            }
        }

        let line = vec![[0, 0], [0, 1], [0, 2]];
        for (name, client, status) in [
            ("a", &a, "X wins — you win!"),
            ("b", &b, "X wins — you lose"),
            ("spectator", &watcher, "X wins"),
        ] {
            let end = wait_page(client, &format!("{name} sees X win"), |p| {
                p.status == status && p.score_x == "1"
            })
            .await;
            assert_eq!(
                end.win, line,
                "{name}: the winning cells have the class win"
            );
            assert_eq!(end.win_labels, line, "{name}: and say so to screen readers");
            assert_eq!(
                (end.score_o.as_str(), end.score_draws.as_str()),
                ("0", "0"),
                "{name}"
            );
            assert!(
                end.enabled.is_empty(),
                "{name}: nothing playable after a win"
            );
            assert_eq!(end.rematch, name != "spectator", "{name}: rematch button");
            assert_not_reloaded(client, name).await;
        }
        // The result stands out as a banner on every page.
        for (name, client) in sessions {
            wait_script(
                client,
                &format!("{name}: the result banner"),
                "return document.getElementById('status').classList.contains('result');",
            )
            .await;
        }
        // The round is over: hints are offered now, to the players too.
        for (name, client) in [("a", &a), ("b", &b)] {
            wait_script(
                client,
                &format!("{name}: the hints toggle once the round is over"),
                "return document.getElementById('hints').closest('label').hidden === false;",
            )
            .await;
        }
        let game = h.api_game(&id).await;
        assert_eq!(game["status"], json!("won"), "{game}");
        assert_eq!(game["winner"], json!("x"), "{game}");
        assert_eq!(game["board"], json!("XXX/OO./..."), "{game}");
        assert_eq!(game["line"], json!(line), "{game}");
        assert_eq!(moves_sent(&watcher).await, 0, "the spectator sent a move");
        // The players' moves went on their live sockets, not as POSTs.
        for (name, client) in [("a", &a), ("b", &b)] {
            assert_eq!(moves_sent(client).await, 0, "{name} POSTed a move");
        }

        h.screenshot(&a, "two-players-a").await;
        h.screenshot(&b, "two-players-b").await;
        h.screenshot(&watcher, "spectator").await;
    });
}

#[test]
fn two_players_on_two_servers_play_live() {
    run_on("two-nodes", Setup::Postgres(2), |h| async move {
        let a = h.session("a", 1000, 1000).await;
        let b = h.session("b", 1000, 1000).await;
        // X starts the game on the first server...
        let id = start_game(&h, &a, "human", "3x3k3", "x").await;
        wait_page(&a, "the invite box", |p| p.invite).await;
        let invite = invite_link(&a).await;
        let fragment = invite
            .split_once('#')
            .map(|(_, fragment)| fragment.to_owned())
            .expect("an invite in the link");
        // ...and O follows the invite on the second, as a load balancer
        // without sticky sessions might send it.
        b.goto(&h.url_on(1, &format!("/g/{id}#{fragment}")))
            .await
            .expect("the invite opened on the other server");
        wait_page(&b, "seat O taken on the second server", |p| {
            p.role == "You are O" && p.connection == "live" && p.status == "Waiting for X…"
        })
        .await;
        wait_page(&a, "A told through its own server that O joined", |p| {
            p.status.ends_with("Your turn (X)") && !p.invite && p.playable
        })
        .await;
        let moves = [
            ('X', 1, 1),
            ('O', 0, 0),
            ('X', 2, 2),
            ('O', 0, 2),
            ('X', 0, 1),
        ];
        let mut expected = ["...".to_owned(), "...".to_owned(), "...".to_owned()];
        for &(mark, row, col) in &moves {
            let (mover, other) = if mark == 'X' { (&a, &b) } else { (&b, &a) };
            wait_page(mover, &format!("{mark}'s turn"), |p| {
                p.status.ends_with(&format!("Your turn ({mark})"))
                    && p.enabled.contains(&[row, col])
            })
            .await;
            click_cell(mover, row, col).await;
            expected[row as usize].replace_range(col as usize..=col as usize, &mark.to_string());
            let board = expected.join("/");
            wait_page(
                other,
                &format!("{mark}'s move at ({row},{col}) shown on the other server"),
                |p| p.board == board,
            )
            .await;
        }
        // O looks elsewhere; X completes the middle column.
        wait_page(&b, "O's turn", |p| p.status.ends_with("Your turn (O)")).await;
        click_cell(&b, 2, 0).await;
        wait_page(&a, "X's turn", |p| p.status.ends_with("Your turn (X)")).await;
        click_cell(&a, 2, 1).await;
        for (name, client, status) in [
            ("a", &a, "X wins — you win!"),
            ("b", &b, "X wins — you lose"),
        ] {
            wait_page(client, &format!("{name} sees X win"), |p| {
                p.status == status && p.score_x == "1"
            })
            .await;
        }
        let game = h.api_game(&id).await;
        assert_eq!(game["board"], json!("OXO/.X./OXX"), "{game}");
        h.screenshot(&b, "two-nodes-b").await;
    });
}

/// The cells' boxes and the page's width, in CSS pixels.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Layout {
    inner_width: f64,
    inner_height: f64,
    scroll_width: f64,
    /// `[left, top, right, bottom]` of every cell.
    cells: Vec<[f64; 4]>,
}

const LAYOUT_SCRIPT: &str = r"
return {
  innerWidth: window.innerWidth,
  innerHeight: window.innerHeight,
  scrollWidth: document.documentElement.scrollWidth,
  cells: [...document.querySelectorAll('#board .cell')].map((c) => {
    const r = c.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  }),
};
";

async fn layout(client: &Client) -> Layout {
    let value = client
        .execute(LAYOUT_SCRIPT, vec![])
        .await
        .expect("the layout");
    serde_json::from_value(value).expect("a layout")
}

/// The board has its `cells`, and the page does not scroll sideways.
fn assert_whole(what: &str, layout: &Layout, cells: usize) {
    assert_eq!(layout.cells.len(), cells, "{what}: cells on the board");
    assert!(
        layout.scroll_width <= layout.inner_width,
        "{what}: the page scrolls sideways: scrollWidth {} > innerWidth {}",
        layout.scroll_width,
        layout.inner_width
    );
}

fn assert_fits(what: &str, layout: &Layout, cells: usize) {
    assert_whole(what, layout, cells);
    let mut outside = String::new();
    for (i, &[left, top, right, bottom]) in layout.cells.iter().enumerate() {
        if left < 0.0 || right > layout.inner_width {
            let _ = write!(outside, " cell {i}: {left:.1}..{right:.1};");
        }
        // A finger needs some room: at least 24 CSS pixels a side.
        assert!(
            right - left >= 24.0 && bottom - top >= 24.0,
            "{what}: cell {i} is only {:.1}×{:.1} px",
            right - left,
            bottom - top
        );
    }
    assert!(
        outside.is_empty(),
        "{what}: cells outside the {} px wide viewport:{outside}",
        layout.inner_width
    );
    let top = layout
        .cells
        .iter()
        .map(|c| c[1])
        .fold(f64::INFINITY, f64::min);
    let bottom = layout.cells.iter().map(|c| c[3]).fold(0.0, f64::max);
    assert!(
        bottom - top <= layout.inner_height,
        "{what}: the board ({:.1} px tall) cannot be seen whole in a {} px tall viewport",
        bottom - top,
        layout.inner_height
    );
}

/// On a 360×640 phone the whole board is on screen, with no sideways
/// scrolling, for 3×3 and 7×7.
#[test]
fn the_board_fits_a_phone_screen() {
    run("phone", |h| async move {
        let c = h.session("phone", 360, 640).await;
        c.set_window_size(360, 640).await.expect("the window sized");
        c.goto(&h.url("/")).await.expect("the start page");
        wait_page(&c, "the start page", |p| p.start_view).await;
        let start = layout(&c).await;
        assert!(
            start.inner_width <= 360.0,
            "the window is phone-sized (innerWidth {})",
            start.inner_width
        );
        assert!(
            start.scroll_width <= start.inner_width,
            "the start page scrolls sideways: {start:?}"
        );

        for (preset, cells, shot) in [("3x3k3", 9, "phone-3x3"), ("7x7k5", 49, "phone-7x7")] {
            start_game(&h, &c, "human", preset, "x").await;
            let measured = layout(&c).await;
            eprintln!(
                "{preset} on a phone: viewport {}×{} px, scrollWidth {}, cells {:.1} px wide",
                measured.inner_width,
                measured.inner_height,
                measured.scroll_width,
                measured.cells.first().map_or(0.0, |c| c[2] - c[0]),
            );
            // The screenshot shows the viewport only: bring the whole board
            // into it (the measurements above are from the top of the page).
            c.execute(
                "document.getElementById('board').scrollIntoView({ block: 'end' }); return true;",
                vec![],
            )
            .await
            .expect("the board scrolled into view");
            h.screenshot(&c, shot).await;
            assert_fits(preset, &measured, cells);
        }

        // A taller phone (390×844) fits the same boards.
        c.set_window_size(390, 844).await.expect("the window sized");
        for (preset, cells) in [("3x3k3", 9), ("7x7k5", 49)] {
            start_game(&h, &c, "human", preset, "x").await;
            let measured = layout(&c).await;
            assert_fits(&format!("{preset} at 390x844"), &measured, cells);
            h.screenshot(&c, &format!("phone-390x844-{preset}")).await;
        }
        c.set_window_size(360, 640).await.expect("the window sized");

        // No layout jumps between turns: the board stays where it was when
        // the status line grows to "O played row …, column … — Your turn".
        start_game(&h, &c, "perfect", "3x3k3", "x").await;
        let board_top = async || {
            c.execute(
                "return document.getElementById('board').getBoundingClientRect().top + window.scrollY;",
                vec![],
            )
            .await
            .expect("the board's place")
            .as_f64()
            .unwrap_or_default()
        };
        wait_page(&c, "X's turn", |p| p.playable).await;
        let before = board_top().await;
        click_cell(&c, 1, 1).await;
        wait_page(&c, "the computer's answer", |p| {
            p.version == "3" && p.status.starts_with("O played")
        })
        .await;
        let after = board_top().await;
        assert!(
            (after - before).abs() < 0.5,
            "the board moved from {before} to {after} px between turns"
        );

        // 15×15 fits too, with small cells; "Larger cells" (on at first on
        // a phone) makes them finger-sized and lets the board scroll in its
        // box, never the page.
        start_game(&h, &c, "human", "15x15k5", "x").await;
        find(&c, "#zoom")
            .await
            .click()
            .await
            .expect("Larger cells off");
        let fitted = layout(&c).await;
        assert_eq!(fitted.cells.len(), 225);
        assert!(fitted.scroll_width <= fitted.inner_width, "{fitted:?}");
        let small = fitted.cells[0][2] - fitted.cells[0][0];
        assert!(small < 30.0, "15 cells across 360 px are small: {small}");
        let toggle = find(&c, "#zoom-toggle").await;
        assert!(
            toggle.is_displayed().await.expect("the toggle's display"),
            "the Larger cells option is offered"
        );
        find(&c, "#zoom")
            .await
            .click()
            .await
            .expect("Larger cells on");
        let zoomed = layout(&c).await;
        let large = zoomed.cells[0][2] - zoomed.cells[0][0];
        assert!(large >= 36.0, "finger-sized cells: {large}");
        assert!(
            zoomed.scroll_width <= zoomed.inner_width,
            "the page does not scroll sideways: {zoomed:?}"
        );
        let scrolls = c
            .execute(
                "const w = document.getElementById('board-wrap'); return w.scrollWidth > w.clientWidth;",
                vec![],
            )
            .await
            .expect("the board box");
        assert_eq!(scrolls, Value::Bool(true), "the board scrolls in its box");
        c.execute(
            "document.getElementById('board-wrap').scrollIntoView({ block: 'start' }); return true;",
            vec![],
        )
        .await
        .expect("the board scrolled into view");
        h.screenshot(&c, "phone-15x15-larger-cells").await;
        // A small board does not offer it.
        start_game(&h, &c, "human", "3x3k3", "x").await;
        assert!(
            !find(&c, "#zoom-toggle")
                .await
                .is_displayed()
                .await
                .expect("the toggle's display"),
            "no Larger cells option on 3×3"
        );
    });
}

/// Where `css` is on the page, as `[left, top, right, bottom]` in the
/// viewport, or `None` when it is not shown.
async fn rect(client: &Client, css: &str) -> Option<[f64; 4]> {
    let value = client
        .execute(
            "const e = document.querySelector(arguments[0]); \
             if (!e || !e.offsetParent) return null; \
             const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom];",
            vec![json!(css)],
        )
        .await
        .expect("a rectangle");
    serde_json::from_value(value).expect("a rectangle or null")
}

/// On a phone held sideways (640×360, 844×390) and in a window zoomed to
/// 200 % (1280×800 shows 640×400 CSS pixels, 1920×940 960×470) the board stands
/// beside the rest of the game: the whole board, the status line and the
/// round's actions are in view at once, with no scrolling.
#[test]
fn the_board_fits_a_landscape_screen() {
    // A touch screen's pointer makes the header's links taller.
    const TOUCH: &[&str] = &["--blink-settings=primaryPointerType=2,availablePointerTypes=2"];
    /// A pointer's name, Chromium's switches for it, and the viewports.
    type Screen = (&'static str, &'static [&'static str], &'static [(u32, u32)]);
    let screens: [Screen; 2] = [
        (
            "mouse",
            &[],
            &[(640, 360), (640, 400), (844, 390), (960, 470)],
        ),
        ("touch", TOUCH, &[(640, 360), (844, 390)]),
    ];
    run("landscape", move |h| async move {
        for (pointer, more, sizes) in screens {
            let c = h.session_with(pointer, 640, 360, more).await;
            let coarse = c
                .execute("return matchMedia('(pointer: coarse)').matches;", vec![])
                .await
                .expect("the pointer's kind");
            assert_eq!(
                coarse,
                json!(pointer == "touch"),
                "{pointer}: a coarse pointer"
            );
            // The window's frame takes some of its height: size the window so
            // that the viewport is the screen's size.
            let frame = c
                .execute("return window.outerHeight - window.innerHeight;", vec![])
                .await
                .expect("the frame's height")
                .as_u64()
                .expect("a number of pixels");
            let frame = u32::try_from(frame).expect("a frame under 4 billion pixels");
            for &(width, height) in sizes {
                c.set_window_size(width, height + frame)
                    .await
                    .expect("the window sized");
                for (opponent, preset, cells) in [
                    ("perfect", "3x3k3", 9),
                    ("human", "7x7k5", 49),
                    ("human", "15x15k5", 225),
                ] {
                    let what = format!("{preset} at {width}×{height} ({pointer})");
                    start_game(&h, &c, opponent, preset, "x").await;
                    if opponent == "perfect" {
                        // A move played, so that Resign is among the actions.
                        click_cell(&c, 1, 1).await;
                        wait_page(&c, "the computer's answer", |p| {
                            p.playable && p.version == "3"
                        })
                        .await;
                    }
                    c.execute("window.scrollTo(0, 0); return true;", vec![])
                        .await
                        .expect("the page scrolled to its top");
                    let page = layout(&c).await;
                    assert_eq!(
                        (page.inner_width, page.inner_height),
                        (f64::from(width), f64::from(height)),
                        "{what}: the viewport"
                    );
                    assert_whole(&what, &page, cells);
                    let viewport = [0.0, 0.0, page.inner_width, page.inner_height];
                    let inside = |r: [f64; 4]| {
                        r[0] >= -0.5
                            && r[1] >= -0.5
                            && r[2] <= viewport[2] + 0.5
                            && r[3] <= viewport[3] + 0.5
                    };
                    // On 15×15 "Larger cells" is on at first on a phone: the
                    // board's box is in view and scrolls inside itself.
                    let board = if cells == 225 {
                        "#board-wrap"
                    } else {
                        "#board"
                    };
                    let shown = rect(&c, board).await.expect("the board is shown");
                    assert!(
                        inside(shown),
                        "{what}: the board {shown:?} is not wholly in {viewport:?}"
                    );
                    let status = rect(&c, "#status").await.expect("the status is shown");
                    assert!(
                        inside(status),
                        "{what}: the status {status:?} is not in {viewport:?}"
                    );
                    // "Larger cells", where offered, covers neither the status
                    // nor the connection.
                    if let Some(toggle) = rect(&c, "#zoom-toggle").await {
                        let apart = |r: [f64; 4]| {
                            toggle[2] <= r[0]
                                || r[2] <= toggle[0]
                                || toggle[3] <= r[1]
                                || r[3] <= toggle[1]
                        };
                        let connection = rect(&c, "#connection").await.expect("the connection");
                        assert!(
                            apart(status) && apart(connection),
                            "{what}: Larger cells {toggle:?} covers the status {status:?} or the \
                         connection {connection:?}"
                        );
                    }
                    if opponent == "perfect" {
                        let resign = rect(&c, "#act-resign").await.expect("Resign is shown");
                        assert!(
                            inside(resign),
                            "{what}: Resign {resign:?} is not in {viewport:?}"
                        );
                    }
                    h.screenshot(
                        &c,
                        &format!("landscape-{pointer}-{width}x{height}-{preset}"),
                    )
                    .await;
                }
            }
            // The analysis board too, with its values and the engine's estimate
            // beside it.
            open_analysis(&h, &c, "size=7x7&k=5&moves=1,2;0,3;4,3;6,6").await;
            wait_page(&c, "X to move on 7x7", |p| {
                p.cells == 49 && p.status == "X to move — play either side"
            })
            .await;
            let page = layout(&c).await;
            let bottom = page.cells.iter().map(|c| c[3]).fold(0.0, f64::max);
            assert!(
                bottom <= page.inner_height && page.scroll_width <= page.inner_width,
                "the analysis board runs out of the {}×{} viewport: its bottom at {bottom}, \
             scrollWidth {}",
                page.inner_width,
                page.inner_height,
                page.scroll_width
            );
            h.screenshot(&c, &format!("landscape-{pointer}-analysis"))
                .await;
        }
    });
}

/// Arrow keys move the focus between cells and Enter (or Space) plays the
/// focused one.
#[test]
fn keyboard_plays_moves() {
    run("keyboard", |h| async move {
        let c = h.session("keyboard", 1000, 1000).await;
        let id = start_game(&h, &c, "perfect", "3x3k3", "x").await;
        wait_page(&c, "my turn", |p| p.playable && p.enabled.len() == 9).await;
        // The board has one cell in the tab order (a roving tabindex), the
        // centre to begin with.
        c.execute(
            "document.querySelector('#board .cell[tabindex=\"0\"]').focus(); return true;",
            vec![],
        )
        .await
        .expect("a cell focused");
        let focused = page(&c).await;
        assert_eq!(focused.active, Some([1, 1]), "the centre is focused first");
        // Home and End go to the row's ends, with Ctrl to the corners; Page
        // Up and Page Down five rows, as far as the board goes.
        for (keys, to) in [
            (&[Key::End][..], [1, 2]),
            (&[Key::Home], [1, 0]),
            (&[Key::Control, Key::End], [2, 2]),
            (&[Key::Control, Key::Home], [0, 0]),
            (&[Key::PageDown], [2, 0]),
            (&[Key::PageUp], [0, 0]),
            (&[Key::Down], [1, 0]),
            (&[Key::Right], [1, 1]),
        ] {
            press(&c, keys).await;
            assert_eq!(page(&c).await.active, Some(to), "{keys:?}");
        }

        press(&c, &[Key::Up]).await;
        assert_eq!(page(&c).await.active, Some([0, 1]), "Up moves the focus up");
        press(&c, &[Key::Left]).await;
        assert_eq!(page(&c).await.active, Some([0, 0]), "Left moves it left");
        press(&c, &[Key::Enter]).await;
        let after = wait_page(&c, "X at (0,0) after Enter", |p| p.mark(0, 0) == 'X').await;
        assert_eq!(after.count('X'), 1, "{after:#?}");
        let game = h.api_game(&id).await;
        assert_eq!(
            game["board"].as_str().map(|b| b.starts_with('X')),
            Some(true),
            "the move reached the server: {game}"
        );

        // After the computer's reply the focus is back on a playable cell, so
        // play can go on from the keyboard.
        let replied = wait_page(&c, "the computer's reply, and my turn", |p| {
            p.count('O') == 1 && p.playable
        })
        .await;
        let from = replied.active.unwrap_or_else(|| {
            panic!("the focus is not on a cell after the computer's reply: {replied:#?}")
        });
        assert!(
            replied.enabled.contains(&from),
            "the focused cell {from:?} can be played: {replied:#?}"
        );
        // Walk, one cell per arrow, to the free cell farthest away: the
        // arrows cross taken cells too, so the whole board can be read.
        let to = *replied
            .enabled
            .iter()
            .max_by_key(|c| from[0].abs_diff(c[0]) + from[1].abs_diff(c[1]))
            .expect("a free cell");
        for (key, step) in arrow_path(from, to) {
            press(&c, &[key]).await;
            assert_eq!(page(&c).await.active, Some(step), "{key:?} towards {to:?}");
        }
        press(&c, &[Key::Space]).await;
        let [row, col] = to;
        let second = wait_page(&c, "X's second move, played with Space", |p| {
            p.mark(row, col) == 'X' && p.count('X') == 2
        })
        .await;
        let game = h.api_game(&id).await;
        let server_mark = game["board"]
            .as_str()
            .and_then(|b| b.split('/').nth(row as usize))
            .and_then(|r| r.chars().nth(col as usize));
        assert_eq!(server_mark, Some('X'), "the server has it: {game}");
        assert_eq!(second.mark(0, 0), 'X');
        h.screenshot(&c, "keyboard").await;
    });
}

#[test]
fn hints_show_every_free_cells_perfect_play_value() {
    run("hints", |h| async move {
        let c = h.session("hints", 1000, 1000).await;
        let id = start_game(&h, &c, "perfect", "3x3k3", "x").await;
        wait_page(&c, "my turn", |p| p.playable && p.enabled.len() == 9).await;
        // A position with wins, draws and losses to show: X takes an edge,
        // perfect O replies, and the hints give X's options.
        cell(&c, 0, 1).await.click().await.expect("X played");
        wait_page(&c, "the reply, and my turn", |p| {
            p.count('O') == 1 && p.playable
        })
        .await;
        find(&c, "#hints")
            .await
            .click()
            .await
            .expect("hints switched on");
        wait_script(
            &c,
            "a hint in every free cell",
            "const free = [...document.querySelectorAll('#board .cell')].filter((c) => !c.dataset.mark);
             return free.length === 7 && free.every((c) => c.querySelector('.hint'));",
        )
        .await;
        // Each label agrees with the server's hints for the same position.
        let hints = h.api(&format!("/api/games/{id}/hints")).await;
        let shown: Value = c
            .execute(
                "return [...document.querySelectorAll('#board .cell .hint')].map((s) => {
                   const b = s.closest('.cell');
                   return [+b.dataset.row, +b.dataset.col, s.textContent, b.getAttribute('aria-label')];
                 });",
                vec![],
            )
            .await
            .expect("the hint labels");
        let shown = shown.as_array().expect("a list");
        assert_eq!(shown.len(), 7);
        for item in shown {
            let (row, col) = (item[0].as_u64().unwrap(), item[1].as_u64().unwrap());
            let label = item[2].as_str().unwrap();
            let hint = hints["hints"]
                .as_array()
                .unwrap()
                .iter()
                .find(|h| h["row"] == row && h["col"] == col)
                .unwrap_or_else(|| panic!("no server hint for ({row}, {col}): {hints}"));
            let value = hint["value"].as_str().unwrap();
            let expected = match value {
                "draw" => "D".to_owned(),
                "win" => format!("W{}", hint["plies"]),
                _ => format!("L{}", hint["plies"]),
            };
            assert_eq!(label, expected, "({row}, {col}): {hint}");
            let aria = item[3].as_str().unwrap();
            assert!(aria.contains(value), "the label reads the hint: {aria}");
        }
        h.screenshot(&c, "hints").await;
        find(&c, "#hints")
            .await
            .click()
            .await
            .expect("hints switched off");
        wait_script(
            &c,
            "no hints",
            "return document.querySelectorAll('#board .cell .hint').length === 0;",
        )
        .await;
    });
}

/// The arrow keys that walk the focus from `from` to `to`, one cell each
/// (rows first), with the cell each one reaches.
fn arrow_path(from: [u32; 2], to: [u32; 2]) -> Vec<(Key, [u32; 2])> {
    let mut at = from;
    let mut path = Vec::new();
    while at != to {
        let key = if at[0] < to[0] {
            at[0] += 1;
            Key::Down
        } else if at[0] > to[0] {
            at[0] -= 1;
            Key::Up
        } else if at[1] < to[1] {
            at[1] += 1;
            Key::Right
        } else {
            at[1] -= 1;
            Key::Left
        };
        path.push((key, at));
    }
    path
}

#[test]
fn a_link_to_no_game_says_so_and_leads_home() {
    run("missing", |h| async move {
        let c = h.session("missing", 1000, 800).await;
        for path in ["/g/nosuchgame1", "/g/nosuchgame2?join"] {
            c.goto(&h.url(path)).await.expect("the page opened");
            wait_script(
                &c,
                &format!("{path}: the no-such-game page"),
                "return !document.getElementById('missing-view').hidden \
                   && document.getElementById('game-view').hidden \
                   && document.getElementById('start-view').hidden \
                   && document.title === 'oxo — no such game';",
            )
            .await;
        }
        h.screenshot(&c, "missing").await;
        // Its one way on: home, to the start page.
        find(&c, "#home-link")
            .await
            .click()
            .await
            .expect("the link clicked");
        wait_script(
            &c,
            "the start page",
            "return !document.getElementById('start-view').hidden \
               && document.getElementById('missing-view').hidden;",
        )
        .await;
    });
}

/// The move list as the page shows it: each entry's text, and which one is
/// marked as the position on the board.
async fn move_list(client: &Client) -> (Vec<String>, Option<String>) {
    let value = client
        .execute(
            "const items = [...document.querySelectorAll('#move-list button')];
             const current = items.find((b) => b.getAttribute('aria-current') === 'step');
             return [items.map((b) => b.textContent), current ? current.textContent : null];",
            vec![],
        )
        .await
        .expect("the move list");
    serde_json::from_value(value).expect("entries and the current one")
}

#[test]
fn the_move_list_steps_through_every_round() {
    run("moves", |h| async move {
        let c = h.session("moves", 1000, 1000).await;
        let id = start_game(&h, &c, "perfect", "3x3k3", "x").await;
        // X takes the centre; the computer answers.
        wait_page(&c, "X's turn", |p| p.playable).await;
        click_cell(&c, 1, 1).await;
        let answered = wait_page(&c, "the computer's answer", |p| p.version == "3").await;
        let (entries, current) = move_list(&c).await;
        assert_eq!(entries.len(), 2, "{entries:?}");
        assert_eq!(entries[0], "1. X 2,2");
        assert!(entries[1].starts_with("2. O "), "{entries:?}");
        assert_eq!(current.as_deref(), Some(entries[1].as_str()));

        // Back one move: the board shows X's move alone, and nothing is
        // playable while reviewing.
        find(&c, "#step-back").await.click().await.expect("back");
        let back = wait_page(&c, "the position after move 1", |p| {
            p.status.contains("showing round 1, move 1 of 2")
        })
        .await;
        assert_eq!(back.board, ".../.X./...");
        assert!(back.enabled.is_empty() && !back.playable, "{back:#?}");
        assert_eq!(move_list(&c).await.1.as_deref(), Some("1. X 2,2"));
        // The status is a live region: a step rewrites its move number
        // alone, so a screen reader says "move 0 of 2", not the line again.
        c.execute(
            "window.statusWrites = {}; \
             for (const span of document.querySelectorAll('#status > span')) { \
               new MutationObserver(() => { \
                 window.statusWrites[span.id] = (window.statusWrites[span.id] || 0) + 1; \
               }).observe(span, { childList: true, characterData: true, subtree: true }); \
             } return true;",
            vec![],
        )
        .await
        .expect("the status watched");
        find(&c, "#step-first").await.click().await.expect("first");
        wait_page(&c, "the empty board", |p| p.board == ".../.../...").await;
        let writes = c
            .execute(
                "return [window.statusWrites, document.getElementById('status-move').textContent];",
                vec![],
            )
            .await
            .expect("the status's writes");
        assert_eq!(
            writes,
            json!([{ "status-move": 1 }, "move 0 of 2"]),
            "a step rewrote more of the status than its move"
        );
        find(&c, "#step-last").await.click().await.expect("last");
        let live = wait_page(&c, "the game again", |p| p.playable).await;
        assert_eq!(live.board, answered.board);

        // Play the round out (first free cell each turn), then a rematch.
        play_round_out(&c, "X's turn or the end").await;
        let round_one = h.api_game(&id).await;
        let moves = round_one["moves"].as_array().unwrap().len();
        // A finished round can go to the analysis board, its moves with it.
        let analyse = find(&c, "#analyse-link")
            .await
            .attr("href")
            .await
            .expect("the analysis link")
            .expect("an href");
        assert_eq!(
            analyse,
            format!(
                "/analysis?size=3x3&k=3&first=x&moves={}&review=1",
                link_moves(&round_one)
            )
        );
        find(&c, "#rematch").await.click().await.expect("rematch");
        wait_page(&c, "round 2", |p| {
            p.status.contains("Your turn") || p.playable
        })
        .await;

        // Round 1 is still there, from the round picker.
        find(&c, "#round-pick")
            .await
            .select_by_value("1")
            .await
            .expect("round 1 picked");
        let end = wait_page(&c, "round 1's last position", |p| {
            p.status
                .contains(&format!("showing round 1, move {moves} of {moves}"))
        })
        .await;
        assert_eq!(end.board, round_one["board"].as_str().unwrap());
        assert_eq!(move_list(&c).await.0.len(), moves);
        let text = find(&c, "#record-text")
            .await
            .prop("value")
            .await
            .expect("the export")
            .expect("a value");
        assert!(
            text.starts_with("oxo 3x3 k=3, round 1, X first: "),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "position: {}",
                round_one["board"].as_str().unwrap()
            )),
            "{text}"
        );
        assert!(text.contains("1. X 2,2"), "{text}");
        h.screenshot(&c, "move-list").await;
        // Round 1 is over, so it can be analysed while round 2 is played:
        // the link is round 1's, from the round picked.
        assert_eq!(analyse_link(&c).await.as_deref(), Some(analyse.as_str()));

        // Back to round 2 (the computer starts it) and play it out too.
        find(&c, "#step-last").await.click().await.expect("last");
        play_round_out(&c, "X's turn or the end of round 2").await;
        let round_two = h.api_game(&id).await;
        assert_eq!(
            analyse_link(&c).await,
            Some(format!(
                "/analysis?size=3x3&k=3&first=o&moves={}&review=1",
                link_moves(&round_two)
            )),
            "round 2, just over, is the one analysed"
        );
        // Round 1 picked again: its link, not the last round's.
        find(&c, "#round-pick")
            .await
            .select_by_value("1")
            .await
            .expect("round 1 picked");
        wait_page(&c, "round 1 shown after round 2", |p| {
            p.status
                .contains(&format!("showing round 1, move {moves} of {moves}"))
        })
        .await;
        assert_eq!(analyse_link(&c).await.as_deref(), Some(analyse.as_str()));
    });
}

#[test]
fn the_board_has_coordinates_and_a_big_board_uses_a_wide_screen() {
    run("coordinates", |h| async move {
        let c = h.session("wide", 1400, 1000).await;
        start_game(&h, &c, "human", "15x15k5", "x").await;
        let labels: (Vec<String>, Vec<String>) = serde_json::from_value(
            c.execute(
                "const text = (sel) => [...document.querySelectorAll(sel)].map((e) => e.textContent);
                 return [text('#board .coord.col'), text('#board .coord.row')];",
                vec![],
            )
            .await
            .expect("the coordinates"),
        )
        .expect("two lists");
        let numbers: Vec<String> = (1..=15).map(|n| n.to_string()).collect();
        assert_eq!(labels.0, numbers, "columns along the top");
        assert_eq!(labels.1, numbers, "rows down the left");
        let layout = layout(&c).await;
        assert_fits("15x15 on a 1400x1000 screen", &layout, 225);
        let [left, top, right, bottom] = layout.cells[0];
        // 34rem (the width every board had) gives 15×15 cells of at most 36
        // pixels; the screen has room for more, as high as the page allows.
        assert!(
            right - left >= 40.0 && bottom - top >= 40.0,
            "a 15x15 cell is only {:.1}x{:.1} px on a {}x{} screen",
            right - left,
            bottom - top,
            layout.inner_width,
            layout.inner_height
        );
        h.screenshot(&c, "wide-15x15").await;

        // The desktop sizes people have: the board fits without scrolling
        // and takes most of the room it can (the shorter side of the window,
        // less the page around it).
        for (width, height) in [(1280, 800), (1920, 1080)] {
            c.set_window_size(width, height)
                .await
                .expect("the window sized");
            start_game(&h, &c, "rules", "15x15k5", "x").await;
            let measured = self::layout(&c).await;
            assert_fits(&format!("15x15 at {width}x{height}"), &measured, 225);
            // In view as the page opens, with no scrolling.
            let bottom = measured.cells[224][3];
            assert!(
                bottom <= measured.inner_height,
                "at {width}x{height} the board ends at {bottom:.0} px, below the {:.0} px window",
                measured.inner_height
            );
            let board = measured.cells[224][3] - measured.cells[0][1];
            let room = measured.inner_width.min(measured.inner_height);
            eprintln!("15x15 at {width}x{height}: the board is {board:.0} px of {room:.0}");
            assert!(
                board >= 0.6 * room,
                "at {width}x{height} the board takes {board:.0} px of {room:.0}"
            );
            h.screenshot(&c, &format!("wide-15x15-{width}x{height}"))
                .await;
        }
    });
}

/// Each cell's value class on the analysis board, row by row: `W`, `D`,
/// `L`, or `.` for a cell without one.
async fn value_classes(client: &Client) -> String {
    let value = client
        .execute(
            "const rows = [];
             for (const c of document.querySelectorAll('#board .cell')) {
               const r = +c.dataset.row;
               rows[r] = (rows[r] || '') + (c.classList.contains('value-win') ? 'W'
                 : c.classList.contains('value-draw') ? 'D'
                 : c.classList.contains('value-loss') ? 'L' : '.');
             }
             return rows.join('/');",
            vec![],
        )
        .await
        .expect("the value classes");
    value.as_str().unwrap_or_default().to_owned()
}

/// The "Analyse this round" link's address, if it shows.
async fn analyse_link(client: &Client) -> Option<String> {
    let value = client
        .execute(
            "const a = document.getElementById('analyse-link'); \
             return a.hidden ? null : a.getAttribute('href');",
            vec![],
        )
        .await
        .expect("the analysis link read");
    value.as_str().map(str::to_owned)
}

#[test]
fn the_analysis_board_colours_every_cell_by_its_value() {
    run("analysis", |h| async move {
        let c = h.session("analysis", 1000, 1000).await;
        open_analysis(&h, &c, "size=3x3&k=3").await;
        wait_page(&c, "the empty board, X to move", |p| {
            p.status == "X to move — play either side" && p.playable
        })
        .await;
        let mut values = String::new();
        for _ in 0..100 {
            values = value_classes(&c).await;
            if values == "DDD/DDD/DDD" {
                break;
            }
            tokio::time::sleep(POLL).await;
        }
        assert_eq!(values, "DDD/DDD/DDD", "every first move draws");
        wait_script(
            &c,
            "the legend",
            "return !document.getElementById('legend').hidden;",
        )
        .await;

        // X in a corner, O next to it on the edge (a mistake): now X wins.
        for (row, col, version) in [(0, 0, "1"), (0, 1, "2")] {
            click_cell(&c, row, col).await;
            wait_page(&c, "the move made", |p| p.version == version).await;
        }
        let mut after = String::new();
        for _ in 0..100 {
            after = value_classes(&c).await;
            if after.contains('W') {
                break;
            }
            tokio::time::sleep(POLL).await;
        }
        assert!(after.contains('W'), "X has a winning move: {after}");
        let url = c.current_url().await.expect("the url");
        assert!(url.as_str().ends_with("moves=0%2C0%3B0%2C1"), "{url}");
        // The move list shows O's move as a loss for O.
        wait_script(
            &c,
            "O's move marked as a loss",
            "const b = document.querySelector('#move-list button[data-ply=\"2\"]'); \
             return !!b && b.classList.contains('v-loss') && b.textContent === '2. O 1,2';",
        )
        .await;
        // Back one move: O to move, and the values are O's.
        find(&c, "#step-back").await.click().await.expect("back");
        wait_page(&c, "the position after X's move", |p| {
            p.board == "X../.../..." && p.status == "O to move — play either side"
        })
        .await;
        let mut o_values = String::new();
        for _ in 0..100 {
            o_values = value_classes(&c).await;
            if o_values.starts_with('.') && o_values.contains('D') {
                break;
            }
            tokio::time::sleep(POLL).await;
        }
        assert_eq!(
            o_values, ".LL/LDL/LLL",
            "only the centre holds the draw for O"
        );
        h.screenshot(&c, "analysis").await;
    });
}

#[test]
fn one_click_starts_a_game_and_the_start_page_lists_recent_ones() {
    run("quick", |h| async move {
        let c = h.session("quick", 1000, 1000).await;
        open_start_page(&h, &c).await;
        // The computer's games: four boards down, three strengths across,
        // each one a game the server starts (no refusal after a click).
        let grid: Vec<Vec<Value>> = serde_json::from_value(
            c.execute(
                "return [...document.querySelectorAll('.quick-computer tbody tr')].map((tr) =>
                   [...tr.querySelectorAll('button')].filter((b) => !b.hidden).map((b) =>
                     ({ size: b.dataset.size, k: +b.dataset.k, opponent: b.dataset.opponent })));",
                vec![],
            )
            .await
            .expect("the grid"),
        )
        .expect("rows of buttons");
        assert_eq!(grid.len(), 4, "{grid:?}");
        for row in &grid {
            assert_eq!(row.len(), 3, "three strengths for each board: {row:?}");
            for settings in row {
                let created = h
                    .api
                    .send("POST", "/api/games", None, &settings.to_string())
                    .await
                    .expect("an answer");
                assert_eq!(created.status, 201, "{settings}: {}", created.body);
            }
        }
        find(
            &c,
            "#quick button[data-opponent=\"perfect\"][data-size=\"3x3\"]",
        )
        .await
        .click()
        .await
        .expect("the quick button");
        let game = wait_page(&c, "a 3x3 game against perfect, X to move", |p| {
            p.game_view && p.playable && p.cells == 9
        })
        .await;
        let id = game.path.trim_start_matches("/g/").to_owned();
        let stored = h.api_game(&id).await;
        assert_eq!(stored["opponent"], "perfect");
        // Home again: the game is among the recent ones, and one click
        // goes back to it.
        find(&c, "#new-game-link")
            .await
            .click()
            .await
            .expect("home");
        wait_script(
            &c,
            "the recent games",
            &format!(
                "const a = document.querySelector('#recent-list a[data-game=\"{id}\"]'); \
                 return !document.getElementById('recent').hidden && !!a \
                   && a.textContent.includes('3×3 vs Computer (strong)') && a.textContent.includes('your turn');"
            ),
        )
        .await;
        h.screenshot(&c, "start-page").await;
        // On a phone the start page fits its width.
        c.set_window_size(360, 640).await.expect("the window sized");
        wait_script(
            &c,
            "the start page within a phone's width",
            "return document.documentElement.scrollWidth <= window.innerWidth;",
        )
        .await;
        h.screenshot(&c, "start-page-phone").await;
        c.set_window_size(1000, 1000)
            .await
            .expect("the window sized");
        find(&c, &format!("#recent-list a[data-game=\"{id}\"]"))
            .await
            .click()
            .await
            .expect("the recent game");
        let back = wait_page(&c, "the game again", |p| p.playable).await;
        assert_eq!(back.path, format!("/g/{id}"));
    });
}

/// The text of the element `id`, or `""` when it is hidden.
async fn shown_text(client: &Client, id: &str) -> String {
    let value = client
        .execute(
            "const e = document.getElementById(arguments[0]); \
             return e && !e.hidden ? e.textContent : '';",
            vec![json!(id)],
        )
        .await
        .expect("the element read");
    value.as_str().unwrap_or_default().to_owned()
}

/// The invite link the page shows.
async fn invite_link(c: &Client) -> String {
    find(c, "#invite-link")
        .await
        .prop("value")
        .await
        .expect("the invite link")
        .expect("a value")
}

/// `client` opens a game for anyone from the start page, with one click:
/// its id, and its page once live.
async fn open_listed_game(h: &Harness, client: &Client) -> (String, Page) {
    open_start_page(h, client).await;
    find(client, "#quick button[data-listed=\"true\"]")
        .await
        .click()
        .await
        .expect("Open game clicked");
    let waiting = wait_page(client, "the open game, live", |p| {
        p.path.starts_with("/g/") && p.connection == "live"
    })
    .await;
    (waiting.path.trim_start_matches("/g/").to_owned(), waiting)
}

/// Wait until the page's last message (a toast, which hides itself after
/// a few seconds: the page keeps its text in `data-said`) is `text`.
async fn wait_said(client: &Client, what: &str, text: &str) {
    let deadline = Instant::now() + WAIT;
    loop {
        let said = client
            .execute(
                "return document.getElementById('message').dataset.said || '';",
                vec![],
            )
            .await
            .expect("the message read");
        let said = said.as_str().unwrap_or_default();
        if said == text {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: the page said {said:?}, not {text:?} within {WAIT:?}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// Poll until the element `id` shows `text`.
async fn wait_text(client: &Client, what: &str, id: &str, text: &str) {
    let deadline = Instant::now() + WAIT;
    loop {
        let seen = shown_text(client, id).await;
        if seen == text {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: #{id} shows {seen:?}, not {text:?} within {WAIT:?}"
        );
        tokio::time::sleep(POLL).await;
    }
}

#[test]
fn the_lobby_joins_in_one_click_and_a_rematch_is_an_offer() {
    run("lobby", |h| async move {
        let a = h.session("a", 1000, 1000).await;
        let b = h.session("b", 1000, 1000).await;
        let c = h.session("c", 1000, 1000).await;

        // A opens a game for anyone, with one click.
        let (id, waiting) = open_listed_game(&h, &a).await;
        assert!(
            waiting
                .status
                .starts_with("Waiting for an opponent from the lobby"),
            "{waiting:#?}"
        );

        // B sees it in the lobby and joins it with one click.
        open_start_page(&h, &b).await;
        wait_script(
            &b,
            "the open game in B's lobby",
            "return document.querySelectorAll('#open-list a[data-entry]').length === 1;",
        )
        .await;
        h.screenshot(&b, "lobby-open").await;
        let link = find(&b, "#open-list a[data-entry]").await;
        let href = link.attr("href").await.expect("href").unwrap_or_default();
        assert!(
            !href.contains(&id),
            "the lobby gives the room id away: {href}"
        );
        link.click().await.expect("the open game clicked");
        let joined = wait_page(&b, "B seated as O", |p| {
            p.role == "You are O" && p.connection == "live"
        })
        .await;
        assert_eq!(joined.path, format!("/g/{id}"));
        // Each sees the other here.
        wait_text(&a, "A sees B", "presence", "Opponent connected").await;
        wait_text(&b, "B sees A", "presence", "Opponent connected").await;

        // C finds the game among those being played, and watches.
        open_start_page(&h, &c).await;
        wait_script(
            &c,
            "the live game in C's lobby",
            "return document.querySelectorAll('#live-list a[data-game]').length === 1;",
        )
        .await;
        find(&c, "#live-list a[data-game]")
            .await
            .click()
            .await
            .expect("the live game clicked");
        let watching = wait_page(&c, "C watching", |p| {
            p.role == "Watching" && p.connection == "live"
        })
        .await;
        assert_ne!(watching.path, format!("/g/{id}"), "watched by its watch id");
        wait_text(&c, "C sees both players", "presence", "X here · O here").await;

        // X wins; X offers a rematch, O accepts it.
        for (client, row, col) in [(&a, 0, 0), (&b, 1, 0), (&a, 0, 1), (&b, 1, 1), (&a, 0, 2)] {
            wait_page(client, "a turn", |p| {
                p.playable && p.enabled.contains(&[row, col])
            })
            .await;
            click_cell(client, row, col).await;
            wait_page(client, "the move taken", |p| {
                !p.enabled.contains(&[row, col])
            })
            .await;
        }
        wait_page(&b, "B sees the end", |p| {
            p.rematch && p.status.starts_with("X wins")
        })
        .await;
        find(&a, "#rematch")
            .await
            .click()
            .await
            .expect("rematch offered");
        wait_text(&a, "A's offer made", "rematch", "Cancel rematch offer").await;
        wait_page(&b, "B told of the offer", |p| {
            p.status == "X wins — you lose · X offers a rematch"
        })
        .await;
        wait_text(&b, "B may accept", "rematch", "Accept rematch").await;
        // B declines it: no offer on either page; then A withdraws one.
        find(&b, "#rematch-decline")
            .await
            .click()
            .await
            .expect("rematch declined");
        wait_text(&a, "A's offer declined", "rematch", "Rematch").await;
        wait_text(&b, "B's decline made", "rematch", "Rematch").await;
        assert_eq!(h.api_game(&id).await["rematch"], Value::Null);
        find(&a, "#rematch").await.click().await.expect("offered");
        wait_text(&a, "A's offer made", "rematch", "Cancel rematch offer").await;
        find(&a, "#rematch").await.click().await.expect("withdrawn");
        wait_text(&b, "A's offer withdrawn", "rematch", "Rematch").await;
        find(&a, "#rematch").await.click().await.expect("offered");
        wait_text(&b, "B may accept", "rematch", "Accept rematch").await;
        let still = page(&a).await;
        assert!(
            still.status.ends_with("rematch offered, waiting for O"),
            "{still:#?}"
        );
        h.screenshot(&b, "rematch-offer").await;
        find(&b, "#rematch")
            .await
            .click()
            .await
            .expect("rematch accepted");
        for (name, client) in [("a", &a), ("b", &b), ("c", &c)] {
            wait_script(
                client,
                &format!("{name} in round 2"),
                "return document.getElementById('round').textContent === '2';",
            )
            .await;
        }
        wait_page(&b, "O starts round 2", |p| p.status == "Your turn (O)").await;

        // B leaves: A and C are told.
        b.goto(&h.url("/")).await.expect("B back to the start page");
        wait_text(&a, "A sees B leave", "presence", "Opponent left").await;
        wait_text(&c, "C sees O leave", "presence", "X here · O away").await;
        h.screenshot(&a, "opponent-left").await;
    });
}

/// The answer to a lobby join is lost on the way back (the join itself
/// is made): the page asks again with the seat token it chose and gets
/// the seat it took, instead of finding it taken by nobody it knows.
#[test]
fn a_join_whose_answer_is_lost_is_asked_again() {
    run("join-retry", |h| async move {
        let a = h.session("a", 1000, 1000).await;
        let b = h.session("b", 1000, 1000).await;
        let (id, _) = open_listed_game(&h, &a).await;
        open_start_page(&h, &b).await;
        wait_script(
            &b,
            "the open game in B's lobby",
            "return document.querySelectorAll('#open-list a[data-entry]').length === 1;",
        )
        .await;
        // The first join reaches the server; its answer never reaches the page.
        b.execute(
            "const real = window.fetch; window.joins = []; \
             window.fetch = async (path, init) => { \
               if (String(path).endsWith('/join')) { \
                 window.joins.push(init.headers.Authorization); \
                 if (window.joins.length === 1) { \
                   await real(path, init); \
                   throw new TypeError('the answer was lost'); \
                 } \
               } \
               return real(path, init); \
             }; return true;",
            vec![],
        )
        .await
        .expect("fetch wrapped");
        find(&b, "#open-list a[data-entry]")
            .await
            .click()
            .await
            .expect("the open game clicked");
        let joined = wait_page(&b, "B seated as O after the retry", |p| {
            p.role == "You are O" && p.connection == "live"
        })
        .await;
        assert_eq!(joined.path, format!("/g/{id}"), "{joined:#?}");
        let keys = b
            .execute("return window.joins;", vec![])
            .await
            .expect("the keys read");
        let keys = keys.as_array().expect("a list");
        assert_eq!(keys.len(), 2, "one join and one retry: {keys:?}");
        assert_eq!(keys[0], keys[1], "with the same token");
        wait_text(&a, "A sees B", "presence", "Opponent connected").await;
        // The token the retry gave is the seat's: B plays with it.
        wait_page(&a, "A's turn", |p| {
            p.playable && p.enabled.contains(&[1, 1])
        })
        .await;
        click_cell(&a, 1, 1).await;
        wait_page(&b, "B's turn", |p| {
            p.playable && p.enabled.contains(&[0, 0])
        })
        .await;
        click_cell(&b, 0, 0).await;
        wait_page(&a, "A sees O's move", |p| p.mark(0, 0) == 'O').await;
        assert_eq!(
            h.api_game(&id).await["moves"].as_array().map(Vec::len),
            Some(2)
        );
    });
}

/// A join made but never answered, even after the page's retries: the
/// tab keeps the token it chose, so reopening the invite link (a reload)
/// gets the seat the join took, not "seat taken".
#[test]
fn reopening_the_invite_after_a_lost_join_gets_the_seat_it_took() {
    run("join-reload", |h| async move {
        let a = h.session("a", 1000, 1000).await;
        let b = h.session("b", 1000, 1000).await;
        let id = start_game(&h, &a, "human", "3x3k3", "x").await;
        wait_page(&a, "the invite box", |p| p.invite).await;
        let invite = invite_link(&a).await;
        let secret = invite
            .split_once("#join=")
            .map(|(_, secret)| secret.to_owned())
            .expect("an invite in the link");
        // B's tab chose a token and sent the join, which the server made;
        // the answer never came back.
        let token = "b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0";
        b.goto(&h.url("/")).await.expect("B's tab");
        b.execute(
            "sessionStorage.setItem('oxo.joining./api/games/' + arguments[0] + '/seats/o', arguments[1]); \
             return true;",
            vec![json!(id), json!(token)],
        )
        .await
        .expect("the tab's pending join");
        let made = h
            .api
            .call(
                "POST",
                &format!("/api/games/{id}/seats/o"),
                Some(token),
                &json!({ "invite": secret }),
            )
            .await;
        assert_eq!(made.0, 200, "{}", made.1);
        // The link again: B is O, with that token.
        b.goto(&invite).await.expect("the invite link again");
        let joined = wait_page(&b, "B seated as O", |p| {
            p.role == "You are O" && p.connection == "live"
        })
        .await;
        assert_eq!(joined.message, "", "no 'seat taken': {joined:#?}");
        let left = b
            .execute(
                "return sessionStorage.getItem('oxo.joining./api/games/' + arguments[0] + '/seats/o');",
                vec![json!(id)],
            )
            .await
            .expect("the pending join read");
        assert_eq!(left, Value::Null, "settled, so forgotten");
        wait_text(&a, "A sees B", "presence", "Opponent connected").await;
    });
}

/// A server restart mid-game: both players' pages say "reconnecting…" and
/// stop saying who is here (they cannot know), then reconnect by
/// themselves, see each other again and play on from the moves the server
/// acknowledged.
#[test]
fn the_pages_ride_out_a_server_restart() {
    run("restart", |h| async move {
        let a = h.session("a", 1000, 1000).await;
        let b = h.session("b", 1000, 1000).await;
        let id = start_game(&h, &a, "human", "3x3k3", "x").await;
        wait_page(&a, "the invite box", |p| p.invite).await;
        let invite = invite_link(&a).await;
        b.goto(&invite).await.expect("the invite link opened");
        wait_page(&b, "seat O taken", |p| {
            p.role == "You are O" && p.connection == "live"
        })
        .await;
        wait_text(&a, "A sees B", "presence", "Opponent connected").await;
        wait_text(&b, "B sees A", "presence", "Opponent connected").await;
        wait_page(&a, "A's turn", |p| {
            p.playable && p.enabled.contains(&[1, 1])
        })
        .await;
        click_cell(&a, 1, 1).await;
        wait_page(&b, "B sees X's move", |p| p.mark(1, 1) == 'X').await;

        let server = h
            .servers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(0);
        server.stop().await.expect("the server stopped");
        for (name, client) in [("a", &a), ("b", &b)] {
            let seen = wait_page(client, &format!("{name} reconnecting"), |p| {
                p.connection == "reconnecting…"
            })
            .await;
            assert_eq!(
                shown_text(client, "presence").await,
                "",
                "{name} still says who is here: {seen:#?}"
            );
            assert_eq!(
                shown_text(client, "left-note").await,
                "",
                "{name}: {seen:#?}"
            );
        }
        h.screenshot(&a, "restart-reconnecting").await;

        let store = SqliteStore::open(h.dir.path().join("oxo.db")).expect("the database again");
        let server = oxo_test_support::InProcess::start_at(
            h.addr,
            Arc::new(store),
            &oxo_server::HubConfig::default(),
        )
        .await;
        h.servers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(server);
        for (name, client) in [("a", &a), ("b", &b)] {
            wait_page(client, &format!("{name} live again"), |p| {
                p.connection == "live"
            })
            .await;
        }
        wait_text(&a, "A sees B again", "presence", "Opponent connected").await;
        wait_text(&b, "B sees A again", "presence", "Opponent connected").await;
        wait_page(&b, "B's turn", |p| {
            p.playable && p.enabled.contains(&[0, 0])
        })
        .await;
        click_cell(&b, 0, 0).await;
        wait_page(&a, "A sees O's move", |p| {
            p.mark(0, 0) == 'O' && p.mark(1, 1) == 'X' && p.status.ends_with("Your turn (X)")
        })
        .await;
        let game = h.api_game(&id).await;
        assert_eq!(game["moves"].as_array().map(Vec::len), Some(2), "{game}");
    });
}

#[test]
fn page_weight_and_time_to_first_move() {
    run("first-move", |h| async move {
        let c = h.session("player", 1000, 1000).await;
        start_game(&h, &c, "perfect", "3x3k3", "x").await;
        // Figures for docs/manual/serve.md (printed, not asserted: timings vary with
        // the machine): the page's weight and how soon a move shows.
        let weight = c
            .execute(
                "const nav = performance.getEntriesByType('navigation')[0]; \
                 const res = performance.getEntriesByType('resource'); \
                 const bytes = [nav, ...res].reduce((n, e) => n + (e.encodedBodySize || 0), 0); \
                 return [res.length + 1, bytes, Math.round(nav.domContentLoadedEventEnd), \
                         Math.round(nav.loadEventEnd)];",
                vec![],
            )
            .await
            .expect("the page's timings");
        let shown = c
            .execute_async(
                "const done = arguments[arguments.length - 1]; \
                 const cell = () => document.querySelector('#board .cell[data-row=\"1\"][data-col=\"1\"]'); \
                 const t0 = performance.now(); \
                 cell().click(); \
                 const check = () => cell().dataset.mark ? done(performance.now() - t0) \
                                                         : requestAnimationFrame(check); \
                 check();",
                vec![],
            )
            .await
            .expect("the first move shown");
        eprintln!(
            "page weight and first move: {} requests, {} bytes; DOM ready at {} ms, loaded at {} ms; \
             a move shown {:.1} ms after the click",
            weight[0],
            weight[1],
            weight[2],
            weight[3],
            shown.as_f64().unwrap_or(f64::NAN)
        );
        let after = page(&c).await;
        assert_eq!(after.mark(1, 1), 'X', "{after:#?}");

        // Coming back: the files are revalidated by their tags (304s,
        // headers only), not sent again. (The page itself comes whole: the
        // browser first fetched it as `/` and only then went to the
        // game's address.)
        const TRANSFERRED: &str = "const nav = performance.getEntriesByType('navigation')[0]; \
             const res = performance.getEntriesByType('resource') \
               .filter((e) => !e.name.includes('/api/')); \
             return [nav, ...res].reduce((n, e) => n + (e.transferSize || 0), 0);";
        let first: f64 = c
            .execute(TRANSFERRED, vec![])
            .await
            .expect("the first visit's bytes")
            .as_f64()
            .unwrap_or(f64::NAN);
        c.refresh().await.expect("the page again");
        wait_page(&c, "the game, again", |p| p.connection == "live").await;
        let again: f64 = c
            .execute(TRANSFERRED, vec![])
            .await
            .expect("the second visit's bytes")
            .as_f64()
            .unwrap_or(f64::NAN);
        eprintln!(
            "the page and its files: {first:.0} bytes on the first visit, {again:.0} on coming back"
        );
        assert!(
            again < first / 4.0,
            "coming back transferred {again} bytes, the first visit {first}"
        );
    });
}
