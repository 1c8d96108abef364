"""The report: the terminal tables and the self-contained HTML page with its charts."""
