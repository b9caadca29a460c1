"""Storage: SQLModel tables, engine/session factory, migrations, queries. No Qt."""
