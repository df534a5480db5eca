"""The product catalog in SQL (SQLite file by default, PostgreSQL by URL) and its reader.

The tables use their own metadata, not the project store's: a catalog is built once per data
directory (or per database) and opened read-only by every server. Sessions never hold products;
the reader fetches rows by number on demand, with a small process-wide LRU for hot products.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from sqlalchemy import JSON, Engine, Float, Integer, String, Table, Text, create_engine, func, select
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from coevo.envs.webshop.pages import ListedProduct, ShownProduct
from coevo.envs.webshop.scoring import Purchasable

#: WebShop shows no ratings (its review data is not loaded): every product reads "N.A.".
RATING = "N.A."


class CatalogBase(DeclarativeBase):
    """Tables of a WebShop catalog (separate from coevo's store tables)."""

    #: SQLAlchemy types `__table__` as any FromClause; every class here maps a plain Table.
    __table__: ClassVar[Table]


class ProductRow(CatalogBase):
    __tablename__ = "webshop_products"

    idx: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    asin: Mapped[str] = mapped_column(String(16), unique=True, index=True)
    title: Mapped[str] = mapped_column(Text)
    description: Mapped[str] = mapped_column(Text)
    bullet_points: Mapped[list] = mapped_column(JSON)
    price_tag: Mapped[str] = mapped_column(String(64))
    #: The price the reward compares: the single price, or a seeded draw inside a price range.
    price: Mapped[float] = mapped_column(Float)
    options: Mapped[dict] = mapped_column(JSON)  # {name: [value, ...]} in WebShop's order
    attributes: Mapped[list] = mapped_column(JSON)
    category: Mapped[str] = mapped_column(Text)
    query: Mapped[str] = mapped_column(Text)
    product_category: Mapped[str] = mapped_column(Text)
    instruction: Mapped[str | None] = mapped_column(Text, nullable=True)
    instruction_attributes: Mapped[list] = mapped_column(JSON)


class HumanGoalRow(CatalogBase):
    """items_human_ins.json goals, numbered in WebShop's order (products, then instructions)."""

    __tablename__ = "webshop_human_goals"

    idx: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    product_idx: Mapped[int] = mapped_column(Integer)
    instruction: Mapped[str] = mapped_column(Text)
    attributes: Mapped[list] = mapped_column(JSON)
    options: Mapped[list] = mapped_column(JSON)


@dataclass(frozen=True)
class StoredProduct:
    """One catalog row, read-only."""

    idx: int
    asin: str
    title: str
    description: str
    bullet_points: tuple[str, ...]
    price_tag: str
    price: float
    options: dict[str, list[str]]
    attributes: tuple[str, ...]
    category: str
    query: str
    product_category: str
    instruction: str | None
    instruction_attributes: tuple[str, ...]

    def shown(self) -> ShownProduct:
        return ShownProduct(
            self.asin,
            self.title,
            self.price_tag,
            RATING,
            self.options,
            self.description,
            self.bullet_points,
            self.attributes,
            self.category,
            self.query,
            self.product_category,
        )

    def purchasable(self) -> Purchasable:
        return Purchasable(
            self.title, self.query, self.product_category, self.attributes, self.bullet_points, self.description
        )


def _stored(row: Any) -> StoredProduct:
    return StoredProduct(
        row.idx,
        row.asin,
        row.title,
        row.description,
        tuple(row.bullet_points),
        row.price_tag,
        row.price,
        dict(row.options),
        tuple(row.attributes),
        row.category,
        row.query,
        row.product_category,
        row.instruction,
        tuple(row.instruction_attributes or ()),
    )


def catalog_engine(url: str, *, read_only: bool) -> Engine:
    """An engine for a catalog URL; SQLite files open immutable when only read."""
    if url.startswith("sqlite:///") and read_only:
        path = url[len("sqlite:///") :]
        return create_engine(
            f"sqlite:///file:{path}?mode=ro&immutable=1&uri=true",
            connect_args={"check_same_thread": False},
        )
    if url.startswith("sqlite"):
        return create_engine(url, connect_args={"check_same_thread": False})
    return create_engine(url, pool_pre_ping=True, pool_size=4, max_overflow=8)


class Catalog:
    """Read access to a built catalog, shared by all sessions of a process."""

    def __init__(self, url: str, cache_size: int = 4096) -> None:
        self.url = url
        self.engine = catalog_engine(url, read_only=True)
        self._cache: OrderedDict[int, StoredProduct] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        table = ProductRow.__table__
        self._one = select(table)
        self._listing = select(table.c.idx, table.c.asin, table.c.title, table.c.price_tag)
        self._asin = select(table.c.idx)

    def __len__(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(ProductRow.__table__)).scalar_one())

    def product(self, idx: int) -> StoredProduct:
        with self._lock:
            hit = self._cache.get(idx)
            if hit is not None:
                self._cache.move_to_end(idx)
                return hit
        table = ProductRow.__table__
        with self.engine.connect() as conn:
            row = conn.execute(self._one.where(table.c.idx == idx)).one_or_none()
        if row is None:
            raise KeyError(f"no product number {idx}")
        product = _stored(row)
        with self._lock:
            self._cache[idx] = product
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return product

    def listing(self, idxs: Sequence[int]) -> list[ListedProduct]:
        """ASIN, title and price tag of several products, in the given order."""
        if not idxs:
            return []
        table = ProductRow.__table__
        with self.engine.connect() as conn:
            rows = conn.execute(self._listing.where(table.c.idx.in_(list(idxs)))).all()
        by_idx = {r.idx: ListedProduct(r.asin, r.title, r.price_tag) for r in rows}
        return [by_idx[i] for i in idxs]

    def idx_of(self, asin: str) -> int | None:
        table = ProductRow.__table__
        with self.engine.connect() as conn:
            return conn.execute(self._asin.where(table.c.asin == asin)).scalar_one_or_none()

    def prices_and_instructions(self) -> Iterator[tuple[float, bool]]:
        """(price, has an instruction) of every product in catalog order, streamed: what
        AgentGym's per-product draw of synthetic price ceilings reads."""
        table = ProductRow.__table__
        query = select(table.c.price, table.c.instruction.is_not(None)).order_by(table.c.idx)
        with self.engine.connect() as conn:
            for price, has_instruction in conn.execution_options(yield_per=10_000).execute(query):
                yield float(price), bool(has_instruction)

    def human_goal(self, idx: int) -> Any:
        table = HumanGoalRow.__table__
        with self.engine.connect() as conn:
            row = conn.execute(select(table).where(table.c.idx == idx)).one_or_none()
        if row is None:
            raise KeyError(f"no human goal number {idx}")
        return row

    def close(self) -> None:
        self.engine.dispose()
