//! Drawing the terminal game: a title line, the board with its coordinates
//! (rows and columns from 1, as in the web game), a side panel with the
//! score, whose turn it is and the moves, a notice line and the keys.
//!
//! A board that fits is drawn with grid lines; a larger one in compact
//! cells, and one larger than the screen scrolls to keep the cursor in
//! view. Where each cell landed is kept in [`ViewState`] so a mouse click
//! can be turned back into a cell.

use oxo_ai::Value;
use oxo_ai::exact::Valued;
use oxo_core::{Cell, Player};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::app::{App, Direction, Notice, Seat, cell_name};

/// Colours, or none (`NO_COLOR`): marks, hints and lines always differ by
/// more than colour as well (letters, brackets, underline, reverse video).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Palette {
    colour: bool,
}

impl Palette {
    /// Colours from the Okabe–Ito set, told apart with any colour vision.
    pub const COLOUR: Palette = Palette { colour: true };
    /// No colours at all.
    pub const PLAIN: Palette = Palette { colour: false };

    /// No colours when `NO_COLOR` holds anything (<https://no-color.org>).
    #[must_use]
    pub fn from_no_color(no_color: Option<&std::ffi::OsStr>) -> Palette {
        match no_color {
            Some(value) if !value.is_empty() => Palette::PLAIN,
            _ => Palette::COLOUR,
        }
    }

    fn fg(self, colour: u8) -> Style {
        if self.colour {
            Style::new().fg(Color::Indexed(colour))
        } else {
            Style::new()
        }
    }

    fn mark(self, player: Player) -> Style {
        // Sky blue and orange.
        let colour = match player {
            Player::X => 74,
            Player::O => 214,
        };
        self.fg(colour).add_modifier(Modifier::BOLD)
    }

    fn value(self, value: Value) -> Style {
        // Bluish green, a dark yellow that reads on light backgrounds as
        // well as dark ones, vermillion.
        self.fg(match value {
            Value::Win => 36,
            Value::Draw => 136,
            Value::Loss => 166,
        })
    }

    fn winning(self) -> Style {
        if self.colour {
            Style::new()
                .bg(Color::Indexed(36))
                .fg(Color::Black)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
        }
    }

    fn faint(self) -> Style {
        self.fg(244)
    }

    fn refused(self) -> Style {
        self.fg(166).add_modifier(Modifier::BOLD)
    }
}

/// Where the board was last drawn: which cells are in view and where on
/// the screen, kept between frames so scrolling is steady and clicks can
/// be mapped back to cells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ViewState {
    /// First row and column in view.
    top: u32,
    left: u32,
    /// The board as last drawn, if it was.
    board: Option<Placement>,
}

/// Where the cells in view were drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Placement {
    /// Screen position of the first cell in view.
    x: u16,
    y: u16,
    /// How cells are drawn.
    shape: Shape,
    /// Cells in view.
    rows: u32,
    cols: u32,
}

impl ViewState {
    /// The cell drawn at screen position (`x`, `y`), if any.
    #[must_use]
    pub fn cell_at(&self, x: u16, y: u16) -> Option<Cell> {
        let p = self.board?;
        let (dx, dy) = (x.checked_sub(p.x)?, y.checked_sub(p.y)?);
        let (step_x, step_y) = p.shape.step();
        // Only the cell itself, not the grid lines around it.
        if dx % step_x >= p.shape.width || dy % step_y >= p.shape.height {
            return None;
        }
        let (row, col) = (u32::from(dy / step_y), u32::from(dx / step_x));
        (row < p.rows && col < p.cols).then(|| Cell::new(self.top + row, self.left + col))
    }

    /// Move the view `cells` rows or columns that way, as the cursor moves
    /// a page: the next drawing keeps it on the board and the cursor in it.
    pub fn page(&mut self, direction: Direction, cells: u32) {
        match direction {
            Direction::Up => self.top = self.top.saturating_sub(cells),
            Direction::Down => self.top = self.top.saturating_add(cells),
            Direction::Left => self.left = self.left.saturating_sub(cells),
            Direction::Right => self.left = self.left.saturating_add(cells),
        }
    }

    /// How many rows and columns of cells were in view when the board was
    /// last drawn ((1, 1) before it was).
    #[must_use]
    pub fn cells_in_view(&self) -> (u32, u32) {
        self.board.map_or((1, 1), |p| (p.rows, p.cols))
    }

