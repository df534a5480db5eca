"""BFCL (Berkeley Function Calling Leaderboard) as an environment, on bfcl-eval's official data.

`env.BfclEnv` is the entry point; `checker` reproduces BFCL's AST checker, `apis` runs the
multi-turn API classes, `calls` reads agent replies without evaluating them.
"""
