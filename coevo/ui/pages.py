"""What every UI page shares: the templates (autoescaped: env and agent text is never markup),
the static files, the store's engine opened on first use, and the HTML error pages."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import HTMLResponse

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"


def _pretty(value: Any) -> str:
    """JSON for reading (the template escapes it like any other text)."""
    return json.dumps(value, indent=1, sort_keys=True, default=str, ensure_ascii=False)


def _when(at: datetime | float | None) -> str:
    if at is None:
        return ""
    if isinstance(at, (int, float)):
        at = datetime.fromtimestamp(at)
    return at.strftime("%Y-%m-%d %H:%M:%S")


def _pct(rate: float | None) -> str:
    return "–" if rate is None else f"{100 * rate:.1f}%"


templates = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(["html"], default=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
templates.filters.update(pretty=_pretty, when=_when, pct=_pct, dict_merge=lambda d, **more: {**d, **more})


def render(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """`template` rendered; a router may set `request.state.page` (e.g. the /web pages' static path
    and fixed env), which every page it renders, error pages included, then uses."""
    page = {"static_path": "/static", "list_path": "/episodes", "fixed_env": None}
    page.update(getattr(request.state, "page", {}))
    page.update(context)
    base = request.scope.get("root_path", "")
    html = templates.get_template(template).render(request=request, base=base, **page)
    return HTMLResponse(html, status_code=status_code)


def error_page(request: Request, status_code: int, title: str, message: str) -> HTMLResponse:
    return render(request, "error.html", status_code, title=title, message=message, status=status_code)


class StoreUnreachable(Exception):
    """The SQL store could not be opened or queried; the page says so instead of a traceback."""


class LazyStore:
    """The store's engine, opened at the first page that needs it (a store that is down when
    the UI starts gives an error page, and works once it is back)."""

    def __init__(self, factory: Callable[[], Engine | None], where: str) -> None:
        self._factory = factory
        self.where = where
        self._engine: Engine | None = None
        self._lock = threading.Lock()

    def engine(self) -> Engine:
        with self._lock:
            if self._engine is None:
                try:
                    self._engine = self._factory()
                except SQLAlchemyError as exc:
                    raise StoreUnreachable(f"the store at {self.where} cannot be reached: {exc.__class__.__name__}: "
                                           f"{str(exc).splitlines()[0]}") from None  # fmt: skip
                if self._engine is None:
                    raise StoreUnreachable(f"{self.where} records no episodes")
            return self._engine