    /// Whether `cell` was in view when the board was last drawn.
    #[must_use]
    pub fn shows(&self, cell: Cell) -> bool {
        self.board.is_some_and(|p| {
            (self.top..self.top + p.rows).contains(&cell.row)
                && (self.left..self.left + p.cols).contains(&cell.col)
        })
    }
}

/// How cells are drawn: their size in screen columns and lines, and
/// whether grid lines run between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shape {
    width: u16,
    height: u16,
    grid: bool,
}

impl Shape {
    /// The shapes tried, largest first; the last one scrolls if it must.
    /// Cells are widened where they must be so that every column number
    /// and every hint's value (`hint`: the widest, in columns) stands
    /// apart from its neighbours, a grid line or a space between them
    /// (the cursor's `[X]` stands apart by its brackets). The largest
    /// draws marks three lines tall ([`BIG_X`], [`BIG_O`]), for a small
    /// board on a large window: a projector, a class.
    fn all(rules: oxo_core::Rules, hint: u16) -> [Shape; 4] {
        let text = hint.max(digits(rules.cols()));
        [
            Shape {
                width: text.max(9),
                height: 5,
                grid: true,
            },
            Shape {
                width: text.max(5),
                height: 3,
                grid: true,
            },
            Shape {
                width: text.max(3),
                height: 1,
                grid: true,
            },
            Shape {
                width: (text + 1).max(3),
                height: 1,
                grid: false,
            },
        ]
    }

    /// Whether marks are drawn three lines tall.
    const fn big(self) -> bool {
        self.height >= 5
    }

    /// Screen columns and lines from one cell to the next.
    const fn step(self) -> (u16, u16) {
        let line = self.grid as u16;
        (self.width + line, self.height + line)
    }

    /// Columns and lines before the first cell: the row labels, the
    /// column numbers and the border.
    const fn offset(self, label: u16) -> (u16, u16) {
        let line = self.grid as u16;
        (label + 1 + line, 1 + line)
    }

    /// The screen columns and lines a whole board takes.
    fn extent(self, rules: oxo_core::Rules) -> (u32, u32) {
        let (x, y) = self.offset(digits(rules.rows()));
        let (step_x, step_y) = self.step();
        (
            u32::from(x) + rules.cols() * u32::from(step_x),
            u32::from(y) + rules.rows() * u32::from(step_y),
        )
    }

    /// The largest shape whose whole board fits `area`, or the smallest;
    /// `hint` as for [`Shape::all`].
    fn for_board(rules: oxo_core::Rules, hint: u16, area: Rect) -> Shape {
        let all = Shape::all(rules, hint);
        all.into_iter()
            .find(|shape| {
                let (w, h) = shape.extent(rules);
                w <= u32::from(area.width) && h <= u32::from(area.height)
            })
            .unwrap_or(all[3])
    }
}

/// The side panel's width.
const PANEL_WIDTH: u16 = 30;

