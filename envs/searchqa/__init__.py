"""SearchQA: Bamboogle-style two-hop questions answered with a search tool over an offline corpus."""
