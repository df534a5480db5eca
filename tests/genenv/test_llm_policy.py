"""The LLM environment policy: prompts, parsing of generations, local and endpoint generators."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from coevo.simulator.tasks import build_base_pool
from coevo.models.text_generators import OpenAIGenerator, TransformersGenerator
from coevo.simulator.policies.llm import (
    TASK_HEADER,
    LLMPolicy,
    build_messages,
    difficulty_phrase,
    parse_generation,
    render_example,
)
from coevo.simulator.curriculum_context import CurriculumContext
from coevo.simulator.task_record import SimTask
from coevo.simulator.validity import check

CALL = SimTask(
    "function_calling", "Tools:\nf(x)\n\nRequest: f with x 1", [{"name": "f", "arguments": {"x": 1}}], "tool_call"
)
TEXT = SimTask("searchqa.step", "Who wrote it?", ["Ann Lee"], "exact")


def test_parse_generation_builds_a_task_with_the_base_checker() -> None:
    task = parse_generation(
        "Tools:\nset_alarm(hour)\n\nRequest: wake me at 7\n### Answer\nset_alarm(hour=7)\n",
        CALL,
        "llm:function_calling",
    )
    assert task.checker == "tool_call" and task.answer == [{"name": "set_alarm", "arguments": {"hour": 7}}]
    assert task.prompt.endswith("wake me at 7") and task.family == "llm:function_calling"
    check(task)
    text = parse_generation("### Task\nWhat is the capital of Peru?\n### Answer\nLima\n### Task\nmore", TEXT, "llm:x")
    assert text.answer == ["Lima"] and text.prompt == "What is the capital of Peru?"


@pytest.mark.parametrize(
    "output,reason",
    [
        ("Tools: f(x)\nRequest: f with x 2", "no '### Answer'"),
        ("### Answer\nf(x=1)", "empty task"),
        ("Request: f\n### Answer\n", "empty answer"),
        ("Request: f\n### Answer\nplease call f", "not a function call"),
        ("Request: f\n### Answer\nf(x=y)", "non-literal"),
        ("Request: f\n### Answer\nf(1)", "positional"),
    ],
)
def test_parse_generation_rejects(output: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_generation(output, CALL, "llm:function_calling")


def test_prompt_shows_examples_and_the_difficulty_context() -> None:
    messages = build_messages([CALL, CALL], CurriculumContext(agent_success=0.9))
    user = messages[-1]["content"]
    assert user.count(TASK_HEADER) == 2 and "### Answer\nf(x=1)" in user
    assert "90%" in user and "harder" in user
    assert "easier" in difficulty_phrase(CurriculumContext(agent_success=0.1))
    assert "about as hard" in difficulty_phrase(CurriculumContext(agent_success=0.55))
    assert difficulty_phrase(CurriculumContext()) == ""


def test_the_context_steers_by_its_own_alpha_and_band() -> None:
    """The band is the run's k_min and the target its alpha, not a default the policy keeps."""
    assert "about as hard" in difficulty_phrase(CurriculumContext(agent_success=0.7, alpha=0.5, band=0.25))
    assert "harder" in difficulty_phrase(CurriculumContext(agent_success=0.7, alpha=0.5, band=0.1))
    assert "easier" in difficulty_phrase(CurriculumContext(agent_success=0.5, alpha=0.8))
    assert render_example(TEXT) == "### Task\nWho wrote it?\n### Answer\nAnn Lee"


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    import torch

    from coevo.models.tiny import build_tiny_model

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a tiny model gains nothing from more, and a busy CI box loses much
    pool, _ = build_base_pool(["function_calling"], 8, 0)
    yield build_tiny_model(tmp_path_factory.mktemp("tiny") / "m", corpus=[render_example(t) for t in pool])
    torch.set_num_threads(threads)