/// Draw the whole screen.
pub fn draw(frame: &mut Frame<'_>, app: &App, state: &mut ViewState, palette: Palette) {
    // A notice wider than the screen takes as many lines as it wraps to
    // (the board keeps at least three), not one cut short.
    let notice_text = notice_line(app, palette);
    // Without the side panel, whose turn it is (and the value under the
    // cursor) goes where a notice would: room is kept for either.
    let turn_line = {
        // The value under the cursor in words, or short (`L6`) where the
        // words would wrap, or not at all: one line, whatever the cursor.
        let turn = turn_text(app);
        let fits = |text: &String| text.chars().count() <= usize::from(frame.area().width);
        let text = cursor_hint(app)
            .into_iter()
            .flat_map(|valued| [value_words(valued), short_value(valued)])
            .map(|here| format!("{turn} · here: {here}"))
            .find(fits)
            .unwrap_or(turn);
        Line::from(text).style(Style::new().add_modifier(Modifier::BOLD))
    };
    let room = frame.area().height.saturating_sub(5).max(1);
    let shown = if notice_text.width() == 0 {
        &turn_line
    } else {
        &notice_text
    };
    let notice_rows = wrapped_rows(shown, frame.area().width).clamp(1, room);
    let [title, main, notice, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(notice_rows),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    frame.render_widget(Paragraph::new(title_line(app, title.width)), title);
    // The board and the panel side by side, centred, when both fit; the
    // board alone (scrolling if need be) when they do not.
    let wanted = board_width(app.rules(), hint_width(app), main);
    let (board_area, panel) = if main.width >= wanted + 2 + PANEL_WIDTH {
        let [_, board, _, panel, _] = Layout::horizontal([
            Constraint::Fill(1),
            Constraint::Length(wanted),
            Constraint::Length(2),
            Constraint::Length(PANEL_WIDTH),
            Constraint::Fill(1),
        ])
        .areas(main);
        (board, Some(panel))
    } else if main.width >= 20 + PANEL_WIDTH {
        let [board, panel] =
            Layout::horizontal([Constraint::Min(10), Constraint::Length(PANEL_WIDTH)]).areas(main);
        (board, Some(panel))
    } else {
        (main, None)
    };
    draw_board(frame, app, state, palette, board_area);
    if let Some(panel) = panel {
        frame.render_widget(
            Paragraph::new(panel_lines(app, state, palette, panel.height)),
            panel,
        );
    }
    let notice_text = if panel.is_none() && notice_text.width() == 0 {
        turn_line
    } else {
        notice_text
    };
    frame.render_widget(
        Paragraph::new(notice_text).wrap(Wrap { trim: true }),
        notice,
    );
    // The longest that fits; the last always says how to get help and quit.
    let keys_text = [KEYS, SHORT_KEYS]
        .into_iter()
        .find(|k| k.chars().count() <= usize::from(keys.width))
        .unwrap_or(TINY_KEYS);
    frame.render_widget(
        Paragraph::new(Line::from(keys_text).style(palette.faint())),
        keys,
    );
    if app.help_shown() {
        draw_help(frame, main, frame.area());
    }
}

/// The lines `line` takes wrapped at word boundaries into `width`
/// columns, as the notice's paragraph wraps it.
fn wrapped_rows(line: &Line<'_>, width: u16) -> u16 {
    let width = usize::from(width.max(1));
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let mut rows = 1u16;
    let mut used = 0;
    for word in text.split_whitespace() {
        // Columns, not characters: a wide character takes two.
        let len = ratatui::text::Span::raw(word).width();
        let wanted = if used == 0 { len } else { used + 1 + len };
        if used > 0 && wanted > width {
            rows = rows.saturating_add(1);
            used = len;
        } else {
            used = wanted;
        }
        // A word longer than the line is broken across lines.
        while used > width {
            rows = rows.saturating_add(1);
            used -= width;
        }
    }
    rows
}

/// The keys, under everything; shorter forms on narrow screens.
const KEYS: &str = "←↑↓→/hjkl move · Enter play · u undo · v hints · n new round · ? help · q quit";
const SHORT_KEYS: &str = "hjkl · ⏎ play · u undo · v hints · n new · ? help · q quit";
const TINY_KEYS: &str = "? help · q quit";

/// The title: the board, the round and the score, in `width` columns
/// (on a narrow screen the score before the rest).
fn title_line(app: &App, width: u16) -> Line<'static> {
    let rules = app.rules();
    let score = app.score();
    let (x, o, draws) = (score.wins(Player::X), score.wins(Player::O), score.draws());
    let (rows, cols, k) = (rules.rows(), rules.cols(), rules.k());
    // What is switched on or off, said here too: without the side panel
    // nowhere else does.
    let mut state = String::new();
    if app.hints_on() {
        state.push_str(" · hints on");
    }
    if !app.mouse_on() {
        state.push_str(" · mouse off");
    }
    let full = format!(
        "  {rows}×{cols}, {k} in a row · round {} · X {x}, O {o}, draws {draws}",
        app.round()
    );
    let fits = |text: &str| text.chars().count() <= usize::from(width);
    // The full title, with what is on or off where it has room; where the
    // full one fits so does the side panel, which says it too.
    for full in [format!("{full}{state}"), full] {
        if fits(&format!("oxo{full}")) {
            return Line::from(vec![
                Span::styled("oxo", Style::new().add_modifier(Modifier::BOLD)),
                Span::raw(full),
            ]);
        }
    }
    // Without the panel, the short title keeps as much of it as fits.
    let short = format!("{rows}×{cols} k={k} · X {x}, O {o}, draws {draws}");
    let hints = if app.hints_on() { " · hints" } else { "" };
    let mouse = if app.mouse_on() { "" } else { " · no mouse" };
    [
        format!("{short}{hints}{mouse}"),
        format!("{short}{hints}"),
        format!("{short}{mouse}"),
        short,
    ]
    .into_iter()
    .find(|short| fits(short))
    .map_or_else(
        || Line::raw(format!("X {x}, O {o}, draws {draws}")),
        Line::raw,
    )
}

