"""FastAPI env servers: one app factory serves any registered env."""
