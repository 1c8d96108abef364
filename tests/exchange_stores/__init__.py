"""The gateway's store in each database: SQLite embedded, PostgreSQL on loopback."""
