//! The model file: a small binary format, laid out in the module docs of
//! [`crate::learned`].

use std::io::{self, Read, Write};

use oxo_core::Rules;

use super::Model;
use crate::checksum::fnv1a;
use crate::ntuple::Scheme;

/// The first eight bytes of every model file.
pub const MAGIC: [u8; 8] = *b"OXOMODEL";
/// The format version this code writes and reads.
pub const FORMAT_VERSION: u16 = 1;
/// Bytes before the weights.
const HEADER_LEN: usize = 24;
/// Bytes of the checksum after them.
const CHECKSUM_LEN: usize = 8;
/// Files are refused beyond this size, so a damaged header cannot make us
/// read without end: 64 MiB, far above any model we train.
const MAX_FILE_LEN: u64 = 64 << 20;

pub use crate::ntuple::MAX_MODEL_CELLS;

/// Why a model file could not be read, or a model cannot play a board.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The file does not start with the model magic bytes.
    #[error("not an oxo model file")]
    Foreign,
    /// A version this code does not know.
    #[error("unsupported model format version {0} (this oxo reads version {FORMAT_VERSION})")]
    UnsupportedVersion(u16),
    /// The file ends early.
    #[error("the model file is truncated")]
    Truncated,
    /// Bytes follow the checksum.
    #[error("the model file has {0} unexpected bytes after its end")]
    TrailingBytes(u64),
    /// The checksum does not match the contents.
    #[error("the model file is damaged: checksum mismatch")]
    ChecksumMismatch,
    /// The header names a board too large for a model, or for its tuple
    /// scheme (see [`Scheme::fits`]).
    #[error("the model file names a {rows}x{cols} board, too large for its tuple scheme")]
    TooLarge {
        /// Rows in the header.
        rows: u16,
        /// Columns in the header.
        cols: u16,
    },
    /// The header names a board oxo does not allow.
    #[error("the model file names an invalid board {rows}x{cols} k={k}")]
    BadRules {
        /// Rows in the header.
        rows: u16,
        /// Columns in the header.
        cols: u16,
        /// k in the header.
        k: u16,
    },
    /// The header names an unknown tuple scheme.
    #[error("the model file uses unknown tuple scheme {0}")]
    UnknownScheme(u16),
    /// The weight count does not fit the board and scheme.
    #[error("the model file holds {found} weights where its board needs {expected}")]
    WeightCount {
        /// What the board and scheme need.
        expected: usize,
        /// What the header says.
        found: usize,
    },
    /// A weight is infinite or not a number.
    #[error("the model file holds a weight that is not a finite number")]
    NotFinite,
    /// The model was trained for another board.
    #[error("model trained for {model}, not {rules}")]
    WrongBoard {
        /// The model's board.
        model: Rules,
        /// The board asked for.
        rules: Rules,
    },
    /// Reading or writing failed.
    #[error("cannot read or write the model file")]
    Io(#[source] io::Error),
}

