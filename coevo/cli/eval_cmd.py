"""`coevo eval`: evaluate a policy on tasks of one env, over HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from coevo.cli import app


@app.command("eval")
def evaluate(
    env: str = typer.Option(..., "--env", "-e", help="Env name (see `coevo envs`) or module:Class"),
    policy: str = typer.Option(
        "expert", "--policy", "-p", help="expert | random | smollm2 | DIR | hf:DIR | openai:MODEL[@URL]"
    ),
    split: str = typer.Option(None, "--split", "-s", help="Split to evaluate on (default: the env's test/valid split)"),
    n: int = typer.Option(20, "--n", help="Number of tasks, spread evenly over the split"),
    offset: int = typer.Option(0, help="Skip this many tasks of the split first"),
    samples: int = typer.Option(1, help="Episodes per task"),
    url: list[str] = typer.Option([], "--url", help="Env server URL (repeat for replicas); default: start one locally"),
    option: list[str] = typer.Option([], "--option", "-o", help="Env option key=value for a locally started server"),
    max_rounds: int = typer.Option(None, help="Agent turns per episode (default: the env's max steps)"),
    concurrency: int = typer.Option(16, help="Episodes in flight at once"),
    temperature: float = typer.Option(0.0, help="Sampling temperature (0: greedy)"),
    top_p: float = typer.Option(1.0, help="Nucleus sampling mass"),
    max_new_tokens: int = typer.Option(128, help="Longest reply, in tokens"),
    batch_size: int = typer.Option(16, help="Local models: most prompts per forward pass"),
    max_prompt_tokens: int = typer.Option(2048, help="Local models: prompt budget (oldest turns dropped first)"),
    backend: str = typer.Option(
        "auto",
        help="Local models' engine: auto (llama.cpp on CPU hosts, transformers on GPU hosts) | llamacpp | transformers",
    ),
    seed: int = typer.Option(0, help="Episode seed (and sampling seed)"),
    out: Path = typer.Option(None, "--out", help="Results JSON (default runs/eval/eval-ENV-SPLIT-POLICY.json)"),
    log_file: Path = typer.Option(None, "--log-file", help="Progress log (default: the results file with .log)"),
    export_jsonl: Path = typer.Option(None, help="Also write the trajectories as AgentTraj JSONL"),
    export_hf: Path = typer.Option(None, help="Also write the trajectories as a Hugging Face dataset directory"),
    db_url: str = typer.Option(None, "--db-url", help="SQL store (default $COEVO_DB_URL or ./coevo.db)"),
    no_store: bool = typer.Option(False, "--no-store", help="Do not record trajectories in the SQL store"),
) -> None:
    """Roll a policy out on N tasks and report success rate, reward and steps by task type."""
    import asyncio

    from rich.console import Console

    from coevo.cli.progress import ProgressLog, progress_bar
    from coevo.cli.serve_cmd import parse_options
    from coevo.cli.signals import exit_cleanly_on_sigterm, on_signal
    from coevo.cli.tables import print_table, results_table, slug
    from coevo.client.launcher import env_servers
    from coevo.store.run_recorder import RunRecorder
    from coevo.client.agenttraj import save_hf_dataset, write_jsonl
    from coevo.client.evaluation import eval_split, pick_tasks, results_document, rollout_tasks
    from coevo.client.policies import Sampling, make_policy
    from coevo.client.rollout import sharded_clients
    from coevo.client.summary import summarize

    exit_cleanly_on_sigterm()
    console = Console()
    sampling = Sampling(
        temperature=temperature, top_p=top_p, max_new_tokens=max_new_tokens, seed=None if temperature <= 0 else seed
    )
    with console.status(f"loading policy {policy}"):
        agent = make_policy(
            policy, sampling=sampling, backend=backend, max_batch_size=batch_size, max_prompt_tokens=max_prompt_tokens,
            seed=seed,
        )  # fmt: skip
    on_signal(agent.cancel)  # stop decoding at once, not after the current generation
    recorder = RunRecorder(db_url, enabled=not no_store)

    async def run(base_urls: list[str]) -> tuple[list, dict, str]:
        try:
            return await evaluate_on(base_urls)
        finally:
            await agent.aclose()

    async def evaluate_on(base_urls: list[str]) -> tuple[list, dict, str]:
        async with sharded_clients(base_urls, concurrency) as clients:
            client = clients[0]
            info = await client.info()
            chosen = split or eval_split(info.splits, info.default_split)
            if chosen not in info.splits:
                raise typer.BadParameter(f"unknown split {chosen!r}; {env} has {sorted(info.splits)}")
            tasks = await pick_tasks(client, env, chosen, n, offset)
            config = {
                "env": env, "split": chosen, "n": len(tasks), "samples": samples, "max_rounds": max_rounds,
                "sampling": sampling.__dict__, "seed": seed, "env_version": info.env_version,
            }  # fmt: skip
            run_id = recorder.start(
                name=f"eval {env}/{chosen} {agent.name}", kind="eval", policy=agent.name, config=config
            )
            progress = ProgressLog(log_path(chosen), f"{env}/{chosen} · {agent.name}", len(tasks) * samples)
            console.print(f"progress log: {progress.path}")
            with progress_bar(console) as bar:
                task = bar.add_task(f"{env} · {agent.name}", total=len(tasks) * samples, success="-")

                def on_done(t) -> None:  # type: ignore[no-untyped-def]
                    progress.episode(t.success)
                    bar.update(task, advance=1, success=f"{progress.ok}/{progress.done}")

                try:
                    trajectories = await rollout_tasks(
                        agent, {env: clients}, tasks, samples=samples, seed=seed, max_rounds=max_rounds,
                        concurrency=concurrency, on_done=on_done, run=results_path(chosen).stem,
                    )  # fmt: skip
                finally:
                    progress.close()
            summary = summarize(trajectories)
            recorder.save(run_id, trajectories, summary)
            return trajectories, config, chosen

    def results_path(chosen: str) -> Path:
        return out or Path("runs") / "eval" / f"eval-{slug(env)}-{slug(chosen)}-{slug(agent.name)}.json"

    def log_path(chosen: str) -> Path:
        return log_file or results_path(chosen).with_suffix(".log")

    with env_servers([env], urls={env: url}, options={env: parse_options(option)}, db_url=db_url) as servers:
        trajectories, config, chosen = asyncio.run(run(servers[env]))
    document = results_document(trajectories, policy=agent, config=config)
    from coevo.client.rollout import MAX_INVALID_REPLIES

    print_table(console, results_table(f"{env} · {chosen} · {agent.name}", document["summary"], MAX_INVALID_REPLIES))
    out = results_path(chosen)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document, indent=2, default=str))
    console.print(f"results: {out}")
    if recorder.url:
        console.print(f"trajectories: {recorder.url} (table rollout_trajectories)")
    if export_jsonl:
        write_jsonl(export_jsonl, [t.to_agentgym() for t in trajectories])
        console.print(f"AgentTraj JSONL: {export_jsonl}")
    if export_hf:
        save_hf_dataset(export_hf, [t.to_agentgym() for t in trajectories])
        console.print(f"Hugging Face dataset: {export_hf}")
