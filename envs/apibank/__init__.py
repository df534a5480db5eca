"""API-Bank (Li et al., 2023): tool-use dialogues over a sandbox of 53 level-1/2 APIs and the
level-3 planning APIs, with API-Bank's call and response metrics."""
