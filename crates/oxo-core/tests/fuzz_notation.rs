//! A fuzz target for the position notation, run by `cargo test` for a
//! bounded number of cases (the issue asks for one per parser).
//!
//! Inputs are arbitrary bytes read as lossy UTF-8, very long lines, and
//! near misses: valid positions with a few bytes inserted, deleted or
//! replaced. Whatever the input, reading it never panics and:
//!
//! * what `Setup` accepts is exactly the trimmed text spelled canonically
//!   (`x`→`X`, `o`→`O`, `-`→`.`), so parse → format → parse is the same
//!   setup;
//! * a syntax error is the same error from `Game::from_notation` for every
//!   k, and a game read from text reads back from its own notation as the
//!   same game;
//! * every position reached by play, on boards up to 24 a side and on the
//!   longest boards allowed, formats to text that reads back as that game.

use oxo_core::{Game, MAX_SIDE, NotationError, Rules, Setup, SyntaxError};
use proptest::prelude::*;
use proptest::sample::Index;

/// The win lengths every input is read with: the usual ones, and ones
/// that fit no small board.
const KS: [u32; 7] = [0, 1, 2, 3, 4, 5, 1025];

/// `text` as the parser must spell it back: trimmed, marks upper case,
/// `-` as `.`.
fn canonical(text: &str) -> String {
    text.trim()
        .chars()
        .map(|c| match c {
            'x' => 'X',
            'o' => 'O',
            '-' => '.',
            other => other,
        })
        .collect()
}

/// Everything the notation promises about `text`, whatever it is.
fn check_text(text: &str) -> Result<(), TestCaseError> {
    let parsed = text.parse::<Setup>();
    match &parsed {
        Ok(setup) => {
            let written = setup.to_string();
            prop_assert!(
                text.trim().chars().all(|c| "XOxo.-/".contains(c)),
                "accepted a character that is not a cell: {:?}",
                text
            );
            prop_assert_eq!(&written, &canonical(text));
            prop_assert!(setup.rows() >= 1 && setup.rows() <= MAX_SIDE);
            prop_assert!(setup.cols() >= 1 && setup.cols() <= MAX_SIDE);
            prop_assert_eq!(
                setup.cells().len(),
                setup.rows() as usize * setup.cols() as usize
            );
            let again: Setup = written.parse().expect("canonical text parses");
            prop_assert_eq!(&again, setup);
            prop_assert_eq!(again.to_string(), written);
        }
        Err(_) => {
            // Text of cells only, in equal non-empty rows of at most
            // MAX_SIDE, is a board: a refusal must have a reason.
            let canon = canonical(text);
            let rows: Vec<&str> = canon.split('/').collect();
            let well_formed = !canon.is_empty()
                && canon.chars().all(|c| "XO./".contains(c))
                && rows.len() <= MAX_SIDE as usize
                && rows
                    .iter()
                    .all(|r| !r.is_empty() && r.len() == rows[0].len())
                && rows[0].len() <= MAX_SIDE as usize;
            prop_assert!(!well_formed, "refused a board: {:?}", text);
        }
    }
    for k in KS {
        match (Game::from_notation(text, k), &parsed) {
            (Ok(game), Ok(setup)) => {
                prop_assert_eq!(game.to_string(), setup.to_string());
                let again = Game::from_notation(&game.to_string(), k)
                    .expect("a game's own notation reads back");
                prop_assert_eq!(&again, &game);
                prop_assert_eq!(Game::from_setup(setup, k), Ok(game));
            }
            (Err(NotationError::Syntax(e)), Err(expected)) => prop_assert_eq!(&e, expected),
            (Err(NotationError::Illegal(e)), Ok(setup)) => {
                prop_assert_eq!(Game::from_setup(setup, k), Err(e));
            }
            (result, parsed) => {
                return Err(TestCaseError::fail(format!(
                    "{text:?} k={k}: the game says {result:?} but the setup {parsed:?}"
                )));
            }
        }
    }
    Ok(())
}

/// A position reached by play: `picks` choose among the empty cells until
/// they run out or the game ends.
fn play(rules: Rules, picks: &[Index]) -> Game {
    let mut game = Game::new(rules);
    for pick in picks {
        if game.is_over() {
            break;
        }
        let empty: Vec<_> = game.empty_cells().collect();
        game.play(*pick.get(&empty)).expect("an empty cell");
    }
    game
}

/// Rules up to `max_side` a side, k up to the longer side.
fn rules_up_to(max_side: u32) -> impl Strategy<Value = Rules> {
    (1..=max_side, 1..=max_side)
        .prop_flat_map(|(rows, cols)| (Just(rows), Just(cols), 1..=rows.max(cols)))
        .prop_map(|(rows, cols, k)| Rules::new(rows, cols, k).expect("valid by construction"))
}

/// Positions reached by play, mostly small, up to a full board.
fn position() -> impl Strategy<Value = Game> {
    (
        rules_up_to(8),
        prop::collection::vec(any::<Index>(), 0..=64),
    )
        .prop_map(|(rules, picks)| play(rules, &picks))
}

/// One edit of a text.
#[derive(Clone, Debug)]
enum Edit {
    Insert(Index, char),
    Delete(Index),
    Replace(Index, char),
    /// Copy one row onto the end (a board one row taller, or ragged).
    RepeatRow(Index),
}