impl Model {
    /// The model in the file format, as bytes.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let rules = self.rules();
        let mut out = Vec::with_capacity(HEADER_LEN + 4 * self.weights.len() + CHECKSUM_LEN);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        // Sides and k fit: oxo_core::MAX_SIDE is far below u16::MAX.
        for n in [rules.rows(), rules.cols(), rules.k()] {
            out.extend_from_slice(&(n as u16).to_le_bytes());
        }
        out.extend_from_slice(&self.scheme().id().to_le_bytes());
        out.extend_from_slice(&(self.weights.len() as u32).to_le_bytes());
        out.extend_from_slice(&[0; 2]);
        for w in &self.weights {
            out.extend_from_slice(&w.to_le_bytes());
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Write the model in the file format.
    ///
    /// # Errors
    /// [`ModelError::Io`] when writing fails.
    pub fn save(&self, mut out: impl Write) -> Result<(), ModelError> {
        out.write_all(&self.to_bytes()).map_err(ModelError::Io)?;
        out.flush().map_err(ModelError::Io)
    }

    /// Read a model written by [`Model::save`].
    ///
    /// # Errors
    /// A [`ModelError`] naming what is wrong with the file; never panics,
    /// whatever the bytes.
    pub fn load(input: impl Read) -> Result<Model, ModelError> {
        let mut bytes = Vec::new();
        input
            .take(MAX_FILE_LEN + 1)
            .read_to_end(&mut bytes)
            .map_err(ModelError::Io)?;
        Model::from_bytes(&bytes)
    }

    /// Read a model from the bytes of a model file.
    ///
    /// # Errors
    /// As [`Model::load`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Model, ModelError> {
        let magic_len = bytes.len().min(MAGIC.len());
        if bytes[..magic_len] != MAGIC[..magic_len] {
            return Err(ModelError::Foreign);
        }
        let Some(header) = bytes.get(..HEADER_LEN) else {
            // A prefix of a model file is a truncated one, unless it is too
            // short to hold the version that would say otherwise.
            if let Some(v) = bytes.get(8..10) {
                let version = u16::from_le_bytes([v[0], v[1]]);
                if version != FORMAT_VERSION {
                    return Err(ModelError::UnsupportedVersion(version));
                }
            }
            return Err(ModelError::Truncated);
        };
        let u16_at = |i: usize| u16::from_le_bytes([header[i], header[i + 1]]);
        let version = u16_at(8);
        if version != FORMAT_VERSION {
            return Err(ModelError::UnsupportedVersion(version));
        }
        let count = u32::from_le_bytes([header[18], header[19], header[20], header[21]]) as usize;
        let total = HEADER_LEN as u64 + 4 * count as u64 + CHECKSUM_LEN as u64;
        let len = bytes.len() as u64;
        if len < total {
            return Err(ModelError::Truncated);
        }
        if len > total {
            return Err(ModelError::TrailingBytes(len - total));
        }
        let body_len = total as usize - CHECKSUM_LEN;
        let mut stored = [0u8; 8];
        stored.copy_from_slice(&bytes[body_len..]);
        if fnv1a(&bytes[..body_len]) != u64::from_le_bytes(stored) {
            return Err(ModelError::ChecksumMismatch);
        }

        let (rows, cols, k) = (u16_at(10), u16_at(12), u16_at(14));
        let rules = Rules::new(rows.into(), cols.into(), k.into())
            .map_err(|_| ModelError::BadRules { rows, cols, k })?;
        let scheme = Scheme::from_id(u16_at(16)).ok_or(ModelError::UnknownScheme(u16_at(16)))?;
        if !scheme.fits(rules) {
            return Err(ModelError::TooLarge { rows, cols });
        }
        let weights: Vec<f32> = bytes[HEADER_LEN..body_len]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        if weights.iter().any(|w| !w.is_finite()) {
            return Err(ModelError::NotFinite);
        }
        Model::from_weights(rules, scheme, weights)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng_from_seed;
    use rand::RngExt;

    fn sample() -> Model {
        let mut model = Model::new(Rules::new(3, 4, 3).unwrap());
        for (i, w) in model.weights.iter_mut().enumerate() {
            *w = (i as f32 * 0.37).sin();
        }
        model
    }

    #[test]
    fn round_trips() {
        let model = sample();
        let mut file = Vec::new();
        model.save(&mut file).unwrap();
        let back = Model::load(file.as_slice()).unwrap();
        assert_eq!(back, model);
        assert_eq!(back.to_bytes(), file);
        assert_eq!(&file[..8], b"OXOMODEL");
    }

    #[test]
    fn every_scheme_round_trips_and_a_wrong_weight_count_is_refused() {
        let rules = Rules::new(7, 7, 5).unwrap();
        for scheme in Scheme::ALL.into_iter().filter(|s| s.fits(rules)) {
            let mut model = Model::with_scheme(rules, scheme);
            for (i, w) in model.weights.iter_mut().enumerate() {
                *w = (i as f32 * 0.37).sin();
            }
            let file = model.to_bytes();
            assert_eq!(Model::from_bytes(&file).unwrap(), model, "{scheme:?}");
            // One weight more than the scheme reads on this board, the
            // header's count (bytes 18..22) and the checksum to match.
            let mut wrong = file[..file.len() - CHECKSUM_LEN].to_vec();
            let count = u32::from_le_bytes(wrong[18..22].try_into().unwrap());
            wrong[18..22].copy_from_slice(&(count + 1).to_le_bytes());
            wrong.extend_from_slice(&0f32.to_le_bytes());
            let sum = fnv1a(&wrong);
            wrong.extend_from_slice(&sum.to_le_bytes());
            let err = Model::from_bytes(&wrong).unwrap_err();
            assert!(
                matches!(err, ModelError::WeightCount { expected, found }
                    if expected == count as usize && found == expected + 1),
                "{scheme:?}: {err}"
            );
        }
    }

    #[test]
    fn every_prefix_is_truncated() {
        let file = sample().to_bytes();
        for len in 0..file.len() {
            let err = Model::from_bytes(&file[..len]).unwrap_err();
            assert!(matches!(err, ModelError::Truncated), "{len}: {err}");
        }
    }

    #[test]
    fn damaged_files_are_refused_with_the_right_error() {
        let file = sample().to_bytes();
        let with = |i: usize, b: u8| {
            let mut f = file.clone();
            f[i] = b;
            Model::from_bytes(&f).unwrap_err()
        };
        assert!(matches!(with(0, b'P'), ModelError::Foreign));
        assert!(matches!(
            Model::from_bytes(b"PK\x03\x04"),
            Err(ModelError::Foreign)
        ));
        assert!(matches!(with(8, 2), ModelError::UnsupportedVersion(2)));
        assert!(matches!(
            with(40, file[40] ^ 1),
            ModelError::ChecksumMismatch
        ));
        let last = file.len() - 1;
        assert!(matches!(
            with(last, file[last] ^ 0x80),
            ModelError::ChecksumMismatch
        ));
        // A longer weight count reads as a truncated file.
        assert!(matches!(with(19, file[19] + 1), ModelError::Truncated));
        let mut longer = file.clone();
        longer.push(0);
        assert!(matches!(
            Model::from_bytes(&longer),
            Err(ModelError::TrailingBytes(1))
        ));

        // Headers that pass the checksum but make no sense.
        let reseal = |patch: &dyn Fn(&mut Vec<u8>)| {
            let mut f = file[..file.len() - CHECKSUM_LEN].to_vec();
            patch(&mut f);
            let sum = fnv1a(&f);
            f.extend_from_slice(&sum.to_le_bytes());
            Model::from_bytes(&f).unwrap_err()
        };
        assert!(matches!(
            reseal(&|f| f[14] = 9),
            ModelError::BadRules { k: 9, .. }
        ));
        assert!(matches!(
            reseal(&|f| {
                f[10] = 200;
                f[12] = 200;
            }),
            ModelError::TooLarge {
                rows: 200,
                cols: 200
            }
        ));
        assert!(matches!(
            reseal(&|f| {
                f[10] = 9;
                f[12] = 9;
            }),
            ModelError::TooLarge { rows: 9, cols: 9 }
        ));
        assert!(matches!(
            reseal(&|f| f[16] = 77),
            ModelError::UnknownScheme(77)
        ));
        assert!(matches!(
            reseal(&|f| f[16] = Scheme::Windows.id() as u8),
            ModelError::WeightCount { .. }
        ));
        assert!(matches!(
            reseal(&|f| f[HEADER_LEN..HEADER_LEN + 4].copy_from_slice(&f32::NAN.to_le_bytes())),
            ModelError::NotFinite
        ));
        assert_eq!(
            reseal(&|f| f[16] = 77).to_string(),
            "the model file uses unknown tuple scheme 77"
        );
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut rng = rng_from_seed(11);
        let file = sample().to_bytes();
        for round in 0..2000 {
            let len = rng.random_range(0..file.len() + 16);
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
            // Half start like a model file, to get past the magic check.
            if round % 2 == 0 {
                let n = len.min(HEADER_LEN);
                bytes[..n].copy_from_slice(&file[..n]);
            }
            assert!(Model::from_bytes(&bytes).is_err());
        }
    }

    #[test]
    fn a_model_refuses_other_boards() {
        let model = Model::new(Rules::new(4, 4, 4).unwrap());
        let err = model.check_rules(Rules::default()).unwrap_err();
        assert_eq!(err.to_string(), "model trained for 4x4 k=4, not 3x3 k=3");
        assert!(model.check_rules(Rules::new(4, 4, 4).unwrap()).is_ok());
    }
}
