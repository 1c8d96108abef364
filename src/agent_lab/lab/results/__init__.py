"""The results store: its file, its tables, the rows they hold, and export."""
