//! The schema runner both SQL stores share: numbered SQL steps, embedded in
//! the binary, applied in order to a database that records how many it has.
//!
//! Each store keeps its steps as files `migrations/NNNN_what.sql` beside its
//! code and says how its database records the version and what a
//! transaction is ([`Schema`]); this module decides which steps run. A step
//! that has shipped is never edited: a change to the schema is a new file.

use super::StoreError;

/// One schema step: its number (from 1, one more than the step before) and
/// its SQL.
#[derive(Clone, Copy, Debug)]
pub(super) struct Migration {
    pub version: i64,
    pub sql: &'static str,
}

/// The steps `NNNN_name.sql` of a store's `migrations/` folder, numbered
/// from 1 in the order given.
macro_rules! migrations {
    ($($file:literal),+ $(,)?) => {{
        let mut version = 0;
        [$({
            version += 1;
            $crate::store::migrate::Migration {
                version,
                sql: include_str!(concat!("migrations/", $file)),
            }
        }),+]
    }};
}
pub(super) use migrations;

/// A database being migrated.
pub(super) trait Schema {
    /// The number of the last step applied (0 for a new database).
    async fn version(&mut self) -> Result<i64, StoreError>;

    /// Apply `step` and record its number, both or neither.
    async fn apply(&mut self, step: &Migration) -> Result<(), StoreError>;
}

/// Apply the `steps` that `db` lacks, in order.
///
/// # Errors
/// [`StoreError::TooNew`] for a database with steps this build does not
/// know, or the first step that fails (those before it stay applied).
pub(super) async fn migrate(db: &mut impl Schema, steps: &[Migration]) -> Result<(), StoreError> {
    let known = steps.last().map_or(0, |step| step.version);
    let found = db.version().await?;
    if found > known {
        return Err(StoreError::TooNew { found, known });
    }
    for step in steps.iter().filter(|step| step.version > found) {
        db.apply(step).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database that records what it was asked.
    struct Log {
        version: i64,
        applied: Vec<i64>,
    }

    impl Schema for Log {
        async fn version(&mut self) -> Result<i64, StoreError> {
            Ok(self.version)
        }

        async fn apply(&mut self, step: &Migration) -> Result<(), StoreError> {
            self.applied.push(step.version);
            self.version = step.version;
            Ok(())
        }
    }

    fn run(found: i64, steps: &[Migration]) -> Result<Vec<i64>, StoreError> {
        use futures_util::FutureExt as _;
        let mut db = Log {
            version: found,
            applied: Vec::new(),
        };
        migrate(&mut db, steps)
            .now_or_never()
            .expect("never waits")?;
        Ok(db.applied)
    }

    #[test]
    fn only_the_missing_steps_run_in_order_and_newer_databases_are_refused() {
        let steps = [1, 2, 3].map(|version| Migration { version, sql: "" });
        assert_eq!(run(0, &steps).unwrap(), [1, 2, 3]);
        assert_eq!(run(2, &steps).unwrap(), [3]);
        assert!(run(3, &steps).unwrap().is_empty());
        let err = run(4, &steps).unwrap_err();
        assert!(
            matches!(err, StoreError::TooNew { found: 4, known: 3 }),
            "{err}"
        );
    }
}
