import GRDB

/// The database's versioned schema: GRDB records each applied migration by name in
/// `grdb_migrations`, so a database is always at a known version and a newer one is refused.
///
/// Migrations are append-only: a released migration is never edited, a change is a new one.
enum StoreSchema {
    /// Names of the migrations this build knows, in order.
    static var knownMigrations: [String] { migrator.migrations }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-initial") { db in
            try db.execute(sql: version1)
        }
        migrator.registerMigration("v2-session-series") { db in
            try db.execute(sql: version2)
        }
        migrator.registerMigration("v3-checkpoints-by-session") { db in
            try db.execute(sql: version3)
        }
        migrator.registerMigration("v4-session-dates") { db in
            try db.execute(sql: sessionDates)
        }
        migrator.registerMigration("v5-floor-sessions") { db in
            try db.execute(sql: floorSessions)
        }
        return migrator
    }

    /// One row tables carry `singleton = 1` so that a second row is a constraint error,
    /// never a silent fork of the device id or the tokens.
    private static let version1 = """
        CREATE TABLE device (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            device_id TEXT NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE account (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            access_token TEXT,
            refresh_token TEXT,
            access_issued_at INTEGER,
            access_expires_at INTEGER,
            user_profile TEXT,
            login_required_reason TEXT,
            updated_at INTEGER NOT NULL
        );
        CREATE TABLE sessions (
            session_id TEXT PRIMARY KEY NOT NULL,
            started_at INTEGER NOT NULL,
            ended_at INTEGER NOT NULL,
            duration INTEGER NOT NULL,
            total_energy INTEGER NOT NULL,
            total_distance INTEGER NOT NULL,
            summary TEXT NOT NULL,
            origin TEXT NOT NULL CHECK (origin IN ('gateway', 'server')),
            upload_status TEXT NOT NULL CHECK (upload_status IN ('pending', 'uploaded', 'dead')),
            retry_count INTEGER NOT NULL DEFAULT 0,
            rejection_count INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE INDEX sessions_by_status ON sessions (upload_status, started_at, session_id);
        CREATE TABLE stats (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            body TEXT NOT NULL,
            source TEXT NOT NULL,
            updated_at INTEGER NOT NULL
        );
        CREATE TABLE checkpoints (
            machine_address TEXT PRIMARY KEY NOT NULL,
            session_id TEXT NOT NULL,
            snapshot TEXT NOT NULL,
            saved_at INTEGER NOT NULL
        );
        CREATE TABLE trainings (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            body TEXT NOT NULL,
            cache_timestamp INTEGER NOT NULL
        );
        CREATE TABLE upload_log (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            finished_at INTEGER NOT NULL,
            result TEXT NOT NULL,
            succeeded INTEGER NOT NULL
        );
        """

    /// The per-session plot series: a header per session (which machine; open or bound to its
    /// queued session) and its points in chunks, one chunk per checkpoint batch, written in
    /// the checkpoints' transaction. Chunks are rows of their own rather than one growing
    /// blob so that a batch appends without rewriting what is stored; the chunks' table is
    /// keyed by (session, sequence) without a rowid, one B-tree, and a batch leaves the
    /// header alone once it exists: an append dirties as few pages as it can.
    private static let version2 = """
        CREATE TABLE session_series (
            session_id TEXT PRIMARY KEY NOT NULL,
            machine_name TEXT NOT NULL,
            machine_type TEXT NOT NULL,
            finished INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1)),
            created_at INTEGER NOT NULL
        );
        CREATE TABLE session_series_chunks (
            session_id TEXT NOT NULL REFERENCES session_series (session_id) ON DELETE CASCADE,
            chunk INTEGER NOT NULL,
            points TEXT NOT NULL,
            PRIMARY KEY (session_id, chunk)
        ) WITHOUT ROWID;
        """

    /// Checkpoints keyed by session instead of by machine: a finished session the store could
    /// not take keeps its checkpoint while the machine rides its next one (docs/sync.md). The
    /// rows move as they are; the index serves a machine's newest checkpoint.
    private static let version3 = """
        CREATE TABLE checkpoints_by_session (
            session_id TEXT PRIMARY KEY NOT NULL,
            machine_address TEXT NOT NULL,
            snapshot TEXT NOT NULL,
            saved_at INTEGER NOT NULL
        );
        INSERT INTO checkpoints_by_session (session_id, machine_address, snapshot, saved_at)
            SELECT session_id, machine_address, snapshot, saved_at FROM checkpoints WHERE true
            ON CONFLICT (session_id) DO NOTHING;
        DROP TABLE checkpoints;
        ALTER TABLE checkpoints_by_session RENAME TO checkpoints;
        CREATE INDEX checkpoints_by_machine ON checkpoints (machine_address, saved_at);
        """

    /// Dates that are true (contract §5): a session recorded while the wall clock was not known
    /// to be true keeps where it lay on its boot's `CLOCK_BOOTTIME` (`boot_id`, `boot_start` in
    /// milliseconds) and is `waiting` until it can be dated, by a synchronised clock in the same
    /// boot (`true`) or, once the wait is over, as well as can be (`estimated`); waiting
    /// sessions are not uploaded. `wall_clock` is what the daemon last knew of the clock in its
    /// boot, so a restart carries on trusting a clock trusted before it.
    private static let sessionDates = """
        ALTER TABLE sessions ADD COLUMN dates TEXT NOT NULL DEFAULT 'true' CHECK (dates IN ('true', 'waiting', 'estimated'));
        ALTER TABLE sessions ADD COLUMN boot_id TEXT;
        ALTER TABLE sessions ADD COLUMN boot_start INTEGER;
        CREATE TABLE wall_clock (
            singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
            boot_id TEXT NOT NULL,
            offset_ms INTEGER NOT NULL,
            trusted_offset_ms INTEGER,
            trust TEXT,
            updated_at INTEGER NOT NULL
        );
        """

    /// Sessions on a floor of gateways (issue 37). `split_from`: the session a queued session
    /// continues in part, another gateway's that this one could not carry on. `handed_over`:
    /// open sessions another gateway adopted, so this one removed their checkpoints and never
    /// uploads them; kept so that `status` can say which went where.
    private static let floorSessions = """
        ALTER TABLE sessions ADD COLUMN split_from TEXT;
        CREATE TABLE handed_over (
            session_id TEXT PRIMARY KEY NOT NULL,
            machine_address TEXT NOT NULL,
            gateway TEXT NOT NULL,
            handed_over_at INTEGER NOT NULL
        );
        """
}
