"""`coevo ui`: server-rendered pages over what coevo records (the SQL store's episodes, the run
folders' result and metrics files) and over live env servers (health, metrics, play).

Part of the core: it reads the store and speaks the wire protocol over HTTP itself, so env
servers can mount its read-only `/web` pages (`coevo.ui.env_pages`) without knowing any env.
"""