/// Characters a near miss is made of: cells, separators, blanks, and a
/// few that are none of these (multi-byte ones included).
fn near_char() -> impl Strategy<Value = char> {
    prop_oneof![
        8 => prop::sample::select(vec![
            'X', 'O', 'x', 'o', '.', '-', '/', ' ', '\t', '\n', '\r', '\u{a0}', '\u{feff}',
            '0', 'Z', 'é', '\u{fffd}', '\0', '\u{1F600}',
        ]),
        1 => any::<char>(),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<Index>(), near_char()).prop_map(|(i, c)| Edit::Insert(i, c)),
        3 => any::<Index>().prop_map(Edit::Delete),
        3 => (any::<Index>(), near_char()).prop_map(|(i, c)| Edit::Replace(i, c)),
        1 => any::<Index>().prop_map(Edit::RepeatRow),
    ]
}

/// `text` with `edits` applied, each at a character boundary.
fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for edit in edits {
        match *edit {
            Edit::Insert(at, c) => {
                let at = at.index(chars.len() + 1);
                chars.insert(at, c);
            }
            Edit::Delete(at) if !chars.is_empty() => {
                chars.remove(at.index(chars.len()));
            }
            Edit::Replace(at, c) if !chars.is_empty() => {
                let at = at.index(chars.len());
                chars[at] = c;
            }
            Edit::RepeatRow(which) => {
                let now: String = chars.iter().collect();
                let rows: Vec<&str> = now.split('/').collect();
                let row = rows[which.index(rows.len())].to_owned();
                chars.push('/');
                chars.extend(row.chars());
            }
            Edit::Delete(_) | Edit::Replace(..) => {}
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Any bytes at all, decoded as the CLI and server would see them.
    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        check_text(&String::from_utf8_lossy(&bytes))?;
    }

    /// Text over the notation's own alphabet, where the interesting
    /// refusals (ragged, empty rows, blanks inside) are likely.
    #[test]
    fn board_alphabet(text in "[XOxo.\\-/ \t\n]{0,80}") {
        check_text(&text)?;
    }

    /// Valid positions with a few edits: near misses, and sometimes other
    /// valid positions (which must then round-trip too).
    #[test]
    fn near_misses(game in position(), edits in prop::collection::vec(edit(), 1..4)) {
        let text = apply(&game.to_string(), &edits);
        check_text(&text)?;
    }

    /// Every position reached by play reads back as exactly that game.
    #[test]
    fn positions_round_trip(
        rules in rules_up_to(24),
        picks in prop::collection::vec(any::<Index>(), 0..=80),
    ) {
        let game = play(rules, &picks);
        let text = game.to_string();
        let parsed = Game::from_notation(&text, rules.k())
            .map_err(|e| TestCaseError::fail(format!("{text:?} k={}: {e}", rules.k())))?;
        prop_assert_eq!(&parsed, &game);
        prop_assert_eq!(parsed.to_string(), text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Long lines: rows and boards at and around MAX_SIDE, some cells
    /// changed, padded with blanks. A side over MAX_SIDE is refused; the
    /// rest round-trips.
    #[test]
    fn long_lines(
        rows in prop_oneof![Just(1u32), 1u32..4, Just(MAX_SIDE), Just(MAX_SIDE + 1)],
        cols in prop_oneof![Just(1u32), 1u32..4, Just(MAX_SIDE), Just(MAX_SIDE + 1)],
        marks in prop::collection::vec((any::<Index>(), prop::sample::select(vec!['X', 'o', '-'])), 0..8),
        pad in prop::sample::select(vec!["", " ", "\n", "\t \r\n"]),
        edits in prop::collection::vec(edit(), 0..2),
    ) {
        let mut cells = vec!['.'; (rows * cols) as usize];
        for (at, c) in &marks {
            let at = at.index(cells.len());
            cells[at] = *c;
        }
        let body = cells
            .chunks(cols as usize)
            .map(|row| row.iter().collect::<String>())
            .collect::<Vec<_>>()
            .join("/");
        let text = format!("{pad}{}{pad}", apply(&body, &edits));
        check_text(&text)?;
        if edits.is_empty() {
            let fits = rows <= MAX_SIDE && cols <= MAX_SIDE;
            prop_assert_eq!(text.parse::<Setup>().is_ok(), fits);
        }
    }

    /// Games on the longest boards there are: one row or one column of
    /// MAX_SIDE cells.
    #[test]
    fn longest_boards_round_trip(
        across in any::<bool>(),
        k in 1u32..=6,
        picks in prop::collection::vec(any::<Index>(), 0..40),
    ) {
        let (rows, cols) = if across { (1, MAX_SIDE) } else { (MAX_SIDE, 1) };
        let rules = Rules::new(rows, cols, k).expect("fits");
        let game = play(rules, &picks);
        let parsed = Game::from_notation(&game.to_string(), k).expect("reads back");
        prop_assert_eq!(&parsed, &game);
    }
}

/// A row of a million marks is refused as too large, not read whole.
#[test]
fn a_megabyte_line_is_too_large() {
    let line = "X".repeat(1 << 20);
    assert_eq!(line.parse::<Setup>(), Err(SyntaxError::TooLarge));
    let column = vec!["O"; 1 << 18].join("/");
    assert_eq!(column.parse::<Setup>(), Err(SyntaxError::TooLarge));
}