def test_local_policy_is_reproducible_and_records_its_context(tiny_dir: Path) -> None:
    pool, _ = build_base_pool(["function_calling"], 8, 0)
    policy = LLMPolicy(TransformersGenerator(tiny_dir), pool, max_new_tokens=24, examples_per_prompt=2)
    a = policy.propose(3, seed=5)
    b = policy.propose(3, seed=5)
    assert [p.output for p in a] == [p.output for p in b]
    for p in a:
        assert len(p.context["base_task_ids"]) == 2 and p.context["messages"][0]["role"] == "system"
        assert (p.task is None) == (p.error is not None)  # a random model mostly fails the parse
    v0 = policy.version
    policy.load(str(tiny_dir))
    assert policy.version != v0


class _Endpoint(BaseHTTPRequestHandler):
    """A stand-in OpenAI-compatible server: records requests, answers with a fixed task."""

    requests: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
        content = "Request: wake me at 6\n### Answer\nset_alarm(hour=6)"
        payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    _Endpoint.requests = []
    server = HTTPServer(("127.0.0.1", 0), _Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


def test_openai_endpoint_gets_the_seed_and_the_prefill(endpoint: str) -> None:
    policy = LLMPolicy(OpenAIGenerator(endpoint, "sim-model", api_key="k"), [CALL], max_new_tokens=50)
    proposals = policy.propose(2, seed=7)
    assert all(
        p.task is not None and p.task.answer == [{"name": "set_alarm", "arguments": {"hour": 6}}] for p in proposals
    )
    sent = sorted(_Endpoint.requests, key=lambda r: r["seed"])
    assert [r["seed"] for r in sent] == [7, 8] and all(r["path"] == "/v1/chat/completions" for r in sent)
    assert sent[0]["auth"] == "Bearer k" and sent[0]["model"] == "sim-model" and sent[0]["max_tokens"] == 50
    assert sent[0]["messages"][-1] == {"role": "assistant", "content": TASK_HEADER}
    assert sent[0]["continue_final_message"] is True


def test_answer_logprobs_equal_the_full_softmax_at_the_answer_positions() -> None:
    """The update takes log-probabilities at the answer's positions only (memory); they must be
    exactly what the vocabulary-wide softmax over every position gives there."""
    import torch

    from coevo.genenv.env_update import _per_row, answer_logprobs

    torch.manual_seed(0)
    logits = torch.randn(3, 7, 11)
    labels = torch.full((3, 7), -100)
    labels[0, 4:] = torch.tensor([1, 2, 3])
    labels[1, 2:] = torch.tensor([4, 5, 6, 7, 8])
    labels[2, 6] = 9
    logp, picked, valid = answer_logprobs(logits, labels)
    full = torch.log_softmax(logits[:, :-1], dim=-1)
    targets = labels[:, 1:]
    expected = full.gather(-1, targets.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    assert (
        valid.sum().item() == picked.shape[0] == logp.shape[0] == 3 + 5 + 1
    )  # every label predicted from the position before it
    assert torch.allclose(picked, expected[valid])
    assert torch.allclose(logp, full[valid])
    sums = _per_row(picked, valid)
    assert torch.allclose(sums, (expected * valid).sum(dim=1))


def test_the_curriculum_context_set_through_admin_reaches_the_prompt(tiny_dir: Path, tmp_path: Path) -> None:
    """set_context (the trainer's typed contract) steers the LLM policy's next prompts, with the
    run's own alpha and band, and is recorded with each generation."""
    from coevo.envs.simulator.env import SimulatorEnv

    shared = SimulatorEnv.load_shared(
        backend="llm",
        llm_model=str(tiny_dir),
        families="function_calling",
        base_sources="function_calling",
        base_size=4,
        heldout_size=0,
        llm_max_new_tokens=8,
        db_url=f"sqlite:///{tmp_path / 'sim.db'}",
    )
    context = CurriculumContext(alpha=0.8, band=0.05, agent_success=0.7)
    answer = SimulatorEnv.admin(shared, "set_context", context.model_dump())
    assert answer["context"] == context.model_dump()
    proposal = shared.policy.propose(1, seed=3)[0]
    assert (
        "70%" in proposal.context["messages"][-1]["content"] and "easier" in proposal.context["messages"][-1]["content"]
    )
    assert proposal.context["difficulty"] == context.model_dump()
    shared.engine.dispose()
