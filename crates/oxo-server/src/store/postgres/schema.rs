//! The PostgreSQL schema: the steps in `migrations/`, applied at start in
//! one transaction under an advisory lock, so that nodes starting together
//! migrate once.

use tokio_postgres::{Config, Transaction};

use super::pool::connect;
use crate::store::StoreError;
use crate::store::migrate::{self, Migration, migrations};

/// The steps, in order; `oxo_schema.version` counts those applied.
const MIGRATIONS: &[Migration] = &migrations!(
    "0001_rooms_and_moves.sql",
    "0002_offers_and_lobby.sql",
    "0003_invites.sql",
    "0004_player_names.sql",
    "0005_endings_offers_keys.sql",
    "0006_clocks.sql",
    "0007_open_games.sql",
    "0008_listed_at.sql",
    "0009_position_versions.sql",
    "0010_offers_made.sql",
    "0011_open_games_not_cancelled.sql",
);

/// The database being migrated, inside the one transaction.
struct Postgres<'t>(Transaction<'t>);

impl migrate::Schema for Postgres<'_> {
    async fn version(&mut self) -> Result<i64, StoreError> {
        let tx = &self.0;
        // Nodes starting together take turns; the lock ends with the
        // transaction.
        tx.batch_execute(
            "SELECT pg_advisory_xact_lock(7894130);
             CREATE TABLE IF NOT EXISTS oxo_schema (version INTEGER NOT NULL);",
        )
        .await?;
        Ok(
            match tx.query_opt("SELECT version FROM oxo_schema", &[]).await? {
                Some(row) => i64::from(row.get::<_, i32>(0)),
                None => {
                    tx.execute("INSERT INTO oxo_schema (version) VALUES (0)", &[])
                        .await?;
                    0
                }
            },
        )
    }

    async fn apply(&mut self, step: &Migration) -> Result<(), StoreError> {
        let version = i32::try_from(step.version).expect("a handful of steps");
        self.0.batch_execute(step.sql).await?;
        self.0
            .execute("UPDATE oxo_schema SET version = $1", &[&version])
            .await?;
        Ok(())
    }
}

/// Bring the schema of the database `config` names up to date, on a
/// connection of its own.
pub(super) async fn migrate(config: &Config) -> Result<(), StoreError> {
    let mut client = connect(config).await?;
    let mut db = Postgres(client.transaction().await?);
    migrate::migrate(&mut db, MIGRATIONS).await?;
    db.0.commit().await?;
    Ok(())
}
