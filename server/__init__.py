"""FastAPI env servers: one app factory serves any registered env."""

from coevo.server.app import create_app

__all__ = ["create_app"]
