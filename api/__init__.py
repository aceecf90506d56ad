"""The HTTP API (FastAPI) and the `fraylog` command line."""
