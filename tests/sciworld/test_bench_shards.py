"""bench/sciworld.py --shard: N processes sharing one progress file play every game once."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import sciworld  # noqa: E402


def test_shard_spec_reads_i_of_n_and_refuses_the_rest() -> None:
    assert sciworld.shard_spec("1/3") == (1, 3)
    for bad in ("3/3", "-1/2", "1", "a/b", "1/0"):
        with pytest.raises(argparse.ArgumentTypeError, match="--shard takes I/N"):
            sciworld.shard_spec(bad)


def test_shards_partition_every_game() -> None:
    games = [g.task_id for g in sciworld.sample(per_task=2, everything=True)]
    assert len(games) == 4639
    shards = [[g for i, g in enumerate(games) if sciworld.in_shard(i, (k, 3))] for k in range(3)]
    assert sorted(sum(shards, [])) == sorted(games) and len(set(games)) == len(games)
    # Round robin: the first games of every shard span the tasks, so a shard cut short covers them.
    assert len({g.rsplit("-var", 1)[0] for g in shards[2][:23]}) > 10