/// Screen columns the board wants in `area` (at most its width).
fn board_width(rules: oxo_core::Rules, hint: u16, area: Rect) -> u16 {
    let (width, _) = Shape::for_board(rules, hint, area).extent(rules);
    u16::try_from(width).unwrap_or(u16::MAX).min(area.width)
}

/// Decimal digits of `n`.
fn digits(n: u32) -> u16 {
    n.checked_ilog10().map_or(1, |d| d as u16 + 1)
}

/// Move `start` so that `at` is among the `shown` cells from it.
fn scroll(start: u32, at: u32, shown: u32, total: u32) -> u32 {
    let start = if at < start {
        at
    } else if at >= start + shown {
        at + 1 - shown
    } else {
        start
    };
    start.min(total.saturating_sub(shown))
}

fn draw_board(
    frame: &mut Frame<'_>,
    app: &App,
    state: &mut ViewState,
    palette: Palette,
    area: Rect,
) {
    let rules = app.rules();
    let (rows, cols) = (rules.rows(), rules.cols());
    let label = digits(rows);
    let shape = Shape::for_board(rules, hint_width(app), area);
    let (first_x, first_y) = shape.offset(label);
    let (step_x, step_y) = shape.step();
    // Each step is a cell and the grid line after it (the border).
    let fits = |room: u16, first: u16, step: u16| u32::from(room.saturating_sub(first) / step);
    let shown_cols = fits(area.width, first_x, step_x).min(cols);
    let shown_rows = fits(area.height, first_y, step_y).min(rows);
    if shown_rows == 0 || shown_cols == 0 {
        state.board = None;
        frame.render_widget(
            Paragraph::new("the window is too small for the board"),
            area,
        );
        return;
    }
    let cursor = app.cursor();
    if state.board.is_none() {
        // The first view of a board larger than the window: the cursor
        // (the centre, at the start) in its middle, not at its edge.
        state.top = cursor.row.saturating_sub(shown_rows / 2);
        state.left = cursor.col.saturating_sub(shown_cols / 2);
    }
    state.top = scroll(state.top, cursor.row, shown_rows, rows);
    state.left = scroll(state.left, cursor.col, shown_cols, cols);
    let (top, left) = (state.top, state.left);
    state.board = Some(Placement {
        x: area.x + first_x,
        y: area.y + first_y,
        shape,
        rows: shown_rows,
        cols: shown_cols,
    });

    let faint = palette.faint();
    let width = usize::from(shape.width);
    let pad = " ".repeat(usize::from(label));
    let mut lines = Vec::new();
    let mut header = format!("{pad} {}", if shape.grid { " " } else { "" });
    for col in left..left + shown_cols {
        header.push_str(&format!("{:^width$}", col + 1));
        if shape.grid {
            header.push(' ');
        }
    }
    lines.push(Line::styled(header, faint));
    let rule = |l: &str, m: &str, r: &str| {
        let inner = vec!["─".repeat(width); shown_cols as usize].join(m);
        Line::styled(format!("{pad} {l}{inner}{r}"), faint)
    };
    if shape.grid {
        lines.push(rule("┌", "┬", "┐"));
    }
    let hints = app.hints();
    let middle = shape.height / 2;
    for row in top..top + shown_rows {
        let cells: Vec<Span<'static>> = (left..left + shown_cols)
            .map(|col| cell_span(app, hints, Cell::new(row, col), palette, width))
            .collect();
        for line in 0..shape.height {
            let label_text = if line == middle {
                format!("{:>w$} ", row + 1, w = usize::from(label))
            } else {
                format!("{pad} ")
            };
            let mut spans = vec![Span::styled(label_text, faint)];
            for (col, cell) in (left..).zip(&cells) {
                if shape.grid {
                    spans.push(Span::styled("│", faint));
                }
                let big = shape
                    .big()
                    .then(|| app.game().get(Cell::new(row, col)))
                    .flatten()
                    .and_then(|player| big_mark(player, line, middle));
                spans.push(match big {
                    Some(glyph) if line == middle && Cell::new(row, col) == cursor => {
                        // The cursor's brackets at the cell's edges.
                        let inner = width.saturating_sub(2);
                        Span::styled(format!("[{glyph:^inner$}]"), cell.style)
                    }
                    Some(glyph) => Span::styled(format!("{glyph:^width$}"), cell.style),
                    None if line == middle => cell.clone(),
                    None => Span::styled(" ".repeat(width), cell.style),
                });
            }
            if shape.grid {
                spans.push(Span::styled("│", faint));
            }
            lines.push(Line::from(spans));
        }
        if shape.grid {
            lines.push(if row + 1 == top + shown_rows {
                rule("└", "┴", "┘")
            } else {
                rule("├", "┼", "┤")
            });
        }
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// X three lines tall, for the largest cells.
const BIG_X: [&str; 3] = [" ╲ ╱ ", "  ╳  ", " ╱ ╲ "];
/// O three lines tall, for the largest cells.
const BIG_O: [&str; 3] = ["╭───╮", "│   │", "╰───╯"];

/// Line `line` of `player`'s mark three lines tall, centred on the cell's
/// `middle` line; `None` above and below it.
fn big_mark(player: Player, line: u16, middle: u16) -> Option<&'static str> {
    let glyph = match player {
        Player::X => BIG_X,
        Player::O => BIG_O,
    };
    let index = (line + 1).checked_sub(middle)?;
    glyph.get(usize::from(index)).copied()
}

/// The widest hint's value shown (`W11`: 3), 0 with none.
fn hint_width(app: &App) -> u16 {
    let hints = app.hints().into_iter().flatten();
    let widest = hints
        .map(|&(_, valued)| short_value(valued).chars().count())
        .max();
    widest.map_or(0, |w| u16::try_from(w).unwrap_or(u16::MAX))
}

/// The short form of a value in a cell: `W3`, `D`, `L4`; `W` and `L`
/// alone where the distance is unknown.
fn short_value(valued: Valued) -> String {
    let plies = valued.plies.map(|p| p.to_string()).unwrap_or_default();
    match valued.value {
        Value::Win => format!("W{plies}"),
        Value::Draw => "D".to_owned(),
        Value::Loss => format!("L{plies}"),
    }
}

/// A cell's text, `width` columns wide, and its style.
fn cell_span(
    app: &App,
    hints: Option<&[(Cell, Valued)]>,
    cell: Cell,
    palette: Palette,
    width: usize,
) -> Span<'static> {
    let game = app.game();
    let hint = hints.and_then(|h| h.iter().find(|&&(c, _)| c == cell).map(|&(_, e)| e));
    let (text, mut style) = match (game.get(cell), hint) {
        (Some(player), _) => (player.as_char().to_string(), palette.mark(player)),
        (None, Some(eval)) => (short_value(eval), palette.value(eval.value)),
        (None, None) => ("·".to_owned(), palette.faint()),
    };
    if game.winning_line().is_some_and(|line| line.contains(cell)) {
        style = palette.winning();
    }
    if app.moves().last() == Some(&cell) {
        style = style.add_modifier(Modifier::UNDERLINED | Modifier::BOLD);
    }
    let text = if cell == app.cursor() {
        style = style.add_modifier(Modifier::REVERSED);
        // In brackets where the cell has room for them (`[L6]`, `[X]`);
        // else a hint's whole value without them (`L6`, in reverse video
        // as the cursor always is): the distance is worth more.
        if text.chars().count() + 2 <= width {
            format!("{:^width$}", format!("[{text}]"))
        } else {
            format!("{text:^width$}")
        }
    } else {
        format!("{text:^width$}")
    };
    Span::styled(text, style)
}

fn panel_lines(app: &App, state: &ViewState, palette: Palette, height: u16) -> Vec<Line<'static>> {
    let score = app.score();
    let game = app.game();
    let mut lines = Vec::new();
    for player in [Player::X, Player::O] {
        let marker = if !game.is_over() && game.to_move() == player {
            "▶ "
        } else {
            "  "
        };
        lines.push(Line::from(vec![
            Span::raw(marker),
            Span::styled(player.as_char().to_string(), palette.mark(player)),
            Span::raw(format!(
                "  {:<14}{:>5}",
                app.seat(player).name(),
                score.wins(player)
            )),
        ]));
    }
    lines.push(Line::raw(format!(
        "     {:<14}{:>5}",
        "draws",
        score.draws()
    )));
    lines.push(Line::raw(""));
    lines.push(Line::from(turn_text(app)).style(Style::new().add_modifier(Modifier::BOLD)));
    lines.push(Line::raw(""));
    let cursor = app.cursor();
    lines.push(Line::raw(format!("cursor: {}", cell_name(cursor))));
    if let Some(valued) = cursor_hint(app) {
        lines.push(Line::styled(
            format!("playing here: {}", value_words(valued)),
            palette.value(valued.value),
        ));
    }
    let hints_state = if !app.hints_possible() {
        Some("no hints in this game")
    } else if !app.hints_on() {
        Some("hints off (v shows them)")
    } else if app.game().is_over() {
        Some("hints on: none, round over")
    } else if app.hints_coming() {
        Some("hints on: valuing…")
    } else if app.hints().is_none() {
        Some("hints on: none here yet")
    } else {
        None
    };
    if let Some(state) = hints_state {
        lines.push(Line::styled(state, palette.faint()));
    } else {
        lines.push(Line::from(vec![
            Span::raw("hints: "),
            Span::styled("W", palette.value(Value::Win)),
            Span::raw(" win, "),
            Span::styled("D", palette.value(Value::Draw)),
            Span::raw(" draw, "),
            Span::styled("L", palette.value(Value::Loss)),
            Span::raw(" loss"),
        ]));
        lines.push(Line::styled(
            "  (in plies: moves of X and O)",
            palette.faint(),
        ));
        if app.looking_further() {
            lines.push(Line::styled("  looking further…", palette.faint()));
        } else if app.further_helps() {
            lines.push(Line::styled(
                "  f looks further for the rest",
                palette.faint(),
            ));
        }
    }
    if !app.mouse_on() {
        lines.push(Line::styled("mouse off (m takes clicks)", palette.faint()));
    }
    let rules = app.rules();
    if let Some(p) = state.board
        && (p.rows < rules.rows() || p.cols < rules.cols())
    {
        // On two lines: four-digit rows and columns would not fit one.
        lines.push(Line::styled(
            format!("in view: rows {}–{}", state.top + 1, state.top + p.rows),
            palette.faint(),
        ));
        lines.push(Line::styled(
            format!("         cols {}–{}", state.left + 1, state.left + p.cols),
            palette.faint(),
        ));
    }
    lines.push(Line::raw(""));
    lines.push(Line::raw("moves"));
    // The latest moves, as many as fit below (at least the last).
    let room = usize::from(height).saturating_sub(lines.len()).max(1);
    let skip = app.moves().len().saturating_sub(room);
    for (i, cell) in app.moves().iter().enumerate().skip(skip) {
        let player = app.mover(i);
        lines.push(Line::from(vec![
            Span::raw(format!("{:>4}. ", i + 1)),
            Span::styled(player.as_char().to_string(), palette.mark(player)),
            Span::raw(format!(" {} {}", cell.row + 1, cell.col + 1)),
        ]));
    }
    lines
}

/// The hint of the cell under the cursor, if it has one.
fn cursor_hint(app: &App) -> Option<Valued> {
    let cursor = app.cursor();
    let hints = app.hints()?;
    hints.iter().find(|&&(c, _)| c == cursor).map(|&(_, v)| v)
}

/// A value in words: `loss in 6 plies` (plies: moves by either side, as
/// the cells' `L6` counts them), or `draw` (whose distance, the board
/// filling, says nothing).
fn value_words(valued: Valued) -> String {
    match valued.plies {
        Some(plies) if valued.value != Value::Draw => format!(
            "{} in {plies} {}",
            valued.value,
            if plies == 1 { "ply" } else { "plies" }
        ),
        _ => valued.value.to_string(),
    }
}

/// Whose turn it is, or how the round ended.
fn turn_text(app: &App) -> String {
    let game = app.game();
    match game.outcome() {
        Some(oxo_core::Outcome::Win(winner)) => format!("{winner} wins round {}", app.round()),
        Some(oxo_core::Outcome::Draw) => format!("round {} is a draw", app.round()),
        None => {
            let player = game.to_move();
            match app.seat(player) {
                Seat::Human if app.seat(player.other()).is_human() => format!("{player} to move"),
                Seat::Human => format!("{player} to move: your turn"),
                Seat::Computer(strategy) => format!("{player} ({}) is thinking…", strategy.name()),
            }
        }
    }
}

fn notice_line(app: &App, palette: Palette) -> Line<'static> {
    match app.notice() {
        Some(Notice::Info(text)) => Line::raw(text.clone()),
        Some(Notice::Refused(text)) => Line::styled(format!("✗ {text}"), palette.refused()),
        None => Line::raw(""),
    }
}

/// The help, over the board.
const HELP: &[&str] = &[
    "Get k marks in a row (across, down or diagonally).",
    "",
    "arrows, h j k l   move; with Shift, PgUp, PgDn: a page",
    "Home End .        the row's ends; the last move",
    "Enter, Space      play here (a mouse click: there)",
    "u                 take back (with the computer's reply)",
    "v or H            hints: each empty cell's value with",
    "                  perfect play (W win, D draw, L loss)",
    "f                 a longer look where hints leave gaps",
    "n                 next round (the other side starts)",
    "m                 mouse off (to select text) or on",
    "? or F1           this help; any other key closes it",
    "q                 quit and print the score",
    "Ctrl-Z            suspend (fg brings it back)",
];

/// The help on a screen too small for [`HELP`].
/// How to quit comes first, so a screen too small for the whole of it
/// still shows that.
const SHORT_HELP: &[&str] = &[
    "q  quit",
    "any key  close",
    "arrows, hjkl  move",
    "Enter, Space  play",
    "u  undo, n  next round",
    "v  hints, m  mouse",
    ".  the last move",
];

/// The help over the board (`area`), or over the whole screen but the
/// keys line (which says how to quit) in its short form where the board's
/// area is too small for it.
fn draw_help(frame: &mut Frame<'_>, area: Rect, screen: Rect) {
    let screen = Rect {
        height: screen.height.saturating_sub(1),
        ..screen
    };
    let size = |help: &[&str]| {
        (
            help.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u16 + 4,
            help.len() as u16 + 2,
        )
    };
    let fits = |(w, h): (u16, u16), room: Rect| w <= room.width && h <= room.height;
    let (help, area) = if fits(size(HELP), area) {
        (HELP, area)
    } else if fits(size(SHORT_HELP), area) {
        (SHORT_HELP, area)
    } else {
        (SHORT_HELP, screen)
    };
    let (width, height) = size(help);
    let (width, height) = (width.min(area.width), height.min(area.height));
    let popup = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    frame.render_widget(Clear, popup);
    let text: Vec<Line<'_>> = help.iter().map(|&l| Line::raw(l)).collect();
    frame.render_widget(
        Paragraph::new(text)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(" help ")),
        popup,
    );
}

#[cfg(test)]
mod tests {
    use super::super::app::tests::{act, against, short_of_the_hints_budget};
    use super::*;
    use crate::tui::app::Action;

    /// The panel's lines fit its width, in the states with its longest:
    /// a round over with hints on, hints that leave moves for `f`.
    #[test]
    fn the_panel_fits_its_lines() {
        let fits = |app: &App, wanted: &str| {
            let lines = panel_lines(app, &ViewState::default(), Palette::COLOUR, 40);
            let text: Vec<String> = lines.iter().map(ToString::to_string).collect();
            assert!(text.iter().any(|l| l == wanted), "{wanted:?} in {text:#?}");
            for line in &lines {
                assert!(line.width() <= usize::from(PANEL_WIDTH), "{line}");
            }
        };
        fits(
            &short_of_the_hints_budget(),
            "  f looks further for the rest",
        );
        let mut app = against(oxo_ai::StrategyKind::Perfect);
        act(&mut app, &[Action::ToggleHints]);
        while !app.game().is_over() {
            let free = app.game().legal_moves().next().unwrap();
            act(&mut app, &[Action::PlayAt(free)]);
        }
        fits(&app, "hints on: none, round over");
    }

    #[test]
    fn a_notice_wraps_by_columns() {
        assert_eq!(wrapped_rows(&Line::from("one two three"), 80), 1);
        assert_eq!(wrapped_rows(&Line::from("one two three"), 7), 2);
        // Wide characters take two columns each: 6 + 1 + 6 is over 7.
        assert_eq!(wrapped_rows(&Line::from("日本語 日本語"), 7), 2);
        // A word longer than the line is broken.
        assert_eq!(wrapped_rows(&Line::from("abcdefghij"), 4), 3);
    }
}
